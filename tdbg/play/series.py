"""The one series runner: games, or whole matches, between two players, in duplicate pairs
on our dice over worker processes, or against an opponent that rolls its own dice (the
gnubg binary, tdbg.gnubg.gnubg_series.GnubgSide); either way it returns the records and
one Summary (summary.py).

A ``Series`` is one frozen value (the players, the table, how many, the seed, where it
runs), sent to the workers job by job.  What a series counts is the mode's
(``GameMode.series_unit``): games, or matches; units.UNITS says how each is played and
summarized.
"""
from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass, field
from typing import Protocol

from tqdm import tqdm

from tdbg.game.modes import game_mode
from tdbg.game.modes.base import GameMode
from tdbg.infra.backends import open_pool
from tdbg.play.players import Player, build_agent
from tdbg.play.summary import Summary
from tdbg.play.units import UNITS


@dataclass(frozen=True)
class Table:
    """The game mode as a value a worker rebuilds it from."""
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
    (gnubg-nn or a checkpoint): judge each game's luck (luck.py); ``pool``: where the
    workers run (backends.py): the records are the same whichever runs them;
    ``n_bootstrap``: the resamples behind each interval of the summary."""
    players: tuple[Player, Player]
    table: Table
    count: int
    seed: int = 0
    workers: int = 1
    record: bool = False
    luck: str | None = None
    pool: str = "local"
    n_bootstrap: int = 2000


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
        mode = self.series.table.build()
        fields = UNITS[mode.series_unit].summarize(self.records, mode, self.series, self.paired)
        return Summary(mode.series_unit, fields, self.paired)


def _job(job: dict):
    """One worker job: the series, the indices of its units to play, and the files its players
    and luck read (``name1``, ``name2``, ``luck``: the paths as this worker finds them; the pool
    resolves shipped files given as a job's top-level values, not ones inside the series)."""
    series = job["series"]
    players = tuple(dataclasses.replace(p, name=n) for p, n in zip(series.players, (job["name1"], job["name2"])))
    series = dataclasses.replace(series, players=players, luck=job["luck"])
    mode = series.table.build()   # threads: a pool's worker set one (threads.WORKER); in this process, the run's choice
    a = build_agent(series.players[0].seeded(series.seed), mode)
    b = build_agent(series.players[1].seeded(series.seed + 1), mode)
    return UNITS[mode.series_unit].play(a, b, job["indices"], mode, series)


def play_series(series: Series, progress: bool = True, on_records=None, against: OwnDice | None = None) -> Played:
    """Play the series, on our dice or, ``against`` an opponent that rolls its own, between
    its first player and that opponent; InputError before any unit when a player cannot play
    the mode.  ``on_records(records)`` sees each finished batch on our dice, e.g. to write
    .mat files as they come."""
    mode = series.table.build()
    unit = UNITS[mode.series_unit]
    if against is not None:
        records, games, errors = against.play(series, progress)
        return Played(series, records, False, games, errors)
    for player in series.players:  # built once here, so that a bad player fails before any worker starts
        try:
            mode.check_agent(build_agent(player.seeded(series.seed), mode))
        except ValueError as exc:
            raise unit.refused(player, exc) from None
    low, high = unit.chunk
    size = min(high, max(low, series.count // (4 * max(series.workers, 1))))
    size += size % 2  # keep duplicate pairs in one job
    chunks = [list(range(s, min(s + size, series.count))) for s in range(0, series.count, size)]
    records = []
    bar = tqdm(total=series.count, unit=mode.series_unit, disable=not progress, dynamic_ncols=True)
    pool = open_pool(series.pool, series.workers, f"{mode.series_unit}-playing worker")
    try:
        if pool is None:
            local = {"series": series, "name1": series.players[0].name, "name2": series.players[1].name,
                     "luck": series.luck}
            finished = (_job({**local, "indices": chunk}) for chunk in chunks)
        else:  # checkpoints travel with the jobs (a Ray node may not have the files)
            shipped = _shipped(series, pool)
            finished = (got for _, got in pool.as_completed([pool.submit(_job, {**shipped, "indices": chunk})
                                                             for chunk in chunks]))
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


def _shipped(series: Series, pool) -> dict:
    """A job's common part: the series, and its checkpoint files as the pool's workers find
    them, each a top-level value (``name1``, ``name2``, ``luck``) so the pool can resolve it."""
    def ship(path):
        return pool.ship_file(path) if path and os.path.isfile(path) else path
    names = [ship(p.name) for p in series.players]
    return {"series": series, "name1": names[0], "name2": names[1], "luck": ship(series.luck)}
