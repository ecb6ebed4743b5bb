"""play_models.py's settings made into the series to play: the checks of the flags (each
misuse one error line, before any game and before any output is written), the two players,
the Series value and, against the gnubg binary, its side."""

from __future__ import annotations

import datetime
import hashlib
import os
from dataclasses import dataclass, field

from tdbg.app import backend_flags, cli
from tdbg.app.play_settings import PlaySettings
from tdbg.game.modes import game_mode, mode_class
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.matchplay import DEFAULT_MATCH_LENGTH
from tdbg.gnubg.gnubg_series import GNUBG_LEVELS, GnubgSide
from tdbg.infra.fileio import Output, check_outputs
from tdbg.infra import run_outputs, threads
from tdbg.net.search import Search
from tdbg.play.luck import read_reference
from tdbg.play.matfile import mat_length
from tdbg.play.players import Player, check_spec, checkpoint_game_mode, pinned
from tdbg.play.series import ModeSpec, Series
from tdbg.play.units import series_unit


@dataclass(frozen=True)
class Pins:
    """The bytes of each checkpoint file that plays, by its path (a named opponent has none),
    read once at the start, and the luck judge's."""

    data: dict = field(default_factory=dict)
    luck: bytes | None = None

    @classmethod
    def read(cls, specs, luck: str | None) -> "Pins":
        """The checkpoints among ``specs`` read now (InputError for a file that is not one),
        and the luck judge ``luck``."""
        data = {
            spec: pinned(Player(spec)).data
            for spec in specs
            if spec not in GNUBG_LEVELS and os.path.isfile(spec)
        }
        return cls(data, read_reference(luck, data.get(luck)) if luck else None)

    def get(self, spec: str) -> bytes | None:
        return self.data.get(spec)

    def md5s(self, model1: str, model2: str) -> dict:
        """The summary's md5s: of the bytes that play."""
        return {
            f"{key}_md5": hashlib.md5(data).hexdigest()
            if (data := self.get(spec)) is not None
            else None
            for key, spec in (("model1", model1), ("model2", model2))
        }

    def game_mode(self, spec: str) -> str | None:
        """The game mode the checkpoint ``spec`` names; None for one that names none, or for
        a name that is no checkpoint file (the_players checks it)."""
        return checkpoint_game_mode(spec, self.get(spec)) if self.get(spec) is not None else None


@dataclass(frozen=True)
class Plan:
    """The series to play, and what the report needs besides its results: the opponent's
    name, the md5 of the bytes both players play (read once, before any game) and the run's
    threads, the game mode, and against the gnubg binary its side (None on our dice)."""

    series: Series
    model2: str
    md5: dict
    mode: GameMode
    gnubg: GnubgSide | None = None


def plan(s: PlaySettings) -> Plan:
    """The series the flags describe; UsageError (InputError) for the first misuse."""
    if s.gnubg_nn and s.model2 and s.model2 != "gnubg-nn":
        raise cli.UsageError("--gnubg-nn and --model2 name different opponents")
    model2 = "gnubg-nn" if s.gnubg_nn else s.model2
    if not model2:
        raise cli.UsageError("name the opponent with --model2 or --gnubg-nn")
    # before anything else: the checkpoints that play (and judge the luck), read once; the games
    # play these bytes and the md5s recorded are theirs, whatever replaces the files meanwhile;
    # and this process's threads (it plays in-process with one worker)
    pins = Pins.read((s.model1, model2), s.luck)
    md5 = {**pins.md5s(s.model1, model2), **threads.use(s.threads)}
    check_usage(s, pins)
    if model2 in GNUBG_LEVELS:
        if s.where.backend != "local":
            raise cli.UsageError(
                f"{model2} games run on this machine (its gnubg binary): use --backend local"
            )
        backend_flags.start_backend(s.where, s.workers)
        return against_gnubg(s, model2, md5, pins)
    if s.gnubg:
        raise cli.UsageError(
            "--gnubg names the binary for --model2 gnubg-ext / gnubg-ext-full; "
            f"{model2} is not the gnubg binary"
        )
    mode_name = s.game_mode or pins.game_mode(s.model1) or pins.game_mode(model2) or "dmp"
    mode = cli.checked(
        lambda: game_mode(mode_name, s.jacoby, s.match_length or DEFAULT_MATCH_LENGTH, s.met)
    )
    series = ON_OUR_DICE[series_unit(mode)](s, model2, mode, pins)
    return Plan(series, model2, md5, mode)


def check_usage(s: PlaySettings, pins: Pins) -> None:
    """The flags' consistency, whatever the opponent (the luck judge was checked as it was
    read: luck.read_reference)."""
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
        mode_name = s.game_mode or pins.game_mode(s.model1) or "dmp"
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


