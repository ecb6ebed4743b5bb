"""Faults round three, the evaluation side: a result describes the model that played (its
checkpoint is read once, and its md5 is of those bytes), nothing hangs, every limit is
prompt, and bad input is one error line.  One cause per test; each fails on the code
before its fix."""

import hashlib
import os
import shutil
import time

import pytest
import torch

from helpers import HANG_GUARD, assert_one_line_error, md5, run
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.play.results_file import read_results


def _net(path, seed: int, hidden=(8,)) -> str:
    """A fresh DMP net (its weights drawn with ``seed``) saved as a checkpoint."""
    torch.manual_seed(seed)
    model = TDNetwork(196, list(hidden))
    save_checkpoint(str(path), model, new_metadata(model, "dmp"))
    return str(path)


# --- kind 2: a result describes the model that played ----------------------------------------


def test_a_checkpoint_replaced_during_the_games_does_not_change_the_result(tmp_path, monkeypatch):
    """x.pt is replaced atomically (as a training save does) after play_models.py read it and
    before its games start: the games are the first file's, and so is the recorded md5.  The
    oracle is the same run on an untouched copy; a run on the replacement differs, so the
    comparison can fail."""
    import tdbg.play.series as series_module

    x, copy, other = (
        _net(tmp_path / "x.pt", 1),
        tmp_path / "copy.pt",
        _net(tmp_path / "other.pt", 2),
    )
    shutil.copy(x, copy)
    first_md5 = md5(x)
    games = ["--model2", "random", "--games", "200", "--seed", "5", "--quiet"]
    untouched = run(
        "play_models.py", "--model1", copy, *games, "--csv", tmp_path / "u.csv", check=True
    )
    replaced_by = run(
        "play_models.py", "--model1", other, *games, "--csv", tmp_path / "o.csv", check=True
    )

    real_open_pool = series_module.open_pool

    def replace_then_open(
        *args, **kwargs
    ):  # the moment between reading the checkpoint and the games
        spare = tmp_path / "spare.pt"
        shutil.copy(other, spare)
        os.replace(spare, x)
        return real_open_pool(*args, **kwargs)

    monkeypatch.setattr(series_module, "open_pool", replace_then_open)
    got = run("play_models.py", "--model1", x, *games, "--csv", tmp_path / "c.csv", check=True)
    assert md5(x) == md5(other) != first_md5  # the file was replaced during the run
    played, oracle, wrong = (read_results(str(tmp_path / n)) for n in ("c.csv", "u.csv", "o.csv"))
    assert played.header["model1_md5"] == first_md5 == oracle.header["model1_md5"]
    assert list(played.points) == list(oracle.points)
    assert list(wrong.points) != list(oracle.points)
    rate = [r.stdout.splitlines()[2].split(":", 1)[1] for r in (got, untouched, replaced_by)]
    assert rate[0] == rate[1] != rate[2]


def test_workers_get_the_weights_not_the_path(tmp_path):
    """A pinned player carries its checkpoint's bytes: an agent built from it plays them even
    when the file is gone, and its md5 is theirs."""
    from tdbg.game.modes import game_mode
    from tdbg.play.players import Player, pinned
    from tdbg.play.seating import evaluator

    path = _net(tmp_path / "x.pt", 3)
    data = open(path, "rb").read()
    player = pinned(Player(path))
    assert player.data == data and player.md5 == hashlib.md5(data).hexdigest()
    os.remove(path)
    agent = evaluator(player, game_mode("dmp"))
    torch.manual_seed(3)
    assert torch.equal(agent.model.layers[0].weight, TDNetwork(196, [8]).layers[0].weight)
    assert "data" not in repr(player)  # the bytes stay out of messages


# --- kind 6: nothing hangs -------------------------------------------------------------------

