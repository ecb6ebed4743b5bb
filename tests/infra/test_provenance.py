"""tdbg.infra.provenance: where a result came from (commit, time, command) and a file's md5."""

import datetime
import hashlib
import subprocess
import sys

from tdbg.infra.provenance import file_md5, git_commit, provenance


def test_file_md5_reads_in_blocks_and_names_no_file_with_none(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    assert (
        file_md5(str(tmp_path / "abc")) == "900150983cd24fb0d6963f7d28e17f72"
    )  # RFC 1321's test suite
    data = bytes(range(256)) * 5000  # over one 1 MiB block
    (tmp_path / "big").write_bytes(data)
    assert file_md5(str(tmp_path / "big")) == hashlib.md5(data).hexdigest()
    assert file_md5(str(tmp_path / "none")) is None
    assert file_md5("pubeval") is None  # a named opponent, not a file


def test_the_commit_of_a_checkout_clean_or_dirty(tmp_path):
    assert git_commit(str(tmp_path)) == "unknown"  # no checkout here
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "f").write_text("1")
    subprocess.run([*git, "add", "f"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    short = subprocess.run(
        [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    assert git_commit(str(tmp_path)) == short
    (tmp_path / "f").write_text("2")  # a tracked file changed
    assert git_commit(str(tmp_path)) == short + "-dirty"


def test_provenance_names_the_command_and_a_utc_time():
    p = provenance()
    assert p["command"] == " ".join(sys.argv)
    assert datetime.datetime.fromisoformat(p["date"]).utcoffset() == datetime.timedelta(0)
