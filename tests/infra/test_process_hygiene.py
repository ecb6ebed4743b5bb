"""No process of a run outlives it, and a dying worker costs nothing but time.

Generous polling bounds only (the machine may be busy): nothing here is timed."""

import csv
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import HANG_GUARD, ROOT
from tdbg.net.model import load_checkpoint

TRAIN = [
    sys.executable,
    os.path.join(ROOT, "train_batch.py"),
    "--hidden",
    "8",
    "--parallel-games",
    "8",
    "--quiet",
]


def _stat(pid):
    """(state, ppid, pgid) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), int(fields[2])


def _live(pid) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def _group(pgid):
    """Live processes in a process group."""
    return [
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and (st := _stat(int(p))) and st[2] == pgid and st[0] not in ("Z", "X")
    ]


def _workers(parent):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit() and (st := _stat(int(p))) and st[1] == parent and _live(int(p)):
            try:
                cmd = open(f"/proc/{p}/cmdline", "rb").read()
            except OSError:
                continue
            if b"spawn_main" in cmd:
                out.append(int(p))
    return out


def _wait_for(cond, bound=300.0):
    deadline = time.time() + bound
    while time.time() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.2)
    return cond()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_the_main_process_leaves_no_process(tmp_path):
    path = tmp_path / "k.pt"
    proc = subprocess.Popen(
        [
            *TRAIN,
            "--num-episodes",
            "1000000",
            "--episodes-per-round",
            "100",
            "--workers",
            "2",
            "--save",
            str(path),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert _wait_for(lambda: len(_workers(proc.pid)) == 2 and path.exists()), (
            "the workers never started"
        )
        members = _group(proc.pid)
        assert len(members) >= 4  # main, resource tracker, two workers
        proc.kill()
        proc.wait()
        # generous bound for a busy machine; the kernel kills the workers at once
        left = _wait_for(lambda: not _group(proc.pid), bound=60) or _group(proc.pid)
        assert left is True, f"left running: {left}"
    finally:
        for pid in _group(proc.pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_worker_share_is_collected_again(tmp_path):
    path = tmp_path / "w.pt"
    proc = subprocess.Popen(
        [
            *TRAIN,
            "--num-episodes",
            "600",
            "--episodes-per-round",
            "100",
            "--workers",
            "2",
            "--save",
            str(path),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        workers = _wait_for(lambda: path.exists() and _workers(proc.pid))
        assert workers, "the workers never started"
        os.kill(workers[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        for pid in _group(proc.pid):
            os.kill(pid, signal.SIGKILL)
    if "died" not in err:
        pytest.skip("the run finished before the worker was killed")
    assert proc.returncode == 0, err
    assert "Traceback" not in err and len([ln for ln in err.splitlines() if "died" in ln]) == 1, err
    _, meta, ts = load_checkpoint(str(path))
    assert meta["episodes"] == 600 and ts["stage"]["rounds_done"] == 6
    rows = list(csv.DictReader(open(tmp_path / "w.csv")))
    assert [int(r["stage_episodes"]) for r in rows] == [100, 200, 300, 400, 500, 600]


def _dies(job):
    os._exit(3)


def _square(job):
    return job * job


def _stops_itself(job):
    os.kill(os.getpid(), signal.SIGSTOP)  # as `kill -STOP` of the worker would
    return job


def test_a_worker_that_stays_stopped_is_an_error_not_a_wait(monkeypatch):
    """A worker stopped by SIGSTOP does no work until continued: the run waited on it
    forever.  After STOPPED_LIMIT seconds stopped, WorkerError names it, and closing the pool
    kills it.  (Should the check be missing, the worker is continued after HANG_GUARD and its
    result comes back: the test fails instead of hanging.)"""
    import threading

    from tdbg.infra import workers

    monkeypatch.setattr(workers, "STOPPED_LIMIT", 1.0)
    monkeypatch.setattr(workers, "STOPPED_POLL", 0.2)
    pool = workers.WorkerPool(1)
    task = pool.submit(_stops_itself, 0)
    procs = list(pool.executor._processes.values())
    guard = threading.Timer(HANG_GUARD, lambda: [os.kill(p.pid, signal.SIGCONT) for p in procs])
    guard.start()
    try:
        with pytest.raises(workers.WorkerError, match=r"process \(pid \d+\) has been stopped"):
            pool.results([task])
    finally:
        guard.cancel()
        pool.close(abandon=True)
    assert not [p for p in procs if p.is_alive()]


def test_worker_pool_runs_a_lost_job_once_more_then_gives_up():
    from tdbg.infra.workers import WorkerError, WorkerPool

    with WorkerPool(1) as pool:
        assert pool.results([pool.submit(_square, k) for k in range(5)]) == [0, 1, 4, 9, 16]
        with pytest.raises(WorkerError, match="died"):
            pool.results([pool.submit(_dies, 0)])
        # the pool works again after a break
        assert pool.results([pool.submit(_square, 7)]) == [49]


def test_the_resource_tracker_of_a_worker_pool_writes_nowhere():
    """multiprocessing's resource tracker, started by a worker pool, has its stderr on
    /dev/null: after a run a signal stopped (its workers killed at once) it wrote "leaked
    semaphore" warnings below the run's one error line.  Asked of a fresh process, so that
    the tracker is the pool's own and not one an earlier test started."""
    code = (
        "import os\n"
        "from multiprocessing import resource_tracker\n"
        "from tdbg.infra.workers import WorkerPool\n"
        "pool = WorkerPool(1)\n"
        "print(os.readlink(f'/proc/{resource_tracker._resource_tracker._pid}/fd/2'))\n"
        "pool.close()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == os.devnull
