"""Behaviour fingerprints for refactors: the same seeds must give the same data.

Writes one JSON object of fingerprints (``record``) or compares the current code's
against a stored one (``compare``), and replays the stored head-to-head result
CSVs' first games:

* self-play: seeded ``SelfPlay.collect`` arrays (features, targets, stats) for every
  game mode and output head, sampled and 1-ply targets, hashed at full precision;
* online TD(lambda): the weights after a few seeded games;
* training stages: ``train_batch.py``, ``train_prob5.py`` and ``train_online.py``
  with tiny settings; the checkpoint's weights and the log's non-timing columns;
* head-to-head: ``play_models.py --games N --seed S --csv`` for model/opponent/mode
  combinations taken from experiments/head_to_head/results, each compared row by
  row with the stored CSV's first N games (gnubg-ext is skipped: it needs the
  binary and rolls its own dice);
* luck (``--parts luck``): the luck-adjusted summaries of play_models.py --luck with
  gnubg-nn and checkpoint references of every head;
* the gnubg bridge (``--parts gnubg``, needs the binary): the per-game CSV of a few
  seeded games against gnubg-ext, cubeful and cubeless.

    nice -n 19 .venv/bin/python experiments/identity/check.py record OUT.json [--games 200]
    nice -n 19 .venv/bin/python experiments/identity/check.py compare OUT.json [--games 200]
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
from tdbg.infra.fileio import json_text

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

RESULTS = os.path.join(ROOT, "experiments", "head_to_head", "results")
# (stored CSV, play_models.py flags): every mode, every head, 0-ply and 1-ply, cube actions
MATCHES = [
    ("dmp_256x2_vs_gnubg-nn.csv", "--model1 best_models/dmp_256x2.pt --model2 gnubg-nn --seed 21"),
    (
        "dmp_256x2_cubeless_vs_pubeval.csv",
        "--model1 best_models/dmp_256x2.pt --model2 pubeval --game-mode cubeless-money --seed 31",
    ),
    (
        "cubeless_256x2_vs_pubeval.csv",
        "--model1 best_models/cubeless_256x2.pt --model2 pubeval --game-mode cubeless-money --seed 41",
    ),
    (
        "prob5_128x2_vs_gnubg-nn.csv",
        "--model1 best_models/prob5_128x2.pt --model2 gnubg-nn --game-mode cubeless-money --seed 71",
    ),
    (
        "prob5_128x2_1ply_vs_pubeval.csv",
        "--model1 best_models/prob5_128x2_1ply.pt --model2 pubeval --game-mode cubeless-money --seed 71",
    ),
    (
        "cubeful_256x2_vs_cubeless_parent.csv",
        "--model1 best_models/cubeful_256x2.pt --model2 experiments/retraining/money/cubeless_as_cubeful_256x2.pt "
        "--game-mode cubeful-money --seed 51",
    ),
]
KINDS = [
    ("dmp", "probability"),
    ("cubeless-money", "equity"),
    ("cubeless-money", "prob5"),
    ("cubeful-money", "equity"),
]
TIMING = {"round_seconds", "elapsed_seconds", "episodes_per_s", "evals_per_s", "cpu_hours"}


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def selfplay_prints() -> dict:
    from tdbg.net.model import TDNetwork
    from tdbg.game.modes import game_mode
    from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup

    out = {}
    for mode_name, head in KINDS:
        mode = game_mode(mode_name)
        for oneply in (False, True):
            torch.manual_seed(3)
            model = TDNetwork(mode.n_inputs, [24], head).eval()
            data = SelfPlay(
                model,
                SelfPlaySetup(
                    mode, replace(FP32_COLLECTION, oneply=oneply, parallel_games=16), engine="c"
                ),
            ).collect(8 if oneply else 40, np.random.default_rng(5))
            st = {k: v for k, v in data["stats"].items() if not k.endswith("seconds")}
            out[f"selfplay/{mode_name}/{head}/{'oneply' if oneply else 'sampled'}"] = {
                "arrays": digest(data["features"], data["targets"]),
                "stats": st,
            }
    return out


def online_prints() -> dict:
    from tdbg.net.model import TDNetwork
    from tdbg.game.modes import game_mode
    from tdbg.learn.online_td import OnlineSelfPlay

    out = {}
    for mode_name, head in KINDS[:2]:
        torch.manual_seed(4)
        model = TDNetwork(196, [16], head)
        learner = OnlineSelfPlay(model, game_mode(mode_name), 0.7, 0.1, engine="c")
        stats = [learner.play_game(np.random.default_rng([9, k])) for k in range(4)]
        out[f"online/{mode_name}"] = {
            "weights": digest(*[p.detach().numpy() for p in model.parameters()]),
            "games": [[s["plies"], int(s["result"]), round(float(s["sq_err"]), 9)] for s in stats],
        }
    return out


def run_script(argv: list, cwd: str) -> None:
    subprocess.run(
        [sys.executable, *argv],
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def checkpoint_print(path: str, log: str) -> dict:
    from tdbg.net.model import load_checkpoint

    model, meta, _ = load_checkpoint(path)
    with open(log) as fh:
        rows = [{k: v for k, v in r.items() if k not in TIMING} for r in csv.DictReader(fh)]
    return {
        "weights": digest(*[v.numpy() for v in model.state_dict().values()]),
        "episodes": meta.get("episodes"),
        "log": hashlib.sha256(json_text(rows).encode()).hexdigest()[:16],
    }


def training_prints() -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        runs = {
            "train_batch/dmp": [
                "train_batch.py",
                "--hidden",
                "16",
                "--num-episodes",
                "40",
                "--episodes-per-round",
                "20",
                "--seed",
                "2",
                "--eval-every",
                "1",
                "--eval-games",
                "20",
            ],
            "train_batch/cubeful_oneply": [
                "train_batch.py",
                "--hidden",
                "16",
                "--game-mode",
                "cubeful-money",
                "--oneply",
                "--num-episodes",
                "6",
                "--episodes-per-round",
                "3",
                "--seed",
                "2",
            ],
            "train_prob5": [
                "train_prob5.py",
                "--hidden",
                "16",
                "--num-episodes",
                "30",
                "--episodes-per-round",
                "15",
                "--seed",
                "2",
                "--eval-every",
                "2",
                "--eval-games",
                "20",
            ],
            "train_online": [
                "train_online.py",
                "--hidden",
                "16",
                "--num-episodes",
                "12",
                "--log-every",
                "4",
                "--seed",
                "2",
                "--eval-every",
                "8",
                "--eval-games",
                "20",
            ],
        }
        for name, argv in runs.items():
            save = os.path.join(tmp, name.replace("/", "_") + ".pt")
            run_script([os.path.join(ROOT, argv[0]), *argv[1:], "--save", save, "--quiet"], ROOT)
            out[name] = checkpoint_print(save, save[:-3] + ".csv")
    return out


def read_rows(path: str, n: int) -> list:
    with open(path) as fh:
        rows = [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    return rows[1 : n + 1]


def match_prints(games: int) -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for stored, flags in MATCHES:
            path = os.path.join(tmp, stored)
            run_script(
                [
                    "play_models.py",
                    *flags.split(),
                    "--games",
                    str(games),
                    "--quiet",
                    "--csv",
                    path,
                    "--workers",
                    "2",
                ],
                ROOT,
            )
            mine = read_rows(path, games)
            want = read_rows(os.path.join(RESULTS, stored), games)
            out[f"match/{stored}"] = {
                "rows": hashlib.sha256("\n".join(mine).encode()).hexdigest()[:16],
                "equal_to_stored": mine == want,
                "differing_rows": sum(a != b for a, b in zip(mine, want, strict=False)),
            }
    return out


LUCK = [  # (name, play_models.py flags): every reference kind and value representation
    (
        "dmp_vs_pubeval_ref_gnubg-nn",
        "--model1 best_models/dmp_128x2.pt --model2 pubeval --seed 12 --games 20 --luck",
    ),
    (
        "dmp_vs_pubeval_ref_dmp",
        "--model1 best_models/dmp_128x2.pt --model2 pubeval --seed 12 --games 60 "
        "--luck best_models/dmp_128x2.pt",
    ),
    (
        "cubeless_vs_pubeval_ref_prob5",
        "--model1 best_models/cubeless_256x2.pt --model2 pubeval --game-mode "
        "cubeless-money --seed 41 --games 60 --luck best_models/prob5_128x2.pt",
    ),
    (
        "cubeful_vs_parent_ref_cubeful",
        "--model1 best_models/cubeful_256x2.pt --model2 "
        "experiments/retraining/money/cubeless_as_cubeful_256x2.pt --game-mode cubeful-money --seed 51 --games 60 "
        "--luck best_models/cubeful_256x2.pt",
    ),
]
GNUBG = [  # the bridge to the real binary (gnubg rolls its own seeded dice)
    (
        "cubeful_vs_gnubg-ext",
        "--model1 best_models/cubeful_256x2.pt --model2 gnubg-ext --seed 61 --games 6",
    ),
    (
        "cubeless_vs_gnubg-ext",
        "--model1 best_models/cubeless_256x2.pt --model2 gnubg-ext --game-mode cubeless-money "
        "--seed 62 --games 4",
    ),
]


def luck_prints() -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, flags in LUCK:
            path = os.path.join(tmp, name + ".json")
            run_script(
                ["play_models.py", *flags.split(), "--quiet", "--json", path, "--workers", "2"],
                ROOT,
            )
            with open(path) as fh:
                s = json.load(fh)["luck_adjusted"]
            out[f"luck/{name}"] = {
                k: round(v, 9) if isinstance(v, float) else v for k, v in s.items()
            }
    return out


def gnubg_prints() -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, flags in GNUBG:
            path = os.path.join(tmp, name + ".csv")
            run_script(
                [
                    "play_models.py",
                    *flags.split(),
                    "--quiet",
                    "--games-csv",
                    path,
                    "--workers",
                    "1",
                ],
                ROOT,
            )
            with open(path) as fh:
                out[f"gnubg/{name}"] = [line.strip() for line in fh][1:]
    return out


def fingerprints(games: int, parts: list) -> dict:
    out = {}
    if "selfplay" in parts:
        out.update(selfplay_prints())
    if "online" in parts:
        out.update(online_prints())
    if "training" in parts:
        out.update(training_prints())
    if "match" in parts:
        out.update(match_prints(games))
    if "luck" in parts:
        out.update(luck_prints())
    if "gnubg" in parts:  # needs the gnubg binary
        out.update(gnubg_prints())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=("record", "compare"))
    ap.add_argument("path")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--parts", default="selfplay,online,training,match,luck,gnubg")
    args = ap.parse_args()
    got = fingerprints(args.games, args.parts.split(","))
    if args.action == "record":
        with open(args.path, "w") as fh:
            fh.write(json_text(got, indent=1, sort_keys=True))
        print(json_text(got, indent=1, sort_keys=True))
        return
    with open(args.path) as fh:
        want = json.load(fh)
    bad = [k for k in got if got[k] != want.get(k)]
    for k in sorted(got):
        print(
            f"{'SAME' if k not in bad else 'DIFFERENT'}  {k}"
            + (
                f"  (stored CSV rows equal: {got[k]['equal_to_stored']})"
                if k.startswith("match/")
                else ""
            )
        )
        if k in bad:
            print(f"    was {want.get(k)}\n    now {got[k]}")
    print(f"{len(got) - len(bad)} of {len(got)} fingerprints identical")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
