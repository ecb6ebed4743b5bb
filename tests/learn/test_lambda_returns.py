"""TD(lambda) targets in batch self-play (lambda_returns.py): the returns by hand, and
self-play's lambda = 1 returns equal to each game's own outcome."""

from dataclasses import replace
import numpy as np
import pytest
import torch

from helpers import assert_one_line_error, run
from tdbg.game.modes import game_mode
from tdbg.learn.lambda_returns import lambda_returns
from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup
from tdbg.learn.stage_settings import Acting
from tdbg.net.model import TDNetwork

mwc_flip = lambda v: 1.0 - v  # noqa: E731


def test_returns_by_hand():
    # two interleaved games: A has samples 0, 2, 3 (2 and 3 the same player: a cube node
    # and the move after it), B has 1 and 4
    t = np.array([0.6, 0.3, 0.7, 1.0, 0.0])
    game, side = np.array([0, 1, 0, 0, 1]), np.array([0, 1, 1, 1, 0])
    none, ones = np.zeros(5, bool), np.ones(5)
    # A: G3 = 1; G2 = .5 * .7 + .5 * 1 = .85 (same side); G0 = .5 * .6 + .5 * (1 - .85) = .375
    # B: G4 = 0; G1 = .5 * .3 + .5 * (1 - 0) = .65
    np.testing.assert_allclose(
        lambda_returns(t, game, side, none, ones, 0.5, mwc_flip), [0.375, 0.65, 0.85, 1, 0]
    )
    np.testing.assert_allclose(lambda_returns(t, game, side, none, ones, 0.0, mwc_flip), t)
    np.testing.assert_allclose(
        lambda_returns(t, game, side, none, ones, 1.0, mwc_flip), [0, 1, 1, 1, 0]
    )
    # a cut at 2 (an exploratory action there): G2 = T2 = .7, G0 = .5 * .6 + .5 * .3 = .45
    cut = np.array([0, 0, 1, 0, 0], bool)
    np.testing.assert_allclose(
        lambda_returns(t, game, side, cut, ones, 0.5, mwc_flip), [0.45, 0.65, 0.7, 1, 0]
    )
    # money: a double taken between 2 and 3 (values normalised to the cube): G2 = .5 * .7 + .5 * 2 * 1
    eq = np.array([0.2, 0.3, 0.4, 1.0, -1.0])
    scale = np.array([1, 1, 2, 1, 1.0])
    got = lambda_returns(eq, game, side, none, scale, 0.5, lambda v: -v)
    np.testing.assert_allclose(
        got, [0.5 * 0.2 + 0.5 * -(0.5 * 0.4 + 1.0), 0.5 * 0.3 + 0.5 * 1.0, 1.2, 1, -1]
    )


def test_prob5_returns_flip_outcome_by_outcome():
    from tdbg.game.heads import Prob5Head

    t = np.array([[0.6, 0.2, 0.01, 0.1, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0]])
    got = lambda_returns(
        t, np.array([0, 0]), np.array([0, 1]), np.zeros(2, bool), np.ones(2), 1.0, Prob5Head().flip
    )
    # the mover of sample 0 lost a gammon: P(win) 0, P(lose gammon) 1
    np.testing.assert_allclose(got[0], [0, 0, 0, 1, 0])


def _one_game(mode_name, seed, lam=1.0, hidden=(16,), output="probability"):
    mode = game_mode(mode_name, False)
    torch.manual_seed(seed)
    model = TDNetwork(mode.n_inputs, list(hidden), output).eval()
    sp = SelfPlay(
        model,
        SelfPlaySetup(
            mode, replace(FP32_COLLECTION, parallel_games=1), acting=Acting(td_lambda=lam)
        ),
    )
    return sp.collect(1, np.random.default_rng(seed))


def test_dmp_monte_carlo_returns_are_the_game_winner():
    out = _one_game("dmp", 3)
    t = out["targets"]
    # samples alternate sides; the last is the winner's; lambda = 1: 1 for the winner, 0 for the loser
    want = np.where((len(t) - 1 - np.arange(len(t))) % 2 == 0, 1.0, 0.0)
    np.testing.assert_array_equal(t, want)
    np.testing.assert_array_equal(
        _one_game("dmp", 3, lam=0.0)["features"], out["features"]
    )  # the same game


def test_cubeful_monte_carlo_return_is_the_game_points_with_the_cube():
    """With lambda = 1 and greedy play, the first sample's return is the points the game
    paid (cube included) from its mover's side: a take doubles what follows (scale 2)."""
    for seed in range(60):
        out = _one_game("cubeful-money", seed, output="equity")
        st = out["stats"]
        if st["takes"] >= 1:
            break
    else:
        pytest.fail("no game with a take among 60 seeds")
    assert abs(out["targets"][0]) == pytest.approx(st["points"], abs=1e-5)
    assert st["points"] >= 2  # a cube was turned, so the game paid at least 2


def test_td_lambda_must_be_a_probability():
    with pytest.raises(ValueError, match="td-lambda"):
        Acting(td_lambda=1.5).check(game_mode("dmp"))
    assert_one_line_error(
        run("train_batch.py", "--td-lambda", "1.5", "--num-episodes", 10), "--td-lambda"
    )


def test_exploratory_moves_cut_the_trace():
    """Boltzmann exploration (a high temperature: many non-greedy moves): with lambda 1 each
    sample's return is either its own one-step target (the trace cut there) or the next
    sample's return seen from its side (1 - G: DMP alternates sides), and both happen."""
    mode = game_mode("dmp")
    torch.manual_seed(4)
    model = TDNetwork(mode.n_inputs, [16], "probability").eval()
    got = {}
    for lam in (0.0, 1.0):
        sp = SelfPlay(
            model,
            SelfPlaySetup(
                mode,
                replace(FP32_COLLECTION, parallel_games=1),
                acting=Acting(boltzmann_temp=0.05, td_lambda=lam),
            ),
        )
        got[lam] = sp.collect(1, np.random.default_rng(9))["targets"]
    t, g = got[0.0], got[1.0]  # the same game: lambda changes no move
    assert g[-1] == t[-1] == 1.0
    cut = np.isclose(g[:-1], t[:-1])
    follows = np.isclose(g[:-1], 1.0 - g[1:])
    assert (cut | follows).all()
    assert (cut & ~follows).any() and (follows & ~cut).any()
