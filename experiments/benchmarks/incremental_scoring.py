"""Incremental vs dense first layer in self-play and in train_batch's rounds, in one run.

For each net (DMP, 196 inputs) and ply, train_batch's rounds as training_loop
runs them: collect ``--round`` episodes with a ``Collector`` of ``--workers``
processes (one torch thread each), then one epoch of training in the parent; both
modes play the same net from the same seeds (so the same games) and train a copy.  selfplay =
the collection alone, train_batch = the whole round.  The two modes alternate in
the same worker processes, ``--reps`` rounds each, so load from other programs
hits both alike; compare the ratios.
Time split (summed over workers): engine = C move generation plus encoding (dense)
or plus the first-layer sums (incremental); net = torch forward (dense: whole,
incremental: from the first hidden layer on); other = the rest of the
workers' collect time (Python bookkeeping); train_share = the training epoch's
share of a round.  Prints one JSON object last.

    python experiments/benchmarks/incremental_scoring.py --reps 3
"""

from __future__ import annotations

from dataclasses import replace
import copy
import sys
import time

import numpy as np
import torch

from tdbg.app import cli
from tdbg.net.model import TDNetwork, parse_hidden
from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup
from tdbg.learn.stage_settings import Optimisation
from tdbg.learn.trainer import Trainer
from tdbg.infra import threads
from tdbg.infra.fileio import json_text

MODES = ("incremental", "dense")


def _add(acc: dict, stats: dict, seconds: float) -> None:
    for k in ("episodes", "evaluations", "engine_seconds", "net_seconds", "collect_seconds"):
        acc[k] = acc.get(k, 0) + stats[k]
    acc["seconds"] = acc.get("seconds", 0) + seconds


def _rates(acc: dict) -> dict:
    busy = max(acc["collect_seconds"], 1e-9)  # the workers' collect time, summed
    out = {
        "episodes_per_s": round(acc["episodes"] / acc["seconds"], 2),
        "evals_per_s": round(acc["evaluations"] / acc["seconds"]),
        "time_split": {
            "engine": round(acc["engine_seconds"] / busy, 3),
            "net": round(acc["net_seconds"] / busy, 3),
            "other": round(1 - (acc["engine_seconds"] + acc["net_seconds"]) / busy, 3),
        },
    }
    if "train_seconds" in acc:
        out["train_share"] = round(acc["train_seconds"] / acc["seconds"], 3)
    return out


def measure(collector: Collector, hidden, oneply: bool, args, seed: int) -> dict:
    torch.manual_seed(seed)
    model = TDNetwork(196, hidden, "probability")
    round_size = args.round_oneply if oneply else args.round
    collector.oneply = oneply
    selfplay = {m: {} for m in MODES}
    train = {m: {"train_seconds": 0.0} for m in MODES}
    rng = np.random.default_rng(seed)
    for rep in range(args.reps):
        for mode in MODES if rep % 2 == 0 else MODES[::-1]:
            collector.first_layer = mode
            # both modes play from the same weights and seeds, so the same games (ties
            # aside: game lengths vary a lot), and train a copy of those weights
            trained = copy.deepcopy(model)
            trainer = Trainer(trained, Optimisation(batch_size=256), 1e-4, "cpu")
            t0 = time.perf_counter()  # one train_batch round: collect, then an epoch of training
            data = collector.collect(model, round_size, np.random.SeedSequence([seed, rep]))
            t1 = time.perf_counter()
            trainer.train_epoch(data["features"], data["targets"], rng)
            t2 = time.perf_counter()
            _add(selfplay[mode], data["stats"], t1 - t0)
            train[mode]["train_seconds"] += t2 - t1
            _add(train[mode], data["stats"], t2 - t0)
    out = {"hidden": hidden, "ply": int(oneply)}
    for part, acc in (("selfplay", selfplay), ("train_batch", train)):
        r = {m: _rates(acc[m]) for m in MODES}
        r["speedup_episodes"] = round(
            r["incremental"]["episodes_per_s"] / r["dense"]["episodes_per_s"], 3
        )
        r["speedup_evals"] = round(r["incremental"]["evals_per_s"] / r["dense"]["evals_per_s"], 3)
        out[part] = r
    return out


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--hidden", type=cli.hidden_text, nargs="+", default=["128,128", "256,256", "256,256,256"]
    )
    ap.add_argument(
        "--plies", default="0,1", help="0-ply (sampled TD) and/or 1-ply (--oneply) self-play"
    )
    ap.add_argument("--workers", type=cli.workers_arg, default=2)
    ap.add_argument("--reps", type=cli.positive_int, default=3, help="rounds per mode, alternating")
    ap.add_argument(
        "--round", type=cli.positive_int, default=500, help="train_batch round, 0-ply (its default)"
    )
    ap.add_argument(
        "--round-oneply", type=cli.positive_int, default=32, help="train_batch round, 1-ply"
    )
    ap.add_argument(
        "--train-threads",
        type=cli.positive_int,
        default=None,
        help="torch threads of the training step (default: train_batch.py's, tdbg.infra.threads: "
        "one for these nets)",
    )
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()
    chosen = threads.use(args.train_threads, args.workers if args.workers > 1 else 0, None)
    plies = [int(p) for p in args.plies.split(",")]
    collector = Collector(
        SelfPlaySetup(
            game_mode("dmp"),
            replace(FP32_COLLECTION, parallel_games=128, workers=args.workers),
            engine="c",
        )
    )
    results = []
    try:
        collector.collect(
            TDNetwork(196, [8]), args.workers, np.random.SeedSequence(args.seed)
        )  # start workers
        for text in args.hidden:
            for ply in plies:
                res = measure(collector, parse_hidden(text), bool(ply), args, args.seed)
                print(json_text(res), file=sys.stderr, flush=True)
                results.append(res)
    finally:
        collector.close()
    print(
        json_text(
            {
                **chosen,
                "benchmark": "incremental_scoring",
                "workers": args.workers,
                "train_threads": args.train_threads,
                "reps": args.reps,
                "round": args.round,
                "round_oneply": args.round_oneply,
                "torch_threads_per_worker": 1,
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
