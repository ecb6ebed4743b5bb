#!/usr/bin/env python3
"""Where does a cubeful money model lose its equity: chequer play or the cube?  Plays cubeful
money against gnubg-nn-cubeful with players whose chequer play and cube decisions come from
different sources (our cubeful model, gnubg-nn-cubeful, or a cubeless model's chequer play),
on the same duplicate dice, and reports each one's capped mEq/game (bootstrap CIs over the
duplicate pairs) and its paired difference from the first.

    python experiments/retraining/cube_split.py experiments/retraining/strength_money/m2_cubeful_256x3.pt \\
        --cubeless experiments/retraining/strength_money/m1_cubeless_256x3.pt --games 10000 --seed 1001

Players (chequer play / cube decisions): ours/ours (the model as play_models.py plays it),
ours/gnubg, gnubg/ours, and with --cubeless, cubeless/ours.  The opponent is always
gnubg-nn-cubeful (gnubg-nn's cubeless chequer play, gnubg's cube at 0-0 of a 25-point match,
Jacoby).  Last line: one JSON object.
"""

from __future__ import annotations

import numpy as np
from tqdm import tqdm

from tdbg.app import cli
from tdbg.infra import fileio, threads
from tdbg.infra.stats import CAP, pair_means, summary_ci
from tdbg.game.modes import game_mode
from tdbg.net.model import CheckpointError, load_checkpoint
from tdbg.play.evaluator import Evaluator, PlaysOnly
from tdbg.play.match import play_games
from tdbg.play.players import Player
from tdbg.play.seating import evaluator

CHUNK = 500  # games per play_games call (the dice follow the game index, so chunks change nothing)


class SplitAgent(PlaysOnly):
    """Chequer play from one agent, cube decisions from another."""

    cube_capable = True

    def __init__(self, chequer: Evaluator, cube: Evaluator, name: str):
        self.chequer, self.cube, self.name = chequer, cube, name

    def choose_moves(self, boards, dice, owner=None):
        return self.chequer.choose_moves(boards, dice, owner)

    def double_decisions(self, boards, owner):
        return self.cube.double_decisions(boards, owner)

    def take_decisions(self, boards, owner):
        return self.cube.take_decisions(boards, owner)


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="the cubeful money checkpoint")
    p.add_argument(
        "--cubeless", help="a cubeless money checkpoint: its chequer play with the model's cube"
    )
    p.add_argument(
        "--games",
        type=cli.positive_int,
        default=10000,
        help="games per player (even: duplicate pairs)",
    )
    p.add_argument("--seed", type=cli.seed_arg, default=1001, help="the dice")
    p.add_argument("--n-bootstrap", type=cli.positive_int, default=2000)
    p.add_argument("--quiet", action="store_true")
    return p


def load(path: str, mode_name: str):
    try:
        model, meta, _ = load_checkpoint(path)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    if meta.get("game_mode") != mode_name:
        raise cli.UsageError(f"{path}: a {meta.get('game_mode')} model; {mode_name} expected here")
    return model.eval()


def main(argv=None) -> None:
    a = build_parser().parse_args(argv)
    if a.games % 2:
        raise cli.UsageError("--games must be even (duplicate pairs)")
    threads.use()
    mode = game_mode("cubeful-money")
    ours = evaluator(Player(a.model), mode, model=load(a.model, "cubeful-money"))
    gnubg = evaluator(Player("gnubg-nn-cubeful"), mode)
    players = {
        "ours/ours": ours,
        "ours/gnubg": SplitAgent(ours, gnubg, "ours/gnubg"),
        "gnubg/ours": SplitAgent(gnubg, ours, "gnubg/ours"),
    }
    if a.cubeless:
        cubeless = evaluator(
            Player(a.cubeless),
            game_mode("cubeless-money"),
            model=load(a.cubeless, "cubeless-money"),
        )
        players["cubeless/ours"] = SplitAgent(cubeless, ours, "cubeless/ours")
    opponent = evaluator(Player("gnubg-nn-cubeful"), mode)
    units = {}
    bar = tqdm(total=a.games * len(players), unit="game", disable=a.quiet)
    for name, player in players.items():
        idx, pts = [], []
        for start in range(0, a.games, CHUNK):
            records = play_games(
                player, opponent, range(start, min(start + CHUNK, a.games)), mode, a.seed
            )
            idx += [r.index for r in records]
            pts += [r.points for r in records]
            bar.update(len(records))
        units[name] = pair_means(np.array(idx), np.clip(np.array(pts, dtype=np.float64), -CAP, CAP))
    bar.close()
    first = next(iter(units))
    out = {
        "model": a.model,
        "cubeless": a.cubeless,
        "opponent": "gnubg-nn-cubeful",
        "games": a.games,
        "seed": a.seed,
        "metric": f"mEq/game capped at +-{CAP:g}",
        "players": {},
    }
    for name, u in units.items():
        row = {"capped_meq_per_game": summary_ci(u, a.n_bootstrap, a.seed, scale=1000)}
        if name != first:
            row[f"minus_{first}"] = summary_ci(u - units[first], a.n_bootstrap, a.seed, scale=1000)
        out["players"][name] = row
        diff = row.get(f"minus_{first}")
        print(
            f"{name:>14}: {row['capped_meq_per_game']['mean']:7.1f} "
            f"[{row['capped_meq_per_game']['ci_low']:.1f}, {row['capped_meq_per_game']['ci_high']:.1f}]"
            + (
                f"   paired minus {first}: {diff['mean']:+.1f} [{diff['ci_low']:+.1f}, {diff['ci_high']:+.1f}]"
                if diff
                else ""
            )
        )
    print(fileio.json_text(out))


if __name__ == "__main__":
    cli.run_main(main)
