"""Faults round three, the outputs: no run replaces or mixes another run's files.  One
cause per test, each the issue's example (small nets, tens of episodes): snapshots under
the output policy, a lock per output, folders replaced whole, log rows whole and checked
on resume, names checked before the work, nothing left behind by a killed save or a
refused run."""

import csv
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import HANG_GUARD, ROOT, assert_one_line_error, md5, run

ROUNDS = ["--episodes-per-round", "20", "--parallel-games", "8", "--quiet"]


def train(*args, check=False):
    return run("train_batch.py", "--hidden", "8", *ROUNDS, *map(str, args), check=check)


def _run_code(code: str):
    """A child Python running ``code`` from the repository root."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD
    )


def _hidden(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("."))


def _lock_file(path):
    from tdbg.infra.run_outputs import lock_path

    return lock_path(os.path.realpath(path))


# --- 1. snapshots are outputs like any other ------------------------------------------------


def test_a_new_stage_does_not_replace_an_earlier_stages_snapshots(tmp_path):
    save = tmp_path / "s.pt"
    train("--num-episodes", "40", "--save-every", "1", "--save", save, check=True)
    snaps = {p: md5(p) for p in (tmp_path / "s_r000001.pt", tmp_path / "s_r000002.pt")}
    before = md5(save)
    # the first stage is finished: this is a new stage, whose snapshots would take the same names
    proc = train("--resume", save, "--save", save, "--num-episodes", "40", "--save-every", "1")
    assert_one_line_error(proc, "s_r000001.pt exists (a snapshot of another stage")
    assert {p: md5(p) for p in snaps} == snaps and md5(save) == before


def test_overwrite_replaces_an_earlier_stages_snapshots_whole_never_a_text_file(tmp_path):
    from tdbg.net.model import load_checkpoint

    save = tmp_path / "s.pt"
    train("--num-episodes", "40", "--save-every", "1", "--save", save, check=True)
    first = tmp_path / "s_r000001.pt"
    notes = first.read_bytes()
    first.write_text("my notes, not a checkpoint\n")
    proc = train(
        "--resume", save, "--save", save, "--num-episodes", "20", "--save-every", "1", "--overwrite"
    )
    assert_one_line_error(proc, "is a text file; refusing to replace it with a checkpoint")
    assert first.read_text() == "my notes, not a checkpoint\n"
    first.write_bytes(notes)  # the first stage's snapshot again
    old_stage = load_checkpoint(str(first))[2]["stage"]["id"]
    train(
        "--resume",
        save,
        "--save",
        save,
        "--num-episodes",
        "20",
        "--save-every",
        "1",
        "--overwrite",
        check=True,
    )
    # the new stage wrote round 1; the first stage's round 2 went with it: no stage's snapshots mixed
    assert sorted(p.name for p in tmp_path.glob("s_r*.pt")) == ["s_r000001.pt"]
    new_stage = load_checkpoint(str(first))[2]["stage"]
    assert new_stage["id"] != old_stage and new_stage["episodes_done"] == 20
    assert load_checkpoint(str(save))[2]["stage"]["id"] == new_stage["id"]


def test_a_resume_of_an_unfinished_stage_writes_its_own_later_snapshots(tmp_path):
    from tdbg.net.model import load_checkpoint, save_checkpoint

    save = tmp_path / "s.pt"
    train("--num-episodes", "40", "--save-every", "1", "--save", save, check=True)
    model, meta, state = load_checkpoint(str(save))
    state["stage"]["settings"]["num_episodes"] = (
        80  # as a stage of 80 stopped at 40 (by a signal) would be
    )
    save_checkpoint(str(save), model, meta, state)
    snaps = {p: md5(p) for p in tmp_path.glob("s_r*.pt")}
    proc = train("--resume", save, "--save", save, "--num-episodes", "80", "--save-every", "1")
    assert proc.returncode == 0, proc.stderr
    assert "continuing its unfinished stage at 40 of 80" in proc.stderr
    assert {p: md5(p) for p in snaps} == snaps  # rounds 1 and 2 were not written again
    assert [
        load_checkpoint(str(tmp_path / f"s_r00000{k}.pt"))[2]["stage"]["episodes_done"]
        for k in (3, 4)
    ] == [60, 80]


# --- 3. a lock on every output ----------------------------------------------------------------


def test_a_second_run_on_the_same_outputs_is_refused_and_a_killed_runs_lock_blocks_nothing(
    tmp_path,
):
    save, log = tmp_path / "same.pt", tmp_path / "same.csv"
    first = subprocess.Popen(
        [
            sys.executable,
            "train_batch.py",
            "--hidden",
            "8",
            "--num-episodes",
            "1000000",
            "--seed",
            "1",
            "--save",
            str(save),
            *ROUNDS,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not (
            log.exists() and len(log.read_text().splitlines()) >= 2
        ):  # a round logged: it is writing
            assert first.poll() is None, first.stderr.read()
            time.sleep(0.2)  # a poll, not a limit: the test waits as long as the first run takes
        # (--new-stage: --overwrite alone never replaces the unfinished stage a checkpoint holds)
        proc = train(
            "--num-episodes", "40", "--seed", "2", "--save", save, "--overwrite", "--new-stage"
        )
        assert_one_line_error(
            proc, f"--save {save} is being written by another run (process {first.pid})"
        )
        proc = train(
            "--num-episodes",
            "40",
            "--seed",
            "2",
            "--save",
            tmp_path / "other.pt",
            "--log",
            log,
            "--overwrite",
        )
        assert_one_line_error(proc, f"--log {log} is being written by another run")
        assert not (tmp_path / "other.pt").exists()
    finally:
        first.kill()  # kill -9: its lock file stays, and must not block the next run
        first.wait(HANG_GUARD)
    assert os.path.exists(_lock_file(save))
    rows = log.read_text().splitlines()
    assert all(
        len(r.split(",")) == len(rows[0].split(",")) for r in rows
    )  # only the first run's rows, whole
    train(
        "--num-episodes",
        "40",
        "--seed",
        "2",
        "--save",
        save,
        "--overwrite",
        "--new-stage",
        check=True,
    )
    assert not os.path.exists(_lock_file(save)) and not os.path.exists(_lock_file(log))
    assert _hidden(tmp_path) == []


# --- 4. a folder given with --overwrite is replaced whole -------------------------------------


def test_save_games_overwrite_leaves_only_the_new_runs_games(tmp_path):
    games = tmp_path / "G"
    base = ["--model1", "pubeval", "--model2", "random", "--seed", "7", "--quiet"]
    run("play_models.py", *base, "--games", "6", "--save-games", games, check=True)
    assert len(list(games.glob("*.mat"))) == 6
    run("play_models.py", *base, "--games", "2", "--save-games", games, "--overwrite", check=True)
    fresh = tmp_path / "F"
    run("play_models.py", *base, "--games", "2", "--save-games", fresh, check=True)
    # exactly what the same run writes into an empty folder: the old run's 4 other games are gone
    assert {p.name: md5(p) for p in games.iterdir()} == {p.name: md5(p) for p in fresh.iterdir()}


def test_a_run_refused_at_its_input_check_creates_no_games_folder(tmp_path):
    games = tmp_path / "G"
    proc = run(
        "play_models.py",
        "--model1",
        tmp_path / "missing.pt",
        "--model2",
        "random",
        "--games",
        "2",
        "--save-games",
        games,
        "--quiet",
    )
    assert_one_line_error(proc, "missing.pt")
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        "2",
        "--plies",
        "2",
        "--save-games",
        games,
        "--quiet",
    )
    assert_one_line_error(proc, "--plies")
    assert os.listdir(tmp_path) == []


# --- 5. log rows whole; a resume appends only to its own log ----------------------------------

FULL_LOG = """
import errno, os, runpy, sys
real, calls = os.write, [0]
def write(fd, data):
    if os.readlink(f"/proc/self/fd/{{fd}}").endswith("c.csv"):
        calls[0] += 1
        if calls[0] == {row}:   # the disk fills inside this row: part of it fits
            real(fd, bytes(data)[:len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real(fd, data)
os.write = write
sys.argv = [{script!r}, "--hidden", "8", "--save", {save!r}, *{args!r}]
runpy.run_path({script!r}, run_name="__main__")
"""


# the second row cannot be written: what is kept is the first (round 1; the online log's
# first row, after one episode)
@pytest.mark.parametrize(
    "script, args, kept",
    [
        ("train_batch.py", ["--num-episodes", "60", *ROUNDS], "round 1 of this stage"),
        (
            "train_online.py",
            ["--num-episodes", "3", "--log-every", "1", "--quiet"],
            "1 episodes of this stage",
        ),
    ],
)
def test_a_full_disk_leaves_no_torn_row_and_the_checkpoint_and_log_agree(
    tmp_path, script, args, kept
):
    from tdbg.net.model import load_checkpoint

    save = tmp_path / "c.pt"
    proc = _run_code(FULL_LOG.format(row=2, script=script, save=str(save), args=args))
    assert_one_line_error(proc, "no space left")
    line = proc.stderr.strip()
    assert (
        line.startswith(f"{script}: error: {tmp_path / 'c.csv'}: ")
        and "keeps the last checkpoint" in line
    )
    assert kept in line, line
    text = (tmp_path / "c.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    assert text.endswith("\n") and len(rows) == 1  # the header and the first row, whole
    _, meta, _ = load_checkpoint(str(save))
    assert (
        int(rows[-1]["total_episodes"]) == meta["episodes"]
    )  # the second row's episodes were never saved
    # a resume appends to that log, row after whole row
    run(script, "--hidden", "8", "--resume", save, "--save", save, *args, check=True)
    rows = list(csv.DictReader((tmp_path / "c.csv").read_text().splitlines()))
    _, meta, _ = load_checkpoint(str(save))
    assert [int(r["total_episodes"]) for r in rows][-1] == meta["episodes"]
    assert all(None not in r and None not in r.values() for r in rows)


def _edits(text):
    header, *rows = text.splitlines(keepends=True)
    last = rows[-1].split(",")
    last[2] = str(int(last[2]) + 20)  # total_episodes of the batch log
    return {
        "last row edited": header + "".join(rows[:-1]) + ",".join(last),
        "another log": "round,loss\n1,0.5\n",
        "torn last row": text[:-7],
        "header edited": header.replace("loss", "los") + "".join(rows),
    }


@pytest.mark.parametrize(
    "case", ["last row edited", "another log", "torn last row", "header edited"]
)
def test_a_resume_refuses_a_log_that_is_not_its_own(tmp_path, case):
    save, log = tmp_path / "c.pt", tmp_path / "c.csv"
    train("--num-episodes", "40", "--save", save, check=True)
    model, meta, state = _load(save)
    state["stage"]["settings"]["num_episodes"] = 60  # unfinished: the resume continues it
    from tdbg.net.model import save_checkpoint

    save_checkpoint(str(save), model, meta, state)
    log.write_text(_edits(log.read_text())[case])
    before = (md5(save), md5(log))
    proc = train("--resume", save, "--save", save, "--num-episodes", "60")
    assert_one_line_error(proc, str(log))
    assert "another --log" in proc.stderr
    assert (md5(save), md5(log)) == before


def test_train_online_resume_refuses_an_edited_log(tmp_path):
    save, log = tmp_path / "o.pt", tmp_path / "o.csv"
    run(
        "train_online.py",
        "--hidden",
        "8",
        "--num-episodes",
        "2",
        "--save",
        save,
        "--quiet",
        check=True,
    )
    header, row = log.read_text().splitlines()
    fields = row.split(",")
    fields[1] = "7"  # total_episodes
    log.write_text(header + "\n" + ",".join(fields) + "\n")
    proc = run(
        "train_online.py",
        "--hidden",
        "8",
        "--num-episodes",
        "4",
        "--resume",
        save,
        "--save",
        save,
        "--quiet",
    )
    assert_one_line_error(
        proc,
        "is not this checkpoint's log (its last row has total_episodes 7, the checkpoint "
        "total_episodes 2)",
    )


def _load(path):
    from tdbg.net.model import load_checkpoint

    return load_checkpoint(str(path))


# --- 9. names checked before the work, messages with the user's path --------------------------


def test_an_output_name_that_cannot_be_made_is_found_before_any_game(tmp_path):
    long_json = tmp_path / ("x" * 251 + ".json")
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        "20000",
        "--quiet",
        "--json",
        long_json,
    )
    assert_one_line_error(proc, f"--json {long_json}: the name is too long (256 bytes")
    assert ".tmp-" not in proc.stderr and proc.stdout == ""  # no game played: no table printed
    bad = os.fsdecode(os.fsencode(str(tmp_path)) + b"/r\xff.csv")
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        "20000",
        "--quiet",
        "--csv",
        bad,
    )
    assert_one_line_error(proc, "r\\xff.csv: the name is not utf-8 text")
    assert os.listdir(tmp_path) == []


def test_a_failed_atomic_write_names_the_file_asked_for(tmp_path, monkeypatch):
    """The file system refuses the temporary name (mkstemp's error names it): the error
    names the file asked for, and nothing is left."""
    import errno
    import tempfile

    from tdbg.infra.fileio import atomic_write

    def refuse(prefix, suffix, dir):
        name = os.path.join(dir, prefix + "2twttn7g" + suffix)
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), name)

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(OSError) as exc:
        with atomic_write(str(tmp_path / "r.json")) as fh:
            fh.write("{}")
    assert exc.value.filename == str(tmp_path / "r.json") and os.listdir(tmp_path) == []


# --- 11. nothing left behind ------------------------------------------------------------------

KILLED_SAVE = """
import os, runpy, signal, sys
real, calls = os.fsync, [0]
def fsync(fd):
    calls[0] += 1
    if calls[0] == 2:   # the second checkpoint save, its temporary file written: kill -9
        os.kill(os.getpid(), signal.SIGKILL)
    return real(fd)
os.fsync = fsync
sys.argv = ["train_batch.py", "--hidden", "8", "--num-episodes", "60", "--save", {save!r}, *{rounds!r}]
runpy.run_path("train_batch.py", run_name="__main__")
"""


def test_a_save_killed_midway_leaves_no_temporary_file_after_the_next_run(tmp_path):
    save = tmp_path / "c.pt"
    proc = _run_code(KILLED_SAVE.format(save=str(save), rounds=ROUNDS))
    assert proc.returncode == -signal.SIGKILL
    left = _hidden(tmp_path)
    assert (
        len(left) == 1 and left[0].startswith(".tmp-c.pt-") and left[0].endswith(".pt")
    )  # what kill -9 leaves
    # its log is a row ahead (round 2 was logged, its save cut short): the resume takes that row back
    proc = train("--resume", save, "--save", save, "--num-episodes", "60")
    assert proc.returncode == 0, proc.stderr
    assert "its last row was never saved" in proc.stderr
    assert _hidden(tmp_path) == [] and _load(save)[1]["episodes"] == 60
    rows = list(csv.DictReader((tmp_path / "c.csv").read_text().splitlines()))
    assert [r["total_episodes"] for r in rows] == ["20", "40", "60"]
    assert not os.path.exists(_lock_file(save))
