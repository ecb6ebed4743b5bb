"""How each mode's results are stated and counted (tdbg.play.metrics, units, matfile),
checked against the rules written out by hand: DMP's win rate is (1 + points) / 2, money
modes state equity, match play counts matches."""

import pytest

from tdbg.game.modes import DMP, CubefulMoney, CubelessMoney, MatchPlay, for_mode, game_mode
from tdbg.play.evaluation import EVAL_GAME, EVAL_RESULT, capped_result, headline_result
from tdbg.play.matfile import mat_length
from tdbg.play.metrics import (
    eval_label,
    headline,
    metric_of_points,
    metric_per_point,
    results_file_metric,
    value_text,
    value_units,
    win_probability,
)
from tdbg.play.units import series_unit

MODES = {
    "dmp": DMP(),
    "cubeless": CubelessMoney(),
    "cubeful": CubefulMoney(),
    "match": MatchPlay(length=7),
}


@pytest.mark.parametrize(
    "key, unit, head, file_metric, length",
    [
        ("dmp", "game", "win_rate", "win", 1),
        ("cubeless", "game", "points_per_game", "points", 0),
        ("cubeful", "game", "points_per_game", "points", 0),
        ("match", "match", "match_win_rate", "win", 7),
    ],
)
def test_what_each_mode_counts_and_names(key, unit, head, file_metric, length):
    mode = MODES[key]
    assert (series_unit(mode), headline(mode), results_file_metric(mode), mat_length(mode)) == (
        unit,
        head,
        file_metric,
        length,
    )
    assert series_unit(type(mode)) == unit  # asked of the class before a mode is built


def test_dmp_states_points_as_a_win_rate():
    dmp = MODES["dmp"]
    assert metric_of_points(dmp, 0.2) == pytest.approx(0.6)  # (1 + 0.2) / 2
    assert metric_per_point(dmp) == 0.5
    assert win_probability(dmp, -0.5) == pytest.approx(0.25)
    # value 0.2 +- 0.1 points: P(win) 0.6 +- 0.05
    assert value_text(dmp, 0.2, 0.1) == "P(win) 0.6000 +- 0.0500"


@pytest.mark.parametrize("key", ["cubeless", "cubeful"])
def test_money_states_equity(key):
    mode = MODES[key]
    assert metric_of_points(mode, 0.2) == 0.2 and metric_per_point(mode) == 1.0
    assert win_probability(mode, 0.2) is None
    assert value_text(mode, 0.2, 0.1) == "Eq. +0.2000 +- 0.1000"
    assert value_units(mode) == "equity normalised to the cube"


def test_match_play_states_match_winning_chances():
    assert value_units(MODES["match"]) == "MWC"
    assert value_text(MODES["match"], 0.25, 0.01) == "P(win) 0.2500 +- 0.0100"


def test_quick_evaluations_play_the_game_with_the_cube_centred_unless_the_opponent_doubles():
    for key, centred in (
        ("dmp", DMP()),
        ("cubeless", CubelessMoney()),
        ("cubeful", CubelessMoney()),
        ("match", DMP()),
    ):
        mode = MODES[key]
        assert for_mode(EVAL_GAME, mode)(mode, False) == centred
    assert for_mode(EVAL_GAME, MODES["cubeful"])(MODES["cubeful"], True) is MODES["cubeful"]
    assert for_mode(EVAL_GAME, MODES["dmp"])(MODES["dmp"], True) is MODES["dmp"]
    assert for_mode(EVAL_RESULT, MODES["dmp"]) is headline_result
    assert for_mode(EVAL_RESULT, game_mode("cubeful-money")) is capped_result


def test_quick_evaluation_results_and_labels():
    dmp_summary = {"win_rate": {"mean": 0.6, "ci_low": 0.55, "ci_high": 0.65}}
    assert headline_result(dmp_summary, MODES["dmp"]) == (0.6, 0.55, 0.65)
    capped = {"capped_meq_per_game": {"mean": 250.0, "ci_low": None, "ci_high": 500.0}}
    assert capped_result(capped, MODES["cubeful"]) == (0.25, None, 0.5)  # mEq -> points
    assert eval_label(MODES["dmp"], "pubeval") == ("win rate vs pubeval", 0.5)
    assert eval_label(MODES["cubeless"], "pubeval", True) == (
        "points/game vs pubeval (cube centred)",
        0.0,
    )
    assert eval_label(MODES["cubeful"], "pubeval") == ("points/game vs pubeval (cube centred)", 0.0)
    assert eval_label(MODES["cubeful"], "gnubg-nn-cubeful", True) == (
        "points/game vs gnubg-nn-cubeful (cubeful money, capped at +-128)",
        0.0,
    )
