"""1-ply training episodes/s, exact against filtered (--oneply-filter K), in one run.

Each arm runs rounds as batch_td.BatchLearner does with ``--oneply`` (one process, one
torch thread): collect ``--episodes`` self-play episodes with 1-ply targets, one training
epoch of the main network on their samples, and for the filtered arms one pass of the
filter over its share of the round's rows (filter_training.ROUND_SHARE).  Every round starts from the same weights (the checkpoint's,
and the filter warmed up once by filter_training.warm_up), with the same dice per rep;
the arms (exact and each K, for each of ``--precisions``) are interleaved, their order
alternating, over ``--reps`` reps; ratios are to the first precision's exact arm.  Reports per arm
episodes per wall second and per CPU second of this process (the one to quote on a shared
machine: another program's share of the core does not count), main-network rows per
episode, where the time went, and the ratios to exact; last line one JSON object.

    python experiments/benchmarks/move_filter_speed.py \
        --model experiments/retraining/strength/s2_256x3.pt --ks 2,3,4,6 --episodes 20 --reps 3 [--precisions fp32,bf16]

A K written with an ``r`` (``--ks 8,8r``) is that K with ``--filter-exact-races`` (every
candidate of positions with no contact left valued in full).
"""

from __future__ import annotations

from dataclasses import replace
import copy
import sys
import time

import numpy as np
import torch

from tdbg.app import cli
from tdbg.game.modes import game_mode
from tdbg.learn import filter_training
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup
from tdbg.learn.stage_settings import Optimisation
from tdbg.learn.trainer import Trainer
from tdbg.net.model import TDNetwork, load_checkpoint, move_filter_of, parse_hidden, set_move_filter
from tdbg.net.move_filter import FILTER_HIDDEN, new_filter
from tdbg.play.players import checkpoint_mode_name
from tdbg.infra import threads
from tdbg.infra.fileio import json_text


