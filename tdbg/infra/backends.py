"""Where worker jobs run: ``local`` (in this process for one worker, else worker processes
on this machine, workers.WorkerPool) or ``ray`` (long-lived Ray actors on a cluster,
ray_backend.RayPool).  Both pools take the same jobs and return the same results: a
job's outcome depends only on the job (its seed included), never on where it ran.

A pool has ``share(obj)`` (a value many jobs read, e.g. a round's weights: with Ray
put in the object store once), ``ship_file(path)`` (a file jobs open, e.g. a
checkpoint: with Ray sent to nodes that may not have it), ``submit(fn, job)``,
``as_completed(tasks)``, ``results(tasks)`` and ``close()``.

Ray is optional: nothing here imports it unless ``--backend ray`` is asked for (the flags
and the connection at the start of a run are tdbg.app.backend_flags').
"""
from __future__ import annotations

from tdbg.infra.workers import WorkerPool

BACKENDS = ("local", "ray")


def open_pool(backend: str, workers: int, what: str):
    """A pool of ``workers`` for ``backend``, or None: run in this process (local, one worker)."""
    if backend == "ray":
        from tdbg.infra.ray_backend import RayPool
        return RayPool(workers, what)
    return WorkerPool(workers, what=what) if workers > 1 else None
