"""Signals at any moment and a reader that goes away, as a user meets them: Ctrl-C is one
line and exit code 130, SIGTERM one line and 143 (128 + the signal's number, as a shell
reports a process the signal ended), from the first line of every script and console
command to its exit; a second Ctrl-C during a training run's save waits for the save; a
reader of stdout that stops reading (``| head``) ends the command without a word."""

from __future__ import annotations

import ast
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib

import pytest

from helpers import HANG_GUARD, QUICK_TRAIN, ROOT, spawned_workers

# every script a user runs: the repository root's and tools/ (a list written out by hand missed
# play_terminal.py)
ENTRY_POINTS = [
    *sorted(f for f in os.listdir(ROOT) if f.endswith(".py") and f != "setup.py"),
    *sorted(
        os.path.join("tools", f)
        for f in os.listdir(os.path.join(ROOT, "tools"))
        if f.endswith(".py") and f != "__init__.py"
    ),
]
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _start(cmd, **kw) -> subprocess.Popen:
    """A command as a terminal starts it: SIGINT not ignored (a test run in the background
    would pass on an ignored SIGINT)."""
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kw,
    )


def _assert_interrupted(proc: subprocess.Popen, sig, err: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert proc.returncode == CODES[sig], (proc.args, proc.returncode, err[-3000:])
    assert len(lines) == 1 and "error: interrupted" in lines[0], (proc.args, err[-3000:])
    assert ("Ctrl-C" if sig == signal.SIGINT else "SIGTERM") in lines[0]


@pytest.mark.parametrize("path", ENTRY_POINTS)
def test_every_script_takes_the_signals_before_its_first_import(path):
    """Read, not timed: each script's first statements (after its docstring and the
    __future__ import) import exit_on_signals and call it with the module's name, so no other
    import runs before a signal ends the script in one line."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
        body = ast.parse(fh.read()).body
    body = [
        n
        for n in body
        if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
        and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")
    ]
    first, second = body[0], body[1]
    assert (
        isinstance(first, ast.ImportFrom)
        and first.module == "tdbg.infra.stop_signals"
        and [a.name for a in first.names] == ["exit_on_signals"]
    ), path
    assert ast.unparse(second) == "exit_on_signals(__name__)", path


def _wait_for_the_first_line(proc: subprocess.Popen) -> None:
    """Until the process catches SIGTERM as well as SIGINT (its /proc status): its first line
    has run, and a signal sent now lands in the imports after it.  A fixed wait landed inside
    Python's own start-up on a loaded machine, before any line of a program can answer."""
    both = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    deadline = time.monotonic() + HANG_GUARD  # a guard against a hang, not a measurement
    while proc.poll() is None and time.monotonic() < deadline:
        with open(f"/proc/{proc.pid}/status") as fh:
            caught = int(next(ln for ln in fh if ln.startswith("SigCgt:")).split()[1], 16)
        if caught & both == both:
            return
        time.sleep(0.005)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_a_script_loads_is_one_line(sig):
    """The signal lands while the modules load (torch's import alone takes longer than the
    wait; Python's own start, before a first line can run, takes about 0.05 s): every script and
    tool, and a console command, ends with one line and its code."""
    exe = shutil.which("tdbg", path=os.path.dirname(sys.executable))
    assert exe, "make setup installs the package and its command"
    commands = [[sys.executable, path, "--help"] for path in ENTRY_POINTS] + [
        [exe, "train", "batch", "--help"]
    ]
    for cmd in commands:
        proc = _start(cmd)
        _wait_for_the_first_line(proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=HANG_GUARD)
        _assert_interrupted(proc, sig, err)


def test_sigterm_of_play_models_while_it_plays_is_one_line(tmp_path):
    """SIGTERM to play_models alone (as `kill PID` sends it), its workers playing: one
    line, exit 143, no result file, no worker left running."""
    proc = _start(
        [
            sys.executable,
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "pubeval",
            "--games",
            "100000",
            "--workers",
            "2",
            "--quiet",
            "--json",
            str(tmp_path / "s.json"),
        ]
    )
    deadline = time.monotonic() + HANG_GUARD  # a guard against a hang, not a measurement
    while (
        len(spawned_workers(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline
    ):
        time.sleep(0.2)
    started = spawned_workers(proc.pid)
    assert len(started) == 2
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=HANG_GUARD)
    _assert_interrupted(proc, signal.SIGTERM, err)
    for pid in started:
        try:
            state = open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0]
        except OSError:
            continue  # gone
        assert state == "Z", (pid, state)
    assert not (tmp_path / "s.json").exists()


def test_a_second_ctrl_c_during_the_save_waits_for_it(tmp_path):
    """Ctrl-C, and a second one while the checkpoint it asked for is being written (each
    fsync of the run sends one): the save finishes, the run exits 130 without a traceback,
    and the checkpoint and its log are whole and agree."""
    from tdbg.net.model import load_checkpoint

    save = tmp_path / "c.pt"
    code = f"""
import os, runpy, signal, sys
real = os.fsync
def fsync(fd):
    os.kill(os.getpid(), signal.SIGINT)   # Ctrl-C, then again in the save it started
    return real(fd)
os.fsync = fsync
sys.argv = ["train_batch.py", "--hidden", "8", "--num-episodes", "100", "--save", {str(save)!r}] + {QUICK_TRAIN!r}
runpy.run_path("train_batch.py", run_name="__main__")
"""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.returncode == 130, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "interrupted (SIGINT)" in proc.stderr, (
        proc.stdout,
        proc.stderr,
    )
    _, meta, state = load_checkpoint(str(save))
    done = state["stage"]["episodes_done"]
    assert 0 < done < 100 and meta["episodes"] == done
    rows = (tmp_path / "c.csv").read_text().splitlines()
    assert rows[-1].split(",")[2] == str(done), rows
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]


