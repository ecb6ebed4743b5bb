#!/usr/bin/env python3
"""Draw (position, roll) decisions from gnubg-nn self-play and roll out their candidate
moves with gnubg-nn: the data of experiments/benchmarks/decision_error.py.

    python experiments/benchmarks/decisions/make_decisions.py --out decisions.json --decisions 1100 --workers 2

Each chunk of decisions (``--mix`` per class: contact, crashed, race by gnubg's own
classify) is drawn from its own seeded gnubg-nn self-play games (cubeless money, 0-ply);
the candidates of a decision are the ``--top`` moves by gnubg-nn 1-ply within
``--window`` equity of the best (a decision needs two), rolled out by gnubg-nn for
``--trials`` games each on the same stratified dice, luck-adjusted, truncated after
``--truncate`` plies and scored there by gnubg-nn 0-ply (decisions.py has the details).
Chunks are written to ``--chunks`` as they finish (atomically); rerunning the same
command skips finished chunks, and ``--time-budget`` stops starting chunks that would
not finish in time.  ``--out`` is then (re)written from every finished chunk, with a
provenance header (command, seed, commit, settings, chunks, CPU time, standard errors).
"""

from __future__ import annotations

import os
import shlex
import sys
import time

from tdbg.app import cli
from tdbg.infra.fileio import json_text


def mix_arg(text: str) -> dict:
    """contact=6,crashed=2,race=2"""
    try:
        pairs = [part.split("=") for part in text.split(",")]
        return {name.strip(): int(count) for name, count in pairs}
    except ValueError:
        raise cli.argparse.ArgumentTypeError(
            f"expected e.g. contact=6,crashed=2,race=2, got {text!r}"
        ) from None


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--out", required=True, help="the decision file (JSON) to write from the finished chunks"
    )
    p.add_argument(
        "--chunks", help="folder of per-chunk results (default: OUT without .json, plus _chunks)"
    )
    p.add_argument(
        "--decisions",
        type=cli.positive_int,
        default=1200,
        help="decisions wanted (rounded up to whole chunks)",
    )
    p.add_argument(
        "--mix",
        type=mix_arg,
        default="contact=6,crashed=2,race=2",
        help="decisions of each gnubg class per chunk",
    )
    p.add_argument(
        "--trials",
        type=cli.positive_int,
        default=72,
        help="rollout games per candidate (a multiple of 36 stratifies the first roll)",
    )
    p.add_argument(
        "--truncate",
        type=cli.non_negative_int,
        default=7,
        help="plies before gnubg-nn 0-ply scores a rollout (0: play to the end)",
    )
    p.add_argument(
        "--top", type=cli.positive_int, default=5, help="candidates at most (by gnubg-nn 1-ply)"
    )
    p.add_argument(
        "--window",
        type=cli.positive_float,
        default=0.08,
        help="candidates within this gnubg-nn 1-ply equity of the best",
    )
    p.add_argument("--seed", type=cli.seed_arg, default=0, help="self-play and rollout seed")
    p.add_argument(
        "--workers", type=cli.workers_arg, default=1, help="processes, one chunk each at a time"
    )
    p.add_argument(
        "--time-budget",
        type=cli.positive_float,
        help="seconds: start no chunk that would not finish within this (finished chunks are kept)",
    )
    p.add_argument(
        "--commit",
        help="the commit to record (default: git's; for a copy of the tree without .git)",
    )
    p.add_argument(
        "--pilot",
        action="store_true",
        help="label the file a pilot (a small set, not the benchmark)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main() -> None:
    args = build_parser().parse_args()
    t_start = time.time()
    deadline = t_start + args.time_budget if args.time_budget else None
    import datetime

    from tdbg.play import decisions as ds
    from tdbg.infra.fileio import Output, atomic_write, check_outputs
    from tdbg.infra.provenance import git_commit

    settings = ds.Settings(args.seed, args.trials, args.truncate, args.top, args.window, args.mix)
    settings.check()
    chunks_dir = args.chunks or os.path.splitext(args.out)[0] + "_chunks"
    if os.path.lexists(chunks_dir) and not os.path.isdir(chunks_dir):
        raise cli.UsageError(f"--chunks {chunks_dir} is not a folder")
    check_outputs([Output("--out", args.out, "json", own=True)])
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        raise cli.UsageError(
            "gnubg-nn is not installed (pip install gnubg-nn): it plays and judges the decisions"
        ) from None
    n_chunks = -(-args.decisions // settings.chunk_size)
    stats = ds.generate(
        settings, list(range(n_chunks)), chunks_dir, args.workers, deadline, not args.quiet
    )
    found, info = ds.merge(chunks_dir, settings)
    summary = ds.summary(found)
    provenance = {
        "command": "python " + shlex.join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
        "seed": args.seed,
        "commit": args.commit or git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "pilot": args.pilot,
        "settings": ds.asdict(settings),
        "chunks_wanted": n_chunks,
        **info,
        "summary": summary,
        "player": "gnubg-nn 0-ply, cubeless money (rollers.GnubgNNRoller)",
        "equity": "cubeless money equity of the mover after the move; luck-adjusted rollout means",
        "others_fields": ds.OTHERS_FIELDS,
    }
    with atomic_write(args.out) as fh:
        fh.write(
            json_text({"format": ds.FORMAT, "provenance": provenance, "decisions": found}, indent=1)
        )
        fh.write("\n")
    wall = time.time() - t_start
    print(
        f"{args.out}: {len(found)} decisions from {len(info['chunks'])} of {n_chunks} chunks "
        f"({stats['done']} made now, {stats['skipped']} already there, {stats['dropped']} dropped at the deadline, "
        f"{stats['not_started']} not started); {summary['by_class']}; mean candidates "
        f"{summary['mean_candidates']:.2f}; rollout SE of a candidate's difference from the best: median "
        f"{summary['median_diff_se_meq'] or 0:.2f} mEq, mean {summary['mean_diff_se_meq'] or 0:.2f}; "
        f"{wall:.0f} s wall, {info['cpu_seconds']:.0f} CPU-s in all chunks"
    )
    print(
        json_text(
            {
                "decisions": len(found),
                "chunks": len(info["chunks"]),
                "wall_s": round(wall, 1),
                "cpu_s_all_chunks": round(info["cpu_seconds"], 1),
                **stats,
                **summary,
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