HALF_SENT = r'''
import gc, multiprocessing.queues, os, struct, sys, time, warnings
from tdbg.app import cli
from tdbg.infra.workers import WorkerPool

def half_a_result(marker):
    """A worker killed while it sends a result: the message's length and its first bytes
    are in the pipe, the rest never comes."""
    warnings.simplefilter("ignore")  # (torch warns of deprecated names when gc's objects are looked at)
    pipe = [q for q in gc.get_objects() if isinstance(q, multiprocessing.queues.SimpleQueue)][0]._writer
    os.write(pipe.fileno(), struct.pack("!i", 1 << 20) + b"partial")
    open(marker, "w").close()
    time.sleep(3600)

def main():
    with WorkerPool(2) as pool:
        pool.submit(half_a_result, sys.argv[1])
        while not os.path.exists(sys.argv[1]):
            time.sleep(0.05)
        time.sleep(0.5)  # the manager thread is now blocked reading the rest of the message
        raise KeyboardInterrupt  # Ctrl-C

if __name__ == "__main__":
    cli.run_main(main)
'''


def test_ctrl_c_ends_the_run_when_a_worker_died_half_way_through_sending(tmp_path):
    """The hang after Ctrl-C: the pool's manager thread reads a result a killed worker had
    begun to send, and the interpreter's exit joins that thread with no limit.  Here the
    half-sent result is made on purpose; the run must end with the one `interrupted` line
    (the timeout is only a guard against the hang itself)."""
    import subprocess
    import sys

    script = tmp_path / "half_sent.py"
    script.write_text(HALF_SENT)
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "sent")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0], proc.stderr


# a gnubg that passes the preflight (its version, its weights, its rating) and then neither
# connects to its external player nor says a word of analysis; like gnubg, Ctrl-C does not
# end it; SIGTERM does, and it notes that it got one
FAKE_GNUBG = r"""#!{python}
import os, signal, sys, time
MARKS = {marks!r}
def mark(name):
    with open(os.path.join(MARKS, name), "a") as fh:
        fh.write(f"{{os.getpid()}}\n")
if sys.argv[1:] == ["--version"]:
    print("GNU Backgammon 1.08.003")
    sys.exit(0)
if "-p" in sys.argv:
    if "errorrating" in open(sys.argv[-1]).read():
        print("@@RATING [3]")
        sys.exit(0)
    role = "analysing"
else:
    if sys.stdin.readline().strip() == "show engine":
        print("installed in:\n - " + MARKS)
        sys.exit(0)
    role = "playing"
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, lambda *_: (mark("terminated"), os._exit(0)))
mark(role)
while True:
    time.sleep(1)
"""


def _fake_gnubg(tmp_path):
    import sys

    marks = tmp_path / "marks"
    marks.mkdir()
    (marks / "gnubg.wd").write_bytes(b"fake weights")
    fake = tmp_path / "gnubg"
    fake.write_text(FAKE_GNUBG.format(python=sys.executable, marks=str(marks)))
    fake.chmod(0o755)
    return str(fake), marks


FLOODING_GNUBG = r"""#!{python}
import re, socket, sys, time
if sys.argv[1:] == ["--version"]:
    print("GNU Backgammon 1.08.003")
    sys.exit(0)
script = sys.stdin.read()
if script.strip() == "show engine":
    print("installed in:\n - " + {marks!r})
    sys.exit(0)
port = int(re.search(r"external 127.0.0.1:(\d+)", script).group(1))
conn = socket.create_connection(("127.0.0.1", port))
try:
    conn.sendall(b"board:" + b"x" * 1_000_000)  # a "question" with no end
except OSError:
    pass
time.sleep(3600)
"""


def test_a_gnubg_that_floods_the_socket_is_one_line(tmp_path):
    """A gnubg that connects and sends a megabyte without a newline: one error line saying so
    at once (the line was collected without a bound, rescanned at each read: 200 MB hung the
    run; 1 MB waited for --gnubg-timeout and was called a stall), and the gnubg is ended."""
    import sys

    marks = tmp_path / "marks"
    marks.mkdir()
    (marks / "gnubg.wd").write_bytes(b"fake weights")
    fake = tmp_path / "gnubg"
    fake.write_text(FLOODING_GNUBG.format(python=sys.executable, marks=str(marks)))
    fake.chmod(0o755)
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "gnubg-ext",
        "--gnubg",
        fake,
        "--game-mode",
        "cubeless-money",
        "--games",
        "2",
        "--gnubg-timeout",
        "60",
        "--games-csv",
        tmp_path / "g.csv",
        "--quiet",
    )
    assert_one_line_error(proc, "without a newline")


