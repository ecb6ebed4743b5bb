"""tdbg.infra.run_outputs: a run's lock on each output (a second run on it is refused by name,
and the kernel frees it when the holder ends), the old files an --overwrite run replaces, and
the temporary files a killed save leaves."""

import os
import subprocess
import sys
import textwrap

import pytest

from helpers import HANG_GUARD, ROOT
from tdbg.infra import run_outputs


@pytest.fixture(autouse=True)
def ended():
    yield
    run_outputs.end()


HOLDER = textwrap.dedent(
    """
    import sys
    from tdbg.infra import run_outputs
    run_outputs.hold(sys.argv[1], "--save x")
    print("held", flush=True)
    sys.stdin.readline()
    """
)


def test_a_second_run_on_an_output_is_refused_naming_the_holder(tmp_path):
    path = str(tmp_path / "m.pt")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, path],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(run_outputs.LockedError) as err:
            run_outputs.hold(path, "--save m.pt")
        assert str(err.value).startswith(
            f"--save m.pt is being written by another run (process {holder.pid})"
        )
    finally:
        holder.communicate("\n", timeout=HANG_GUARD)
    # the holder is gone, and the kernel dropped its lock: this run takes it over
    run_outputs.hold(path, "--save m.pt")
    where = run_outputs.lock_path(os.path.realpath(path))
    assert open(where).read() == f"{os.getpid()}\n{os.path.realpath(path)}\n"
    run_outputs.end()
    assert not os.path.exists(where)


def test_two_paths_to_one_file_share_its_lock(tmp_path):
    (tmp_path / "m.pt").write_bytes(b"")
    (tmp_path / "link.pt").symlink_to(tmp_path / "m.pt")
    same = {run_outputs.lock_path(os.path.realpath(tmp_path / p)) for p in ("m.pt", "link.pt")}
    other = run_outputs.lock_path(os.path.realpath(tmp_path / "n.pt"))
    assert len(same) == 1 and other not in same


def test_a_temporary_name_fits_in_a_file_name():
    assert run_outputs.temp_prefix("/a/b/m.pt") == ".tmp-m.pt-"
    long = "x" * 300 + ".pt"
    prefix = run_outputs.temp_prefix("/a/" + long)
    # cut so that prefix + mkstemp's 8 characters + ".pt" is 255 bytes, the longest name
    assert len(prefix) + 8 + 3 == 255 and prefix == ".tmp-" + "x" * 238 + "-"


def test_stale_temporaries_of_the_outputs_alone_are_removed(tmp_path):
    names = [
        ".tmp-m.pt-abcd1234.pt",  # m.pt's, left by a killed save
        ".tmp-m.pt-abcd12345.pt",  # 9 characters where mkstemp puts 8: not m.pt's
        ".tmp-n.pt-abcd1234.pt",  # another file's
        ".tmp-m.pt-abcd1234.csv",  # another extension
        "m.pt",
    ]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    run_outputs.remove_stale_temps([str(tmp_path / "m.pt")])
    assert sorted(os.listdir(tmp_path)) == sorted(names[1:])


def test_old_files_go_at_the_first_write_only_if_unchanged_since_the_check(tmp_path):
    kept, gone = tmp_path / "changed.mat", tmp_path / "old.mat"
    for path in (kept, gone):
        path.write_text("old\n")
    run_outputs.replace_at_start([str(kept), str(gone), str(tmp_path / "missing.mat")])
    os.utime(kept, ns=(0, 0))  # changed by someone else after the check
    assert gone.exists()  # nothing goes before the run writes
    run_outputs.claim()
    assert kept.exists() and not gone.exists()
    gone.write_text("new\n")
    run_outputs.claim()  # once: the run's later writes remove nothing
    assert gone.exists()


def test_a_run_refused_at_a_check_loses_nothing(tmp_path):
    old = tmp_path / "old.mat"
    old.write_text("old\n")
    run_outputs.replace_at_start([str(old)])
    with pytest.raises(RuntimeError):
        with run_outputs.run():
            raise RuntimeError("refused before any write")
    assert old.exists()
    with run_outputs.run():  # a run that wrote nothing and ended well replaces the old files
        run_outputs.replace_at_start([str(old)])
    assert not old.exists()
