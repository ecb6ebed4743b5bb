"""Were the dice against us?  Our own judge's luck of saved matches, to check gnubg's.

gnubg's luck analysis (gnubg_eval.py --from-mat DIR --luck) says how lucky each side's
dice were in MWC.  This reads the same .mat files and judges every roll with one of
our DMP checkpoints instead (luck.py: the value of the judge's best move for the roll
thrown less its mean over all 21 rolls, so it has mean zero given the position whatever
the judge): P(win) luck in DMP points (2 P(win) - 1) per game, the cube left out,
from the named player's side (their rolls' luck less the opponent's).  A different
judge in different units, so only the sign and the size relative to its standard
error compare: if gnubg's net luck were a bias of its own, this one would sit at zero.

    python experiments/match/dice_luck.py DIR [DIR ...] --judge best_models/dmp_128x2.pt [--player td]

Prints one JSON line per folder: games, matches, mean luck per game and per match (one
.mat file) with standard errors.
"""

import argparse
import glob
import os
from types import SimpleNamespace

import numpy as np

from tdbg.infra.errors import InputError
from tdbg.game.modes import game_mode
from tdbg.play.evaluator import Evaluator
from tdbg.play.luck import game_luck, judge as luck_judge
from tdbg.play.matfile import read_mat
from tdbg.infra.fileio import json_text

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def folder_luck(folder: str, judge: Evaluator, player: str) -> dict:
    files = sorted(glob.glob(os.path.join(folder, "*.mat")))
    if not files:
        raise ValueError(f"{folder}: no .mat files there")
    per_game, per_match = [], []
    for path in files:
        games = []
        for g in read_mat(path):
            if player not in g["names"]:
                raise ValueError(
                    f"{path}: no player named {player!r} (the players are {g['names']})"
                )
            seat = g["names"].index(player)
            # what luck.game_luck reads: the turns, the named player as mover 0; checker-play turns
            # only, so the cube stays 1 and each roll's luck is P(win) luck
            turns = [
                (0 if s == seat else 1, d, e, b, a) for s, d, e, b, a in g["turns"] if e == "move"
            ]
            games.append(SimpleNamespace(turns=turns))
        luck = game_luck(games, judge)
        per_game += luck.tolist()
        per_match.append(float(luck.sum()))
    pg, pm = np.array(per_game), np.array(per_match)
    return {
        "folder": folder,
        "judge": judge.name,
        "player": player,
        "matches": len(pm),
        "games": len(pg),
        "per_game_mean": float(pg.mean()),
        "per_game_se": float(pg.std(ddof=1) / np.sqrt(len(pg))),
        "per_match_mean": float(pm.mean()),
        "per_match_se": float(pm.std(ddof=1) / np.sqrt(len(pm))),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "folders", nargs="+", help="folders of .mat files (e.g. play_models.py --save-games)"
    )
    p.add_argument(
        "--judge",
        default=os.path.normpath(os.path.join(ROOT, "best_models", "dmp_128x2.pt")),
        help="a DMP checkpoint",
    )
    p.add_argument(
        "--player", default="td", help="whose luck (default td, our side against gnubg-ext)"
    )
    args = p.parse_args()
    for folder in args.folders:
        if not os.path.isdir(folder):
            p.exit(2, f"error: {folder}: no such folder\n")
    try:
        judge = luck_judge(args.judge, game_mode("dmp"))
    except (InputError, OSError, ValueError) as exc:
        p.exit(2, f"error: {args.judge}: {exc}\n")
    if judge.mode.name != "dmp":
        p.exit(
            2,
            f"error: {args.judge} is a {judge.mode.name} model; the judge must be a DMP checkpoint\n",
        )
    for folder in args.folders:
        try:
            print(json_text(folder_luck(folder, judge, args.player)), flush=True)
        except ValueError as exc:
            p.exit(2, f"error: {exc}\n")


if __name__ == "__main__":
    main()