CHATTERING_GNUBG = FLOODING_GNUBG.replace(
    'conn.sendall(b"board:" + b"x" * 1_000_000)  # a "question" with no end',
    "while True:  # bytes that make no question, without a pause\n"
    "        conn.sendall({payload!r} * 4096)",
)


@pytest.mark.parametrize("payload", [b"\x00", b"\n", b"\x00\r\n"])
def test_a_gnubg_that_sends_bytes_but_asks_nothing_is_a_stall(tmp_path, payload):
    """A gnubg that sends NUL bytes or blank lines without end asks no question: the run was
    never timed (each byte reset the clock) and hung; it is now stopped after --gnubg-timeout
    seconds without a question, in one line."""
    import sys

    marks = tmp_path / "marks"
    marks.mkdir()
    (marks / "gnubg.wd").write_bytes(b"fake weights")
    fake = tmp_path / "gnubg"
    fake.write_text(
        CHATTERING_GNUBG.format(python=sys.executable, marks=str(marks), payload=payload)
    )
    fake.chmod(0o755)
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "gnubg-ext",
        "--gnubg",
        fake,
        "--game-mode",
        "cubeless-money",
        "--games",
        "2",
        "--gnubg-timeout",
        "3",
        "--games-csv",
        tmp_path / "g.csv",
        "--quiet",
    )
    assert_one_line_error(proc, "no question from gnubg for 3 s")
    assert not (tmp_path / "g.csv").exists()


def _pids(marks, name):
    path = marks / name
    return path.read_text().split() if path.exists() else []


def _gone(pid: str) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0]
    except OSError:
        return True
    return state == "Z"


def test_a_gnubg_that_never_connects_is_one_line_and_ended(tmp_path):
    """--gnubg-timeout 3 against a gnubg that passes the preflight and never connects: one
    line naming the 3 s (not a gnubg-error line and then a second one), and the gnubg is
    ended (SIGTERM) rather than waited for; no game finished, so no games CSV is left (a
    header alone was)."""
    fake, marks = _fake_gnubg(tmp_path)
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "gnubg-ext",
        "--gnubg",
        fake,
        "--game-mode",
        "cubeless-money",
        "--games",
        "2",
        "--gnubg-timeout",
        "3",
        "--games-csv",
        tmp_path / "g.csv",
        "--quiet",
    )
    assert_one_line_error(proc, "did not connect within 3 s")
    assert not (tmp_path / "g.csv").exists()
    playing = _pids(marks, "playing")
    assert len(playing) == 1 and _pids(marks, "terminated") == playing


