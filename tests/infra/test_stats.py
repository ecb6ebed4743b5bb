"""tdbg.infra.stats: duplicate-pair means, the bootstrap interval and its text, by hand."""

import pytest

from tdbg.infra.stats import (
    bootstrap_ci,
    ci_text,
    interval,
    no_interval_reason,
    pair_means,
    summary_ci,
)


def test_pair_means_average_each_duplicate_pair_and_a_lone_game_weighs_one():
    # games 0,1 -> (1 + -1) / 2 = 0; games 2,3 -> (2 + 1) / 2 = 1.5; game 4 alone -> 3
    m = pair_means([0, 1, 2, 3, 4], [1, -1, 2, 1, 3])
    assert m.tolist() == [0.0, 1.5, 3.0] and m.counts.tolist() == [2, 2, 1]
    assert m.mean() == pytest.approx((1 - 1 + 2 + 1 + 3) / 5)  # the mean over games, not over units


def test_the_bootstrap_mean_and_interval():
    mean, low, high = bootstrap_ci([1.0, 1.0, 1.0, 1.0])
    assert (mean, low, high) == (1.0, 1.0, 1.0)  # every resample of equal values gives the value
    mean, low, high = bootstrap_ci([0.0, 1.0] * 50, n_boot=500)
    assert (
        mean == 0.5 and 0.3 < low < 0.5 < high < 0.7
    )  # mean 0.5, standard error 0.05: about +-0.1
    assert bootstrap_ci([2.0], n_boot=10) == (2.0, None, None)  # one unit: no interval
    with pytest.raises(ValueError):
        bootstrap_ci([])
    # units of unequal size: the mean is over games, (0 + 0 + 3) / 3 = 1
    assert bootstrap_ci(pair_means([0, 1, 2], [0, 0, 3]), n_boot=50)[0] == pytest.approx(1.0)


def test_a_summary_without_an_interval_says_why():
    d = interval(0.25, None, None, units=1, scale=1000)
    assert d == {"mean": 250.0, "ci_low": None, "ci_high": None, "ci_reason": no_interval_reason(1)}
    assert no_interval_reason(1) == "no interval: 1 unit (a CI needs at least 2 independent units)"
    assert ci_text(d) == "no interval: 1 unit"
    assert summary_ci([3.0], scale=2)["mean"] == 6.0


def test_ci_text_scales_and_formats_the_ends():
    d = {"mean": 0.5, "ci_low": 0.4, "ci_high": 0.6}
    assert ci_text(d) == "95% CI [0.40, 0.60]"
    assert ci_text(d, fmt="{:.1f}", scale=100, unit="%") == "95% CI [40.0%, 60.0%]"
    assert interval(0.5, 0.4, 0.6, units=10, scale=2) == {
        "mean": 1.0,
        "ci_low": 0.8,
        "ci_high": 1.2,
    }
