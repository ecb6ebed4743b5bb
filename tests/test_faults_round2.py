"""Issue 37, bad input and faults round two: one cause per test (each test fails on the
code before its fix)."""
import io
import os
import shutil
import zipfile

import pytest
import torch

from helpers import assert_one_line_error, md5, run

QUICK = ["--episodes-per-round", "20", "--parallel-games", "8", "--quiet"]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    path = tmp_path_factory.mktemp("ck") / "c.pt"
    run("train_batch.py", "--hidden", "8", "--num-episodes", "40", "--save", path, *QUICK, check=True)
    return str(path)


# --- the output policy -------------------------------------------------------------------

def test_only_sure_kinds_are_recognised(tmp_path):
    """Any zip or pickle other than torch.save's, a binary without a NUL in its first bytes,
    or bytes that are not UTF-8 are of unknown kind (never replaced); UTF-8 text cut inside
    a character at the 64th byte is still text."""
    from fileio import file_kind

    def kind(data: bytes) -> str:
        path = tmp_path / "f"
        path.write_bytes(data)
        return file_kind(str(path))

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("word/document.xml", "<x/>")
    assert kind(buf.getvalue()) == "other"
    assert kind(b"\x80\x04\x95" + b"\x01" * 40) == "other"  # a pickle, not torch.save's
    assert kind(bytes(range(128, 256))) == "other"  # not UTF-8, no NUL
    assert kind("\u20ac".encode() * 30) == "text"  # 3-byte characters: the 64th byte cuts one
    for obj, legacy in (({"a": 1}, False), ({"a": 1}, True)):
        buf = io.BytesIO()
        torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
        assert kind(buf.getvalue()) == "checkpoint", legacy


def test_a_zip_of_unknown_kind_is_never_replaced_by_a_checkpoint(tmp_path):
    victim = tmp_path / "v.pt"
    with zipfile.ZipFile(victim, "w") as zf:
        zf.writestr("notes.txt", "not a checkpoint")
    before = md5(victim)
    proc = run("train_batch.py", "--hidden", "8", "--num-episodes", "20", "--save", victim, "--overwrite", *QUICK)
    assert_one_line_error(proc, "unknown kind")
    assert md5(victim) == before


def test_resume_itself_exempts_only_the_checkpoint_and_its_log(tmp_path, ckpt):
    own = tmp_path / "X.pt"
    shutil.copy(ckpt, own)
    shutil.copy(os.path.splitext(ckpt)[0] + ".csv", tmp_path / "X.csv")
    other_json, other_log = tmp_path / "other.json", tmp_path / "other.csv"
    other_json.write_text('{"keep": 1}\n')
    other_log.write_text("a,b\n1,2\n")
    before = {p: md5(p) for p in (own, tmp_path / "X.csv", other_json, other_log)}
    base = ["--hidden", "8", "--num-episodes", "60", "--resume", own, "--save", own, *QUICK]
    assert_one_line_error(run("train_batch.py", *base, "--json", other_json), "--overwrite")
    assert_one_line_error(run("train_batch.py", *base, "--log", other_log), "--overwrite")
    for p, h in before.items():
        assert md5(p) == h, p


@pytest.mark.parametrize("flag", ["--warm-start-equity", "--warm-start-cubeful", "--warm-start-match"])
def test_a_warm_start_source_is_never_its_own_save(tmp_path, ckpt, flag):
    src = tmp_path / "src.pt"
    shutil.copy(ckpt, src)
    before = md5(src)
    proc = run("train_batch.py", flag, src, "--save", src, "--overwrite", "--num-episodes", "20", *QUICK)
    assert_one_line_error(proc, "same file")
    assert md5(src) == before


def test_compare_results_keeps_the_policy(tmp_path, ckpt):
    victim = tmp_path / "X.pt"
    shutil.copy(ckpt, victim)
    before = md5(victim)
    csv = tmp_path / "r.csv"
    run("play_models.py", "--model1", "pubeval", "--model2", "random", "--games", "4", "--csv", csv, check=True)
    for extra in ([], ["--overwrite"]):
        assert_one_line_error(run("tools/compare_results.py", csv, csv, "--json", victim, *extra), "checkpoint")
        assert md5(victim) == before


def test_a_result_writer_replaces_only_what_the_policy_cleared(tmp_path):
    """The shared writer itself refuses an existing file no check_outputs cleared."""
    import cli
    from fileio import Output, OutputError, check_outputs
    old = tmp_path / "old.json"
    old.write_text("{}\n")
    with pytest.raises(OutputError, match="did not check"):
        cli.write_json(str(old), {"a": 1})
    assert old.read_text() == "{}\n"
    cli.write_json(str(tmp_path / "new.json"), {"a": 1})  # a new file needs no clearing
    check_outputs([Output("--json", str(old), "json")], overwrite=True)
    cli.write_json(str(old), {"a": 2})
    assert '"a": 2' in old.read_text()
