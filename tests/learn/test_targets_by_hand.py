"""Targets and cube decisions checked against arithmetic done by hand.

Stub networks are real ``TDNetwork``s whose weights make the output a number we
choose: all-zero weights give a constant (sigmoid(0) = 1/2 for P(win), the head
bias for equity), and a one-unit-per-cube-owner layer gives a value that depends
on the cube owner only.  Every expected number below is worked out in a comment.
"""

from dataclasses import replace
import numpy as np
import pytest
import torch

from tdbg.game import backgammon_engine as be
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS, NUM_FEATURES
from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup
from tdbg.net.model import TDNetwork
from tdbg.net.scoring import Scorer
from tdbg.play.td_agent import TDAgent


def constant_net(output_mode: str, value: float = 0.0) -> TDNetwork:
    """Output sigmoid(value) for P(win), ``value`` for equity, whatever the board."""
    net = TDNetwork(196, [1], output_mode)
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.head.bias.fill_(value)
    return net.eval()


def cube_owner_net(v_centred: float, v_mine: float, v_theirs: float) -> TDNetwork:
    """Cubeful equity net: value = v_<owner> for the side on roll, board ignored."""
    net = TDNetwork(200, [3], "equity")
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        for unit, owner in enumerate((CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS)):
            net.layers[0].weight[unit, NUM_FEATURES + owner] = 1.0  # one-hot owner -> one ReLU unit
        net.head.weight[0] = torch.tensor([v_centred, v_mine, v_theirs])
    return net.eval()


def tiny_race() -> np.ndarray:
    """Mover (row 1): one checker on its 6 point, one on its ace.  Opponent: one
    checker on its ace point (14 off, so no gammon is possible)."""
    b = np.zeros((2, 25), dtype=np.int64)
    b[1, 5] = 1
    b[1, 0] = 1
    b[0, 0] = 1
    return b


# Rolls that bear off both of the mover's checkers in tiny_race(): the checker on the
# 6 point needs a 6 unless a double carries it home and off (2-2: 6/4/2/off then 1/off;
# 3-3: 6/3/off, 1/off; 4-4: 6/2/off, 1/off; 5-5: 6/1/off, 1/off); 1-1 cannot.
# So 6-1..6-5 (2/36 each) + 6-6, 2-2, 3-3, 4-4, 5-5 (1/36 each) = 15/36 win at once.


@pytest.mark.parametrize("engine", ["c", "python"])
def test_sampled_and_oneply_targets_of_a_tiny_race_dmp(engine):
    scorer = Scorer(constant_net("probability", 0.0), game_mode("dmp"), engine=engine)
    board = tiny_race()[None]
    # sampled TD(0): the best move's value for the roll thrown
    _, v = scorer.best_moves(board, np.array([[6, 1]]))
    assert v[0] == 1.0  # both checkers off: the exact value of a won game
    _, v = scorer.best_moves(board, np.array([[5, 2]]))
    assert v[0] == 0.5  # game goes on: 1 - sigmoid(0) for the opponent
    # exact 1-ply: 15/36 x 1 + 21/36 x 1/2 = 25.5/36
    target, _ = scorer.oneply(board)
    assert np.isclose(target[0], 25.5 / 36, atol=1e-7)


def test_oneply_target_of_a_tiny_race_money():
    scorer = Scorer(constant_net("equity", 0.25), game_mode("cubeless-money"))
    target, _ = scorer.oneply(tiny_race()[None])
    # a finish wins a single game (+1); otherwise the opponent on roll is worth +0.25 to
    # itself, -0.25 to the mover: 15/36 x 1 + 21/36 x (-0.25) = 9.75/36
    assert np.isclose(target[0], 9.75 / 36, atol=1e-7)


def test_selfplay_targets_with_a_constant_net():
    """With P(win) = 1/2 for every position, each sample's target is 1/2 except the
    game's last move, which wins and gets the exact value 1."""
    out = SelfPlay(
        constant_net("probability"),
        SelfPlaySetup(game_mode("dmp"), replace(FP32_COLLECTION, parallel_games=1)),
    ).collect(1, np.random.default_rng(3))
    t = out["targets"]
    assert len(t) == out["stats"]["plies"] > 20
    assert (t[:-1] == 0.5).all() and t[-1] == 1.0


# ----------------------------------------------------------------------------- cube


def decisions(v_centred, v_mine, v_theirs, owner=CUBE_CENTERED):
    agent = TDAgent(cube_owner_net(v_centred, v_mine, v_theirs), game_mode("cubeful-money"))
    b = be.initial_board()[None]
    o = np.array([owner])
    v_nd, v_take = agent.scorer.cube_values(b, o)
    return (
        bool(agent.double_decisions(b, o)[0]),
        bool(agent.take_decisions(b, o)[0]),
        v_nd[0],
        v_take[0],
    )


