"""Exact 1-ply targets and 0-ply choices against a brute-force computation that scores
every move of every roll one at a time with the Python engine and the numpy encoder."""

import numpy as np
import pytest
import torch

from helpers import board, brute_value
from tdbg.game import backgammon_engine as be, encoding
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.modes import game_mode
from tdbg.net.model import TDNetwork
from tdbg.net.scoring import Scorer

POSITIONS = [
    be.initial_board(),
    board({6: 1, 5: 1}, {18: 2, 6: 13}),  # 6-5, 6-6, 5-5 end the game (single win)
    board({2: 1, 1: 1}, {20: 1, 6: 14}),  # every roll ends it: a backgammon (loser in my home)
    board({4: 2, 3: 1}, {6: 15}),  # some rolls end it with a gammon
    board(
        {25: 1, 13: 4, 6: 5, 8: 3, 1: 2}, {1: 2, 2: 2, 3: 2, 6: 5, 11: 4}
    ),  # on the bar against a 3-point board
]


@pytest.mark.parametrize(
    "mode_name,output,owners",
    [
        ("dmp", "probability", [None]),
        ("cubeless-money", "equity", [None]),
        ("cubeless-money", "prob5", [None]),
        ("cubeful-money", "equity", [CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS]),
    ],
)
def test_oneply_matches_brute_force(mode_name, output, owners):
    torch.manual_seed(7)
    mode = game_mode(mode_name)
    model = TDNetwork(mode.n_inputs, [24, 12], output).eval()
    scorer = Scorer(model, mode)
    for owner in owners:
        own = None if owner is None else np.full(len(POSITIONS), owner)
        targets, _ = scorer.oneply(np.array(POSITIONS), own)
        for i, b in enumerate(POSITIONS):
            want = brute_value(model, mode, b, owner, scorer.values)
            assert np.allclose(targets[i], want, atol=1e-6), (
                mode_name,
                output,
                owner,
                be.position_id(b),
            )


def test_terminal_rolls_use_exact_values():
    """A position every roll wins outright has the exact value whatever the network says."""
    torch.manual_seed(1)
    b = board({2: 1, 1: 1}, {20: 1, 6: 14})  # the win is a backgammon
    for mode_name, output, want in [("dmp", "probability", 1.0), ("cubeless-money", "equity", 3.0)]:
        mode = game_mode(mode_name)
        targets, _ = Scorer(TDNetwork(196, [8], output), mode).oneply(b[None])
        assert targets[0] == pytest.approx(want)
    # cubeful with Jacoby and a centred cube: a backgammon counts as a single game
    mode = game_mode("cubeful-money")
    scorer = Scorer(TDNetwork(200, [8], "equity"), mode)
    assert scorer.oneply(b[None], np.array([CUBE_CENTERED]))[0][0] == pytest.approx(1.0)
    assert scorer.oneply(b[None], np.array([CUBE_MINE]))[0][0] == pytest.approx(3.0)
    no_jacoby = Scorer(TDNetwork(200, [8], "equity"), game_mode("cubeful-money", jacoby=False))
    assert no_jacoby.oneply(b[None], np.array([CUBE_CENTERED]))[0][0] == pytest.approx(3.0)


def test_best_moves_match_one_at_a_time_scoring():
    torch.manual_seed(4)
    mode = game_mode("cubeless-money")
    model = TDNetwork(196, [16], "equity").eval()
    scorer = Scorer(model, mode)
    rng = np.random.default_rng(0)
    dice = rng.integers(1, 7, (len(POSITIONS), 2))
    chosen, vals = scorer.best_moves(np.array(POSITIONS), dice)
    for b, d, c in zip(POSITIONS, dice, chosen, strict=True):
        best = max(
            be.legal_moves(b, *map(int, d)),
            key=lambda mv: (
                float(mode.points(be.game_result(mv[1])))
                if be.game_result(mv[1])
                else -float(model(torch.from_numpy(encoding.encode(be.swap(mv[1]))[None])).detach())
            ),
        )
        assert np.array_equal(best[1], c)