def test_what_a_gnubg_that_never_connects_started_ends_with_it(tmp_path):
    """A gnubg (a wrapper script in its place) that started a helper and never connects: the
    helper, which held gnubg's terminal, is ended with it (it outlived the run)."""
    fake, marks = _fake_gnubg(tmp_path)
    text = (
        open(fake)
        .read()
        .replace(
            "mark(role)\n",
            'mark(role)\nif os.fork() == 0:\n    mark("helper")\n    time.sleep(3600)\n    os._exit(0)\n',
        )
    )
    open(fake, "w").write(text)
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "gnubg-ext",
        "--gnubg",
        fake,
        "--game-mode",
        "cubeless-money",
        "--games",
        "2",
        "--gnubg-timeout",
        "3",
        "--games-csv",
        tmp_path / "g.csv",
        "--quiet",
    )
    assert_one_line_error(proc, "did not connect within 3 s")
    helpers = _pids(marks, "helper")
    deadline = time.monotonic() + HANG_GUARD
    while not all(_gone(p) for p in helpers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(helpers) == 1 and _gone(helpers[0])


def test_ctrl_c_ends_gnubg_during_games(tmp_path):
    """Ctrl-C (to the whole process group, as from a terminal) while a game against the gnubg
    binary is waited for: one `interrupted` line, exit 130, and gnubg, which Ctrl-C itself
    does not end, is ended by a SIGTERM, not waited for."""
    import signal
    import subprocess
    import sys
    import time

    from helpers import HANG_GUARD, ROOT

    fake, marks = _fake_gnubg(tmp_path)
    proc = subprocess.Popen(
        [
            sys.executable,
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "gnubg-ext",
            "--gnubg",
            fake,
            "--game-mode",
            "cubeless-money",
            "--games",
            "2",
            "--quiet",
            "--gnubg-timeout",
            "600",
            "--games-csv",
            tmp_path / "g.csv",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + HANG_GUARD  # a guard against a hang, not a measurement
    while not _pids(marks, "playing") and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    playing = _pids(marks, "playing")
    assert len(playing) == 1, proc.communicate(timeout=HANG_GUARD)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=HANG_GUARD)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0], err
    assert _pids(marks, "terminated") == playing and _gone(playing[0])


def test_gnubg_eval_ends_when_the_analysis_stalls(tmp_path):
    """gnubg_eval.py against a gnubg that passes the preflight and the rating check, then
    analyses nothing and says nothing: one line after --gnubg-timeout, exit 2, that gnubg
    ended (before, the run waited for it forever; the subprocess timeout is a hang guard)."""
    import subprocess
    import sys

    from helpers import ROOT

    fake, marks = _fake_gnubg(tmp_path)
    ck = _net(tmp_path / "m.pt", 4)
    proc = subprocess.run(
        [
            sys.executable,
            "gnubg_eval.py",
            "--model",
            ck,
            "--games",
            "2",
            "--gnubg",
            fake,
            "--gnubg-timeout",
            "3",
            "--quiet",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert_one_line_error(proc, "said nothing for 3 s")
    analysing = _pids(marks, "analysing")
    assert len(analysing) == 1 and _pids(marks, "terminated") == analysing


# --- kind 8: one error line where a traceback was ------------------------------------------


def _crafted(path, **meta_changes) -> str:
    """A checkpoint whose metadata was edited by hand (``meta_changes``), weights intact."""
    src = _net(path, 5)
    payload = torch.load(src, weights_only=True)
    payload["meta"].update(meta_changes)
    torch.save(payload, src)
    return src


@pytest.mark.parametrize(
    "change, words",
    [
        ({"episodes": "many"}, "'episodes' is str"),
        ({"hidden": ["8"]}, "'hidden' holds"),
        ({"game_mode": 5}, "'game_mode' is int"),
        ({"lineage": "none"}, "'lineage' is str"),
        ({"n_inputs": True}, "'n_inputs' is bool"),
        ({"lineage": [3]}, "not dicts"),
    ],
)
def test_checkpoint_metadata_of_the_wrong_type_is_one_line(tmp_path, change, words):
    ck = _crafted(tmp_path / "c.pt", **change)
    for script, args in (
        ("tools/describe_model.py", [ck]),
        ("play_models.py", ["--model1", ck, "--model2", "random", "--games", "2"]),
    ):
        assert_one_line_error(run(script, *args), words)


def test_hidden_sizes_this_machine_cannot_hold_are_one_line():
    """Each size passes the flag's own check (1..65536), together they need far more memory
    than the machine has: refused before torch allocates anything."""
    proc = run(
        "train_batch.py",
        "--hidden",
        "65536,65536,65536",
        "--num-episodes",
        "20",
        "--save",
        "/tmp/never.pt",
        "--quiet",
    )
    assert_one_line_error(proc, "more than this machine's memory")
    assert not os.path.exists("/tmp/never.pt")


ALLOCATION_FAILS = r"""
import resource, runpy, sys
import torch  # loaded first: the limit below leaves room for what is loaded, not for the network
vm = int([l for l in open("/proc/self/status") if l.startswith("VmSize")][0].split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (1 << 30), resource.RLIM_INFINITY))
sys.argv = ["train_batch.py", "--hidden", "30000,30000", "--num-episodes", "20", "--save", sys.argv[1], "--quiet"]
runpy.run_path("train_batch.py", run_name="__main__")
"""


def test_an_allocation_that_fails_is_one_line(tmp_path):
    """A network that fits the machine's memory but not the process's limit (ulimit -v): torch's
    allocator fails (a RuntimeError), and that is one line too."""
    import subprocess
    import sys

    from helpers import HANG_GUARD, ROOT

    proc = subprocess.run(
        [sys.executable, "-c", ALLOCATION_FAILS, str(tmp_path / "n.pt")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert_one_line_error(proc, "cannot allocate the network")


def test_standard_output_on_a_full_device_is_one_line(tmp_path):
    import subprocess
    import sys

    from helpers import HANG_GUARD, ROOT

    ck = _net(tmp_path / "c.pt", 6)
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "tools/describe_model.py", ck],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=HANG_GUARD,
        )
    assert_one_line_error(proc, "cannot write standard output")


def test_a_name_that_is_not_utf8_is_refused_before_the_games(tmp_path):
    """A result file names its outputs and players; a path with a byte that is not UTF-8 could
    not be written there, and was found only after all the games."""
    bad = os.fsdecode(bytes(tmp_path / "r") + b"\xff.csv")
    proc = run(
        "play_models.py", "--model1", "pubeval", "--model2", "random", "--games", "2", "--csv", bad
    )
    assert_one_line_error(proc, "not UTF-8")
    assert os.listdir(tmp_path) == []


def test_a_luck_judge_that_is_a_player_is_refused_before_the_games(tmp_path):
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        "200",
        "--luck",
        "pubeval",
        "--save-games",
        tmp_path / "g",
    )
    assert_one_line_error(proc, "the judge is gnubg-nn or a checkpoint")
    assert not (tmp_path / "g").exists()


# --- the input part of kind 10: bad input accepted -----------------------------------------


def _result_file(tmp_path, name="r.csv", games=4):
    path = tmp_path / name
    run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        str(games),
        "--csv",
        path,
        check=True,
    )
    return path


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda t: t.replace("\n1,", "\nnan_row,", 1), "malformed row"),
        (lambda t: _points(t, "nan"), "finite"),
        (lambda t: _points(t, "inf"), "finite"),
        (lambda t: _points(t, "-inf"), "finite"),
        (lambda t: t.replace("# games: 4", "# games: 6"), "header says 6 games"),
        (lambda t: t + t.splitlines()[-1] + "\n", "repeated"),
    ],
)
def test_compare_results_refuses_what_no_run_writes(tmp_path, edit, words):
    a = _result_file(tmp_path)
    b = tmp_path / "b.csv"
    b.write_text(edit(a.read_text()))
    assert_one_line_error(run("tools/compare_results.py", a, b), words)


