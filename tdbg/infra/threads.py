"""How many torch (OpenMP) threads a process computes with: one shared decision.

torch's own default is a thread per physical core, whatever else runs.  Beside worker
processes, or on a machine shared with other work, the extra threads spin against busy
cores: on a 2-core machine with two training runs beside it, two threads ran a training
step 0.02-0.43x and a scoring pass 0.04-0.61x as fast as one, for every net from 7,921 to
1.78M parameters (experiments/benchmarks/thread_crossover.py, its results beside it).  So:

* a worker process (self-play, games, rollouts, gnubg sides): one thread (``WORKER``);
* a process whose network work is not batched (online TD, one position at a time; the
  scripts that play or analyse), or whose net is smaller than ``SMALL_NET_PARAMS``: one;
* a larger net: the cores this process may use (``os.sched_getaffinity``) less its
  worker processes, at least one.

``--threads N`` (a settings field, ``threads_option``), else ``TDBG_THREADS``, else
``OMP_NUM_THREADS`` overrides the choice of the main process; workers keep one.
"""

from __future__ import annotations

import os

import torch

from tdbg.infra.settings_fields import option
from tdbg.infra.thread_env import ENV_VARS, MAX_THREADS, requested

__all__ = ["ENV_VARS", "MAX_THREADS", "WORKER", "cores", "current", "requested", "use"]

WORKER = 1  # torch threads of a worker process
SMALL_NET_PARAMS = (
    2_000_000  # below this, one thread (the module notes: no crossover measured up to 1.78M)
)
_chosen_by = ["default"]  # what chose this process's threads (use)


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def threads_option(default: str = "1"):
    """The ``threads`` field of a script's settings: --threads N (``default``: what the
    script chooses without it, in words)."""
    return option(
        None,
        f"torch threads of this process, 1 to {MAX_THREADS:,} (default: {default}; also set by "
        f"TDBG_THREADS or OMP_NUM_THREADS); worker processes use 1",
        type="threads_arg",
        metavar="N",
    )


def choose(cores: int, workers: int, net_params: int | None) -> int:
    """The default thread count of a process that may use ``cores`` cores, with ``workers``
    worker processes of its own running beside it, whose batched network work is on a net of
    ``net_params`` parameters (None: none batched)."""
    if net_params is None or net_params < SMALL_NET_PARAMS:
        return 1
    return max(1, cores - workers)


def use(flag: int | None = None, workers: int = 0, net_params: int | None = None) -> dict:
    """Set this process's torch threads (``flag``: --threads; ``workers`` and ``net_params``
    as ``choose`` takes them) and return what the run's settings print: the count and what
    chose it."""
    n, source = requested(flag)
    if n is None:
        n = choose(cores(), workers, net_params)
    torch.set_num_threads(n)
    _chosen_by[0] = source
    return current()


def current() -> dict:
    """This process's threads and what chose them, as a run's settings record them."""
    return {"threads": torch.get_num_threads(), "threads_from": _chosen_by[0]}


def text(summary: dict) -> str:
    """ ", N thread(s)" for a run's settings line, where ``summary`` records the threads (``use``)."""
    n = summary.get("threads")
    return "" if n is None else f", {n} thread{'' if n == 1 else 's'}"
