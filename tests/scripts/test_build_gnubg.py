"""`make gnubg` (tools/build_gnubg.sh): a second run does nothing; a failing step is one
`make gnubg: error:` line and exit 2."""

import os
import shutil
import subprocess

import pytest

from helpers import HANG_GUARD, ROOT
from tdbg.gnubg.gnubg_binary import LOCAL_BUILD, SEED_VERSION

SCRIPT = os.path.join(ROOT, "tools", "build_gnubg.sh")


def _build(env_extra, cwd=ROOT):
    return subprocess.run(
        [SCRIPT],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=cwd,
        env=dict(os.environ, **env_extra),
    )


def test_second_make_gnubg_does_nothing():
    if not os.path.exists(LOCAL_BUILD):
        if os.environ.get("CI"):
            pytest.fail("make gnubg ran before the tests under CI, but built nothing")
        pytest.skip(f"gnubg {SEED_VERSION} not built here (make gnubg)")
    prefix = os.path.dirname(os.path.dirname(LOCAL_BUILD))
    before = {p: os.stat(os.path.join(prefix, p)).st_mtime_ns for p in (".installed", "bin/gnubg")}
    proc = subprocess.run(
        ["make", "-s", "gnubg"], capture_output=True, text=True, timeout=HANG_GUARD, cwd=ROOT
    )
    assert proc.returncode == 0 and "already built" in proc.stdout and not proc.stderr
    assert before == {p: os.stat(os.path.join(prefix, p)).st_mtime_ns for p in before}


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs apt-get (Debian)")
def test_unreachable_source_index_is_one_error_line(tmp_path):
    # port 9 (discard) on the loopback: refused at once, no network needed
    proc = _build(
        {
            "GNUBG_PREFIX_ROOT": str(tmp_path / "g"),
            "GNUBG_DEBIAN_MIRROR": "http://127.0.0.1:9/debian",
        }
    )
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(
        "make gnubg: error: cannot fetch Debian 13's signed source index"
    )
    assert not (tmp_path / "g" / SEED_VERSION).exists()
