"""play_models.py's run: the two players the flags name, each resolved once (a checkpoint
read and opened, here, before anything else), the flags and those players made into a series
(play_plan: every misuse one error line before any game), the series played on our dice or
against the gnubg binary on its dice (tdbg.play.series, whose game loop seats each player's
agent), with --save-games its games written as .mat files as they finish, and its summary
printed and result files written (play_report)."""

from __future__ import annotations

import functools
import os

from tdbg.app import cli
from tdbg.app.play_plan import Plan, plan
from tdbg.app.play_report import report
from tdbg.app.play_settings import PlaySettings
from tdbg.gnubg.gnubg_series import GNUBG_LEVELS
from tdbg.net.model import opened_checkpoint
from tdbg.net.search import Search
from tdbg.play import opponents
from tdbg.play.matfile import mat_length, write_mat
from tdbg.play.players import Player, check_spec
from tdbg.play.series import Series, play_series


def run(s: PlaySettings) -> None:
    """The whole of play_models.py after its flags are parsed."""
    series, planned = planned_series(s)
    # on our dice with --save-games / --save-extreme-games, each finished batch of games is
    # written as .mat files as it comes (so a crash keeps them)
    saves = not planned.gnubg and bool(s.save_games or s.save_extreme_games)
    played = play_series(
        series,
        progress=not s.quiet,
        on_records=functools.partial(save_mats, s, planned) if saves else None,
        against=planned.gnubg,
    )
    report(s, planned, played)


def planned_series(s: PlaySettings) -> tuple[Series, Plan]:
    """The series the flags describe, and its Plan: the players first (``the_players``), then
    play_plan's checks and series; InputError for the first misuse."""
    return plan(s, *the_players(s))


def the_players(
    s: PlaySettings,
) -> tuple[tuple[Player, Player], tuple[str | None, str | None]]:
    """The two players the flags describe, each resolved once, now, and the game mode each
    one's checkpoint names: a checkpoint read and opened (net.model.opened_checkpoint: a
    file that is no checkpoint is refused here, before any game; the games play these bytes
    and the md5s recorded are theirs, whatever replaces the file meanwhile) and its Player
    made of what was read; a named opponent, or the gnubg binary's level, as it is named.
    InputError for a name that is neither a named opponent nor a checkpoint file."""
    model2 = opponent_name(s)
    searches = (player_search(s, s.oneply1, s.twoply1), player_search(s, s.oneply2, s.twoply2))
    players: list[Player] = []
    named: list[str | None] = []
    for spec, search in zip((s.model1, model2), searches, strict=True):
        if spec in GNUBG_LEVELS or spec in opponents.NAMES:
            players.append(Player(spec, search, engine=s.engine))
            named.append(None)
            continue
        if not os.path.isfile(spec):
            check_spec(spec)  # says what is wrong with the name
        data, model, meta = opened_checkpoint(spec)
        players.append(Player(spec, search, engine=s.engine, data=data, opened=(model, meta)))
        named.append(meta.get("game_mode"))
    return (players[0], players[1]), (named[0], named[1])


def opponent_name(s: PlaySettings) -> str:
    """The second player: --model2, or gnubg-nn with --gnubg-nn."""
    if s.gnubg_nn and s.model2 and s.model2 != "gnubg-nn":
        raise cli.UsageError("--gnubg-nn and --model2 name different opponents")
    model2 = "gnubg-nn" if s.gnubg_nn else s.model2
    if not model2:
        raise cli.UsageError("name the opponent with --model2 or --gnubg-nn")
    return model2


def player_search(s: PlaySettings, oneply: bool, twoply: bool) -> Search:
    """One player's search (its --oneplyN or --twoplyN): --oneply-k and --oneply-filter are
    given once for both players, and go to those whose depth they filter (play_plan's
    check_usage refuses them when neither player's does)."""
    return Search(
        oneply,
        (s.twoply_k1, s.twoply_k2) if twoply else None,
        s.oneply_k if oneply else None,
        s.oneply_filter if oneply or twoply else None,
    )


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
