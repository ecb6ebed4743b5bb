"""The one series runner: games, or whole matches, between two players, in duplicate pairs
on our dice over worker processes, or against an opponent that rolls its own dice (the
gnubg binary, tdbg.gnubg.gnubg_series.GnubgSide); either way it returns the records and
one Summary (summary.py).

A ``Series`` is one frozen value (the players, the game mode, how many, the seed, where it
runs), sent to the workers job by job.  What a series counts is the mode's
(``units.series_unit``): games, or matches; units.UNITS says how each is played and
summarized.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Protocol

from tqdm import tqdm

from tdbg.game.modes import game_mode
from tdbg.game.modes.base import GameMode
from tdbg.infra.backends import in_process, open_pool
from tdbg.play.luck import read_reference
from tdbg.play.players import Player, pinned
from tdbg.play.seating import seated
from tdbg.play.summary import Summary
from tdbg.play.units import UNITS, series_unit


@dataclass(frozen=True)
class ModeSpec:
    """The game mode as a value a worker rebuilds it from (its name and options)."""

    mode: str
    jacoby: bool = True
    match_length: int = 0
    met: str | None = None

    def build(self) -> GameMode:
        return game_mode(self.mode, self.jacoby, self.match_length, self.met)


@dataclass(frozen=True)
class Series:
    """``count`` games (matches, in match play) between ``players``, the first with the
    job's seed, the second with seed + 1.  ``record``: keep every game's turns; ``luck``
    (gnubg-nn or a checkpoint): judge each game's luck (luck.py); ``backend``: the worker
    backend that runs the jobs (backends.py: local processes or Ray): the records are the
    same whichever runs them;
    ``n_bootstrap``: the resamples behind each interval of the summary; ``luck_data``: the
    luck checkpoint's bytes (``pinned_series``)."""

    players: tuple[Player, Player]
    mode_spec: ModeSpec
    count: int
    seed: int = 0
    workers: int = 1
    record: bool = False
    luck: str | None = None
    backend: str = "local"
    n_bootstrap: int = 2000
    luck_data: bytes | None = field(default=None, repr=False, compare=False)


class OwnDice(Protocol):
    """An opponent that rolls its own dice and plays the series' first player itself."""

    def play(self, series: Series, progress: bool) -> tuple[list, list, list]:
        """(units, games, errors): the series' units played, every game's record, errors."""


@dataclass
class Played:
    """A series played: its units' records (GameRecords, or MatchRecords) in order, every
    game's record against an opponent that rolls its own dice (there the games of matches
    too), and its errors; ``summary``, made when first asked for (None when not one unit
    finished)."""

    series: Series
    records: list
    paired: bool = True
    games: list = field(default_factory=list)
    errors: list = field(default_factory=list)

    @functools.cached_property
    def summary(self) -> Summary | None:
        if not self.records:
            return None
        mode = self.series.mode_spec.build()
        fields = UNITS[series_unit(mode)].summarize(self.records, mode, self.series, self.paired)
        return Summary(series_unit(mode), fields, self.paired)


def _check_players(series: Series, mode: GameMode) -> None:
    """The series' two agents built once, here, and dropped: a player that cannot play
    ``mode``'s games (seating.seated's InputError) fails before any worker starts."""
    for k, player in enumerate(series.players):
        seated(player, mode, series.seed + k)


def _job(job: dict):
    """One worker job: the series (its checkpoints travel inside it as bytes once pinned, so
    a worker needs no file and plays what was read at the start) and the indices of its units."""
    series = job["series"]
    # threads: a pool's worker set one (threads.WORKER); in this process, the run's choice
    mode = series.mode_spec.build()
    return UNITS[series_unit(mode)].play(*series.players, job["indices"], mode, series)


def pinned_series(series: Series) -> Series:
    """The series with every checkpoint it plays or judges luck with read once, now (players.pinned,
    luck.read_reference): a file replaced during the run changes nothing of it.  InputError
    for a checkpoint that cannot be read, or a luck judge that is neither gnubg-nn nor a
    checkpoint."""
    luck_data = series.luck_data
    if series.luck and luck_data is None:
        luck_data = read_reference(series.luck)
    return dataclasses.replace(
        series, players=(pinned(series.players[0]), pinned(series.players[1])), luck_data=luck_data
    )


def play_series(
    series: Series, progress: bool = True, on_records=None, against: OwnDice | None = None
) -> Played:
    """Play the series, on our dice or, ``against`` an opponent that rolls its own, between
    its first player and that opponent; InputError before any unit when a player cannot play
    the mode (seating.seated, as the game loop seats it).  ``on_records(records)`` sees each
    finished batch on our dice, e.g. to write .mat files as they come.  The series plays
    what its players hold: pin it first (``pinned_series``) for its checkpoints to be read
    once, whatever replaces the files during the run (play_models.py's series come pinned)."""
    mode = series.mode_spec.build()
    unit = UNITS[series_unit(mode)]
    if against is not None:
        records, games, errors = against.play(series, progress)
        return Played(series, records, False, games, errors)
    low, high = unit.chunk
    size = min(high, max(low, series.count // (4 * max(series.workers, 1))))
    size += size % 2  # keep duplicate pairs in one job
    chunks = [list(range(s, min(s + size, series.count))) for s in range(0, series.count, size)]
    records = []
    # each job's game loop seats its players' agents fresh, right before their first move
    # (match.Seats: a random player's choices restart with each job, so a job plays the same
    # units in whichever process); a player that cannot play fails before any unit: in this
    # process the first job's loop seats them first, with workers they are seated here first
    if not in_process(series.backend, series.workers):
        _check_players(series, mode)
    pool = open_pool(series.backend, series.workers, f"{series_unit(mode)}-playing worker")
    # the bar shows from the first finished batch on, so a refusal in the first job is one
    # error line (tqdm shows a bar with a delay first at an update after it, here 1 ms)
    bar = tqdm(
        total=series.count,
        unit=series_unit(mode),
        disable=not progress,
        dynamic_ncols=True,
        delay=1e-3,
    )
    try:
        if pool is None:
            finished = (unit.play(*series.players, chunk, mode, series) for chunk in chunks)
        else:  # the series, weights included, is shared once (with Ray: put in the object store)
            shared = pool.share(series)
            finished = (
                got
                for _, got in pool.as_completed(
                    [pool.submit(_job, {"series": shared, "indices": chunk}) for chunk in chunks]
                )
            )
        for got in finished:
            records += got
            bar.update(len(got))
            if on_records:
                on_records(got)
    finally:
        if pool is not None:
            pool.close()
        bar.close()
    records.sort(key=lambda r: r.index)
    return Played(series, records)