def _closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone (`| head -0`)."""
    r, w = os.pipe()
    os.close(r)
    return w


@pytest.mark.parametrize(
    "args", [["tools/describe_model.py", "best_models/dmp_128x2.pt"], ["train_batch.py", "--help"]]
)
def test_a_reader_that_went_away_ends_the_command_quietly(args):
    """`... | head`: no message, and the exit code of a command-line tool its reader left
    (141, as a shell reports `yes | head`)."""
    w = _closed_pipe()
    try:
        proc = subprocess.run(
            [sys.executable, *args],
            cwd=ROOT,
            stdout=w,
            stderr=subprocess.PIPE,
            text=True,
            timeout=HANG_GUARD,
        )
    finally:
        os.close(w)
    assert proc.returncode == 128 + signal.SIGPIPE and proc.stderr == "", (
        args,
        proc.returncode,
        proc.stderr,
    )


def test_every_console_command_has_its_scripts_error_handling():
    """Each command pyproject.toml installs runs its main as its script does: `--help`
    into a full device is one error line and exit 2 (a command run bare exits 0 or
    prints a traceback), and one whose reader went away ends quietly."""
    commands = tomllib.load(open(os.path.join(ROOT, "pyproject.toml"), "rb"))["project"]["scripts"]
    bin_dir = os.path.dirname(sys.executable)
    for name in commands:
        exe = shutil.which(name, path=bin_dir)
        assert exe, name
        with open("/dev/full", "w") as full:
            proc = subprocess.run(
                [exe, "--help"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=HANG_GUARD
            )
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert proc.returncode == 2 and len(lines) == 1, (
            name,
            proc.returncode,
            proc.stderr[-2000:],
        )
        assert "cannot write standard output" in lines[0], (name, lines)


def test_a_terminal_that_cannot_show_a_name_gets_it_escaped(tmp_path):
    """PYTHONIOENCODING=ascii and a checkpoint named with a non-ASCII letter: the name is
    shown as \\xe8 (it was a UnicodeEncodeError traceback), in output and in an error line."""
    path = tmp_path / "mod\u00e8le.pt"
    path.write_bytes(open(os.path.join(ROOT, "best_models", "dmp_128x2.pt"), "rb").read())
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run(
        [sys.executable, "tools/describe_model.py", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=env,
    )
    assert proc.returncode == 0 and f"file          {tmp_path}/mod\\xe8le.pt\n" in proc.stdout, (
        proc.stderr[-2000:]
    )
    proc = subprocess.run(
        [sys.executable, "tools/describe_model.py", str(tmp_path / "n\u00e8.pt")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=env,
    )
    lines = proc.stderr.splitlines()
    assert (
        proc.returncode == 2 and len(lines) == 1 and "n\\xe8.pt: no such checkpoint" in lines[0]
    ), proc.stderr


def _run_with(code_before: str, script: str, argv: list, tmp_path) -> subprocess.CompletedProcess:
    """``script`` run as its own process with ``argv``, after ``code_before`` (a patch that
    sends a signal at a chosen moment)."""
    code = f"""
