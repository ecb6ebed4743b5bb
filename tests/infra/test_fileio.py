"""tdbg.infra.fileio: atomic writes that leave the old file or the whole new one, the kinds of
file it recognises from their first bytes, strict JSON, and the output policy every script
applies before any work (the scripts' own runs of it: tests/scripts/test_output_safety.py)."""

import json
import os
import stat
import zipfile

import numpy as np
import pytest
import torch

from tdbg.infra import fileio, run_outputs
from tdbg.infra.fileio import Output, OutputError


@pytest.fixture(autouse=True)
def released_locks():
    """check_outputs locks the outputs for the run: the run ends with each test."""
    yield
    run_outputs.end()


def entries(folder):
    return sorted(os.listdir(folder))


def test_a_writer_that_raises_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("old\n")
    with pytest.raises(RuntimeError, match="the writer failed"):
        with fileio.atomic_write(str(path)) as fh:
            fh.write("half of the new")
            fh.flush()  # the bytes are in the temporary file when the writer fails
            assert len(entries(tmp_path)) == 2  # r.txt and its temporary, beside it
            raise RuntimeError("the writer failed")
    assert path.read_text() == "old\n"
    assert entries(tmp_path) == ["r.txt"]


def test_a_write_replaces_the_whole_file_with_the_umask_permissions(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("old contents, longer than the new\n")
    old_mask = os.umask(0o027)
    try:
        with fileio.atomic_write(str(path)) as fh:
            fh.write("new\n")
    finally:
        os.umask(old_mask)
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640  # 0666 less 027
    assert entries(tmp_path) == ["r.txt"]


def test_a_write_through_a_symbolic_link_replaces_its_target_and_keeps_the_link(tmp_path):
    target, link = tmp_path / "target.txt", tmp_path / "link.txt"
    target.write_text("old\n")
    link.symlink_to(target)
    with fileio.atomic_write(str(link), "wb") as fh:
        fh.write(b"new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_a_write_into_a_missing_folder_makes_it(tmp_path):
    path = tmp_path / "a" / "b" / "r.txt"
    with fileio.atomic_write(str(path)) as fh:
        fh.write("x")
    assert path.read_text() == "x"


def test_a_failed_write_into_a_missing_folder_leaves_no_folder_it_made(tmp_path):
    """A full disk at the first file of a new folder (play_models --save-games) left the empty
    folder behind; folders that were there stay."""
    (tmp_path / "kept").mkdir()
    path = tmp_path / "kept" / "a" / "b" / "r.txt"
    with pytest.raises(OSError):
        with fileio.atomic_write(str(path)) as fh:
            fh.write("x")
            raise OSError(28, "No space left on device")
    assert entries(tmp_path) == ["kept"] and entries(tmp_path / "kept") == []


def _write(path, data: bytes):
    path.write_bytes(data)
    return str(path)


def test_the_kind_of_a_file_from_its_first_bytes(tmp_path):
    model = torch.nn.Linear(2, 1)
    torch.save(model.state_dict(), tmp_path / "c.pt")
    with zipfile.ZipFile(tmp_path / "plain.zip", "w") as zf:
        zf.writestr("readme.txt", "a zip that torch.save did not write")
    kinds = {
        str(tmp_path / "c.pt"): "checkpoint",
        str(tmp_path / "plain.zip"): "other",
        _write(tmp_path / "w.bin", b"TDBGNET1" + bytes(8)): "weights",
        _write(tmp_path / "p.png", b"\x89PNG\r\n\x1a\n" + bytes(8)): "png",
        _write(tmp_path / "j.json", b'  {"a": 1}'): "json",
        _write(tmp_path / "l.json", b"[1, 2]"): "json",
        _write(tmp_path / "t.csv", b"episodes,loss\n1,0.5\n"): "text",
        _write(tmp_path / "e.txt", b""): "empty",
        _write(tmp_path / "n.bin", b"abc\0def"): "other",
        _write(tmp_path / "l1.txt", b"caf\xe9 au lait"): "other",  # Latin-1, not UTF-8
        str(tmp_path): "special",
    }
    # 63 ASCII bytes then the first byte of a two-byte character: cut inside it, still text
    kinds[_write(tmp_path / "cut.txt", b"x" * 63 + "é".encode())] = "text"
    assert {p: fileio.file_kind(p) for p in kinds} == kinds
    # the same kinds from the bytes a reader read whole (content_kind: no second open)
    files = {p: k for p, k in kinds.items() if k != "special"}
    assert {p: fileio.content_kind(open(p, "rb").read()) for p in files} == files


def test_strict_json_turns_nan_and_infinities_into_null_and_says_where():
    text = fileio.json_text(
        {"a": float("nan"), "b": [1.0, float("inf")], "c": {"d": -float("inf")}, "e": np.float32(2)}
    )

    def refuse(name):
        raise AssertionError(f"not strict JSON: {name}")

    obj = json.loads(text, parse_constant=refuse)
    assert obj["a"] is None and obj["b"] == [1.0, None] and obj["c"] == {"d": None}
    assert obj["e"] == 2.0
    assert set(obj["nulls"]) == {"a", "b[1]", "c.d"}
    assert obj["nulls"]["b[1]"].startswith("infinite")
    assert obj["nulls"]["c.d"].startswith("minus infinity")
    assert json.loads(fileio.json_text([float("nan")])) == [None]  # no dict: no "nulls"


def test_check_input_refuses_a_missing_file_and_a_folder(tmp_path):
    with pytest.raises(fileio.InputError, match="no such file"):
        fileio.check_input(str(tmp_path / "none.pt"), "a checkpoint")
    with pytest.raises(fileio.InputError, match="not a regular file"):
        fileio.check_input(str(tmp_path), "a checkpoint")


def test_an_existing_output_is_replaced_only_with_overwrite_or_as_the_runs_own(tmp_path):
    log = _write(tmp_path / "log.csv", b"episodes\n")
    with pytest.raises(OutputError, match="exists; pass --overwrite"):
        fileio.check_file(log, "text", "--log " + log)
    fileio.check_file(log, "text", "--log " + log, overwrite=True)
    fileio.check_file(log, "text", "--log " + log, own=True)
    fileio.check_file(str(tmp_path / "new.csv"), "text", "--log new.csv")
    # an empty file is of no kind yet: any output may replace it, as any other file, with --overwrite
    empty = _write(tmp_path / "empty.csv", b"")
    with pytest.raises(OutputError, match="exists; pass --overwrite"):
        fileio.check_file(empty, "png", "--plot " + empty)
    fileio.check_file(empty, "png", "--plot " + empty, overwrite=True)


def test_a_file_of_another_kind_is_never_replaced(tmp_path):
    png = _write(tmp_path / "fig.png", b"\x89PNG\r\n\x1a\n")
    with pytest.raises(OutputError, match="is a PNG image; refusing to replace it with a text"):
        fileio.check_file(png, "text", "--log " + png, overwrite=True, own=True)
    with pytest.raises(OutputError, match="is a folder"):
        fileio.check_file(str(tmp_path), "text", "--log")
    with pytest.raises(OutputError, match=" is a file"):
        fileio.check_file(os.path.join(png, "under.csv"), "text", "--log")


def test_one_path_for_two_outputs_or_for_an_input_is_refused(tmp_path):
    a = str(tmp_path / "a.json")
    with pytest.raises(OutputError, match="--json .*the same file as --save"):
        fileio.check_outputs([Output("--save", a, "checkpoint"), Output("--json", a, "json")])
    with pytest.raises(OutputError, match="the same file as --resume"):
        fileio.check_outputs([Output("--save", a, "checkpoint")], inputs={"--resume": a})
    # the run's own checkpoint may be the one it resumes
    fileio.check_outputs([Output("--save", a, "checkpoint", own=True)], inputs={"--resume": a})


def test_a_name_too_long_or_not_utf8_is_refused(tmp_path):
    with pytest.raises(OutputError, match=r"too long \(256 bytes; at most 255"):
        fileio.check_name(str(tmp_path / ("x" * 256)), "--save")
    bad = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"caf\xe9.pt"))
    with pytest.raises(OutputError, match=r"caf\\xe9.pt: the name is not UTF-8"):
        fileio.check_name(bad, "--save " + bad)


