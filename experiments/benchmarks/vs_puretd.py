"""Training speed side by side with PureTD: the same net, the same flags, interleaved.

PureTD (github.com/alexstrehl/backgammon-ai-engine) is the open TD self-play engine this
project's route follows.  This runs its ``train_batch.py`` and ours on the same machine, one
after the other, from the same weights (PureTD's released DMP ``best_models/dmp_256_256_256.pt``,
converted to a checkpoint of ours: the same 196 inputs in another order, the same ReLU layers
and sigmoid output), with the same flags: Adam at ``--lr``, minibatches of 256, one epoch a round,
``--workers`` self-play processes, seed S for both.  Every other setting is each program's
default (ours collects in bf16 where the CPU has AVX512_BF16; PureTD's ``--bf16-collect`` is off
by default and only touches 1-ply targets, ``--puretd-bf16-collect`` turns it on).  Two
workloads:

* ``0-ply``: ``--episodes`` episodes of sampled (0-ply) targets in rounds of ``--episodes-per-round``;
* ``1-ply``: ``--oneply-episodes`` episodes of exact 1-ply targets (every one of the 21 rolls
  after each move) in rounds of ``--oneply-episodes-per-round``.

For each seed and workload the two programs take turns (PureTD first on even pairs, ours first
on odd ones), so load from other programs hits both alike; each run is timed from its process's
start to its exit (imports, workers' start and the final save included), wall clock and CPU
seconds of the process and its children.  With ``--overlap`` both collect the next round while
training this one (ours ``--overlap``, PureTD ``--pipeline-collect``: targets one round staler);
``--ours-workers 1`` with it runs ours with one worker beside its trainer (PureTD's pipeline needs
two or more).

Prints one JSON object last: every run's seconds and episodes/s, and per workload the ratio
PureTD's wall seconds / ours (per pair and of the totals).  Compare ratios within one run on a
quiet machine.  Needs a PureTD checkout with its C engine built:

    git clone https://github.com/alexstrehl/backgammon-ai-engine /tmp/puretd
    (cd /tmp/puretd/c_engine && bash build_unix.sh)
    python experiments/benchmarks/vs_puretd.py --puretd /tmp/puretd
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time

import torch

from tdbg.app import cli
from tdbg.infra import profiling
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import json_text
from tdbg.infra.provenance import file_md5, git_commit
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PURETD_WEIGHTS = os.path.join("best_models", "dmp_256_256_256.pt")


def _puretd_columns() -> list[int]:
    """For each of our 196 inputs, PureTD's index of the same input.  PureTD's layout: the
    mover's 24 points (4 units each, the mover's numbering), bar / 2, off / 15, then the
    opponent's 24 points in the mover's numbering too, bar, off.  Ours (encoding.py): the
    mover's points, the opponent's points in the opponent's own numbering (its point j + 1 is
    the mover's 24 - j), then both bars and offs."""
    mover = list(range(96))
    opponent = [98 + 4 * (23 - j) + u for j in range(24) for u in range(4)]
    return mover + opponent + [96, 97, 194, 195]


PURETD_COLUMN = _puretd_columns()


def puretd_checkpoint(path: str, data: bytes | None = None) -> TDNetwork:
    """A PureTD DMP checkpoint (``hidden_layers.i`` / ``fc_output``, probability output, the
    196-input perspective encoding) as our TDNetwork, the same weights."""
    # data: the file's bytes, already read (so a digest of them names what was converted)
    source = io.BytesIO(data) if data is not None else path
    payload = torch.load(source, map_location="cpu", weights_only=True)
    if (
        not isinstance(payload, dict)
        or "state_dict" not in payload
        or "hidden_sizes" not in payload
    ):
        raise InputError(f"{path}: not a PureTD checkpoint (no hidden_sizes / state_dict)")
    # PureTD's first releases (its documented [256,256,256] among them) predate the
    # output_mode field: probability was then its only head
    output_mode = payload.get("output_mode", "probability")
    if (output_mode, payload.get("encoder_name"), payload.get("input_size")) != (
        "probability",
        "perspective196",
        196,
    ):
        raise InputError(
            f"{path}: only PureTD's DMP nets (probability output, perspective196 inputs) convert"
        )
    model = TDNetwork(
        196, list(payload["hidden_sizes"]), "probability", payload.get("activation", "relu")
    )
    renamed = {
        k.replace("hidden_layers.", "layers.").replace("fc_output.", "head."): v
        for k, v in payload["state_dict"].items()
    }
    renamed["layers.0.weight"] = renamed["layers.0.weight"][:, PURETD_COLUMN]
    model.load_state_dict(renamed)  # raises on a missing or extra tensor
    return model


