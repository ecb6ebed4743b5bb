"""A series of matches between two players named on the command line (checkpoints or
reference agents), in duplicate pairs, over worker processes."""
from __future__ import annotations

import torch
from tqdm import tqdm

from tdbg.play.players import Player, build_agent
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.infra.errors import InputError
from tdbg.infra.workers import WorkerPool
from tdbg.play.matches import MatchRecord, play_matches


def _match_job(job: dict) -> list[MatchRecord]:
    torch.set_num_threads(1)
    mode = MatchPlay(length=job["length"], met=job["met"])
    a = build_agent(job["player1"].seeded(job["seed"]), mode)
    b = build_agent(job["player2"].seeded(job["seed"] + 1), mode)
    return play_matches(a, b, job["matches"], mode, job["seed"], record=job.get("record", False))


def run_matches(players: tuple[Player, Player], matches: int, length: int, seed: int = 0, workers: int = 1,
                progress: bool = True, met: str | None = None, record: bool = False) -> list[MatchRecord]:
    """Play ``matches`` ``length``-point matches (duplicate pairs) between ``players``
    (each plays with the job's seed, the second with seed + 1); InputError (before any
    match) when one cannot play them.  ``record``: keep every game's turns."""
    mode = MatchPlay(length=length, met=met)
    for player in players:
        try:
            mode.check_agent(build_agent(player.seeded(seed), mode))
        except ValueError as exc:
            raise InputError(f"{player.name}: {exc}") from None
    size = max(10, min(200, matches // (4 * max(workers, 1))))
    size += size % 2  # keep duplicate pairs in one job
    base = {"player1": players[0], "player2": players[1], "length": length, "seed": seed, "met": met,
            "record": record}
    jobs = [{**base, "matches": list(range(s, min(s + size, matches)))} for s in range(0, matches, size)]
    records: list[MatchRecord] = []
    bar = tqdm(total=matches, unit="match", disable=not progress, dynamic_ncols=True)
    try:
        if workers <= 1:
            for job in jobs:
                records += _match_job(job)
                bar.update(len(job["matches"]))
        else:
            with WorkerPool(workers, what="match-playing worker") as pool:
                for _, got in pool.as_completed([pool.submit(_match_job, job) for job in jobs]):
                    records += got
                    bar.update(len(got))
    finally:
        bar.close()
    records.sort(key=lambda r: r.index)
    return records
