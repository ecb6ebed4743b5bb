"""Rollout throughput: trials/s of tools/rollout.py's engine from the opening position,
with and without the luck adjustment (which scores all 21 rolls at every ply), in
one process, and the luck-adjusted run again over ``--workers`` processes.  Also
reports the standard-error factor of the luck adjustment on these trials.  Prints
one JSON object as its last line.

    python experiments/benchmarks/rollout_throughput.py [--model best_models/dmp_256x2.pt] [--trials 144]
"""

from __future__ import annotations

import os
import time


from tdbg.app import cli
from tdbg.game import backgammon_engine as be
from tdbg.play.rollout import RolloutSettings, rollout_outcomes, summarize
from tdbg.infra import threads
from tdbg.infra.fileio import json_text


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--model",
        default=os.path.join(os.path.dirname(__file__), "..", "..", "best_models", "dmp_256x2.pt"),
    )
    ap.add_argument("--trials", type=cli.positive_int, default=144)
    ap.add_argument("--truncate", type=cli.non_negative_int, default=0)
    ap.add_argument("--workers", type=cli.workers_arg, default=2)
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()
    chosen = threads.use()  # what a user's run gets by default (tdbg.infra.threads)
    roller = RolloutSettings(args.model, args.trials).roller()
    start = be.initial_board()[None]
    out = {
        **chosen,
        "model": os.path.basename(args.model),
        "trials": args.trials,
        "truncate": args.truncate,
    }
    for name, luck, workers in (
        ("plain_1proc", False, 1),
        ("luck_1proc", True, 1),
        ("luck_workers", True, args.workers),
    ):
        t0 = time.perf_counter()
        rollout = RolloutSettings(
            args.model,
            args.trials,
            game_mode=roller.mode.name,
            truncate=args.truncate,
            seed=args.seed,
            use_luck=luck,
            workers=workers,
        )
        o = rollout_outcomes(rollout, start, roller=roller)[0]
        seconds = time.perf_counter() - t0
        out[f"{name}_trials_per_s"] = round(args.trials / seconds, 2)
        if luck and workers == 1:
            out["se_factor"] = round(summarize(o, roller.mode)["se_factor"], 2)
    out["luck_cost"] = round(out["plain_1proc_trials_per_s"] / out["luck_1proc_trials_per_s"], 2)
    out["workers"] = args.workers
    out["worker_speedup"] = round(
        out["luck_workers_trials_per_s"] / out["luck_1proc_trials_per_s"], 2
    )
    print(json_text(out))


if __name__ == "__main__":
    cli.run_main(main)
