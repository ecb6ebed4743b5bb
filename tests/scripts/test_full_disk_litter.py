"""What a failed write leaves: nothing that blocks the same command run again, and a message
that says what was already written."""

import contextlib
import errno
import io
import os
import subprocess
import sys

import pytest
import torch

from helpers import HANG_GUARD, QUICK_TRAIN, ROOT, assert_one_line_error, run

TRAIN = ["train_batch.py", "--hidden", "8", "--num-episodes", "40"] + QUICK_TRAIN


def test_a_full_disk_at_the_first_save_leaves_nothing_in_the_way(tmp_path):
    """The first checkpoint save meets ENOSPC: one line, no checkpoint and no log (a log of
    its header alone was left, and the same command run again was refused for it); run again,
    the same command trains."""
    save = tmp_path / "c.pt"
    code = f"""
import errno, os, runpy, sys
def fsync(fd):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
os.fsync = fsync
sys.argv = {TRAIN + ["--save", str(save)]!r}
runpy.run_path("train_batch.py", run_name="__main__")
"""
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert_one_line_error(proc, "no space left")
    assert os.listdir(tmp_path) == []
    run(*TRAIN, "--save", save, check=True)
    assert save.exists() and (tmp_path / "c.csv").exists()


def test_a_log_whose_first_row_meets_a_full_disk_is_not_left_behind(tmp_path, monkeypatch):
    """The first row of a new log (a training log on a full disk, a games CSV) fails to be
    written: no file is left (an empty one was, and the same command run again was refused
    for a log that exists); a row that fails on an existing file leaves it as it was."""
    from tdbg.infra import runlog

    real_write = os.write

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    new = tmp_path / "new.csv"
    with pytest.raises(OSError, match="new.csv"):
        runlog.append_line(str(new), "a,b\n1,2\n")
    assert not new.exists()
    with pytest.raises(OSError, match="log.csv"):
        runlog.CsvLog(str(tmp_path / "log.csv"), ["a", "b"]).write({"a": 1, "b": 2})
    assert os.listdir(tmp_path) == []
    old = tmp_path / "old.csv"
    old.write_text("a,b\n1,2\n")
    with pytest.raises(OSError):
        runlog.append_line(str(old), "3,4\n")
    assert old.read_text() == "a,b\n1,2\n"
    monkeypatch.setattr(os, "write", real_write)
    runlog.append_line(str(new), "a,b\n")
    assert new.read_text() == "a,b\n"


def test_a_save_inside_a_symlink_loop_is_refused_before_training(tmp_path):
    """--save under a symbolic link that points at itself: refused when the outputs are
    checked (it passed, trained a round, then failed at the save)."""
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    broken = tmp_path / "broken"
    os.symlink(tmp_path / "nowhere" / "deeper", broken)
    for folder in (loop, broken):
        proc = run(*TRAIN, "--save", folder / "c.pt")
        assert_one_line_error(proc, f"{folder} is a symbolic link that leads nowhere")
        assert "round" not in proc.stdout
    assert sorted(os.listdir(tmp_path)) == ["broken", "loop"]


def test_a_save_that_is_a_link_to_nowhere_is_named_so(tmp_path):
    """--save a symbolic link whose target is missing (or a loop): the line says so (it said
    the path "exists and is not a regular file", where nothing exists)."""
    from tdbg.infra.fileio import OutputError, check_file

    dangling, loop = tmp_path / "d.pt", tmp_path / "l.pt"
    os.symlink(tmp_path / "nowhere" / "x.pt", dangling)
    os.symlink(loop, loop)
    for link in (dangling, loop):
        with pytest.raises(OutputError, match="is a symbolic link that leads nowhere"):
            check_file(str(link), "checkpoint", f"--save {link}")
    assert sorted(os.listdir(tmp_path)) == ["d.pt", "l.pt"]


def test_results_tables_says_which_files_it_rewrote_before_a_failed_write(tmp_path, monkeypatch):
    """Both README files' tables are stale; the second write meets a full disk: one line that
    names the file that failed and the one already rewritten."""
    import importlib.util

    from tdbg.app import marked_tables
    from tdbg.infra import fileio

    spec = importlib.util.spec_from_file_location(
        "results_tables_disk", f"{ROOT}/tools/results_tables.py"
    )
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    copies = {}
    for rel in sorted(set(tables.TARGETS.values())):
        text = open(os.path.join(ROOT, rel)).read()
        name = next(n for n, t in tables.TARGETS.items() if t == rel)
        begin, end = marked_tables.markers(name)
        stale = text[: text.index(begin) + len(begin)] + "\nstale\n" + text[text.index(end) :]
        copies[rel] = tmp_path / rel.replace("/", "_")
        copies[rel].write_text(stale)
    real_path, real_write = tables.FILES.path, fileio.atomic_write
    monkeypatch.setattr(
        tables.FILES, "path", lambda rel: str(copies[rel]) if rel in copies else real_path(rel)
    )
    written = []

    @contextlib.contextmanager
    def full_second(path, mode="w"):
        if written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        with real_write(path, mode) as fh:
            yield fh
        written.append(path)

    monkeypatch.setattr(fileio, "atomic_write", full_second)
    monkeypatch.setattr(sys, "argv", ["results_tables.py"])
    err = io.StringIO()
    with (
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(io.StringIO()),
        pytest.raises(SystemExit) as done,
    ):
        tables.cli.run_main(tables.main)
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    assert done.value.code == 2 and len(lines) == 1, lines
    first, second = sorted(str(p) for p in copies.values())
    assert written == [first]
    assert (
        f"{second}: No space left on device; {os.path.relpath(first, ROOT)} already rewritten"
        in lines[0]
    ), lines


def test_resume_through_a_symbolic_link_continues_its_target(tmp_path):
    """--resume L --save L with L a link to T.pt: T.pt and its log T.csv go on, and L stays a
    link (it was replaced by a file of its own, T.pt left as it was)."""
    from tdbg.net.model import load_checkpoint

    target = tmp_path / "T.pt"
    args = ["--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN]
    run("train_batch.py", *args, "--save", target, "--stop-at", "20", check=True)
    link = tmp_path / "L.pt"
    os.symlink(target, link)
    run("train_batch.py", "--resume", link, "--save", link, *args, check=True)
    assert os.path.islink(link) and os.readlink(link) == str(target)
    assert load_checkpoint(str(target))[2]["stage"]["episodes_done"] == 60
    assert [ln.split(",")[2] for ln in (tmp_path / "T.csv").read_text().splitlines()[1:]] == [
        "20",
        "40",
        "60",
    ]
    assert sorted(os.listdir(tmp_path)) == ["L.pt", "T.csv", "T.pt"]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.bool, torch.int64])
def test_weights_that_are_not_real_numbers_are_refused(tmp_path, dtype):
    """A checkpoint whose weights are complex, bool or whole numbers: refused in one line (they
    were cast to float without a word: the imaginary part dropped, True read as 1.0)."""
    from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint

    net = TDNetwork(196, [8], "probability")
    path = tmp_path / "w.pt"
    save_checkpoint(str(path), net, new_metadata(net, "dmp"))
    payload = torch.load(path, weights_only=True)
    key = next(iter(payload["state_dict"]))
    payload["state_dict"][key] = payload["state_dict"][key].to(dtype)
    torch.save(payload, path)
    assert_one_line_error(run("tools/describe_model.py", path), f"weight {key} is {dtype}")