def test_cube_decisions_by_hand():
    # no double 0.25; after a take the doubler's position is worth 0.375 of the new cube,
    # 0.75 of the old one: min(0.75, 1) = 0.75 > 0.25 -> double; 0.75 < 1 -> take
    assert decisions(0.25, 0.0, 0.375) == (True, True, 0.25, 0.375)
    # after a take 0.625 of the new cube = 1.25 of the old > the 1 a drop costs -> drop;
    # min(1.25, 1) = 1 > 0.25 -> double
    assert decisions(0.25, 0.0, 0.625)[:2] == (True, False)
    # min(2 x 0.125, 1) = 0.25 < 0.5 -> no double (and a double would be taken)
    assert decisions(0.5, 0.0, 0.125)[:2] == (False, True)
    # too good: playing on is worth 1.5 (gammons), a double at most 1 -> no double
    assert decisions(1.5, 0.0, 0.625)[:2] == (False, False)
    # the side owning the cube: no double 0.875 > min(2 x 0.375, 1) = 0.75 -> keep it
    assert decisions(0.0, 0.875, 0.375, owner=CUBE_MINE)[0] is False


def cube_node_targets(out):
    nodes = out["features"][:, NUM_FEATURES + 3] == 1  # is_cube_action
    return out["targets"][nodes]


def test_selfplay_double_take_and_owner_flip():
    """Second player's first turn (the first cube node; none before the opening move):
    ND 0.25 < min(2 x 0.375, 1) = 0.75 -> double, and 0.75 < 1 -> take, node target
    max(0.25, 0.75) = 0.75.  The taker then owns the cube (MINE for it): ND 0.875 >
    min(2 x 0.375, 1) = 0.75 -> no redouble, node target 0.875 at each of its turns.
    The doubler (cube THEIRS) has no cube node any more."""
    out = SelfPlay(
        cube_owner_net(0.25, 0.875, 0.375),
        SelfPlaySetup(game_mode("cubeful-money"), replace(FP32_COLLECTION, parallel_games=1)),
    ).collect(1, np.random.default_rng(7))
    s = out["stats"]
    assert (s["doubles"], s["takes"], s["drops"]) == (1, 1, 0)
    t = cube_node_targets(out)
    assert t[0] == 0.75 and (t[1:] == 0.875).all() and len(t) >= 2
    # the game is played for a cube of 2 (taken, so gammons count despite Jacoby)
    assert s["points"] in (2.0, 4.0, 6.0)


def test_selfplay_double_drop_ends_the_game():
    """ND 0.25 < min(2 x 0.625, 1) = 1 -> double; 2 x 0.625 >= 1 -> drop: the game ends
    at the first cube node (ply 1), the doubler wins the cube (1 point); targets: the
    opening move's value, then the node's max(0.25, 1) = 1."""
    out = SelfPlay(
        cube_owner_net(0.25, 0.0, 0.625),
        SelfPlaySetup(game_mode("cubeful-money"), replace(FP32_COLLECTION, parallel_games=1)),
    ).collect(1, np.random.default_rng(7))
    s = out["stats"]
    assert (s["doubles"], s["takes"], s["drops"], s["points"], s["episodes"]) == (1, 0, 1, 1.0, 1)
    assert cube_node_targets(out).tolist() == [1.0] and len(out["targets"]) == 2


def gammon_finish() -> np.ndarray:
    """Mover bears off its last checker (on the ace) while the opponent has all 15
    checkers at home: a gammon for the mover."""
    b = np.zeros((2, 25), dtype=np.int64)
    b[1, 0] = 1
    b[0, 0] = 15
    return b


@pytest.mark.parametrize(
    "owner,jacoby,want",
    [
        (CUBE_CENTERED, True, 1.0),  # Jacoby: a gammon with the cube centred counts single
        (CUBE_MINE, True, 2.0),  # cube turned: gammons count
        (CUBE_THEIRS, True, 2.0),
        (CUBE_CENTERED, False, 2.0),  # no Jacoby rule: gammons always count
    ],
)
def test_terminal_values_follow_jacoby(owner, jacoby, want):
    scorer = Scorer(cube_owner_net(0.0, 0.0, 0.0), game_mode("cubeful-money", jacoby))
    _, offsets, values, _ = scorer.score(
        gammon_finish()[None], np.array([[2, 1]]), np.array([owner])
    )
    assert values.max() == want


def test_points_by_hand():
    r = np.array([1, 2, 3, -2])
    assert game_mode("dmp").points(r).tolist() == [1, 1, 1, -1]
    assert game_mode("cubeless-money").points(r).tolist() == [1, 2, 3, -2]
    cubeful = game_mode("cubeful-money")
    assert cubeful.points(r, CUBE_CENTERED).tolist() == [1, 1, 1, -1]
    assert cubeful.points(r, CUBE_MINE).tolist() == [1, 2, 3, -2]
    assert game_mode("cubeful-money", jacoby=False).points(r, CUBE_CENTERED).tolist() == [
        1,
        2,
        3,
        -2,
    ]
