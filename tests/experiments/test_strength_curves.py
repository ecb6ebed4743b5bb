"""The committed strength curves show what their data say: each PNG's own record of what it draws
(the tdbg:curve text chunk plot_eval_curve.py writes) is checked against the training logs and
the 10,000-game eval JSON files, in the unit its axis names (win rate in %, mEq/game, capped
where the selection read capped figures), and against a fresh drawing by the script that makes it."""
import csv
import importlib.util
import itertools
import json
import os

import pytest
from PIL import Image

from helpers import ROOT

_spec = importlib.util.spec_from_file_location("strength_curves",
                                               os.path.join(ROOT, "experiments/retraining/strength_curves.py"))
curves = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(curves)


def shown(png: str) -> dict:
    with Image.open(png) as im:
        return json.loads(im.text["tdbg:curve"])


def expected_final(source: str) -> tuple[float, str]:
    """The labelled value of a 10,000-game point, from the JSON its run wrote (not from the CSV the
    plot read): DMP win rate in %, money mEq/game, cubeful capped at +-128 a game."""
    with open(os.path.join(ROOT, os.path.splitext(source)[0] + ".json")) as fh:
        j = json.load(fh)
    if j["game_mode"] == "dmp":
        v = 100 * j["win_rate"]["mean"]
        return v, f"{v:.2f}%"
    v = j["capped_meq_per_game" if j["game_mode"] == "cubeful-money" else "meq_per_game"]["mean"]
    return v, f"{v:.1f}"


@pytest.mark.parametrize("png", sorted(curves.CURVES))
def test_committed_curve_shows_its_data_in_the_labelled_unit(png):
    s = shown(os.path.join(ROOT, png))
    dmp = "/strength/" in png
    if dmp:
        assert s["unit"] == "win-rate" and "win rate" in s["ylabel"] and "%" in s["ylabel"]
    else:
        assert s["unit"] == "meq" and "mEq/game" in s["ylabel"]
    # the 10,000-game points: one per eval file the recipe names, value and label from its JSON
    sources = [a.split(":")[-1] for a in curves.CURVES[png] if a.endswith("_seed1001.csv")]
    assert [f["source"] for f in s["finals"]] == sources
    for f in s["finals"]:
        value, label = expected_final(f["source"])
        assert f["y"] == pytest.approx(value, abs=1e-6) and f["label"] == label, f
        assert f["metric"] == ("capped" if "cubeful" in f["source"] else "win" if dmp else "points")
    # the 1,000-game checks: every evaluated row of every log, scaled to the axis's unit
    logs = list(itertools.takewhile(lambda a: not a.startswith("--"), curves.CURVES[png]))
    assert sorted(s["series"]) == sorted(os.path.splitext(os.path.basename(x))[0] for x in logs)   # (stored by name)
    for log in logs:
        with open(os.path.join(ROOT, log), newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if r["eval_result"]]
        got = s["series"][os.path.splitext(os.path.basename(log))[0]]
        assert got["y"] == pytest.approx([float(r["eval_result"]) * (100 if dmp else 1000) for r in rows])
    # no value label overlaps another on either panel
    for boxes in s["label_boxes"].values():
        assert len(boxes) == len(s["finals"])
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (png, a, b)


def test_m2_is_drawn_capped_as_the_selection_read_it():
    # m2's uncapped mean (-269.4) and capped one (-231.0) differ: the curve must show the capped one
    [m2] = [f for f in shown(os.path.join(ROOT, "experiments/retraining/strength_money/curve.png"))["finals"]
            if "m2_cubeful" in f["source"]]
    with open(os.path.join(ROOT, os.path.splitext(m2["source"])[0] + ".json")) as fh:
        j = json.load(fh)
    assert j["meq_per_game"]["mean"] != j["capped_meq_per_game"]["mean"]
    assert m2["y"] == pytest.approx(j["capped_meq_per_game"]["mean"])


def test_the_committed_pngs_are_what_the_script_draws_now(tmp_path):
    for png in curves.CURVES:
        fresh = curves.draw(png, str(tmp_path))
        committed = shown(os.path.join(ROOT, png))
        assert json.loads(json.dumps(fresh, sort_keys=True)) == committed, png