def one_round(
    base, mode, k: int, episodes: int, seed: int, precision: str = "fp32", races: bool = False
) -> dict:
    """A BatchLearner round with --oneply (--oneply-filter k, --filter-exact-races with
    ``races``) from ``base``'s weights."""
    model = copy.deepcopy(base)
    set_move_filter(model, copy.deepcopy(move_filter_of(base)))
    rng = np.random.default_rng(seed)
    trainer = Trainer(model, Optimisation(batch_size=256), 1e-4)
    ftrainer = filter_training.FilterTrainer(move_filter_of(model), rng) if k else None
    collector = Collector(
        SelfPlaySetup(
            mode,
            replace(
                FP32_COLLECTION,
                oneply=True,
                parallel_games=128,
                oneply_filter=k,
                scoring=replace(FP32_COLLECTION.scoring, precision=precision),
                filter_exact_races=races,
                workers=1,
            ),
        )
    )
    t0, c0 = time.perf_counter(), time.process_time()
    model.eval()
    data = collector.collect(model, episodes, np.random.SeedSequence(seed))
    t_collect = time.perf_counter() - t0
    trainer.train_epoch(data["features"], data["targets"], rng)
    t_train = time.perf_counter() - t0 - t_collect
    if ftrainer is not None:
        ftrainer.fit(data["filter"], share=filter_training.ROUND_SHARE)
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0
    collector.close()
    st = data["stats"]
    return {
        "seconds": secs,
        "cpu_seconds": cpu,
        "collect_seconds": t_collect,
        "train_seconds": t_train,
        "filter_seconds": secs - t_collect - t_train,
        "episodes": st["episodes"],
        "evaluations": st["evaluations"],
        "engine_seconds": st["engine_seconds"],
        "net_seconds": st["net_seconds"],
    }


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--model",
        default="experiments/retraining/strength/s2_256x3.pt",
        help="a checkpoint, or 'fresh:256,256,256' for untrained DMP weights",
    )
    ap.add_argument(
        "--ks",
        default="2,4,8",
        help="the filter's K of each filtered arm; K followed by r: with --filter-exact-races",
    )
    ap.add_argument(
        "--precisions",
        default="fp32",
        help="collection precisions (train_batch --collect-precision), each with exact and every K",
    )
    ap.add_argument("--episodes", type=cli.positive_int, default=30, help="episodes per round")
    ap.add_argument("--reps", type=cli.positive_int, default=3)
    ap.add_argument(
        "--warmup",
        type=cli.positive_int,
        default=200,
        help="0-ply episodes to warm the filter up on (speed does "
        "not depend on its quality: K rows a roll whatever it ranks)",
    )
    ap.add_argument(
        "--filter-hidden",
        type=cli.positive_int,
        default=FILTER_HIDDEN,
        help="the warmed-up filter's hidden units",
    )
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()
    if args.model.startswith("fresh:"):
        torch.manual_seed(args.seed)
        model, mode = TDNetwork(196, parse_hidden(args.model[6:]), "probability"), game_mode("dmp")
    else:
        model, meta, _ = load_checkpoint(args.model)
        mode = game_mode(checkpoint_mode_name(model, meta))
    model.eval()
    # what train_batch.py with one worker gets by default for this net (tdbg.infra.threads)
    chosen = threads.use(None, 0, sum(p.numel() for p in model.parameters()))
    if move_filter_of(model) is None:
        set_move_filter(model, new_filter(model, args.filter_hidden))
        warm = Collector(
            SelfPlaySetup(
                mode, replace(FP32_COLLECTION, parallel_games=128, workers=1), record_filter=True
            )
        )
        note = filter_training.warm_up(
            model,
            warm,
            args.warmup,
            np.random.SeedSequence([args.seed, 1]),
            filter_training.FilterTrainer(move_filter_of(model), np.random.default_rng(args.seed)),
        )
        warm.close()
        print(note, file=sys.stderr, flush=True)
    try:
        ks = [(int(k.rstrip("r")), k.endswith("r")) for k in args.ks.split(",")]
    except ValueError:
        raise cli.UsageError(
            f"--ks {args.ks!r}: expected K or Kr, comma-separated (e.g. 3,8,8r)"
        ) from None
    arms = [(k, races, p) for p in args.precisions.split(",") for k, races in [(0, False)] + ks]
    for k, races, p in arms[:: max(1, len(arms) // 2)]:
        one_round(model, mode, k, 2, args.seed, p, races)  # warm caches and lazy imports
    acc = {arm: {} for arm in arms}
    for rep in range(args.reps):
        for arm in arms if rep % 2 == 0 else arms[::-1]:
            k, races, precision = arm
            r = one_round(model, mode, k, args.episodes, args.seed + 1 + rep, precision, races)
            for name, v in r.items():
                acc[arm][name] = acc[arm].get(name, 0) + v
            print(
                json_text(
                    {
                        "rep": rep,
                        "k": f"{k}{'r' if races else ''}",
                        "precision": precision,
                        "episodes_per_s": round(r["episodes"] / r["seconds"], 3),
                        "episodes_per_cpu_s": round(r["episodes"] / r["cpu_seconds"], 3),
                    }
                ),
                file=sys.stderr,
                flush=True,
            )
    out = {}
    for arm in arms:
        k, races, precision = arm
        a = acc[arm]
        out[
            ("exact" if k == 0 else f"k{k}{'r' if races else ''}")
            + ("" if precision == "fp32" else f"_{precision}")
        ] = {
            "episodes_per_s": a["episodes"] / a["seconds"],
            "episodes_per_cpu_s": a["episodes"] / a["cpu_seconds"],
            "rows_per_episode": a["evaluations"] / a["episodes"],
            "collect_share": a["collect_seconds"] / a["seconds"],
            "train_share": a["train_seconds"] / a["seconds"],
            "filter_train_share": a["filter_seconds"] / a["seconds"],
            "engine_share_of_collect": a["engine_seconds"] / a["collect_seconds"],
            "net_share_of_collect": a["net_seconds"] / a["collect_seconds"],
        }
    first = next(iter(out))  # the first precision's exact arm
    base, base_cpu = out[first]["episodes_per_s"], out[first]["episodes_per_cpu_s"]
    for v in out.values():
        v["speedup"] = v["episodes_per_s"] / base
        v["speedup_cpu"] = (
            v["episodes_per_cpu_s"] / base_cpu
        )  # the figure to quote on a shared machine
    print(
        json_text(
            {
                **chosen,
                "benchmark": "move_filter_speed",
                "model": args.model,
                "hidden": list(model.hidden),
                "filter": list(move_filter_of(model).hidden),
                "episodes_per_round": args.episodes,
                "reps": args.reps,
                "threads": 1,
                "arms": {n: {a: round(b, 4) for a, b in v.items()} for n, v in out.items()},
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
