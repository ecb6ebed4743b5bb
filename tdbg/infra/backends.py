"""Where worker jobs run: ``local`` (in this process for one worker, else worker processes
on this machine, workers.WorkerPool) or ``ray`` (long-lived Ray actors on a cluster,
ray_backend.RayPool).  Both pools take the same jobs and return the same results: a
job's outcome depends only on the job (its seed included), never on where it ran.

A pool has ``share(obj)`` (a value many jobs read, e.g. a round's weights: with Ray
put in the object store once; a checkpoint travels as its bytes), ``submit(fn, job)``,
``as_completed(tasks)``, ``results(tasks)`` and ``close()``.

Ray is optional: nothing here imports it unless ``--backend ray`` is asked for (the flags
and the connection at the start of a run are tdbg.app.backend_flags').
"""

from __future__ import annotations

from dataclasses import dataclass

from tdbg.infra.settings_fields import option
from tdbg.infra.workers import WorkerPool

BACKENDS = ("local", "ray")
RAY_INSTALL = "make setup-ray, or pip install -r requirements-ray.txt"
DEFAULT_RAY_TIMEOUT = 3600.0


@dataclass(frozen=True)
class Backend:
    """Where worker jobs run (``{what}`` in a help text: what the workers do, named by the script)."""

    backend: str = option(
        "local",
        f"local: {{what}} processes on this machine; ray: Ray actors on a cluster "
        f"(needs Ray: {RAY_INSTALL})",
        choices=BACKENDS,
    )
    ray_address: str | None = option(
        None,
        "with --backend ray: the head of a running Ray cluster (ray start "
        "--head), or auto (default: start a local Ray with this machine's "
        "cores)",
        metavar="HOST:PORT",
    )
    ray_timeout: float = option(
        DEFAULT_RAY_TIMEOUT,
        "with --backend ray: a worker's job (its share of a round, "
        "or a batch of games) that does not finish within this many seconds of its "
        "start stops the run (a training run keeps its last checkpoint)",
        type="positive_float",
        metavar="SECONDS",
    )


def in_process(backend: str, workers: int, separate: bool = False) -> bool:
    """Whether ``open_pool`` runs the jobs in this process (gives no pool): local, one worker,
    unless ``separate``."""
    return backend != "ray" and workers <= 1 and not separate


def open_pool(backend: str, workers: int, what: str, separate: bool = False):
    """A pool of ``workers`` for ``backend``, or None: run in this process (``in_process``:
    local, one worker, unless ``separate``: a process of its own, so that this one can work
    meanwhile)."""
    if in_process(backend, workers, separate):
        return None
    if backend == "ray":
        from tdbg.infra.ray_backend import RayPool

        return RayPool(workers, what)
    return WorkerPool(workers, what=what)