def the_players(
    s: PlaySettings, model2: str, pins: Pins, gnubg_depth: bool = False
) -> tuple[Player, Player]:
    """The two players the flags describe, each playing its checkpoint's bytes of ``pins``;
    InputError for a name that is neither a named opponent nor a checkpoint file (nor the
    gnubg binary's level); ``gnubg_depth``: --plies goes to a gnubg-nn player (match play
    takes no --plies)."""
    searches = (player_search(s, s.oneply1, s.twoply1), player_search(s, s.oneply2, s.twoply2))

    def make(spec: str, search: Search) -> Player:
        return Player(
            spec,
            search,
            plies=s.plies if gnubg_depth and spec.startswith("gnubg-nn") else None,
            engine=s.engine,
            data=pins.get(spec),
        )

    players = (make(s.model1, searches[0]), make(model2, searches[1]))
    for player in players:
        if player.name not in GNUBG_LEVELS:
            check_spec(player.name)
    return players


def player_search(s: PlaySettings, oneply: bool, twoply: bool) -> Search:
    """One player's search (its --oneplyN or --twoplyN): --oneply-k and --oneply-filter are
    given once for both players, and go to those whose depth they filter (check_usage has
    refused them when neither player's does)."""
    return Search(
        oneply,
        (s.twoply_k1, s.twoply_k2) if twoply else None,
        s.oneply_k if oneply else None,
        s.oneply_filter if oneply or twoply else None,
    )


def games_on_our_dice(s: PlaySettings, model2: str, mode: GameMode, pins: Pins) -> Series:
    """Single games in duplicate pairs."""
    check_play_outputs(s, model2)
    players = the_players(s, model2, pins, gnubg_depth=True)
    backend_flags.start_backend(s.where, s.workers)
    if s.plies is not None and all(p.plies is None for p in players):
        raise cli.UsageError("--plies sets gnubg-nn's depth, and neither player is gnubg-nn")
    return Series(
        players,
        ModeSpec(mode.name, s.jacoby),
        s.games,
        s.seed,
        s.workers,
        record=bool(s.save_games or s.save_extreme_games),
        luck=s.luck,
        pool=s.where.backend,
        n_bootstrap=s.n_bootstrap,
        luck_data=pins.luck,
    )


def matches_on_our_dice(s: PlaySettings, model2: str, mode: GameMode, pins: Pins) -> Series:
    """Whole matches in duplicate pairs."""
    if s.save_games or s.save_extreme_games or s.luck:
        raise cli.UsageError(
            "--save-games, --save-extreme-games and --luck are not available for match play yet"
        )
    if s.where.backend != "local":
        raise cli.UsageError(
            "match play runs on this machine's workers for now: use --backend local"
        )
    check_play_outputs(s, model2)
    return Series(
        the_players(s, model2, pins),
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


def against_gnubg(s: PlaySettings, level: str, md5: dict, pins: Pins) -> Plan:
    """--model2 gnubg-ext / gnubg-ext-full: money games (or matches) against the real binary."""
    if s.oneply2 or s.twoply2 or s.plies is not None:
        raise cli.UsageError(
            "--oneply2, --twoply2 and --plies do not apply to gnubg-ext (it plays at its own level)"
        )
    if s.twoply1:
        raise cli.UsageError(
            "--twoply1 against gnubg-ext is not supported yet: the gnubg bridge plays 0- or 1-ply"
        )
    mode_name = s.game_mode or checkpoint_game_mode(s.model1, pins.get(s.model1)) or "cubeful-money"
    length = s.match_length or DEFAULT_MATCH_LENGTH  # the modes without matches ignore it
    what = AGAINST_GNUBG[series_unit(mode_class(mode_name))](s, length)
    mode = cli.checked(
        lambda: game_mode(mode_name, s.jacoby, length, s.met)
    )  # a bad --met before gnubg starts
    csv_path = gnubg_csv_path(s, what)
    check_play_outputs(s, level, csv_path)
    players = the_players(s, level, pins)
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    run_outputs.claim()  # gnubg writes the match files (into --save-games, made with the first): old ones go now
    series = Series(
        players,
        ModeSpec(mode_name, s.jacoby, mat_length(mode), s.met),
        s.games,
        s.seed,
        s.workers,
        luck=s.luck,
        n_bootstrap=s.n_bootstrap,
        luck_data=pins.luck,
    )
    gnubg = GnubgSide(
        level=level,
        gnubg=s.gnubg,
        gnubg_timeout=s.gnubg_timeout,
        games_csv=csv_path,
        save_games=s.save_games,
    )
    return Plan(series, level, md5, mode, gnubg)
