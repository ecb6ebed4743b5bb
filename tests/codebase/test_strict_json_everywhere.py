"""Every JSON the project prints or writes goes through tdbg.infra.fileio.json_text /
write_json, which turn NaN and infinities into null with a reason (strict JSON that every
reader accepts).  A json.dump or json.dumps anywhere else could write NaN again; the few
that must stay are listed here with why.  tests/ is not scanned: tests write inputs, some
deliberately not strict."""

import os
import re
import subprocess

from helpers import ROOT

ALLOWED = {
    # the helper itself
    "tdbg/infra/fileio.py": "json_text is the one place that calls json.dumps (allow_nan=False)",
    # code that runs inside gnubg's embedded Python, which cannot import tdbg; what it prints is
    # gnubg's own figures (finite), read back by analyse_files
    "tdbg/gnubg/gnubg_analysis.py": "GNUBG_PY and the rating script run inside the gnubg binary",
    # times another checkout given on its command line (PYTHONPATH points there), which may
    # predate json_text
    "experiments/identity/ab_speed.py": "imports from another tree that may lack fileio.json_text",
}
CALL = re.compile(r"\bjson\.dumps?\(|from json import[^\n]*\bdumps?\b")


def test_no_json_dump_outside_fileio():
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "play_models.py" in files and "tdbg/infra/fileio.py" in files  # the listing works
    found = {}
    for path in files:
        if path.startswith(("tests/", "shared/")):
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            hits = CALL.findall(fh.read())
        if hits:
            found[path] = len(hits)
    assert set(found) <= set(ALLOWED), {p: n for p, n in found.items() if p not in ALLOWED}
    # the allowances are still needed (a file that no longer calls json.dump(s) leaves the list)
    assert set(ALLOWED) <= set(found), set(ALLOWED) - set(found)


def test_gnubg_analysis_calls_json_dumps_only_inside_gnubg():
    """In gnubg_analysis.py every json.dumps is inside the code handed to gnubg."""
    from tdbg.gnubg import gnubg_analysis

    src = open(gnubg_analysis.__file__, encoding="utf-8").read()
    inside = gnubg_analysis.GNUBG_PY.count("json.dumps(") + src.count(
        "json.dumps([gnubg.errorrating"
    )
    assert len(CALL.findall(src)) == inside == 3
