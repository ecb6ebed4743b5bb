"""One series runner: games, or whole matches, between two players in duplicate pairs on
our dice, over worker processes (games against the gnubg binary, which rolls its own dice,
are tdbg.app.head_to_head's).

A ``Series`` is one frozen value (the players, the table, how many, the seed, where it
runs), sent to the workers job by job.  What a series counts is the mode's
(``GameMode.series_unit``): games, or matches; ``UNITS`` says how each is played.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import torch
from tqdm import tqdm

from tdbg.game.modes import game_mode
from tdbg.game.modes.base import GameMode
from tdbg.infra.backends import open_pool
from tdbg.infra.errors import InputError
from tdbg.play.luck import add_luck, read_reference
from tdbg.play.match import play_games
from tdbg.play.matches import play_matches
from tdbg.play.players import Player, build_agent, pinned


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
    workers run (backends.py): the records are the same whichever runs them.  ``luck_data``:
    the luck checkpoint's bytes (``pinned_series``)."""
    players: tuple[Player, Player]
    table: Table
    count: int
    seed: int = 0
    workers: int = 1
    record: bool = False
    luck: str | None = None
    pool: str = "local"
    luck_data: bytes | None = dataclasses.field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Unit:
    """How a series of one kind of unit is played."""
    play: Callable      # (agent_a, agent_b, indices, mode, series) -> records
    chunk: tuple[int, int]   # the fewest and most units a job plays
    refused: Callable   # (player, error) -> the InputError for a player that cannot play


def _play_games(a, b, indices, mode, series: Series):
    records = play_games(a, b, indices, mode, series.seed, record=series.record or bool(series.luck))
    if series.luck:  # judged here, in the worker, a whole chunk of games at once
        add_luck(records, series.luck, mode, keep_turns=series.record, data=series.luck_data)
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
    """One worker job: the series (its checkpoints travel inside it as bytes, so a worker
    needs no file and plays what was read at the start) and the indices of its units."""
    series = job["series"]
    torch.set_num_threads(1)
    mode = series.table.build()
    a = build_agent(series.players[0].seeded(series.seed), mode)
    b = build_agent(series.players[1].seeded(series.seed + 1), mode)
    return UNITS[mode.series_unit].play(a, b, job["indices"], mode, series)


def pinned_series(series: Series) -> Series:
    """The series with every checkpoint it plays or judges luck with read once, now (players.pinned,
    luck.read_reference): a file replaced during the run changes nothing of it.  InputError
    for a checkpoint that cannot be read, or a luck judge that is neither gnubg-nn nor a
    checkpoint."""
    luck_data = series.luck_data
    if series.luck and luck_data is None:
        luck_data = read_reference(series.luck)
    return dataclasses.replace(series, players=tuple(pinned(p) for p in series.players), luck_data=luck_data)


def play_series(series: Series, progress: bool = True, on_records=None) -> list:
    """Play the series and return its records (GameRecords, or MatchRecords), in order;
    InputError before any unit when a player cannot play the mode.  ``on_records(records)``
    sees each finished batch, e.g. to write .mat files as they come.  The checkpoints are read
    once, here, unless the series comes pinned (pinned_series)."""
    series = pinned_series(series)
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
            finished = (_job({"series": series, "indices": chunk}) for chunk in chunks)
        else:  # the series, weights included, is shared once (with Ray: put in the object store)
            shared = pool.share(series)
            finished = (got for _, got in pool.as_completed([pool.submit(_job, {"series": shared, "indices": chunk})
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
