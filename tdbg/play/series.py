"""One series runner: games, or whole matches, between two players in duplicate pairs on
our dice, over worker processes (games against the gnubg binary, which rolls its own dice,
are tdbg.app.head_to_head's).

A ``Series`` is one frozen value (the players, the table, how many, the seed, where it
runs), sent to the workers job by job.  What a series counts is the mode's
(``GameMode.series_unit``): games, or matches; ``UNITS`` says how each is played.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Callable

from tqdm import tqdm

from tdbg.game.modes import game_mode
from tdbg.game.modes.base import GameMode
from tdbg.infra.backends import open_pool
from tdbg.infra.errors import InputError
from tdbg.play.luck import add_luck
from tdbg.play.match import play_games
from tdbg.play.matches import play_matches
from tdbg.play.players import Player, build_agent


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
    workers run (backends.py): the records are the same whichever runs them."""
    players: tuple[Player, Player]
    table: Table
    count: int
    seed: int = 0
    workers: int = 1
    record: bool = False
    luck: str | None = None
    pool: str = "local"


@dataclass(frozen=True)
class Unit:
    """How a series of one kind of unit is played."""
    play: Callable      # (agent_a, agent_b, indices, mode, series) -> records
    chunk: tuple[int, int]   # the fewest and most units a job plays
    refused: Callable   # (player, error) -> the InputError for a player that cannot play


def _play_games(a, b, indices, mode, series: Series):
    records = play_games(a, b, indices, mode, series.seed, record=series.record or bool(series.luck))
    if series.luck:  # judged here, in the worker, a whole chunk of games at once
        add_luck(records, series.luck, mode, keep_turns=series.record)
    return records


def _play_matches(a, b, indices, mode, series: Series):
    return play_matches(a, b, indices, mode, series.seed, record=series.record)


UNITS = {
    # many games advance together (one forward pass per step for all of them), so bigger jobs
    # are faster; four jobs per worker keep the progress bar moving
    "game": Unit(_play_games, (50, 1000), lambda player, exc: InputError(
        str(exc) + ("; against gnubg use the real binary (gnubg-ext)" if player.name.startswith("gnubg-nn") else ""))),
    "match": Unit(_play_matches, (10, 200), lambda player, exc: InputError(f"{player.name}: {exc}")),
}


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


def play_series(series: Series, progress: bool = True, on_records=None) -> list:
    """Play the series and return its records (GameRecords, or MatchRecords), in order;
    InputError before any unit when a player cannot play the mode.  ``on_records(records)``
    sees each finished batch, e.g. to write .mat files as they come."""
    mode = series.table.build()
    unit = UNITS[mode.series_unit]
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
    return records


def _shipped(series: Series, pool) -> dict:
    """A job's common part: the series, and its checkpoint files as the pool's workers find
    them, each a top-level value (``name1``, ``name2``, ``luck``) so the pool can resolve it."""
    def ship(path):
        return pool.ship_file(path) if path and os.path.isfile(path) else path
    names = [ship(p.name) for p in series.players]
    return {"series": series, "name1": names[0], "name2": names[1], "luck": ship(series.luck)}