def test_write_atomic_replaces_only_what_check_outputs_cleared(tmp_path):
    cleared, other = str(tmp_path / "cleared.json"), str(tmp_path / "other.json")
    for path in (cleared, other):
        fileio.write_atomic(path, "{}\n")  # no file there yet: nothing to clear
    fileio.check_outputs([Output("--json", cleared, "json")], overwrite=True)
    fileio.write_json(cleared, {"x": 1})
    assert json.loads(open(cleared).read()) == {"x": 1}
    with pytest.raises(OutputError, match="did not check it against the output policy"):
        fileio.write_json(other, {"x": 1})
    assert open(other).read() == "{}\n"


def test_a_games_folder_with_old_games_needs_overwrite_and_loses_them_at_the_first_write(
    tmp_path,
):
    games = tmp_path / "games"
    games.mkdir()
    for name in ("g1.mat", "g2.mat", "notes.txt"):
        (games / name).write_text("old\n")
    out = [Output("--mat-dir", str(games), "folder")]
    with pytest.raises(OutputError, match=r"already holds 2 \*.mat file\(s\)"):
        fileio.check_outputs(out)
    fileio.check_outputs(out, overwrite=True)
    assert entries(games) == ["g1.mat", "g2.mat", "notes.txt"]  # nothing goes before the run writes
    fileio.write_atomic(str(games / "g1.mat"), "new\n")
    assert entries(games) == ["g1.mat", "notes.txt"]
    assert (games / "g1.mat").read_text() == "new\n"


def test_a_lock_that_cannot_be_made_is_one_clean_reason(monkeypatch):
    """tempfile's "no usable temporary directory" (a full disk, a file size limit of 0) names
    no one file: the reason is its words alone, not "None: ..."."""
    words = "No usable temporary directory found in ['/tmp']"

    def fail(path, label):
        raise FileNotFoundError(2, words)

    monkeypatch.setattr(run_outputs, "hold", fail)
    with pytest.raises(OutputError) as exc:
        fileio.hold("/x/out.json", "--out /x/out.json")
    assert str(exc.value) == f"--out /x/out.json: cannot take the run's lock on it ({words})"


def test_a_lock_error_about_a_file_names_it(monkeypatch):
    def fail(path, label):
        raise PermissionError(13, "Permission denied", "/tmp/locks/l")

    monkeypatch.setattr(run_outputs, "hold", fail)
    with pytest.raises(OutputError) as exc:
        fileio.hold("/x/out.json", "--out /x/out.json")
    assert str(exc.value) == (
        "--out /x/out.json: cannot take the run's lock on it (/tmp/locks/l: Permission denied)"
    )
