"""Helpers the tests share: running scripts, one-line errors, hand-built boards and a
brute-force 1-ply value (one network call per move, Python engine and numpy encoder)."""

import contextlib
import hashlib
import io
import json
import os
import runpy
import signal
import subprocess
import sys
import traceback

import numpy as np
import torch

from tdbg.game import backgammon_engine as be, encoding
from tdbg.game.cube import can_double, owner_for_opponent
from tdbg.game.dice import ALL_ROLLS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Only a guard against a hung child: no test may fail because a busy 2-core machine is
# slow, so work is bounded by episodes and games, never by seconds.
HANG_GUARD = 3600
# a training run as short as it can be (with --hidden and --num-episodes of the test's own)
QUICK_TRAIN = ["--episodes-per-round", "20", "--parallel-games", "8", "--quiet"]
# TDBG_TEST_SUBPROCESS=1 runs every script in a child process, as before run() learned to
# run them in-process (a check that the two ways agree; costs the start-up of each child).
ALWAYS_SUBPROCESS = os.environ.get("TDBG_TEST_SUBPROCESS") == "1"


def run(script, *args, timeout=HANG_GUARD, check=False, subprocess_=False):
    """Run ``script`` (a path under ROOT) with ``args`` from ROOT, as ``python script args``
    would: a CompletedProcess with returncode, stdout and stderr.

    By default in this process (runpy, ``__name__ == "__main__"``, stdout and stderr captured,
    SystemExit's code as the return code, an uncaught exception as its traceback and code 1):
    most of a child's time here is importing torch, once per child.  ``subprocess_=True``
    (or TDBG_TEST_SUBPROCESS=1) starts a real child: for what needs a process of its own
    (signals, pipes, closed streams, output written by grandchildren to the inherited file
    descriptors, the interpreter's own exit)."""
    if subprocess_ or ALWAYS_SUBPROCESS:
        proc = subprocess.run(
            [sys.executable, os.path.join(ROOT, script), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
        )
    else:
        proc = _run_in_process(os.path.join(ROOT, script), [str(a) for a in args])
    if check and proc.returncode != 0:
        raise AssertionError(f"{script} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def _run_in_process(path, args):
    out, err = io.StringIO(), io.StringIO()
    saved_argv, saved_path, saved_cwd = sys.argv, sys.path[:], os.getcwd()
    saved_threads, saved_env = torch.get_num_threads(), dict(os.environ)
    # a script's first line sets SIGINT and SIGTERM to end the process (stop_signals): not this one's
    saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    code = 0
    try:
        os.chdir(ROOT)
        sys.argv = [path, *args]
        sys.path.insert(
            0, os.path.dirname(path)
        )  # what `python path` itself does: the script's folder first
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as exc:
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:  # sys.exit("message"): printed, code 1
                    print(exc.code, file=sys.stderr)
                    code = 1
            except Exception:  # noqa: BLE001 - the child's uncaught exception
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(saved_cwd)
        torch.set_num_threads(saved_threads)  # each script sets its own (tdbg.infra.threads)
        os.environ.clear()
        os.environ.update(saved_env)
        for s, handler in saved_signals.items():
            signal.signal(s, handler)
    return subprocess.CompletedProcess([path, *args], code, out.getvalue(), err.getvalue())


# runs every (script, argv) of a job file in this one process, as ``python script argv``
# would, and writes [exit code, stderr] of each; standard output is discarded, or with
# "full" in the job it is /dev/full (a device whose every write fails)
SCRIPTS_DRIVER = r"""
import contextlib, io, json, runpy, sys, warnings
warnings.simplefilter("ignore")
job, res = sys.argv[1:3]
job = json.load(open(job))
out = []
for script, argv in job["runs"]:
    err = io.StringIO()
    code = 0
    sys.argv = [script, *argv]
    stdout = open("/dev/full", "w") if job["full"] else io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:
            code, err = -1, io.StringIO(f"Traceback: {exc!r}")
    try:
        stdout.close()
    except OSError:
        pass
    out.append([code, err.getvalue()])
json.dump(out, open(res, "w"))
"""


def run_scripts(tmp_path, runs, readonly=None, stdout_full=False):
    """Each (script, argv) of ``runs`` run in one child process, one after the other (each
    must end before any work: one torch import serves them all), as CompletedProcesses
    (args, exit code, no stdout, stderr).  ``readonly``: a folder mounted read-only for the
    whole run (a private mount namespace: it stops root too); ``stdout_full``: standard
    output is /dev/full."""
    job, res, drv = tmp_path / "job.json", tmp_path / "res.json", tmp_path / "driver.py"
    job.write_text(json.dumps({"runs": runs, "full": stdout_full}))
    drv.write_text(SCRIPTS_DRIVER)
    cmd = [sys.executable, str(drv), str(job), str(res)]
    if readonly:
        quoted = " ".join(f"'{a}'" for a in cmd)
        cmd = [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f'mount --bind "{readonly}" "{readonly}" && '
            f'mount -o remount,bind,ro "{readonly}" && exec {quoted}',
        ]
    subprocess.run(cmd, cwd=ROOT, timeout=HANG_GUARD, check=True, capture_output=True)
    return [
        subprocess.CompletedProcess([script, *argv], code, "", err)
        for (script, argv), (code, err) in zip(runs, json.loads(res.read_text()), strict=True)
    ]


def stopped_stage(path, *flags):
    """A train_batch stage of 60 episodes in rounds of 20 (hidden 8, and ``flags``), stopped
    at 20, saved at ``path``: its trainer state holds optimizer moments, the minibatch
    generator and the stage's record, as an unfinished stage's does."""
    run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "60",
        "--stop-at",
        "20",
        "--save",
        path,
        *flags,
        *QUICK_TRAIN,
        check=True,
    )
    return path


def assert_one_line_error(proc, words=""):
    """One ``error:`` line on stderr, holding ``words``, and exit code 2 (every failure a
    script reports: bad input, or one met part-way)."""
    args = getattr(proc, "args", None)
    assert proc.returncode == 2, (args, proc.returncode, proc.stderr[-2000:])
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, (args, proc.stderr)
    assert "Traceback" not in proc.stderr, (args, proc.stderr)
    assert words.lower() in lines[0].lower(), (args, lines[0])


def md5(path):
    return hashlib.md5(open(path, "rb").read()).hexdigest()


def board(me: dict, opp: dict) -> np.ndarray:
    """Board from {point: count} per side, each in its own 1-based numbering (25 = bar)."""
    b = np.zeros((2, 25), dtype=np.int64)
    for p, n in me.items():
        b[1, p - 1] = n
    for p, n in opp.items():
        b[0, p - 1] = n
    return b


def move_values(model, mode, b, d1, d2, owner, head, dtype=torch.float32):
    """[(after, value, scalar)] of each legal move for (d1, d2), the mover's view, one
    network call per move in ``dtype`` (float64 with ``model.double()``: a reference free of
    float32 rounding); a finished game is scored exactly."""
    out = []
    for _, after in be.legal_moves(b, d1, d2):
        result = be.game_result(after)
        if result:
            v = head.terminal(mode.points(np.array([result]), owner))[0]
        else:
            x = encoding.encode(be.swap(after))
            if mode.cubeful:
                opp = owner_for_opponent(np.array([owner]))
                x = np.concatenate([x, encoding.cube_features(opp, can_double(opp))[0]])
            with torch.no_grad():
                raw = model(torch.from_numpy(x[None]).to(dtype)).numpy().astype(np.float64)
            v = head.flip(raw)[0]
        out.append((after, v, head.scalar(np.asarray(v)[None])[0]))
    return out


def brute_value(model, mode, b, owner, head):
    """Mean over the 21 rolls of the best move's value, one network call per move
    (``head``: heads.output_head of the model)."""
    total = 0.0
    for (d1, d2), w in zip(
        ALL_ROLLS.tolist(),
        [1 / 36 if a == c else 2 / 36 for a, c in ALL_ROLLS.tolist()],
        strict=True,
    ):
        best, best_scalar = None, -np.inf
        for _, v, s in move_values(model, mode, b, d1, d2, owner, head):
            if s > best_scalar:
                best, best_scalar = v, s
        total = total + w * np.asarray(best)
    return total


def spawned_workers(pid: int) -> list[str]:
    """The pids of process ``pid``'s children that are multiprocessing workers (spawn_main)."""
    try:
        kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
    except OSError:
        return []
    out = []
    for k in kids:
        try:
            if "spawn_main" in open(f"/proc/{k}/cmdline").read():
                out.append(k)
        except OSError:
            pass
    return out
