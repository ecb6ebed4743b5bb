"""Every published plot, rendered from its data (experiments/retraining/published_plots.py's recipes, on the
Agg canvas): one unit per game mode on its result axis (win rate in % for DMP, mEq/game for money,
match-winning chances in % for match play), every text inside the figure, each curve beside a
released model drawing the stages best_models/README.md's table names for it, the 10,000-game
points and the checks in the unit the axis names, and the committed PNG what the recipe draws now."""

import csv
import importlib.util
import itertools
import json
import os
import re

import pytest
from PIL import Image

from helpers import ROOT
from tdbg.app import plots as plot_units
from tdbg.app.training_plot import run_info

_spec = importlib.util.spec_from_file_location(
    "published_plots", os.path.join(ROOT, "experiments/retraining/published_plots.py")
)
plots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plots)

DOCS = [
    "README.md",
    "best_models/README.md",
    *[
        os.path.relpath(os.path.join(d, f), ROOT)
        for top in ("docs", "experiments")
        for d, _, fs in os.walk(os.path.join(ROOT, top))
        for f in fs
        if f.endswith(".md") and (top == "docs" or f == "README.md")
    ],
]

# what each game mode's result axis must say (hand-written here, not read from tdbg.app.plots)
AXIS_WORDS = {
    "dmp": ("win rate", "%"),
    "cubeless-money": ("mEq/game",),
    "cubeful-money": ("mEq/game",),
    "match": ("match-winning chances", "%"),
}
SCALE = {"dmp": 100, "cubeless-money": 1000, "cubeful-money": 1000, "match": 100}


def header_mode(path: str) -> str:
    """The game mode a result file's header names."""
    with open(os.path.join(ROOT, path)) as fh:
        for line in fh:
            if line.startswith("# game_mode:"):
                return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path}: no game mode in its header")


def curve_mode(png: str) -> str:
    """A curve's game mode from its data: its result files' headers, else the checkpoint beside its last log."""
    argv = plots.CURVES[png]
    sources = [
        a.split(":")[-1] for a in argv if a.endswith(".csv") and ("results/" in a or "/eval/" in a)
    ]
    modes = {header_mode(s) for s in sources}
    if not modes:
        logs = list(itertools.takewhile(lambda a: not a.startswith("--"), argv))
        modes = {run_info(os.path.join(ROOT, logs[-1]))["game_mode"]}
    money = {"cubeless-money", "cubeful-money"}
    return "cubeless-money" if modes <= money else modes.pop() if len(modes) == 1 else str(modes)


def release_stages(model: str) -> set[str]:
    """The stage names (s1, s2b, n4, b1 ...) in the architecture column of ``model``'s row of the table."""
    with open(os.path.join(ROOT, "best_models/README.md")) as fh:
        row = next(line for line in fh if line.startswith(f"| `{model}` |"))
    return set(re.findall(r"\b([smnbe]\d+b?)\b", row.split(" | ")[2]))


def shown_in_png(png: str) -> dict:
    with Image.open(os.path.join(ROOT, png)) as im:
        return json.loads(im.text[plots.PNG_KEYS[png]])


def logged(log: str, column: str = "eval_result") -> list[float]:
    with open(os.path.join(ROOT, log), newline="") as fh:
        return [float(r[column]) for r in csv.DictReader(fh) if r.get(column)]


def test_every_png_the_docs_name_is_a_published_plot_with_a_recipe():
    named = set()
    for doc in DOCS:
        with open(os.path.join(ROOT, doc)) as fh:
            named |= set(re.findall(r"([\w./{},*-]+\.png)", fh.read()))
    # a doc names a PNG by its path or by its tail under experiments/retraining/ (curve*.png: a glob)
    for name in sorted(named):
        pattern = re.escape(name.strip("`")).replace(r"\*", "[^/]*")
        matches = [p for p in plots.PLOTS if re.search(r"(^|/)" + pattern + "$", p)]
        assert matches or "models/" in name or "{" in name, f"{name} has no recipe in PLOTS"
    for png in plots.PLOTS:
        assert os.path.isfile(os.path.join(ROOT, png)), png


@pytest.fixture(scope="module")
def rendered():
    cache = {}

    def get(png):
        if png not in cache:
            fig, shown = plots.figure(png)
            cache[png] = (plot_units.texts_outside(fig), shown, fig)
        return cache[png]

    return get


@pytest.mark.parametrize("png", plots.PLOTS)
def test_plot_has_every_label_inside_the_figure(png, rendered):
    outside, _, fig = rendered(png)
    assert outside == [], png
    for ax in fig.axes:
        if ax.axison:
            assert ax.get_xlabel().strip() and ax.get_ylabel().strip(), (
                png,
                ax.get_xlabel(),
                ax.get_ylabel(),
            )


