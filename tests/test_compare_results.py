"""tools/compare_results.py: paired and unpaired differences, worked out by hand."""
import json

import numpy as np

from helpers import assert_one_line_error, run
from results_file import compare, read_results


def write(path, points, seed=1, mode="dmp", model2="gnubg-nn"):
    head = [f"# seed: {seed}", f"# game_mode: {mode}", f"# model2: {model2}", f"# games: {len(points)}",
            "game,first,points,result,cube,plies,doubles_1,doubles_2,takes_1,takes_2,drops_1,drops_2"]
    rows = [f"{i},{i % 2},{p},1,1,50,0,0,0,0,0,0" for i, p in enumerate(points)]
    path.write_text("\n".join(head + rows) + "\n")
    return str(path)


def test_paired_difference_by_hand(tmp_path):
    a = write(tmp_path / "a.csv", [1, -1, 1, 1])
    b = write(tmp_path / "b.csv", [-1, -1, 1, -1])
    r = compare(read_results(a), read_results(b))
    # wins A 1,0,1,1 and B 0,0,1,0: per game 1,0,0,1, per pair 0.5 and 0.5 -> exactly 0.5
    assert r["paired"] and r["metric"] == "win"
    assert (r["difference"], r["ci_low"], r["ci_high"]) == (0.5, 0.5, 0.5)


def test_unpaired_when_the_dice_differ(tmp_path):
    a = write(tmp_path / "a.csv", [1, -1, 1, 1], seed=1)
    b = write(tmp_path / "b.csv", [-1, -1, 1, -1], seed=2)
    r = compare(read_results(a), read_results(b))
    assert not r["paired"] and r["difference"] == 0.75 - 0.25
    assert r["ci_low"] < 0.5 < r["ci_high"]  # resampling each file alone: wider than the paired CI
    ext = write(tmp_path / "e.csv", [2, -4, 1, 1], seed=1, mode="cubeful-money", model2="gnubg-ext")
    ext2 = write(tmp_path / "f.csv", [1, -1, 1, -2], seed=1, mode="cubeful-money", model2="gnubg-ext")
    r = compare(read_results(ext), read_results(ext2))
    assert not r["paired"] and r["metric"] == "points" and np.isclose(r["difference"], 0.0 - (-0.25))


def test_cli_prints_and_refuses(tmp_path):
    a = write(tmp_path / "a.csv", [2, -1, 3, 1], mode="cubeless-money")
    b = write(tmp_path / "b.csv", [1, -1, 1, -1], mode="cubeless-money")
    out = tmp_path / "r.json"
    proc = run("tools/compare_results.py", a, b, "--json", out, check=True)
    # points 2,-1,3,1 vs 1,-1,1,-1: per game 1,0,2,2 -> pairs 0.5, 2 -> +1250 mEq/game
    assert "+1250.00" in proc.stdout and "paired" in proc.stdout
    assert json.loads(out.read_text())["difference"] == 1.25
    dmp = write(tmp_path / "d.csv", [1, -1, 1, 1])
    assert_one_line_error(run("tools/compare_results.py", a, dmp), "different game modes")
    junk = tmp_path / "junk.csv"
    junk.write_text("hello\n1,2\n")
    assert_one_line_error(run("tools/compare_results.py", a, junk), "not a per-game result file")
    assert_one_line_error(run("tools/compare_results.py", a, tmp_path / "missing.csv"), "cannot read")
    assert_one_line_error(run("tools/compare_results.py", a, dmp, "--metric", "elo"), "invalid choice")
