#!/usr/bin/env python3
"""How close are the best and second-best moves in DMP?  gnubg-nn plays DMP against itself
(the highest 0-ply P(win), as agents.GnubgNNAgent) and, at every decision with a choice, the
gap between its best and second-best candidates' P(win) is recorded.  A value network must
rank candidates within these gaps to play gnubg's move (experiments/limits/README.md).

    python experiments/limits/candidate_gaps.py --decisions 20000 --seed 7

Prints one JSON object: the decisions, the median and mean gap, and the share of gaps below
each --below threshold.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)

import cli  # noqa: E402

START = [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]] * 2


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--decisions", type=cli.positive_int, default=20000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--below", type=cli.positive_float, nargs="+", default=[0.01, 0.018])
    return p


def gaps(n: int, rng: np.random.Generator) -> np.ndarray:
    from agents import GnubgNNAgent
    from modes import game_mode
    agent = GnubgNNAgent(game_mode("dmp"))
    out, board = [], [list(r) for r in START]
    while len(out) < n:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        after, probs = agent.candidates(board, d1, d2)
        if not after:  # dance
            board = [board[1], board[0]]
            continue
        pick = 0
        if probs is not None:
            win = np.sort(probs[:, 0])[::-1]
            out.append(win[0] - win[1])
            pick = int(np.argmax(probs[:, 0]))
        chosen = after[pick]
        board = [list(r) for r in START] if sum(chosen[1]) == 0 else [list(chosen[1]), list(chosen[0])]
    return np.asarray(out)


def main() -> None:
    args = build_parser().parse_args()
    g = gaps(args.decisions, np.random.default_rng(args.seed))
    print(json.dumps({"decisions": len(g), "seed": args.seed, "median_gap": float(np.median(g)),
                      "mean_gap": float(g.mean()), "share_below": {str(t): float((g < t).mean()) for t in args.below}}))


if __name__ == "__main__":
    cli.run_main(main)