def _points(text: str, value: str) -> str:
    """The last game's points replaced by ``value``."""
    lines = text.splitlines()
    cells = lines[-1].split(",")
    cells[2] = value
    return "\n".join(lines[:-1] + [",".join(cells)]) + "\n"


def test_plot_training_refuses_a_file_that_is_not_a_training_log(tmp_path):
    not_a_log = tmp_path / "x.csv"
    not_a_log.write_text("name,loss\nalice,3\nbob,4\n")  # a CSV with a loss column, nothing more
    assert_one_line_error(run("tools/plot_training.py", not_a_log), "not a training log")
    edited = tmp_path / "e.csv"
    edited.write_text(
        "round,total_episodes,loss,lr,episodes_per_s\n1,20,0.1,0.1,5\n2,forty,0.1,0.1,5\n"
    )
    assert_one_line_error(run("tools/plot_training.py", edited), "line 3")
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "e.png").exists()


@pytest.mark.parametrize(
    "state, words",
    [
        (dict(cube=1, owner=1), "owned cube at 1"),
        (dict(cube=1, owner=2), "owned cube at 1"),
        (dict(cube=2, owner=2, doubled=True), "the cube is its opponent's"),
    ],
)
def test_match_id_fields_no_game_reaches_are_refused(state, words):
    import numpy as np

    from tdbg.game.position_ids import GameState, match_id, parse_position

    text = "4HPwATDgc/ABMA:" + match_id(GameState(np.zeros((2, 25), dtype=np.int64), **state))
    with pytest.raises(ValueError, match=words):
        parse_position(text)
    assert_one_line_error(run("tools/analyse.py", _net_path(), text), words)


def _net_path() -> str:
    import tempfile

    folder = tempfile.mkdtemp(prefix="round3_")
    return _net(os.path.join(folder, "n.pt"), 7)


