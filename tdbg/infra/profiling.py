"""Opt-in CPU-time counters: where a training stage's time goes, for benchmarks
(experiments/benchmarks/stage_breakdown.py).

Off unless ``TDBG_PROFILE=1`` is in the environment when this module is first imported
(worker processes are spawned, so they inherit it) or ``enabled()`` turns them on.  Then
the hooks in self-play, the scorer, the reduced-precision kernel and the trainer add CPU
seconds (``time.process_time``: every thread of this process, so a wait costs nothing
and torch's intra-op threads count in full) and counts to this process's ``counters``;
self-play workers hand theirs back with each share of a round (``take``) and the
collector adds them to the trainer's (``merge``).  Off, a hook is one test of ``ENABLED``.
"""

from __future__ import annotations

import contextlib
import os
import resource
import time

ENV = "TDBG_PROFILE"
ENABLED = os.environ.get(ENV, "") == "1"
counters: dict[str, float] = {}
clock = time.process_time


def children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished, waited-for children: a
    program run to its exit, or a stage's workers once closed."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def add(name: str, since: float) -> float:
    """Add the CPU seconds from ``since`` (a ``clock()`` reading) to now under ``name``;
    returns now, the start of whatever is timed next."""
    now = clock()
    counters[name] = counters.get(name, 0.0) + now - since
    return now


def count(name: str, n: float) -> None:
    counters[name] = counters.get(name, 0.0) + n


def take() -> dict[str, float]:
    """The counters so far, which start again from zero."""
    out = dict(counters)
    counters.clear()
    return out


def merge(other: dict[str, float] | None) -> None:
    """Add another process's counters (a worker's ``take``) to these."""
    for name, value in (other or {}).items():
        count(name, value)


@contextlib.contextmanager
def enabled():
    """Counters on for the block, in this process and in worker processes started inside
    it, zeroed first; as before afterwards."""
    global ENABLED
    was, env = ENABLED, os.environ.get(ENV)
    ENABLED = True
    os.environ[ENV] = "1"
    counters.clear()
    try:
        yield counters
    finally:
        ENABLED = was
        if env is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = env


@contextlib.contextmanager
def paused():
    """Counters off for the block, in this process: work that is not the pipeline being
    measured (a training stage's unit-health games) must not add to its shares."""
    global ENABLED
    was = ENABLED
    ENABLED = False
    try:
        yield
    finally:
        ENABLED = was
