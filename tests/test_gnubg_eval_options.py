"""gnubg_eval.py: --export-only writes the files and scripts and runs nothing; the exported
script, run by hand, gives gnubg's analysis; chunks over several gnubg processes give the
same per-game statistics as one process; cube errors count in the overall rate."""
import json
import os
import subprocess

import pytest

from gnubg_binary import available, find_gnubg
from helpers import HANG_GUARD, ROOT, assert_one_line_error, run

CUBEFUL = os.path.join(ROOT, "best_models", "cubeful_256x2.pt")
needs_gnubg = pytest.mark.skipif(not available(), reason="no gnubg binary")


@needs_gnubg
def test_export_only_then_the_script_and_chunked_workers(tmp_path):
    out = tmp_path / "exp"
    proc = run("gnubg_eval.py", "--model", CUBEFUL, "--self-play", "--games", 6, "--quiet", "--export-only",
               "--out", out, "--chunk-size", 2, "--gnubg-workers", 2, check=True)
    names = sorted(os.listdir(out))
    assert "analyse.sh" in names and sum(n.endswith(".mat") for n in names) >= 1, names
    assert sum(n.startswith("analyse") and n.endswith(".py") for n in names) >= 1
    assert "analyse.sh" in proc.stdout
    # the exported script is the whole analysis: run it by hand
    text = subprocess.run(["sh", str(out / "analyse.sh")], capture_output=True, text=True, timeout=HANG_GUARD).stdout
    by_hand = sorted(json.loads(ln[7:])["file"] for ln in text.splitlines() if ln.startswith("@@GAME "))
    assert len(by_hand) == 6
    # one gnubg for all files, and files one at a time over two gnubg: the same games, the same errors
    from gnubg_eval import analyse_files
    files = sorted(str(out / n) for n in names if n.endswith(".mat"))
    key = lambda g: (g["file"], g["game"])  # noqa: E731
    one = sorted(analyse_files(files, 0, True, find_gnubg()), key=key)
    many = sorted(analyse_files(files, 0, True, find_gnubg(), workers=2, chunk_size=1), key=key)
    assert one == many and len(one) == 6
    # cubeful analysis: some cube decision was analysed, and cube errors are part of the overall rate
    from gnubg_eval import error_rates
    assert sum(g["stats"][s]["close_cube"] for g in one for s in "XO") > 0
    no_cube = [{**g, "stats": {s: {**v, "cube": 0.0} for s, v in g["stats"].items()}} for g in one]
    cube_err = sum(g["stats"][s]["cube"] for g in one for s in "XO")
    r, r0 = error_rates(one, ("X", "O")), error_rates(no_cube, ("X", "O"))
    assert (r["overall_memg_per_decision"]["mean"] > r0["overall_memg_per_decision"]["mean"]) == (cube_err > 0)


def test_bad_combinations():
    assert_one_line_error(run("gnubg_eval.py", "--model", CUBEFUL, "--export-only"), "--out")
    assert_one_line_error(run("gnubg_eval.py", "--model", CUBEFUL, "--self-play", "--opponent", "pubeval"),
                          "different opponents")
