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

import numpy as np

from tdbg.app import cli
from gnubg_selfplay import dmp_decisions
from tdbg.infra.fileio import json_text


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--decisions", type=cli.positive_int, default=20000)
    p.add_argument("--seed", type=cli.seed_arg, default=7)
    p.add_argument("--below", type=cli.positive_float, nargs="+", default=[0.01, 0.018])
    return p


def gaps(n: int, rng: np.random.Generator) -> np.ndarray:
    out = []
    for _, _, win in dmp_decisions(n, rng):
        top = np.sort(win)[::-1]
        out.append(top[0] - top[1])
    return np.asarray(out)


def main() -> None:
    args = build_parser().parse_args()
    g = gaps(args.decisions, np.random.default_rng(args.seed))
    print(
        json_text(
            {
                "decisions": len(g),
                "seed": args.seed,
                "median_gap": float(np.median(g)),
                "mean_gap": float(g.mean()),
                "share_below": {str(t): float((g < t).mean()) for t in args.below},
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