def timed(cmd: list[str], cwd: str, name: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run, from its start to its exit."""
    c0, w0 = profiling.children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - w0, profiling.children_cpu() - c0
    if proc.returncode != 0:
        raise InputError(
            f"{name} failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-1500:]}"
        )
    return wall, cpu


def seed_list(text: str) -> list[int]:
    try:
        return [cli.seed_arg(t) for t in text.split(",")]
    except Exception:
        raise argparse.ArgumentTypeError(
            f"{text!r}: comma-separated seeds (0 to 4,294,967,295)"
        ) from None


def check_puretd(tree: str) -> None:
    for rel, why in (
        ("train_batch.py", "not a PureTD checkout"),
        (
            os.path.join("c_engine", "libbg_engine.so"),
            f"its C engine is not built (cd {tree}/c_engine && bash build_unix.sh)",
        ),
        (PURETD_WEIGHTS, "its released [256,256,256] DMP weights are missing"),
    ):
        if not os.path.isfile(os.path.join(tree, rel)):
            raise InputError(f"--puretd {tree}: {why} (no {rel})")


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--puretd", required=True, help="a PureTD checkout, its C engine built")
    ap.add_argument(
        "--episodes",
        type=cli.non_negative_int,
        default=15000,
        help="0-ply episodes a run (0: skip)",
    )
    ap.add_argument("--episodes-per-round", type=cli.positive_int, default=200, help="0-ply rounds")
    ap.add_argument(
        "--oneply-episodes",
        type=cli.non_negative_int,
        default=600,
        help="exact 1-ply episodes a run (0: skip)",
    )
    ap.add_argument(
        "--oneply-episodes-per-round", type=cli.positive_int, default=40, help="1-ply rounds"
    )
    ap.add_argument(
        "--workers", type=cli.workers_arg, default=2, help="self-play processes, both programs"
    )
    ap.add_argument(
        "--ours-workers",
        type=cli.workers_arg,
        help="ours with this many instead (e.g. 1 with --overlap: one worker beside the trainer)",
    )
    ap.add_argument(
        "--lr", type=cli.learning_rate, default=1e-4, help="Adam's learning rate, both programs"
    )
    ap.add_argument(
        "--seeds",
        type=seed_list,
        default=[1, 2],
        help="comma-separated: one pair of runs per seed and workload",
    )
    ap.add_argument(
        "--overlap",
        action="store_true",
        help="both collect the next round while training (ours --overlap, PureTD --pipeline-collect)",
    )
    ap.add_argument(
        "--puretd-bf16-collect", action="store_true", help="PureTD's --bf16-collect (1-ply targets)"
    )
    args = ap.parse_args()
    tree = os.path.abspath(args.puretd)
    check_puretd(tree)
    workloads = [
        (name, n, per_round)
        for name, n, per_round in (
            ("0-ply", args.episodes, args.episodes_per_round),
            ("1-ply", args.oneply_episodes, args.oneply_episodes_per_round),
        )
        if n > 0
    ]
    if not workloads:
        ap.error("nothing to run: --episodes and --oneply-episodes are both 0")
    weights = os.path.join(tree, PURETD_WEIGHTS)
    load = os.getloadavg()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        ours_start = os.path.join(tmp, "start.pt")
        model = puretd_checkpoint(weights)
        save_checkpoint(ours_start, model, new_metadata(model, "dmp"))
        for i, seed in enumerate(args.seeds):
            for name, n, per_round in workloads:
                oneply = name == "1-ply"
                common = [
                    "--num-episodes",
                    str(n),
                    "--episodes-per-round",
                    str(per_round),
                    "--lr",
                    str(args.lr),
                    "--seed",
                    str(seed),
                ]
                theirs = [
                    sys.executable,
                    "train_batch.py",
                    "--game-mode",
                    "dmp",
                    "--resume",
                    weights,
                    "--save",
                    os.path.join(tmp, "puretd.pt"),
                    "--log-every",
                    "0",
                    *common,
                    "--workers",
                    str(args.workers),
                    *(["--oneply"] if oneply else []),
                    *(["--pipeline-collect"] if args.overlap else []),
                    *(["--bf16-collect"] if args.puretd_bf16_collect else []),
                ]
                ours = [
                    sys.executable,
                    os.path.join(ROOT, "train_batch.py"),
                    "--resume",
                    ours_start,
                    "--save",
                    os.path.join(tmp, f"ours_{name}_{seed}.pt"),
                    "--quiet",
                    *common,
                    "--workers",
                    str(args.ours_workers or args.workers),
                    *(["--oneply"] if oneply else []),
                    *(["--overlap"] if args.overlap else []),
                ]
                order = [("puretd", theirs, tree), ("ours", ours, ROOT)]
                row = {
                    "workload": name,
                    "seed": seed,
                    "episodes": n,
                    "episodes_per_round": per_round,
                    "first": order[i % 2][0],
                }
                for who, cmd, cwd in order if i % 2 == 0 else order[::-1]:
                    wall, cpu = timed(cmd, cwd, who)
                    row[who] = {
                        "wall_seconds": round(wall, 2),
                        "cpu_seconds": round(cpu, 2),
                        "episodes_per_s": round(n / wall, 2),
                    }
                    print(
                        f"{name} seed {seed}: {who} {wall:.1f} s ({n / wall:.1f} episodes/s)",
                        file=sys.stderr,
                        flush=True,
                    )
                row["ratio"] = round(row["puretd"]["wall_seconds"] / row["ours"]["wall_seconds"], 3)
                runs.append(row)
    summary = {}
    for name, _, _ in workloads:
        rows = [r for r in runs if r["workload"] == name]
        summary[name] = {
            "ratio_per_pair": [r["ratio"] for r in rows],
            "ratio_of_totals": round(
                sum(r["puretd"]["wall_seconds"] for r in rows)
                / sum(r["ours"]["wall_seconds"] for r in rows),
                3,
            ),
        }
    print(
        json_text(
            {
                "benchmark": "vs_puretd",
                "puretd": tree,
                "puretd_commit": git_commit(tree),
                "puretd_weights_md5": file_md5(weights),
                "ours_commit": git_commit(),
                "workers": args.workers,
                "ours_workers": args.ours_workers or args.workers,
                "lr": args.lr,
                "overlap": args.overlap,
                "puretd_bf16_collect": args.puretd_bf16_collect,
                "cpu_count": os.cpu_count(),
                "load_average_before": [round(x, 2) for x in load],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "runs": runs,
                "ratio_puretd_seconds_over_ours": summary,
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
