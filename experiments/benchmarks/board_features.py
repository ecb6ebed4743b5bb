"""What the board features (features.py) cost in self-play, in one run.

The same DMP network with and without the 20 board-feature inputs (the feature columns
at zero weight, so both play the same games from the same seeds) collects ``--round``
episodes, alternating ``--reps`` times in the same ``--workers`` processes (one torch
thread each); the features are computed by numpy per candidate (features.board_features)
and added to the C engine's incremental first layer.  Also times board_features alone
per board.  Prints one JSON object last; compare the ratio, not the rates.

    python experiments/benchmarks/board_features.py --hidden 512,512,256 --reps 3
"""

from __future__ import annotations

from dataclasses import replace
import time

import numpy as np
import torch

from tdbg.app import cli
from tdbg.game import backgammon_engine as be
from tdbg.game.features import board_features
from tdbg.net.model import TDNetwork, parse_hidden
from tdbg.game.modes import game_mode
from tdbg.net.net_growth import add_board_features
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup
from tdbg.infra import threads
from tdbg.infra.fileio import json_text


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", type=cli.hidden_text, default="512,512,256")
    ap.add_argument("--workers", type=cli.workers_arg, default=1)
    ap.add_argument("--reps", type=cli.positive_int, default=3)
    ap.add_argument("--round", type=cli.positive_int, default=200)
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    raw = TDNetwork(196, parse_hidden(args.hidden), "probability")
    models = {"raw": raw, "features": add_board_features(raw)}
    # what train_batch.py gets by default with these workers and this net (tdbg.infra.threads)
    chosen = threads.use(
        None, args.workers if args.workers > 1 else 0, sum(p.numel() for p in raw.parameters())
    )
    collector = Collector(
        SelfPlaySetup(
            game_mode("dmp"),
            replace(FP32_COLLECTION, parallel_games=100, workers=args.workers),
            engine="c",
        )
    )
    acc = {k: {"episodes": 0, "seconds": 0.0, "evaluations": 0} for k in models}
    try:
        collector.collect(
            TDNetwork(196, [8]), args.workers, np.random.SeedSequence(args.seed)
        )  # start workers
        for rep in range(args.reps):
            for name in list(models) if rep % 2 == 0 else list(models)[::-1]:
                t0 = time.perf_counter()
                data = collector.collect(
                    models[name], args.round, np.random.SeedSequence([args.seed, rep])
                )
                acc[name]["seconds"] += time.perf_counter() - t0
                acc[name]["episodes"] += data["stats"]["episodes"]
                acc[name]["evaluations"] += data["stats"]["evaluations"]
    finally:
        collector.close()
    boards = np.repeat(be.initial_board()[None], 20000, axis=0)
    t0 = time.perf_counter()
    board_features(boards)
    per_board = (time.perf_counter() - t0) / len(boards)
    rates = {
        k: {
            "episodes_per_s": round(a["episodes"] / a["seconds"], 2),
            "evals_per_s": round(a["evaluations"] / a["seconds"]),
        }
        for k, a in acc.items()
    }
    print(
        json_text(
            {
                **chosen,
                "benchmark": "board_features",
                "hidden": args.hidden,
                "workers": args.workers,
                "reps": args.reps,
                "round": args.round,
                "rates": rates,
                "features_over_raw_episodes": round(
                    rates["features"]["episodes_per_s"] / rates["raw"]["episodes_per_s"], 3
                ),
                "board_features_us_per_board": round(per_board * 1e6, 2),
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
