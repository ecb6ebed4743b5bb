"""Exact 1-ply self-play speed of this checkout against another one (before / after), interleaved.

Each measurement runs in a fresh Python process whose ``tdbg`` is imported from the checkout
being measured (PYTHONPATH; each needs its C engine built), and the two checkouts take turns,
``--reps`` times (A B A B ...), so load from other programs hits both alike:

* ``collect``: one process collects ``--episodes`` exact 1-ply episodes of the model against
  itself (SelfPlay, ``--parallel-games`` at a time, one torch thread, the collection precision
  train_batch's ``auto`` picks: bf16 where the CPU has AVX512_BF16); the rate is episodes per
  CPU second of that process, so other programs' share of the cores does not count.  The same
  seed gives the same games in both checkouts when their targets agree, and the digests of
  the samples' targets and inputs say whether they do, to the bit.
* ``stage`` (``--stage-episodes`` > 0): a real ``train_batch.py --oneply`` stage on the model
  (a new stage on its weights) with ``--workers`` processes, rounds of ``--episodes-per-round``;
  episodes per wall second and per CPU second (the trainer and its workers), and the digest of
  the saved weights (the same samples and training give the same bits).

Prints one JSON object last: each checkout's rates, the after / before ratio of the medians,
and whether the digests agreed in every pair.

    python experiments/benchmarks/oneply_speed.py --baseline /path/to/checkout-of-main \\
        --model best_models/dmp_256x3.pt --episodes 64 --reps 4 --stage-episodes 200
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

from tdbg.app import cli
from tdbg.infra.fileio import json_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def child_collect(model_path: str, episodes: int, parallel_games: int, seed: int) -> dict:
    """One measurement, in the process whose tdbg is the checkout's (run with --child)."""
    import numpy as np
    import torch

    from tdbg.game.modes import game_mode
    from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup
    from tdbg.net import lowp
    from tdbg.net.model import load_checkpoint

    torch.set_num_threads(1)
    model, meta, _ = load_checkpoint(model_path)
    model.eval()
    mode = game_mode(meta["game_mode"])
    precision, _ = lowp.choose_auto(model)
    sp = SelfPlay(
        model,
        SelfPlaySetup(
            mode,
            replace(
                FP32_COLLECTION,
                oneply=True,
                parallel_games=parallel_games,
                scoring=replace(FP32_COLLECTION.scoring, precision=precision),
            ),
        ),
    )
    sp.collect(2, np.random.default_rng(seed + 1))  # warm-up: buffers grown, weights converted
    c0, w0 = time.process_time(), time.perf_counter()
    out = sp.collect(episodes, np.random.default_rng(seed))
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {
        "episodes": out["stats"]["episodes"],
        "samples": len(out["targets"]),
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "evaluations": out["stats"]["evaluations"],
        "precision": precision,
        "digest": _digest(out["targets"], out["features"]),
    }


def run_collect(tree: str, args, seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": tree, "OMP_NUM_THREADS": "1"}
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        "--model",
        os.path.abspath(args.model),
        "--episodes",
        str(args.episodes),
        "--parallel-games",
        str(args.parallel_games),
        "--seed",
        str(seed),
    ]
    proc = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: collection failed:\n{proc.stderr[-2000:]}")
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    r["episodes_per_cpu_s"] = r["episodes"] / r["cpu_seconds"]
    return r


def run_stage(tree: str, args, seed: int) -> dict:
    """A train_batch.py --oneply stage in ``tree``: its rates and the saved weights' digest."""
    import torch

    from tdbg.infra import (
        profiling,
    )  # (here, not at the top: the --child runs import another tree's tdbg)

    with tempfile.TemporaryDirectory() as tmp:
        save = os.path.join(tmp, "s.pt")
        cmd = [
            sys.executable,
            os.path.join(tree, "train_batch.py"),
            "--resume",
            os.path.abspath(args.model),
            "--new-stage",
            "--oneply",
            "--workers",
            str(args.workers),
            "--num-episodes",
            str(args.stage_episodes),
            "--episodes-per-round",
            str(args.episodes_per_round),
            "--lr",
            "1e-5",
            "--seed",
            str(seed),
            "--save",
            save,
            "--quiet",
        ]
        env = {**os.environ, "PYTHONPATH": tree}
        c0, w0 = profiling.children_cpu(), time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - w0, profiling.children_cpu() - c0
        if proc.returncode != 0:
            raise SystemExit(f"{tree}: train_batch failed:\n{proc.stderr[-2000:]}")
        state = torch.load(save, map_location="cpu", weights_only=True)["state_dict"]
        digest = _digest(*(state[k].numpy() for k in sorted(state)))
    return {
        "episodes": args.stage_episodes,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "episodes_per_s": args.stage_episodes / wall,
        "episodes_per_cpu_s": args.stage_episodes / cpu,
        "digest": digest,
    }


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])


