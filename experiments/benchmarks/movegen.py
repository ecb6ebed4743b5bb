"""Move-generation throughput on one position set, all engines in one run.

Prints one JSON object as its last line.  Rates are (position, roll) inputs per
second; ``results_per_s`` counts resulting positions.  Compare ratios within one
run: these machines are noisy.

    python experiments/benchmarks/movegen.py [--positions 20000] [--chunk 512] [--seed 0]
"""

from __future__ import annotations

import time

import gnubg_nn
import numpy as np

from tdbg.app import cli
from tdbg.game import backgammon_engine as be
from tdbg.game import c_engine
from tdbg.infra.fileio import json_text


def sample_inputs(n: int, seed: int):
    """Positions from random games (C engine), each with a random roll."""
    rng = np.random.default_rng(seed)
    boards = []
    board = be.initial_board()
    ex = c_engine.Expander()
    while len(boards) < n:
        boards.append(board)
        after, _, off = ex.expand(board[None], rng.integers(1, 7, (1, 2)), encode=False)
        nxt = after[rng.integers(off[0], off[1])].astype(np.int64)
        board = be.initial_board() if be.game_result(nxt) else be.swap(nxt)
    return np.array(boards), rng.integers(1, 7, (n, 2))


def timed(fn, min_seconds: float = 1.0):
    """Best-of-repeats seconds per call of fn (at least min_seconds in all)."""
    best, total = float("inf"), 0.0
    while total < min_seconds:
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        best, total = min(best, dt), total + dt
    return best


def main() -> None:
    ap = cli.Parser(description=__doc__)
    ap.add_argument("--positions", type=cli.positive_int, default=20000)
    ap.add_argument(
        "--python-positions",
        type=cli.positive_int,
        default=2000,
        help="subset for the slow Python engine",
    )
    ap.add_argument(
        "--chunk",
        type=cli.positive_int,
        default=512,
        help="inputs per batch call (a self-play step)",
    )
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()

    boards, dice = sample_inputs(args.positions, args.seed)
    blist, dlist = boards.tolist(), dice.tolist()
    n = len(boards)
    n_results = len(c_engine.expand_batch(boards, dice, encode=False)[0])

    def python_engine():
        for b, (d1, d2) in zip(boards[: args.python_positions], dlist, strict=False):
            be.legal_moves(b, d1, d2)

    def c_single():
        for b, (d1, d2) in zip(boards, dlist, strict=True):
            c_engine.legal_moves(b, d1, d2)

    ex = c_engine.Expander()
    b8, d8 = boards.astype(np.int8), dice.astype(np.int8)

    def c_batch(encode):
        def run():
            for s in range(0, n, args.chunk):
                ex.expand(b8[s : s + args.chunk], d8[s : s + args.chunk], encode=encode)

        return run

    def gnubg_moves():
        for b, (d1, d2) in zip(blist, dlist, strict=True):
            gnubg_nn.moves(b, d1, d2)

    def gnubg_moves_boards():  # the same output as ours: the resulting boards
        for b, (d1, d2) in zip(blist, dlist, strict=True):
            [gnubg_nn.board_from_position_key(k) for k in gnubg_nn.moves(b, d1, d2)]

    rates = {
        "python_engine": args.python_positions / timed(python_engine),
        "c_engine_single_call": n / timed(c_single),
        "c_batch_no_encoding": n / timed(c_batch(False)),
        "c_batch_with_encoding": n / timed(c_batch(True)),
        "gnubg_nn_moves": n / timed(gnubg_moves),
        "gnubg_nn_moves_plus_boards": n / timed(gnubg_moves_boards),
    }
    out = {
        "benchmark": "movegen",
        "positions": n,
        "chunk": args.chunk,
        "seed": args.seed,
        "mean_results_per_input": n_results / n,
        "inputs_per_s": {k: round(v) for k, v in rates.items()},
        "c_batch_with_encoding_results_per_s": round(
            rates["c_batch_with_encoding"] * n_results / n
        ),
        "ratio_c_batch_encoding_vs_gnubg_nn_moves": round(
            rates["c_batch_with_encoding"] / rates["gnubg_nn_moves"], 2
        ),
        "ratio_c_batch_encoding_vs_gnubg_nn_moves_plus_boards": round(
            rates["c_batch_with_encoding"] / rates["gnubg_nn_moves_plus_boards"], 2
        ),
        "ratio_c_single_vs_python": round(
            rates["c_engine_single_call"] / rates["python_engine"], 1
        ),
    }
    print(json_text(out))


if __name__ == "__main__":
    cli.run_main(main)
