"""bf16 vs fp32 inference on this CPU, and the incremental vs dense first layer for each
hidden activation, in one run.

1. dtype: the scorer's network pass (from the first hidden layer on, blocks of
   scoring.CPU_BLOCK rows, as self-play and play run it) in float32 and in bfloat16
   (weights and activations), same rows, alternating ``--reps`` times.  Also the
   largest output difference bf16 makes.
2. activation: Scorer.score over the same (board, dice) pairs with the incremental and
   the dense first layer, for relu and sigmoid (whose incremental path has the C engine
   hand back pre-activations and torch apply the sigmoid).

Ratios are within one run (fp32 / bf16 time, dense / incremental time).  One torch
thread.  Prints one JSON object last.

    python experiments/benchmarks/inference_dtype.py --hidden 512,512,256,256 --reps 5
"""

from __future__ import annotations

from dataclasses import replace
import time

import numpy as np
import torch

from tdbg.app import cli
from tdbg.game import backgammon_engine as be
from tdbg.net.model import TDNetwork, parse_hidden
from tdbg.game.modes import game_mode
from tdbg.net.scoring import CPU_BLOCK, Scorer, ScoringSettings
from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup
from tdbg.infra import threads
from tdbg.infra.fileio import json_text


def random_positions(n: int, rng: np.random.Generator) -> np.ndarray:
    """Positions (row 1 on roll) met in games of uniformly random legal moves."""
    out, b = [], be.initial_board()
    while len(out) < n:
        out.append(b)
        moves = be.legal_moves(b, *map(int, rng.integers(1, 7, 2)))
        after = moves[rng.integers(len(moves))][1] if moves else b
        b = be.initial_board() if after[1].sum() == 0 else be.swap(after)
    return np.array(out, dtype=np.int64)


@torch.inference_mode()
def _pass(model, rows: torch.Tensor) -> torch.Tensor:
    return torch.cat(
        [model.from_first_hidden(rows[s : s + CPU_BLOCK]) for s in range(0, len(rows), CPU_BLOCK)]
    )


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hidden", type=cli.hidden_text, default="512,512,256,256")
    p.add_argument(
        "--rows", type=cli.positive_int, default=8192, help="candidate rows per timed pass"
    )
    p.add_argument(
        "--positions",
        type=cli.positive_int,
        default=400,
        help="(board, dice) pairs per scoring pass",
    )
    p.add_argument("--reps", type=cli.positive_int, default=5)
    args = p.parse_args()
    chosen = threads.use()  # what a user's run gets by default (tdbg.infra.threads)
    torch.manual_seed(0)
    hidden = parse_hidden(args.hidden)
    mode = game_mode("dmp")
    model = TDNetwork(196, hidden, "probability").eval()
    # realistic rows: first-layer activations of positions met in self-play
    games = SelfPlay(
        model, SelfPlaySetup(mode, replace(FP32_COLLECTION, parallel_games=32), engine="c")
    ).collect(40, np.random.default_rng(1))
    feats = torch.from_numpy(games["features"][: args.rows])
    with torch.inference_mode():
        rows32 = torch.relu(model.layers[0](feats))
    low = TDNetwork(196, hidden, "probability").eval()
    low.load_state_dict(model.state_dict())
    low = low.to(torch.bfloat16)
    rows16 = rows32.to(torch.bfloat16)
    times = {"fp32": [], "bf16": []}
    for _ in range(args.reps):
        for name, m, r in (("fp32", model, rows32), ("bf16", low, rows16)):
            t0 = time.perf_counter()
            out = _pass(m, r)
            times[name].append(time.perf_counter() - t0)
            if name == "bf16":
                diff = float((out.float() - _pass(model, rows32)).abs().max())
    dtype = {k: round(len(rows32) * len(v) / sum(v)) for k, v in times.items()}

    rng = np.random.default_rng(2)
    boards = random_positions(args.positions, rng)
    dice = rng.integers(1, 7, (len(boards), 2))
    act = {}
    for activation in ("relu", "sigmoid"):
        net = TDNetwork(196, hidden, "probability", activation).eval()
        scorers = {
            fl: Scorer(net, mode, "c", scoring=ScoringSettings(first_layer=fl))
            for fl in ("incremental", "dense")
        }
        t = {fl: 0.0 for fl in scorers}
        for _ in range(args.reps):
            for fl, sc in scorers.items():
                t0 = time.perf_counter()
                sc.score(boards, dice)
                t[fl] += time.perf_counter() - t0
        act[activation] = {
            "incremental_per_s": round(args.reps * len(boards) / t["incremental"], 1),
            "dense_per_s": round(args.reps * len(boards) / t["dense"], 1),
            "dense_over_incremental_time": round(t["dense"] / t["incremental"], 3),
        }
    print(
        json_text(
            {
                **chosen,
                "hidden": hidden,
                "rows": len(rows32),
                "reps": args.reps,
                "rows_per_s": dtype,
                "fp32_over_bf16_time": round(sum(times["fp32"]) / sum(times["bf16"]), 3),
                "bf16_max_abs_diff": diff,
                "decisions_per_s_by_activation": act,
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
