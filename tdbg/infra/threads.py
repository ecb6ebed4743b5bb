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

from tdbg.infra.errors import InputError
from tdbg.infra.settings_fields import option

WORKER = 1  # torch threads of a worker process
# the most threads a process may ask for: far beyond any core count this runs on, far below
# what breaks OpenMP (about 32,768 threads: libgomp aborts; 70,000: a segmentation fault)
MAX_THREADS = 1024
SMALL_NET_PARAMS = (
    2_000_000  # below this, one thread (the module notes: no crossover measured up to 1.78M)
)
ENV_VARS = ("TDBG_THREADS", "OMP_NUM_THREADS")  # in order of precedence, after --threads
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


def requested(flag: int | None, environ=os.environ) -> tuple[int | None, str]:
    """(threads asked for, by what): --threads, else TDBG_THREADS (a positive whole number,
    or InputError), else OMP_NUM_THREADS (its first level, "4,2" is 4; a value OpenMP itself
    rejects, with its own warning, is passed over), else (None, "default").  More than
    MAX_THREADS, from either variable, is an InputError."""
    if flag is not None:
        return flag, "--threads"
    for name in ENV_VARS:
        text = environ.get(name, "").strip()
        if name == "OMP_NUM_THREADS":
            text = text.split(",")[0].strip()
        if not text:
            continue
        value = int(text) if text.isdigit() else 0
        if value > MAX_THREADS:
            raise InputError(f"{name}={text}: at most {MAX_THREADS:,} threads")
        if value >= 1:
            return value, name
        if name == "TDBG_THREADS":
            raise InputError(
                f"{name}={text!r}: the number of threads must be a positive whole number"
            )
    return None, "default"


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
