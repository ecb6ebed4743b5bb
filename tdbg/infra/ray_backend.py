"""Worker jobs on Ray actors (``--backend ray``), imported only when asked for.

``RayPool`` is workers.WorkerPool's twin: one long-lived actor per worker (one CPU
each, spread over the cluster's nodes), each keeping what its jobs cache (the C
engine, a copy of the network) from one job to the next.  A job goes to the next
idle actor; a value many jobs read (a round's weights) is put in the object store
once and passed by reference; results (numpy arrays) come back as objects.

Faults: a job whose actor died (killed, out of memory, its node lost) runs again,
same job and seed, on a fresh actor, so a round's episode count is exact (nothing
dropped, nothing counted twice); after ``retries`` losses of one job, or when a job
is not done ``timeout`` seconds after an actor started on it, workers.WorkerError
says so in one line.  A job that raises re-raises
its own exception here.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import time
from collections import deque

import ray
import torch
from ray.exceptions import (
    ObjectLostError,
    RayActorError,
    RayError,
    RayTaskError,
    WorkerCrashedError,
)

from tdbg.infra.errors import InputError
from tdbg.infra.threads import WORKER, cores
from tdbg.infra.workers import Task, WorkerError

LOST = (
    RayActorError,
    WorkerCrashedError,
    ObjectLostError,
)  # the job's actor (or node) is gone: run it again
_settings = {"timeout": 3600.0}
_WAIT_STEP = 1.0  # seconds per ray.wait, so that signals (Ctrl-C, SIGTERM) are handled promptly


def _reachable(address: str) -> str | None:
    """Why a HOST:PORT cannot be connected to, or None (a quick check before ray.init,
    which would retry for a minute)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return "expected HOST:PORT, e.g. 10.0.0.1:6379"
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    return None


def connect(address: str | None, workers: int, timeout: float = 3600.0) -> None:
    """Join the Ray cluster at ``address`` (or start a local one with at least ``workers``
    CPUs); InputError when it cannot be reached or has fewer CPUs than ``workers``."""
    _settings["timeout"] = timeout
    if ray.is_initialized():
        return
    if address and address != "auto" and not address.startswith("ray://"):
        why = _reachable(address)
        if why:
            raise InputError(f"--ray-address {address}: cannot reach a Ray cluster there ({why})")
    # A cluster's address, or a local one started with enough CPUs (explicit arguments, not a
    # kwargs dict, so that mypy checks them against Ray's signature when Ray is installed)
    try:
        if address:
            ray.init(address=address, logging_level=logging.ERROR, configure_logging=True)
        else:
            ray.init(
                num_cpus=max(cores(), workers),
                include_dashboard=False,
                logging_level=logging.ERROR,
                configure_logging=True,
            )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise InputError(
            f"--ray-address {address}: cannot connect to Ray ({str(exc).splitlines()[0]})"
        ) from None
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if cpus < workers:
        ray.shutdown()
        raise InputError(
            f"--workers {workers} needs {workers} CPUs, but the Ray cluster at {address} has {cpus}: "
            f"give --workers {cpus} or less, or add nodes (ray start --address)"
        )


@ray.remote(num_cpus=1, max_restarts=0)
class _Runner:
    """One worker: runs jobs in its own process, one at a time."""

    def __init__(self):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver handles Ctrl-C
        torch.set_num_threads(WORKER)

    def run(self, fn, job: dict, keys: tuple, *shared):
        job = {
            **job,
            **dict(zip(keys, shared, strict=True)),
        }  # the object store's values, fetched by Ray
        return fn(job)

    def where(self) -> tuple:
        return os.getpid(), ray.get_runtime_context().get_node_id()


class RayTask(Task):
    """A Task with when an actor started on it (for the timeout) and whether its result is in."""

    def __init__(self, fn, job, retries: int):
        super().__init__(fn, job, retries)
        self.started: float | None = None
        self.finished = False


