"""play_models.py's settings and its two players (play_command.the_players: each resolved
once, before this) made into the series to play: the checks of the flags (each misuse one
error line, before any game and before any output is written), the game mode, the Series
value and, against the gnubg binary, its side."""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
from dataclasses import dataclass

from tdbg.app import backend_flags, cli
from tdbg.app.play_settings import PlaySettings
from tdbg.game.modes import game_mode, mode_class
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.matchplay import DEFAULT_MATCH_LENGTH
from tdbg.gnubg.gnubg_series import GNUBG_LEVELS, GnubgSide
from tdbg.infra.fileio import Output, check_outputs
from tdbg.infra import run_outputs, threads
from tdbg.play.luck import read_reference
from tdbg.play.matfile import mat_length
from tdbg.play.players import Player
from tdbg.play.series import ModeSpec, Series
from tdbg.play.units import series_unit


@dataclass(frozen=True)
class Plan:
    """What the report needs besides the series played: the opponent's name, the md5 of the
    bytes both players play (read once, before any game) and the run's threads, the game
    mode, and against the gnubg binary its side (None on our dice)."""

    model2: str
    md5: dict
    mode: GameMode
    gnubg: GnubgSide | None = None


def plan(
    s: PlaySettings, players: tuple[Player, Player], named: tuple[str | None, str | None]
) -> tuple[Series, Plan]:
    """The series the flags describe between ``players`` (resolved once: their checkpoints
    read and opened, ``named`` the game mode each one's checkpoint names), and its Plan;
    UsageError (InputError) for the first misuse."""
    model2 = players[1].name
    # before any game: the luck judge read (the bytes a player read, where it is one) and
    # this process's threads (it plays in-process with one worker)
    luck = read_reference(s.luck, pinned_bytes(players, s.luck)) if s.luck else None
    md5 = {**md5s(players), **threads.use(s.threads)}
    check_usage(s, named[0])
    if model2 in GNUBG_LEVELS:
        if s.where.backend != "local":
            raise cli.UsageError(
                f"{model2} games run on this machine (its gnubg binary): use --backend local"
            )
        backend_flags.start_backend(s.where, s.workers)
        return against_gnubg(s, players, md5, luck, named[0])
    if s.gnubg:
        raise cli.UsageError(
            "--gnubg names the binary for --model2 gnubg-ext / gnubg-ext-full; "
            f"{model2} is not the gnubg binary"
        )
    if s.games_csv:  # (it was ignored: no file, exit 0)
        raise cli.UsageError(
            "--games-csv is the per-game record of games against --model2 gnubg-ext / "
            f"gnubg-ext-full; against {model2} use --csv"
        )
    mode_name = s.game_mode or named[0] or named[1] or "dmp"
    mode = cli.checked(
        lambda: game_mode(mode_name, s.jacoby, s.match_length or DEFAULT_MATCH_LENGTH, s.met)
    )
    return ON_OUR_DICE[series_unit(mode)](s, players, mode, luck), Plan(model2, md5, mode)


def pinned_bytes(players: tuple[Player, Player], spec: str) -> bytes | None:
    """The bytes of the checkpoint ``spec`` as a player read them (None: no player plays it)."""
    return next((p.data for p in players if p.name == spec and p.data is not None), None)


def md5s(players: tuple[Player, Player]) -> dict:
    """The summary's md5s: of the bytes each player plays (None for a named opponent)."""
    return {
        f"model{k}_md5": hashlib.md5(p.data).hexdigest() if p.data is not None else None
        for k, p in enumerate(players, 1)
    }


def check_usage(s: PlaySettings, named_mode: str | None) -> None:
    """The flags' consistency, whatever the opponent (the luck judge was checked as it was
    read: luck.read_reference); ``named_mode``: the game mode the first player's checkpoint
    names."""
    if bool(s.save_extreme_games) != (s.extreme_threshold is not None):
        raise cli.UsageError("--save-extreme-games DIR and --extreme-threshold X go together")
    if (s.oneply1 and s.twoply1) or (s.oneply2 and s.twoply2):
        raise cli.UsageError(
            "a player looks 1 ply or 2 plies ahead, not both (--oneplyN or --twoplyN)"
        )
    if s.oneply_k is not None and not (s.oneply1 or s.oneply2):
        raise cli.UsageError(
            "--oneply-k filters a 1-ply player's candidates: use it with --oneply1 or --oneply2"
        )
    if s.oneply_filter is not None and not (s.oneply1 or s.oneply2 or s.twoply1 or s.twoply2):
        raise cli.UsageError(
            "--oneply-filter prunes a lookahead's replies: use it with --oneplyN or --twoplyN"
        )
    if s.match_length is not None or s.met:
        mode_name = s.game_mode or named_mode or "dmp"
        cli.checked(
            lambda: mode_class(mode_name).require(
                "--match-length and --met apply to --game-mode match only", match=True
            )
        )


def check_play_outputs(s: PlaySettings, model2: str, games_csv: str | None = None) -> None:
    """fileio's output policy for every file this run writes, before any game is played."""
    inputs = {"--model1": s.model1, "--model2": model2}
    check_outputs(
        [
            Output("--json", s.json, "json"),
            Output("--csv", s.csv, "text"),
            Output("--games-csv" if s.games_csv else "the games CSV", games_csv, "text"),
            Output("--save-games", s.save_games, "folder"),
            Output("--save-extreme-games", s.save_extreme_games, "folder"),
        ],
        s.overwrite,
        {k: v for k, v in inputs.items() if v and os.path.isfile(v)},
    )


