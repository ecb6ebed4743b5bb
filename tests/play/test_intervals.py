"""Confidence intervals need at least two independent units: with one there is none, and every
summary says so (null ends and a reason) instead of printing the mean as its own interval.
Values worked out by hand."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from helpers import run
from tdbg.game.modes import game_mode
from tdbg.infra.fileio import json_text
from tdbg.infra.stats import bootstrap_ci, ci_text, pair_means, summary_ci


def test_one_unit_has_no_interval():
    # one duplicate pair (games 0 and 1: a win and a loss) is one unit: mean 1/2, no interval
    m, lo, hi = bootstrap_ci(pair_means([0, 1], [1.0, 0.0]))
    assert (m, lo, hi) == (0.5, None, None)
    # a lone game likewise
    assert bootstrap_ci([3.0]) == (3.0, None, None)
    # wins 1, 0 | 1: a pair (mean 0.5 over 2 games) and a lone game (1.0): two units, an
    # interval.  Two draws give the game mean 0.5 (both the pair, chance 1/4), 1.0 (both the
    # lone game, 1/4) or 2/3 (one each): both ends sit on the extremes, 0.5 and 1.0
    m, lo, hi = bootstrap_ci(pair_means([0, 1, 2], [1.0, 0.0, 1.0]), seed=1)
    assert m == pytest.approx(2 / 3) and (lo, hi) == (0.5, 1.0)
    d = summary_ci([0.25], scale=100)
    assert d == {
        "mean": 25.0,
        "ci_low": None,
        "ci_high": None,
        "ci_reason": "no interval: 1 unit (a CI needs at least 2 independent units)",
    }
    assert ci_text(d) == "no interval: 1 unit"
    assert (
        ci_text({"mean": 0.5, "ci_low": 0.25, "ci_high": 0.75}, "{:.1f}", 100, "%")
        == "95% CI [25.0%, 75.0%]"
    )
    # strict JSON: null, not the mean repeated and not NaN
    assert json.loads(json_text(d))["ci_low"] is None


def _games(points):
    return [
        SimpleNamespace(index=i, points=p, result=1, doubles=(0, 0), takes=(0, 0), drops=(0, 0))
        for i, p in enumerate(points)
    ]


def test_game_summaries_of_one_unit():
    from tdbg.play.units import format_games
    from tdbg.play.evaluation import summarize

    # two games in one duplicate pair: won one, lost one (by 2 points, cube 2)
    s = summarize(_games([1.0, -2.0]), game_mode("cubeful-money"))
    assert s["win_rate"] == {
        "mean": 0.5,
        "ci_low": None,
        "ci_high": None,
        "ci_reason": "no interval: 1 unit (a CI needs at least 2 independent units)",
    }
    assert s["points_per_game"]["mean"] == -0.5 and s["points_per_game"]["ci_low"] is None
    assert s["meq_per_game"]["mean"] == -500.0 and s["meq_per_game"]["ci_high"] is None
    assert s["capped_meq_per_game"]["mean"] == -500.0 and "ci_reason" in s["capped_meq_per_game"]
    # against an opponent with its own dice the two games are two units: an interval
    # (resampled win rates 0, 1/2, 1 with chances 1/4, 1/2, 1/4: the ends are 0 and 1)
    single = summarize(_games([1.0, -2.0]), game_mode("cubeful-money"), paired=False)
    assert (single["win_rate"]["ci_low"], single["win_rate"]["ci_high"]) == (0.0, 1.0)
    text = format_games({**s, "seed": 0}, "a.pt", "b.pt")
    assert "win rate (a.pt): 50.00%  no interval: 1 unit" in text
    assert "mEq/game (a.pt): -500.0  no interval: 1 unit" in text


def test_match_summary_of_one_match():
    from tdbg.play.matches import MatchRecord, format_matches, summarize_matches
    from tdbg.play.results_file import match_lines

    one = [MatchRecord(0, 0, 1, games=[(1, 1, 1, False, 1, 1)])]
    s = summarize_matches(one)
    assert s["match_win_rate"]["mean"] == 1.0 and s["match_win_rate"]["ci_low"] is None
    assert s["match_win_rate"]["ci_reason"].startswith("no interval: 1 unit")
    assert s["points_per_game"]["per_match_mean"] == 1.0 and s["points_per_game"]["ci_high"] is None
    assert "match-win rate: 100.00%  (no interval: 1 unit)" in format_matches(s, "a", "b")
    assert "# match_win_rate: 1 (no interval: 1 unit)" in match_lines(s, one)


def test_luck_summary_of_one_pair():
    from tdbg.play.luck import format_luck, luck_summary

    recs = [
        SimpleNamespace(index=i, points=p, luck=lk)
        for i, (p, lk) in enumerate([(1.0, 0.25), (-1.0, -0.5)])
    ]
    s = luck_summary(recs, game_mode("cubeless-money"), "gnubg-nn")
    # adjusted points 0.75 and -0.5: their pair's mean 0.125, one unit, no variance
    assert (
        s["mean"] == 0.125 and s["ci_low"] is None and s["raw_variance"] is None and s["units"] == 1
    )
    assert "+125.0 mEq/game  no interval: 1 unit" in format_luck(s)


def test_decision_blocks_of_one_decision():
    from tdbg.play.decisions import _ci

    assert _ci(None, None, 1) == {
        "ci": None,
        "ci_reason": "no interval: 1 unit (a CI needs at least 2 independent units)",
    }
    assert _ci(1.234, 5.678, 9) == {"ci": [1.23, 5.68]}


def test_play_models_json_of_one_pair(tmp_path):
    """Two games (one duplicate pair) end to end: the JSON has null ends and the reason, the
    table says there is no interval, the CSV header too."""
    js, csv = tmp_path / "r.json", tmp_path / "r.csv"
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        2,
        "--quiet",
        "--json",
        js,
        "--csv",
        csv,
        check=True,
    )
    r = json.loads(js.read_text())
    assert r["win_rate"]["ci_low"] is None and r["win_rate"]["ci_high"] is None
    assert r["win_rate"]["ci_reason"].startswith("no interval: 1 unit")
    assert "no interval: 1 unit" in proc.stdout and "95% CI" not in proc.stdout
    assert "# win_rate: " in csv.read_text() and "(no interval: 1 unit)" in csv.read_text()
    assert np.isfinite(r["win_rate"]["mean"])
