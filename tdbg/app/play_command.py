"""play_models.py's run: the flags made into a series (play_plan: every misuse one error
line before any game), the series played on our dice or against the gnubg binary on its
dice (tdbg.play.series), with --save-games its games written as .mat files as they finish,
and its summary printed and result files written (play_report)."""

from __future__ import annotations

import functools
import os

from tdbg.app.play_plan import Plan, plan
from tdbg.app.play_report import report
from tdbg.app.play_settings import PlaySettings
from tdbg.play.matfile import mat_length, write_mat
from tdbg.play.series import play_series


def run(s: PlaySettings) -> None:
    """The whole of play_models.py after its flags are parsed."""
    planned = plan(s)
    # on our dice with --save-games / --save-extreme-games, each finished batch of games is
    # written as .mat files as it comes (so a crash keeps them)
    saves = not planned.gnubg and bool(s.save_games or s.save_extreme_games)
    played = play_series(
        planned.series,
        progress=not s.quiet,
        on_records=functools.partial(save_mats, s, planned) if saves else None,
        against=planned.gnubg,
    )
    report(s, planned, played)


def save_mats(s: PlaySettings, plan: Plan, records) -> None:
    """One finished batch of games written as .mat files, into --save-games and, those over
    the threshold, --save-extreme-games (each folder is made with its first file); then only
    the games' results stay in memory."""
    names = (os.path.basename(s.model1), os.path.basename(plan.model2))
    if s.save_games:
        save_mat_games(s.save_games, records, names, plan.mode)
    if s.save_extreme_games:
        save_mat_games(
            s.save_extreme_games,
            [r for r in records if abs(r.points) >= s.extreme_threshold],
            names,
            plan.mode,
            one_per_game=True,
        )
    for rec in records:
        rec.turns = []


def save_mat_games(folder: str, records, names, mode, one_per_game: bool = False) -> None:
    """Games as Jellyfish .mat files: a DMP game is a 1-point match (one file each), money
    games share a session file per batch unless ``one_per_game``."""
    if mat_length(mode) or one_per_game:
        for rec in records:
            write_mat(
                os.path.join(folder, f"game_{rec.index:07d}.mat"), [rec], names, mat_length(mode)
            )
    elif records:
        first, last = records[0].index, records[-1].index
        write_mat(os.path.join(folder, f"games_{first:07d}-{last:07d}.mat"), records, names, 0)