def games_on_our_dice(
    s: PlaySettings, players: tuple[Player, Player], mode: GameMode, luck: bytes | None
) -> Series:
    """Single games in duplicate pairs; --plies goes to a gnubg-nn player."""
    check_play_outputs(s, players[1].name)
    if s.plies is not None:
        if not any(p.name.startswith("gnubg-nn") for p in players):
            raise cli.UsageError("--plies sets gnubg-nn's depth, and neither player is gnubg-nn")
        players = gnubg_nn_depth(players, s.plies)
    backend_flags.start_backend(s.where, s.workers)
    return Series(
        players,
        ModeSpec(mode.name, s.jacoby),
        s.games,
        s.seed,
        s.workers,
        record=bool(s.save_games or s.save_extreme_games),
        luck=s.luck,
        backend=s.where.backend,
        n_bootstrap=s.n_bootstrap,
        luck_data=luck,
    )


def gnubg_nn_depth(players: tuple[Player, Player], plies: int) -> tuple[Player, Player]:
    """The players with --plies given to those that are gnubg-nn."""
    first, second = (
        dataclasses.replace(p, plies=plies) if p.name.startswith("gnubg-nn") else p for p in players
    )
    return first, second


def matches_on_our_dice(
    s: PlaySettings, players: tuple[Player, Player], mode: GameMode, luck: bytes | None
) -> Series:
    """Whole matches in duplicate pairs."""
    if s.save_games or s.save_extreme_games or s.luck:
        raise cli.UsageError(
            "--save-games, --save-extreme-games and --luck are not available for match play yet"
        )
    if s.where.backend != "local":
        raise cli.UsageError(
            "match play runs on this machine's workers for now: use --backend local"
        )
    check_play_outputs(s, players[1].name)
    return Series(
        players,
        ModeSpec("match", match_length=mat_length(mode), met=s.met),
        s.games,
        s.seed,
        s.workers,
        n_bootstrap=s.n_bootstrap,
    )


ON_OUR_DICE = {"game": games_on_our_dice, "match": matches_on_our_dice}


def gnubg_csv_path(s: PlaySettings, what: str) -> str:
    """--games-csv, or runs/gnubg_<what><time>_seed<seed>.csv."""
    return s.games_csv or os.path.join(
        "runs", f"gnubg_{what}{datetime.datetime.now().strftime('%Y%m%d_%H%M%S')}_seed{s.seed}.csv"
    )


def gnubg_games(s: PlaySettings, length: int) -> str:
    """Money games against the binary: the checks; the default CSV name's part."""
    if s.save_games or s.save_extreme_games:
        raise cli.UsageError(
            "--save-games and --save-extreme-games apply against gnubg-ext in match play only (gnubg "
            "keeps its own record of a money session)"
        )
    return ""


def gnubg_matches(s: PlaySettings, length: int) -> str:
    """Matches against the binary (gnubg plays its own cube by match equity): the checks; the
    default CSV name's part."""
    if s.luck or s.save_extreme_games:
        raise cli.UsageError(
            "--luck and --save-extreme-games do not apply to matches against gnubg-ext"
        )
    if s.save_games and any(c.isspace() for c in os.path.abspath(s.save_games)):
        raise cli.UsageError(
            f"--save-games {s.save_games!r}: gnubg's export needs a path without blanks"
        )
    return f"match{length}_"


AGAINST_GNUBG = {"game": gnubg_games, "match": gnubg_matches}


def against_gnubg(
    s: PlaySettings,
    players: tuple[Player, Player],
    md5: dict,
    luck: bytes | None,
    named_mode: str | None,
) -> tuple[Series, Plan]:
    """--model2 gnubg-ext / gnubg-ext-full: money games (or matches) against the real binary;
    ``named_mode``: the game mode the first player's checkpoint names."""
    level = players[1].name
    if s.oneply2 or s.twoply2 or s.plies is not None:
        raise cli.UsageError(
            "--oneply2, --twoply2 and --plies do not apply to gnubg-ext (it plays at its own level)"
        )
    if s.twoply1:
        raise cli.UsageError(
            "--twoply1 against gnubg-ext is not supported yet: the gnubg bridge plays 0- or 1-ply"
        )
    mode_name = s.game_mode or named_mode or "cubeful-money"
    length = s.match_length or DEFAULT_MATCH_LENGTH  # the modes without matches ignore it
    what = AGAINST_GNUBG[series_unit(mode_class(mode_name))](s, length)
    mode = cli.checked(
        lambda: game_mode(mode_name, s.jacoby, length, s.met)
    )  # a bad --met before gnubg starts
    csv_path = gnubg_csv_path(s, what)
    check_play_outputs(s, level, csv_path)
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    run_outputs.claim()  # gnubg writes the match files (into --save-games, made with the first): old ones go now
    gnubg = GnubgSide(
        level=level,
        gnubg=s.gnubg,
        gnubg_timeout=s.gnubg_timeout,
        games_csv=csv_path,
        save_games=s.save_games,
    )
    series = Series(
        players,
        ModeSpec(mode_name, s.jacoby, mat_length(mode), s.met),
        s.games,
        s.seed,
        s.workers,
        luck=s.luck,
        n_bootstrap=s.n_bootstrap,
        luck_data=luck,
    )
    return series, Plan(level, md5, mode, gnubg)
