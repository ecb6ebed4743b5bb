"""Run Python inside the real GNU Backgammon binary (``gnubg -t -q -r -p script``) and read
back what the script printed after a marker: gnubg's own reading of IDs, its hint lists
and cube decisions, for tests that hold our code to gnubg's.

The script sees the ``gnubg`` module (positionid(), matchid(), hint(n), command(...));
each ``emit(obj)`` prints one JSON line that ``run_gnubg_python`` returns, in order.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

from tdbg.gnubg.gnubg_binary import find_gnubg

MARK = "@@TEST@@ "
PRELUDE = f"""
import gnubg, json, sys
def emit(obj):
    sys.stdout.write({MARK!r} + json.dumps(obj) + "\\n")
    sys.stdout.flush()
gnubg.command("set sound enable off")
gnubg.command("set beavers 0")
gnubg.command("set jacoby on")
gnubg.command("new session")
"""
HANG_GUARD = 3600  # only against a hung child; never a timing limit


def run_gnubg_python(body: str) -> list:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(PRELUDE + body)
        path = fh.name
    try:
        proc = subprocess.run(
            [find_gnubg(), "-t", "-q", "-r", "-p", path],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            stdin=subprocess.DEVNULL,
        )
    finally:
        os.unlink(path)
    out = [
        json.loads(line[len(MARK) :]) for line in proc.stdout.splitlines() if line.startswith(MARK)
    ]
    if not out:
        raise AssertionError(
            f"gnubg printed nothing we asked for:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    return out


def cube_actions(gnubg_ids: list[str], plies: int = 2, binary: str | None = None) -> list[str]:
    """gnubg's 'Proper cube action' from its ``hint`` command for each GNUbg ID (money,
    Jacoby, no beavers), by ``binary`` (default: find_gnubg's).  Plain commands on stdin:
    gnubg's C output and Python's print would not keep their order through a pipe."""
    cmds = [
        "set sound enable off",
        "set beavers 0",
        "set jacoby on",
        "new session",
        f"set evaluation cubedecision evaluation plies {plies}",
    ]
    for gid in gnubg_ids:
        cmds += [f"set gnubgid {gid}", "hint"]
    proc = subprocess.run(
        [find_gnubg(binary), "-t", "-q", "-r"],
        input="\n".join(cmds) + "\n",
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    actions = [
        ln.split(":", 1)[1].strip()
        for ln in proc.stdout.splitlines()
        if ln.startswith("Proper cube action:")
    ]
    if len(actions) != len(gnubg_ids):
        raise AssertionError(
            f"expected {len(gnubg_ids)} cube actions from gnubg, got {actions}:\n{proc.stdout[-3000:]}"
        )
    return actions