@pytest.mark.parametrize("png", sorted(plots.CURVES))
def test_curve_is_in_its_modes_unit(png, rendered):
    _, s, _ = rendered(png)
    mode = curve_mode(png)
    for word in AXIS_WORDS[mode]:
        assert word in s["ylabel"], (png, mode, s["ylabel"])
    argv = plots.CURVES[png]
    logs = list(itertools.takewhile(lambda a: not a.startswith("--"), argv))
    assert sorted(s["series"]) == sorted(os.path.splitext(os.path.basename(x))[0] for x in logs)
    for log in logs:  # the 1,000-game checks: every evaluated row of every log, in the axis's unit
        got = s["series"][os.path.splitext(os.path.basename(log))[0]]["y"]
        assert got == pytest.approx([v * SCALE[mode] for v in logged(log)]), (png, log)


@pytest.mark.parametrize("png", sorted(plots.CURVES))
def test_curve_finals_are_their_json_values(png, rendered):
    """The labelled value of each 10,000-game point, from the JSON its run wrote (not from the CSV
    the plot read): DMP win rate in %, money mEq/game, cubeful capped at +-128 a game."""
    _, s, _ = rendered(png)
    sources = [
        a.split(":")[-1]
        for a in plots.CURVES[png]
        if a.endswith(".csv") and ("results/" in a or "/eval/" in a)
    ]
    assert [f["source"] for f in s["finals"]] == sources
    capped = "--capped" in plots.CURVES[png]
    for f in s["finals"]:
        with open(os.path.join(ROOT, os.path.splitext(f["source"])[0] + ".json")) as fh:
            j = json.load(fh)
        if j["game_mode"] == "dmp":
            value, label = 100 * j["win_rate"]["mean"], f"{100 * j['win_rate']['mean']:.2f}%"
        else:
            key = (
                "capped_meq_per_game"
                if capped and j["game_mode"] == "cubeful-money"
                else "meq_per_game"
            )
            value, label = j[key]["mean"], f"{j[key]['mean']:.1f}"
        assert f["y"] == pytest.approx(value, abs=1e-6) and f["label"] == label, f
    for boxes in s["label_boxes"].values():  # no value label overlaps another on either panel
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (png, a, b)


@pytest.mark.parametrize("png", sorted(plots.TRAINING))
def test_training_plot_is_in_its_modes_unit(png, rendered):
    _, s, _ = rendered(png)
    log = plots.TRAINING[png]
    mode = run_info(os.path.join(ROOT, log))["game_mode"]
    ev = s["evaluation"]
    for word in AXIS_WORDS[mode]:
        assert word in ev["ylabel"], (png, mode, ev["ylabel"])
    assert ev["y"] == pytest.approx([v * SCALE[mode] for v in logged(log)]), png


def test_cube_curve_gap_is_in_match_winning_chances(rendered):
    for png, data in plots.CUBE_CURVES.items():
        _, s, _ = rendered(png)
        assert "match-winning chances" in s["ylabels"][0] and "%" in s["ylabels"][2]
        gaps = {run: [] for run in s["series"]}
        with open(os.path.join(ROOT, data), newline="") as fh:
            for r in sorted(csv.DictReader(fh), key=lambda r: int(r["episodes"])):
                gaps[r["run"]].append(100 * float(r["ownership_gap"]))
        assert sorted(s["series"]) == sorted(gaps)
        for run, v in s["series"].items():
            assert v["ownership_gap"] == pytest.approx(gaps[run]), run


@pytest.mark.parametrize("png", sorted(plots.RELEASES))
def test_curve_beside_a_release_draws_that_releases_chain(png, rendered):
    """Each series is a stage the release rows name (by its stage name, s1 ... n4, or as the
    model itself), and every release's stages are all drawn."""
    _, s, _ = rendered(png)
    series = {name: name.split("_")[0] for name in s["series"]}
    models = plots.RELEASES[png]
    named = {m: release_stages(m) for m in models}
    for model, stages in named.items():
        stem = os.path.splitext(model)[0]
        assert stages <= set(series.values()) or stem in series, (
            png,
            model,
            stages,
            sorted(series),
        )
    allowed = set().union(*named.values()) | {os.path.splitext(m)[0] for m in models}
    assert [n for n, token in series.items() if token not in allowed and n not in allowed] == [], (
        png
    )


@pytest.mark.parametrize("png", plots.PLOTS)
def test_committed_png_is_what_its_recipe_draws_now(png, rendered):
    _, fresh, _ = rendered(png)
    assert json.loads(json.dumps(fresh, sort_keys=True)) == shown_in_png(png), png
