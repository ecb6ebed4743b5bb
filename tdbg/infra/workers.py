"""Worker processes that never outlive the run.

``WorkerPool`` is a process pool (``spawn`` start method, so every worker is a direct
child of the main process and no fork server is left behind) whose workers ask the
kernel to kill them when the main process dies, even by ``kill -9``
(PR_SET_PDEATHSIG), and exit at once if it is already gone.  The resource tracker
then sees its pipe close and exits too.

A job whose worker died (killed, out of memory) is run once more on a fresh pool
(same job, same seed, so the result is the one it would have given); a second loss
raises WorkerError.  So does a worker that stays stopped (SIGSTOP, a debugger) for
STOPPED_LIMIT seconds while the run waits on it: it does no work until it is continued,
and a run waiting on it would wait forever.  Only a stopped process is timed, never a
busy one, so no legitimately long job can hit the limit.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker

import torch

from tdbg.infra import threads

PR_SET_PDEATHSIG = 1
MAX_WORKERS_PER_CORE = 4  # --workers at most this many per core the process may use


class WorkerError(RuntimeError):
    """A worker process died, or stayed stopped, and its job could not be completed."""


STOPPED_LIMIT = 60.0  # seconds a worker may stay stopped (SIGSTOP) while the run waits on it
STOPPED_POLL = 2.0  # seconds between looks at the workers' states while none finishes


def stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped (state T, or t under a debugger); False where
    /proc cannot tell (another system, a process already gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("T", "t")
    except (OSError, IndexError):
        return False


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies; exit now if it has."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(1)


def child_dies_with_us():
    """preexec_fn for subprocess.Popen: the child (e.g. a gnubg binary) is killed when this process dies."""
    parent = os.getpid()
    return lambda: die_with_parent(parent)


def own_group_dies_with_us():
    """preexec_fn for subprocess.Popen of a child that may start children of its own (gnubg,
    or a script standing in for it): the child leads a process group of its own, which
    end_group ends whole, and is killed when this process dies."""
    parent = os.getpid()

    def setup() -> None:
        os.setpgid(0, 0)
        die_with_parent(parent)

    return setup


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(OSError):  # the group is gone already
        os.killpg(pgid, sig)


def end_group(proc, grace: float = 1.0, wait: float = 0.0) -> None:
    """end_child for a child started with own_group_dies_with_us: the same steps (let it exit
    for up to ``wait`` seconds, then SIGTERM, then SIGKILL after ``grace``), each sent to its
    whole process group; whatever the child started and left behind is then killed (a helper
    that held the child's output open, a gnubg under a wrapper script), so that nothing it
    started outlives the run and no output pipe stays open after it."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            _signal_group(proc.pid, sig)
        try:
            proc.wait(timeout=wait if sig is None else grace)
            break
        except subprocess.TimeoutExpired:
            continue
    _signal_group(proc.pid, signal.SIGKILL)


def end_child(proc, grace: float = 1.0, wait: float = 0.0) -> None:
    """End the child process ``proc`` (a subprocess.Popen, e.g. gnubg): let it exit by itself
    for up to ``wait`` seconds (0 while an error or Ctrl-C is on its way out), then SIGTERM,
    then SIGKILL after ``grace`` seconds; it is never waited for without a limit."""
    for step in ("wait", "terminate", "kill"):
        if step != "wait":
            with contextlib.suppress(OSError):
                getattr(proc, step)()
        try:
            proc.wait(timeout=wait if step == "wait" else grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _init(parent_pid: int, initializer, initargs) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    torch.set_num_threads(threads.WORKER)
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def _sigint_blocked():
    """SIGINT held back while workers are started: a spawned worker inherits the blocked
    mask, so a Ctrl-C that reaches the whole process group cannot interrupt its start-up
    (a traceback per worker); the main process gets the Ctrl-C when the block ends."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def _stop_signals_held():
    """SIGINT and SIGTERM held back while workers are started, then acted on as their handlers
    say.  A signal whose handler raises (a script's, a training run's) must not cut a start
    short between the worker's creation and the data it reads from this process first: the
    half-started worker printed a traceback (EOFError) after the run's one line.  Blocking the
    signal in this thread is not enough (another thread of the process takes it, and its
    handler runs here all the same), so the handlers note it instead, and it is sent again
    once the workers have started.  Also SIGINT blocked (_sigint_blocked), for the workers."""
    held = []  # the signals noted, in order
    old = {}
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(s)
            if callable(handler):  # a handler of the program's (ignored or default: let be)
                old[s] = handler
                signal.signal(s, lambda signum, frame: held.append(signum))
    try:
        with _sigint_blocked():
            yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        for s in dict.fromkeys(held):  # the first one first; its handler may raise
            signal.raise_signal(s)


JOIN_LIMIT = 5.0  # seconds to wait for a killed worker, or the pool's manager thread, to end


def _release_manager(manager, call_queue, result_queue) -> None:
    """Let the executor's manager thread end once its workers are killed.  It may be blocked
    reading a result a killed worker had begun to send (the pipe stays open: this process
    holds its write end too), or joining its queue's feeder, which writes jobs to a pipe no
    one reads any more.  Closing this process's ends of both pipes turns each wait into an
    end of file or a broken pipe, which the thread handles; it is then joined with a limit,
    and the feeder is not joined at exit.  Without this the interpreter's exit joins the
    manager thread with no limit: the `interrupted` line printed, and the process never ending."""
    if call_queue is not None:
        with contextlib.suppress(OSError, AttributeError):
            call_queue.cancel_join_thread()
        with contextlib.suppress(OSError, AttributeError):
            call_queue._reader.close()
    if result_queue is not None:
        with contextlib.suppress(OSError, AttributeError):
            result_queue._writer.close()
    if manager is not None:
        manager.join(timeout=JOIN_LIMIT)


class Task:
    def __init__(self, fn, job, retries: int):
        self.fn, self.job, self.retries = fn, job, retries
        self.future: Future | None = None
        self.executor: ProcessPoolExecutor | None = None
        self.retried = False


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the process that removes semaphores a run
    left) with its stderr on /dev/null.  A run that ends by a signal or an error kills its
    workers at once (WorkerPool.close), and the tracker, finding the semaphores of the pool's
    queues not yet unregistered, wrote warnings of "leaked semaphore objects" or of one
    already removed after the run's one error line; it removes them either way.  Nothing
    happens when the tracker already runs."""
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        sys.stderr.flush()
        os.dup2(devnull, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class WorkerPool:
    def __init__(self, workers: int, initializer=None, initargs=(), what: str = "worker"):
        self.workers, self.initializer, self.initargs, self.what = (
            workers,
            initializer,
            initargs,
            what,
        )
        self.executor: ProcessPoolExecutor | None = self._new_executor()
        self.stopped_since: dict[int, float] = {}  # pid: when it was first seen stopped

    def _new_executor(self) -> ProcessPoolExecutor:
        _quiet_resource_tracker()
        with _stop_signals_held():
            return ProcessPoolExecutor(
                self.workers,
                mp_context=mp.get_context("spawn"),
                initializer=_init,
                initargs=(os.getpid(), self.initializer, self.initargs),
            )

    def _open(self) -> ProcessPoolExecutor:
        """The pool's executor; a closed pool (close() ran) takes no more work."""
        if self.executor is None:
            raise RuntimeError(f"the {self.what} pool is closed")
        return self.executor

    def _start(self, task: Task) -> None:
        executor = self._open()
        try:
            with _stop_signals_held():  # submit starts the workers
                task.future = executor.submit(task.fn, task.job)
        except BrokenProcessPool:  # broken by an earlier loss that was given up on
            executor.shutdown(wait=False, cancel_futures=True)
            executor = self.executor = self._new_executor()
            with _stop_signals_held():
                task.future = executor.submit(task.fn, task.job)
        task.executor = executor

    def share(self, obj):
        """A value many jobs read (backends.py): here each job carries its own copy."""
        return obj

    def submit(self, fn, job, retries: int = 1) -> Task:
        """Start ``fn(job)`` on a worker; a job lost with its worker runs again up to ``retries`` times."""
        task = Task(fn, job, retries)
        self._start(task)
        return task

    def _retry(self, task: Task) -> None:
        if task.retries <= 0:
            raise WorkerError(
                f"a {self.what} process died (killed, or out of memory?)"
                + (" again while running a lost job once more" if task.retried else "")
            )
        task.retries -= 1
        task.retried = True
        if task.executor is self.executor:  # the current pool broke: replace it
            print(
                f"warning: a {self.what} process died (killed, or out of memory?); running its job again",
                file=sys.stderr,
                flush=True,
            )
            self._open().shutdown(wait=False, cancel_futures=True)
            self.executor = self._new_executor()
        self._start(task)

    def as_completed(self, tasks):
        """Yield (task, result) as the tasks finish, re-running jobs lost with a worker."""
        waiting = list(tasks)
        while waiting:
            done, _ = wait(
                [t.future for t in waiting], timeout=STOPPED_POLL, return_when=FIRST_COMPLETED
            )
            if not done:
                self._check_not_stopped()
            for task in [t for t in waiting if t.future in done]:
                waiting.remove(task)
                try:
                    value = task.future.result()
                except BrokenProcessPool:
                    self._retry(task)
                    waiting.append(task)
                    continue
                yield task, value

    def _check_not_stopped(self) -> None:
        """WorkerError once a worker has stayed stopped for STOPPED_LIMIT seconds."""
        procs = (getattr(self.executor, "_processes", None) or {}).values()
        now = time.monotonic()
        seen = {p.pid: self.stopped_since.get(p.pid, now) for p in procs if stopped(p.pid)}
        self.stopped_since = seen
        for pid, since in seen.items():
            if now - since >= STOPPED_LIMIT:
                raise WorkerError(
                    f"a {self.what} process (pid {pid}) has been stopped (SIGSTOP?) for "
                    f"{STOPPED_LIMIT:.0f} s and does no work until continued (kill -CONT {pid})"
                )

    def results(self, tasks) -> list:
        """The tasks' results, in the tasks' order."""
        got = {id(t): v for t, v in self.as_completed(tasks)}
        return [got[id(t)] for t in tasks]

    def close(self, abandon: bool | None = None) -> None:
        """Shut the pool down.  While an exception is on its way out (Ctrl-C, an error;
        ``abandon`` None: whatever sys.exc_info says) the workers are killed at once
        instead of finishing jobs whose results nobody will read; nothing is left running."""
        if self.executor is None:
            return
        if abandon is None:
            abandon = sys.exc_info()[0] is not None
        if abandon:
            executor = self.executor
            procs = list((getattr(executor, "_processes", None) or {}).values())
            manager = getattr(executor, "_executor_manager_thread", None)
            pipes = (
                getattr(executor, "_call_queue", None),
                getattr(executor, "_result_queue", None),
            )
            executor.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                with contextlib.suppress(OSError, ValueError):
                    proc.kill()
            for proc in procs:
                with contextlib.suppress(OSError, ValueError, AssertionError):
                    proc.join(timeout=JOIN_LIMIT)
            _release_manager(manager, *pipes)
        else:
            self.executor.shutdown(cancel_futures=True)
        self.executor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close(abandon=exc[0] is not None)