def summarise(pairs: list, key: str) -> dict:
    before = [b[key] for b, _ in pairs]
    after = [a[key] for _, a in pairs]
    return {
        "before": [round(x, 2) for x in before],
        "after": [round(x, 2) for x in after],
        "ratio_of_medians": round(_median(after) / _median(before), 3),
        "ratio_per_pair": [round(a / b, 3) for b, a in zip(before, after, strict=True)],
        "digests_equal": all(b["digest"] == a["digest"] for b, a in pairs),
    }


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument(
        "--baseline", help='the checkout to compare with ("before"), its C engine built; required'
    )
    ap.add_argument(
        "--model", default=os.path.join(ROOT, "best_models", "dmp_256x3.pt"), help="checkpoint"
    )
    ap.add_argument(
        "--episodes",
        type=cli.positive_int,
        default=64,
        help="1-ply episodes per collect measurement",
    )
    ap.add_argument(
        "--parallel-games",
        type=cli.positive_int,
        default=128,
        help="games advanced together (train_batch's default)",
    )
    ap.add_argument(
        "--reps", type=cli.positive_int, default=4, help="measurements per checkout, interleaved"
    )
    ap.add_argument(
        "--stage-episodes",
        type=cli.non_negative_int,
        default=0,
        help="train_batch stage episodes (0: no stages)",
    )
    ap.add_argument(
        "--episodes-per-round", type=cli.positive_int, default=100, help="the stages' rounds"
    )
    ap.add_argument(
        "--workers", type=cli.workers_arg, default=2, help="the stages' self-play workers"
    )
    ap.add_argument(
        "--seed", type=cli.seed_arg, default=0, help="seed of the first pair (then +1 a pair)"
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json_text(child_collect(args.model, args.episodes, args.parallel_games, args.seed)))
        return
    if not args.baseline or not os.path.isdir(os.path.join(args.baseline, "tdbg")):
        ap.error("--baseline must name a checkout of this project (a folder with tdbg/ in it)")
    if not os.path.isfile(args.model):
        ap.error(f"--model: no such checkpoint: {args.model}")
    trees = {"before": os.path.abspath(args.baseline), "after": ROOT}
    load = os.getloadavg()
    collect, stage = [], []
    for rep in range(args.reps):
        seed = args.seed + rep
        pair = {
            name: run_collect(tree, args, seed)
            for name, tree in (
                sorted(trees.items()) if rep % 2 else sorted(trees.items(), reverse=True)
            )
        }
        collect.append((pair["before"], pair["after"]))
        print(
            f"collect rep {rep}: before {pair['before']['episodes_per_cpu_s']:.2f}, after "
            f"{pair['after']['episodes_per_cpu_s']:.2f} episodes/CPU s",
            file=sys.stderr,
            flush=True,
        )
        if args.stage_episodes:
            pair = {
                name: run_stage(tree, args, seed)
                for name, tree in (
                    sorted(trees.items()) if rep % 2 else sorted(trees.items(), reverse=True)
                )
            }
            stage.append((pair["before"], pair["after"]))
            print(
                f"stage rep {rep}: before {pair['before']['episodes_per_s']:.2f}, after "
                f"{pair['after']['episodes_per_s']:.2f} episodes/s",
                file=sys.stderr,
                flush=True,
            )
    before0, after0 = collect[0]
    model = os.path.abspath(args.model)
    result = {
        "benchmark": "oneply_speed",
        "model": os.path.relpath(model, ROOT) if model.startswith(ROOT + os.sep) else model,
        "before": trees["before"],
        "precision": after0["precision"],
        "episodes": args.episodes,
        "parallel_games": args.parallel_games,
        "reps": args.reps,
        "load_average_before": [round(x, 2) for x in load],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "collect_episodes_per_cpu_s": summarise(collect, "episodes_per_cpu_s"),
        "network_rows_per_episode": {
            "before": round(before0["evaluations"] / before0["episodes"]),
            "after": round(after0["evaluations"] / after0["episodes"]),
        },
    }
    if stage:
        result["stage"] = {
            "workers": args.workers,
            "episodes": args.stage_episodes,
            "episodes_per_round": args.episodes_per_round,
            "episodes_per_s": summarise(stage, "episodes_per_s"),
            "episodes_per_cpu_s": summarise(stage, "episodes_per_cpu_s"),
        }
    print(json_text(result))


if __name__ == "__main__":
    cli.run_main(main)