class RayPool:
    def __init__(
        self, workers: int, what: str = "worker", retries: int = 3, timeout: float | None = None
    ):
        if not ray.is_initialized():
            connect(None, workers)
        self.what, self.retries = what, retries
        self.timeout = _settings["timeout"] if timeout is None else timeout
        self.actors = [self._new_actor() for _ in range(workers)]
        self.idle = list(self.actors)
        self.queue: deque = deque()
        self.running: dict = {}  # ObjectRef -> (task, actor)
        self.restarts = 0

    @staticmethod
    def _new_actor():
        return _Runner.options(scheduling_strategy="SPREAD").remote()

    def share(self, obj):
        """Put ``obj`` in the object store once; jobs holding the reference receive the value."""
        return ray.put(obj)

    def submit(self, fn, job: dict, retries: int | None = None) -> Task:
        task = RayTask(fn, job, self.retries if retries is None else retries)
        self.queue.append(task)
        self._dispatch()
        return task

    def _dispatch(self) -> None:
        while self.idle and self.queue:
            actor, task = self.idle.pop(0), self.queue.popleft()
            keys = tuple(k for k, v in task.job.items() if isinstance(v, ray.ObjectRef))
            plain = {k: v for k, v in task.job.items() if k not in keys}
            ref = actor.run.remote(task.fn, plain, keys, *(task.job[k] for k in keys))
            task.started = time.monotonic()
            self.running[ref] = (task, actor)

    def _lost(self, task: Task, actor, exc: Exception) -> None:
        """Replace the dead actor and run its job again (same job, same seed: the same result)."""
        ray.kill(actor, no_restart=True)
        self.actors[self.actors.index(actor)] = fresh = self._new_actor()
        self.idle.append(fresh)
        if task.retries <= 0:
            raise WorkerError(
                f"a {self.what} (Ray actor) died {self.retries + 1} times running one job "
                f"({type(exc).__name__})"
            )
        task.retries -= 1
        self.restarts += 1
        print(
            f"warning: a {self.what} (Ray actor) died ({type(exc).__name__}); running its job again on a "
            f"new actor",
            file=sys.stderr,
            flush=True,
        )
        self.queue.appendleft(task)

    def _step(self, deadline: float) -> None:
        """Wait for one job to finish (or be lost) and start the next."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise WorkerError(
                f"a {self.what} job did not finish within {self.timeout:g} s of its start "
                f"(--ray-timeout; is the cluster short of free CPUs, or a node unreachable?)"
            )
        try:
            ready, _ = ray.wait(list(self.running), num_returns=1, timeout=min(left, _WAIT_STEP))
        except (
            SystemError
        ) as exc:  # a signal handler raised (Ctrl-C, SIGTERM) inside Ray's C code: that exception
            if exc.__context__ is None:
                raise
            raise exc.__context__ from None
        if not ready:
            return
        task, actor = self.running.pop(ready[0])
        try:
            task.value = ray.get(ready[0])
        except (
            RayTaskError
        ) as exc:  # the job itself raised: its exception, as a local worker's would be
            self.idle.append(actor)
            raise (
                exc.cause if isinstance(exc.cause, BaseException) else WorkerError(str(exc))
            ) from None
        except LOST as exc:
            self._lost(task, actor, exc)
        except RayError as exc:
            raise WorkerError(
                f"Ray failed while running {self.what} jobs: {str(exc).splitlines()[0]}"
            ) from None
        else:
            task.finished = True
            self.idle.append(actor)
        self._dispatch()

    def as_completed(self, tasks):
        """Yield (task, result) as the tasks finish, re-running jobs lost with an actor."""
        waiting = list(tasks)
        while waiting:
            for task in [t for t in waiting if t.finished]:
                waiting.remove(task)
                value, task.value = task.value, None
                yield task, value
            if waiting:  # the oldest running job sets the deadline
                self._step(min(t.started for t, _ in self.running.values()) + self.timeout)

    def results(self, tasks) -> list:
        got = {id(t): v for t, v in self.as_completed(tasks)}
        return [got[id(t)] for t in tasks]

    def where(self) -> list[tuple]:
        """(pid, node id) of each actor, e.g. to see them spread over the nodes."""
        return ray.get([a.where.remote() for a in self.actors])

    def close(self) -> None:
        if not self.actors:
            return
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors, self.idle, self.running = [], [], {}
        self.queue.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
