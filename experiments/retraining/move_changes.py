#!/usr/bin/env python3
"""How far did a stage move a net's play?  The share of a base model's decisions (positions with
more than one legal play, from greedy self-play games of the base model) on which other
checkpoints choose another play, and the mean change of the value they give the base's choice.
A stage that changes nothing here could not have changed its strength; one that changes many
choices without a measured gain moved the net sideways.  DMP checkpoints, 0-ply, float32.

    python experiments/retraining/move_changes.py experiments/retraining/strength/s3_256x3.pt \\
        experiments/retraining/strength/s4_256x3_1ply.pt --games 300 --seed 5
"""

from __future__ import annotations

import os

import numpy as np

from tdbg.app import cli
from tdbg.infra import fileio, threads
from tdbg.game.modes import game_mode
from tdbg.net.model import CheckpointError, load_checkpoint
from tdbg.net.scoring import Scorer, greedy_game_decisions, segment_argmax


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("base", help="the DMP checkpoint whose games and choices are the reference")
    p.add_argument("others", nargs="+", help="DMP checkpoints compared with it")
    p.add_argument(
        "--games", type=cli.positive_int, default=300, help="greedy games of the base model"
    )
    p.add_argument("--seed", type=cli.seed_arg, default=5, help="their dice")
    return p


def load_dmp(path: str):
    try:
        model, meta, _ = load_checkpoint(path)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    if meta.get("game_mode", "dmp") != "dmp":
        raise cli.UsageError(f"{path}: a {meta['game_mode']} model; this compares DMP models")
    return model.eval()


def main(argv=None) -> None:
    a = build_parser().parse_args(argv)
    threads.use()
    mode = game_mode("dmp")
    nets = {path: load_dmp(path) for path in [a.base, *a.others]}
    base = Scorer(nets[a.base], mode, engine="c")
    boards, dice = greedy_game_decisions(base, a.games, np.random.default_rng(a.seed))
    _, offsets, _, values = base.score(boards, dice)
    choice = np.diff(offsets) > 1
    n_choices = int(choice.sum())
    rows, _ = segment_argmax(values, offsets)
    result = {
        "base": a.base,
        "games": a.games,
        "seed": a.seed,
        "decisions_with_a_choice": n_choices,
        "others": {},
    }
    for path in a.others:
        _, off, _, v = Scorer(nets[path], mode, engine="c").score(boards, dice)
        r, _ = segment_argmax(v, off)
        changed = int(((r != rows) & choice).sum())
        entry = result["others"][path] = {
            "changed_choices": changed,
            "changed_share": round(changed / max(n_choices, 1), 4),
            "mean_abs_value_change": round(float(np.abs(v[rows] - values[rows]).mean()), 5),
        }
        print(
            f"{os.path.basename(path)}: {changed} of {n_choices} choices changed "
            f"({entry['changed_share']:.2%}); mean |value change| of the base's choice "
            f"{entry['mean_abs_value_change']}",
            flush=True,
        )
    print(fileio.json_text(result))


if __name__ == "__main__":
    cli.run_main(main)
