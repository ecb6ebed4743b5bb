#!/usr/bin/env python3
"""Unit health of every released checkpoint (best_models/*.pt): per hidden layer, dead units
(never positive), distinct units (twins counted once) and the mean fraction of positions a
unit fires on, over the pre-roll positions of 150 greedy self-play games of each net
(tdbg/net/health.py).  Writes experiments/unit_health/best_models.json (strict JSON, with the
commit, date, command and each checkpoint's md5); tools/results_tables.py makes the table in
best_models/README.md from it.

    python experiments/unit_health/measure.py        # about a minute on one core
"""

from __future__ import annotations

import glob
import hashlib
import os

from tdbg.app import cli
from tdbg.game.modes import game_mode
from tdbg.infra import fileio, threads
from tdbg.infra.provenance import provenance
from tdbg.net.health import HEALTH_GAMES, HEALTH_SEED, measure_health
from tdbg.net.model import load_checkpoint, read_checkpoint

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "experiments", "unit_health", "best_models.json")


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--overwrite", action="store_true", help="allow replacing the existing results file"
    )
    args = p.parse_args()
    fileio.check_outputs([fileio.Output("results", OUT, "json")], args.overwrite)
    threads.use()
    models = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "best_models", "*.pt"))):
        data = read_checkpoint(path)
        model, meta, _ = load_checkpoint(path, data=data)
        health = measure_health(model, game_mode(meta.get("game_mode") or "dmp"))
        models[os.path.basename(path)] = {"md5": hashlib.md5(data).hexdigest(), **health.as_dict()}
        print(f"{os.path.basename(path)}: {health.text()}")
    fileio.write_json(
        OUT, {**provenance(), "games": HEALTH_GAMES, "seed": HEALTH_SEED, "models": models}
    )
    print(OUT)


if __name__ == "__main__":
    cli.run_main(main)