def test_tdbg_move_refuses_a_finished_game(tmp_path):
    import subprocess

    import numpy as np

    from helpers import ROOT
    from tdbg.game import backgammon_engine as be

    subprocess.run(["make", "-s", "-C", f"{ROOT}/c_inference"], check=True, capture_output=True)
    weights = tmp_path / "n.bin"
    run("tools/export_weights.py", _net(tmp_path / "n.pt", 8), weights, check=True)
    board = np.zeros((2, 25), dtype=np.int64)
    board[0, 5] = (
        3  # the opponent has three checkers left; the side on roll has borne off all of its
    )
    pid = be.position_id(board)
    for args, stdin in (([pid, "3", "1"], ""), ([], f"{pid} 3 1\n"), (["--eval", pid], "")):
        proc = subprocess.run(
            [f"{ROOT}/c_inference/tdbg_move", str(weights), *args],
            input=stdin,
            capture_output=True,
            text=True,
        )
        assert_one_line_error(proc, "the game is over")
        assert proc.stdout == ""


def _results_tables(monkeypatch, replace):
    """tools/results_tables.py --check with the first result CSV it reads replaced by
    ``replace(path)``'s path: (exit code, stderr lines)."""
    import contextlib
    import importlib.util
    import io
    import sys

    from helpers import ROOT

    spec = importlib.util.spec_from_file_location(
        "results_tables_probe", f"{ROOT}/tools/results_tables.py"
    )
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    real, swapped = tables.FILES.path, []

    def path(rel):
        if rel.endswith(".csv") and not swapped:
            swapped.append(rel)
            return replace(real(rel))
        return real(rel)

    monkeypatch.setattr(tables.FILES, "path", path)
    monkeypatch.setattr(sys, "argv", ["results_tables.py", "--check"])
    err = io.StringIO()
    with (
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(io.StringIO()),
        pytest.raises(SystemExit) as done,
    ):
        tables.cli.run_main(tables.main)
    return done.value.code, [ln for ln in err.getvalue().splitlines() if ln.strip()], swapped


def test_results_tables_on_a_missing_or_edited_result_file_is_one_line(tmp_path, monkeypatch):
    code, lines, swapped = _results_tables(monkeypatch, lambda p: str(tmp_path / "gone.csv"))
    assert code == 2 and len(lines) == 1 and "gone.csv" in lines[0], (lines, swapped)

    def edited(p):
        text = open(p).read()
        out = tmp_path / "edited.csv"
        out.write_text(_points(text, "abc"))
        return str(out)

    code, lines, _ = _results_tables(monkeypatch, edited)
    assert code == 2 and len(lines) == 1 and "malformed row" in lines[0], lines


@pytest.mark.parametrize(
    "script, args, words",
    [
        ("experiments/benchmarks/eval_throughput.py", ["--games", "0"], "--games"),
        ("experiments/benchmarks/eval_throughput.py", ["--hidden", "abc"], "--hidden"),
        ("experiments/benchmarks/selfplay_throughput.py", ["--seconds", "nan"], "--seconds"),
        ("experiments/benchmarks/rollout_throughput.py", ["--workers", "0"], "--workers"),
        ("experiments/benchmarks/movegen.py", ["--chunk", "-5"], "--chunk"),
        (
            "experiments/benchmarks/eval_throughput.py",
            ["--checkpoint", "/nonexistent/x.pt", "--games", "2"],
            "no such checkpoint",
        ),
    ],
)
def test_the_benchmarks_answer_bad_flags_in_one_line(script, args, words):
    assert_one_line_error(run(script, *args), words)


@pytest.mark.parametrize(
    "script, args",
    [
        ("play_models.py", ["--model1", "pubeval", "--model2", "random", "--games", "4"]),
        (
            "train_batch.py",
            [
                "--hidden",
                "8",
                "--num-episodes",
                "20",
                "--episodes-per-round",
                "20",
                "--parallel-games",
                "8",
            ],
        ),
    ],
)
def test_the_largest_seed_runs(tmp_path, script, args):
    extra = ["--save", tmp_path / "s.pt"] if script.startswith("train") else []
    run(script, *args, *extra, "--seed", str(2**32 - 1), "--quiet", check=True)