import os, runpy, signal, sys
{code_before}
sys.argv = [{script!r}] + {[str(a) for a in argv]!r}
runpy.run_path({script!r}, run_name="__main__")
"""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.parametrize("first, second", [("SIGINT", "SIGTERM"), ("SIGTERM", "SIGINT")])
def test_a_second_signal_on_the_way_out_leaves_the_first_ones_end(tmp_path, first, second):
    """Ctrl-C then SIGTERM (or the other way round) while a stopped run exits: the run ends
    as the first signal said, one line and its code.  Only SIGINT was ignored on the way
    out, so a SIGTERM in the interpreter's teardown met its default action (exit -15, no
    line), or here, sent at exit, a second line and 143 after Ctrl-C's save."""
    save = tmp_path / "c.pt"
    before = f"""
import atexit
from tdbg.learn.batch_td import BatchLearner
real = BatchLearner.collect
def collect(self, *a, **k):
    os.kill(os.getpid(), signal.{first})
    return real(self, *a, **k)
BatchLearner.collect = collect
atexit.register(lambda: os.kill(os.getpid(), signal.{second}))
"""
    proc = _run_with(
        before,
        "train_batch.py",
        ["--hidden", "8", "--num-episodes", "100", "--save", save, *QUICK_TRAIN],
        tmp_path,
    )
    sig = getattr(signal, first)
    assert proc.returncode == CODES[sig], (proc.returncode, proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr and proc.stderr.count("interrupted") == 1, proc.stderr


@pytest.mark.parametrize("first, second", [("SIGINT", "SIGTERM"), ("SIGTERM", "SIGINT")])
def test_the_first_of_two_signals_in_a_row_decides_the_end(tmp_path, first, second):
    """A second signal while a tool ends on the first (Ctrl-C then `kill`, as gnubg_eval met
    them while its gnubg started; here sent as the first one's line is written): one line
    and the first one's code.  The second one's handler ran on the way out: a second error
    line and its code (143 after Ctrl-C)."""
    before = f"""
import tdbg.net.model as m
class Stderr:
    def __init__(self, stream):
        self.stream, self.sent = stream, False
    def write(self, text):
        n = self.stream.write(text)
        if "interrupted" in text and not self.sent:
            self.sent = True
            self.stream.flush()
            os.kill(os.getpid(), signal.{second})
        return n
    def __getattr__(self, name):
        return getattr(self.stream, name)
sys.stderr = Stderr(sys.stderr)
real = m.load_checkpoint
def load_checkpoint(*a, **k):
    os.kill(os.getpid(), signal.{first})
    return real(*a, **k)
m.load_checkpoint = load_checkpoint
"""
    proc = _run_with(before, "tools/describe_model.py", ["best_models/dmp_128x2.pt"], tmp_path)
    _assert_interrupted(proc, getattr(signal, first), proc.stderr)


@pytest.mark.parametrize(
    "script, argv",
    [
        (
            "play_models.py",
            ["--model1", "pubeval", "--model2", "pubeval", "--games", "100", "--workers", "2"],
        ),
        ("train_prob5.py", ["--hidden", "8", "--num-episodes", "100", "--workers", "2"]),
    ],
)
def test_sigterm_while_a_worker_starts_is_one_line(tmp_path, script, argv):
    """SIGTERM landing while a worker process is being started (after its creation, before
    the main process sent what it reads first): the run ends with one line and 143.  Only
    SIGINT was held back there, so the main process left at once and the half-started
    worker printed a traceback (EOFError) after the run's line."""
    before = """
import multiprocessing.util as mpu
real = mpu.spawnv_passfds
def spawnv_passfds(path, args, passfds):
    pid = real(path, args, passfds)
    if "--multiprocessing-fork" in args:  # a worker (not the resource tracker)
        os.kill(os.getpid(), signal.SIGTERM)
    return pid
mpu.spawnv_passfds = spawnv_passfds
"""
    proc = _run_with(
        before,
        script,
        [
            *argv,
            "--quiet",
            "--save" if script != "play_models.py" else "--json",
            tmp_path / "out",
            *(QUICK_TRAIN if script != "play_models.py" else []),
        ],
        tmp_path,
    )
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 143 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert len(lines) == 1 and "interrupted (SIGTERM)" in lines[0], proc.stderr[-3000:]


@pytest.mark.parametrize("how", ["new", "resumed finished stage"])
def test_a_stage_stopped_before_its_first_round_saves_nothing(tmp_path, how, ckpt):
    """A signal before the stage's first round is trained (its workers starting): nothing is
    saved, and the same command runs the stage.  A checkpoint at 0 episodes was saved, with
    an optimizer that had no moments yet, which --resume then refused ("holds moments of
    parameters []"); over a finished stage's --save it replaced that stage's record."""
    save = tmp_path / "c.pt"
    argv = ["--hidden", "8", "--num-episodes", "40", "--save", save, *QUICK_TRAIN]
    if how != "new":
        shutil.copy(ckpt, save)
        argv = ["--resume", save, "--num-episodes", "40", "--save", save, *QUICK_TRAIN]
    before_bytes = save.read_bytes() if save.exists() else None
    patch = """
from tdbg.learn.batch_td import BatchLearner
real = BatchLearner.collect
def collect(self, *a, **k):
    os.kill(os.getpid(), signal.SIGTERM)
    return real(self, *a, **k)
BatchLearner.collect = collect
"""
    proc = _run_with(patch, "train_batch.py", argv, tmp_path)
    assert proc.returncode == 143 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "nothing saved" in proc.stderr, proc.stderr
    if before_bytes is None:
        assert not save.exists() and not (tmp_path / "c.csv").exists()
    else:
        assert save.read_bytes() == before_bytes
    done = subprocess.run(
        [sys.executable, "train_batch.py", *map(str, argv)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_ctrl_c_with_a_stopped_worker_ends_the_training_run(tmp_path):
    """A worker stopped (SIGSTOP) while it plays its share, then Ctrl-C: the run saves what
    it has and ends, 130, the workers killed, not waited for.  The training loop handled the
    Ctrl-C before closing its pool, so the pool waited for the running jobs as at a normal
    end: forever for the stopped worker (for a slow one, until its share was played)."""
    save = tmp_path / "c.pt"
    proc = _start(
        [
            sys.executable,
            "train_batch.py",
            "--hidden",
            "8",
            "--num-episodes",
            "400",
            "--episodes-per-round",
            "200",
            "--parallel-games",
            "4",
            "--workers",
            "2",
            "--quiet",
            "--save",
            str(save),
        ]
    )
    deadline = time.monotonic() + HANG_GUARD  # a guard against a hang, not a measurement
    while (
        len(spawned_workers(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline
    ):
        time.sleep(0.2)
    workers = spawned_workers(proc.pid)
    assert len(workers) == 2
    os.kill(int(workers[0]), signal.SIGSTOP)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 130 and "Traceback" not in err, err[-3000:]
    for pid in workers:
        assert (
            not os.path.exists(f"/proc/{pid}")
            or open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0] == "Z"
        ), pid


LATE_SIGNAL = """
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import os
import signal
import time

from tdbg.app import cli


class Late:
    def __del__(self):  # in the teardown, where Python has put back the default actions
        os.kill(os.getpid(), signal.SIG{name})
        time.sleep(0.2)


late = Late()
cli.run_main(lambda: print("done"))
"""


@pytest.mark.parametrize("name", ["TERM", "INT"])
def test_a_signal_in_the_teardown_of_a_finished_program_is_ignored(tmp_path, name):
    """A SIGTERM in the last few tenths of a second of a finished run (plot_eval_curve, after its
    PNG and its line: matplotlib's and torch's modules torn down) killed it by the default
    action, -15 with no line; a program that has finished ends as it finished."""
    script = tmp_path / "late.py"
    script.write_text(LATE_SIGNAL.replace("{name}", name))
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=dict(os.environ, OMP_NUM_THREADS="1"),
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "done\n", "")


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("when", ["as the error line is written", "at exit"])
def test_a_signal_after_the_error_line_leaves_its_end(tmp_path, sig, when):
    """A signal once a failure's error line is out (a gnubg that gave up, then `kill`): the run
    ends as its line said, exit code 2 and that one line.  Sent as the line was written it
    added a second, "interrupted", line and 143; in the interpreter's teardown it met the
    default action, exit -15 and no code of the line's."""
    send = f"os.kill(os.getpid(), signal.{sig})"
    before = (
        f"""
class Stderr:
    def __init__(self, stream):
        self.stream, self.sent = stream, False
    def write(self, text):
        n = self.stream.write(text)
        if "error:" in text and not self.sent:
            self.sent = True
            self.stream.flush()
            {send}
        return n
    def __getattr__(self, name):
        return getattr(self.stream, name)
sys.stderr = Stderr(sys.stderr)
"""
        if when.startswith("as")
        else f"import atexit\natexit.register(lambda: {send})\n"
    )
    proc = _run_with(before, "tools/describe_model.py", [tmp_path / "none.pt"], tmp_path)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    assert len(lines) == 1 and "none.pt" in lines[0], proc.stderr[-3000:]


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_in_the_teardown_of_a_finished_run_leaves_its_end(tmp_path, sig):
    """A signal in the interpreter's teardown, once a run's work is done and written (a gnubg
    analysis that ended as `kill` was typed): exit code 0 and the whole output.  It met the
    signal's default action there: exit -15 (-2), no line."""
    before = f"import atexit\natexit.register(lambda: os.kill(os.getpid(), signal.{sig}))\n"
    proc = _run_with(before, "tools/describe_model.py", ["best_models/dmp_128x2.pt"], tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip(), (proc.returncode, proc.stderr[-3000:])
    assert not proc.stderr.strip(), proc.stderr[-3000:]
