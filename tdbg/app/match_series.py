"""A series of matches between two players named on the command line (checkpoints or
reference agents), in duplicate pairs, over worker processes."""
from __future__ import annotations

import torch
from tqdm import tqdm

from tdbg.play.players import build_agent
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.infra.errors import InputError
from tdbg.infra.workers import WorkerPool
from tdbg.play.matches import MatchRecord, play_matches


def _match_job(job: dict) -> list[MatchRecord]:
    torch.set_num_threads(1)
    mode = MatchPlay(length=job["length"], met=job["met"])
    a = build_agent(job["spec1"], mode, job["oneply1"], job["seed"], job["backend"], job["twoply"][0],
                    oneply_k=job.get("oneply_k"), oneply_filter=job.get("oneply_filter"))
    b = build_agent(job["spec2"], mode, job["oneply2"], job["seed"] + 1, job["backend"], job["twoply"][1],
                    oneply_k=job.get("oneply_k"), oneply_filter=job.get("oneply_filter"))
    return play_matches(a, b, job["matches"], mode, job["seed"], record=job.get("record", False))


def run_matches(spec1: str, spec2: str, matches: int, length: int, oneply1: bool = False, oneply2: bool = False,
                seed: int = 0, workers: int = 1, backend: str = "auto", progress: bool = True,
                met: str | None = None, twoply=(None, None), record: bool = False,
                oneply_k: int | None = None, oneply_filter: int | None = None) -> list[MatchRecord]:
    """Play ``matches`` ``length``-point matches (duplicate pairs) between two checkpoints or
    named agents (``twoply``: each one's (k1, k2) 2-ply search, or None; ``oneply_k``: a 1-ply
    player's candidates by 0-ply; ``oneply_filter``: the replies per roll a 1-ply or 2-ply player's
    move filter keeps); InputError (before
    any match) when one cannot play them.  ``record``: keep every game's turns."""
    mode = MatchPlay(length=length, met=met)
    for spec, oneply, search in ((spec1, oneply1, twoply[0]), (spec2, oneply2, twoply[1])):
        try:
            mode.check_agent(build_agent(spec, mode, oneply, seed, backend, search, oneply_k=oneply_k,
                                             oneply_filter=oneply_filter))
        except ValueError as exc:
            raise InputError(f"{spec}: {exc}") from None
    size = max(10, min(200, matches // (4 * max(workers, 1))))
    size += size % 2  # keep duplicate pairs in one job
    base = {"spec1": spec1, "spec2": spec2, "length": length, "oneply1": oneply1, "oneply2": oneply2,
            "seed": seed, "backend": backend, "met": met, "twoply": list(twoply), "record": record,
            "oneply_k": oneply_k, "oneply_filter": oneply_filter}
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
