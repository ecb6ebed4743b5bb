"""The money and DMP game modes (tdbg/game/modes/): what a finished game is worth, what a
player maximises, and the one cube rule, each worked out by hand."""

import numpy as np
import pytest

from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.heads import HEADS, prob5_equity
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.cubeful_money import CubefulMoney
from tdbg.game.modes.cubeless_money import CubelessMoney
from tdbg.game.modes.dmp import DMP
from tdbg.game.modes.matchplay import MatchPlay

RESULTS = np.array([1, 2, 3, -1, -2, -3])  # single, gammon, backgammon won; then lost

# P(win) 0.6, P(wg) 0.2, P(wbg) 0.05, P(lg) 0.1, P(lbg) 0.01:
# equity 2 x 0.6 + 0.2 + 0.05 - 0.1 - 0.01 - 1 = 0.34
PROBS = np.array([0.6, 0.2, 0.05, 0.1, 0.01])


def test_prob5_equity_and_each_modes_objective():
    assert prob5_equity(PROBS) == pytest.approx(0.34)
    assert CubelessMoney().objective(PROBS) == pytest.approx(0.34)  # every gammon counts
    assert DMP().objective(PROBS) == pytest.approx(0.6)  # only winning counts
    assert DMP().value_points(np.array([0.0, 0.5, 0.75])).tolist() == [-1.0, 0.0, 0.5]  # 2p - 1


def test_points_of_a_result_in_each_mode():
    assert DMP().points(RESULTS).tolist() == [1, 1, 1, -1, -1, -1]
    assert CubelessMoney().points(RESULTS).tolist() == [1, 2, 3, -1, -2, -3]
    assert DMP().result_points(-3) == 1.0 and CubelessMoney().result_points(-3) == 3.0
    # Jacoby: with the cube centred a gammon counts once; once turned, in full; without the rule, always
    centred = np.full(6, CUBE_CENTERED)
    turned = np.full(6, CUBE_MINE)
    assert CubefulMoney().points(RESULTS, centred).tolist() == [1, 1, 1, -1, -1, -1]
    assert CubefulMoney().points(RESULTS, turned).tolist() == [1, 2, 3, -1, -2, -3]
    assert CubefulMoney(jacoby=False).points(RESULTS, centred).tolist() == [1, 2, 3, -1, -2, -3]


def test_terminal_values_in_each_head():
    won = np.array([1, 2, 3])
    assert DMP().terminal_values(HEADS["probability"], won, None).tolist() == [1.0, 1.0, 1.0]
    assert CubelessMoney().terminal_values(HEADS["equity"], won, None).tolist() == [1.0, 2.0, 3.0]
    # prob5 of a backgammon won: it won, a gammon and a backgammon, lost nothing
    assert CubelessMoney().terminal_values(HEADS["prob5"], won, None).tolist() == [
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
    ]
    # cubeful money under Jacoby: a gammon with the cube centred is worth one point
    state = np.array([CUBE_CENTERED, CUBE_THEIRS, CUBE_MINE])
    assert CubefulMoney().terminal_values(HEADS["equity"], np.array([2, 2, 3]), state).tolist() == [
        1.0,
        2.0,
        3.0,
    ]


def test_the_cube_rule_by_hand():
    mode = CubefulMoney()
    # rolling on is worth 0.5; after a take the position is worth 0.3 (x2 at the doubled cube = 0.6):
    # doubling is worth min(0.6, 1) = 0.6 > 0.5, and the opponent takes (0.6 < 1)
    # rolling on 0.5, after a take 0.7: min(1.4, 1) = 1 (the opponent drops): double, pass
    # rolling on 0.5, after a take 0.2: 0.4 < 0.5: no double
    act = mode.cube_action(np.array([0.5, 0.5, 0.5]), np.array([0.3, 0.7, 0.2]))
    assert act.double.tolist() == [True, True, False]
    assert act.take.tolist() == [True, False, True]
    assert act.value == pytest.approx([0.6, 1.0, 0.5])
    nd, take, drop = mode.cube_options(np.array([0.5]), np.array([0.3]))
    assert (nd.tolist(), take.tolist(), drop.tolist()) == ([0.5], [0.6], [1.0])


def test_who_may_double_and_the_cube_after_a_take():
    owner = np.array([CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS, CUBE_CENTERED])
    cube = np.array([1, 2, 2, 1024])  # 1,024 is the largest cube: no double beyond it
    assert CubefulMoney().may_double(owner, cube).tolist() == [True, True, False, False]
    assert CubelessMoney().may_double(owner, cube).tolist() == [False] * 4
    assert GameMode().after_take(owner).tolist() == [CUBE_THEIRS] * 4
    assert GameMode().for_opponent(owner).tolist() == [
        CUBE_CENTERED,
        CUBE_THEIRS,
        CUBE_MINE,
        CUBE_CENTERED,
    ]
    assert GameMode().initial_states(3).tolist() == [CUBE_CENTERED] * 3
    with pytest.raises(ValueError, match="no cube"):
        CubelessMoney().cube_action(np.zeros(1), np.zeros(1))


def test_cube_inputs_only_where_the_mode_has_a_cube():
    assert CubelessMoney().cube_inputs(np.array([CUBE_CENTERED]), np.array([True])) is None
    inputs = CubefulMoney().cube_inputs(
        np.array([CUBE_CENTERED, CUBE_THEIRS]), np.array([True, False])
    )
    assert inputs.shape == (2, 4)
    # after a move, the opponent is on roll: a cube of mine is theirs to them, and they may not double
    reply = CubefulMoney().reply_cube_inputs(np.array([CUBE_MINE]))
    assert np.array_equal(
        reply, CubefulMoney().cube_inputs(np.array([CUBE_THEIRS]), np.array([False]))
    )


def test_each_modes_default_head_and_its_rule():
    # which mode a network of another head plays is the playing layer's (tests/play/test_model_fit.py)
    assert DMP().outputs[0] == "probability" and CubefulMoney().outputs[0] == "equity"
    assert CubefulMoney(jacoby=False) != CubefulMoney()  # the rule is part of the mode


def test_one_check_answers_what_a_caller_needs_of_a_modes_kind():
    # asked of the class before a mode is built, or of a mode; None asks nothing
    for cls, cube, match in (
        (DMP, False, False),
        (CubelessMoney, False, False),
        (CubefulMoney, True, False),
        (MatchPlay, True, True),
    ):
        cls.require("anything goes")
        cls.require("fits", cube=cube, match=match)
        cls.require("fits the cube", cube=cube)
        with pytest.raises(ValueError, match="^no cube here$"):
            cls.require("no cube here", cube=not cube)
        with pytest.raises(ValueError, match="^not this kind of game$"):
            cls.require("not this kind of game", match=not match)
    MatchPlay(length=3).require("a match", cube=True, match=True)


# The game mode interface holds the game only (rules, values, inputs, cube and match state);
# how results are stated or counted, checkpoints' layout names, gnubg's settings, which agents
# play a mode and the command line's match length belong to the layers that use them
# (tables keyed by the mode's class, game.modes.for_mode).  These are its members, counted as
# the names its class body defines, dunders aside; a new one replaces one of these or moves
# something out, so the interface cannot grow back unnoticed.
GAME_MODE_MEMBERS = {
    # what the game is and what its networks read and output
    "name",
    "cubeful",
    "is_match",
    "n_inputs",
    "outputs",
    # values and points
    "objective",
    "value_points",
    "points",
    "result_points",
    "terminal_values",
    "take_scale",
    # the cube and the match state
    "cube_inputs",
    "reply_cube_inputs",
    "may_double",
    "cube_action",
    "cube_owner",
    "after_take",
    "for_opponent",
    "initial_states",
    "mover_state",
    # the one check of the mode's kind
    "require",
}
MAX_GAME_MODE_MEMBERS = 21


def test_the_game_mode_interface_stays_small():
    members = {n for n in vars(GameMode) if not (n.startswith("__") and n.endswith("__"))}
    assert members == GAME_MODE_MEMBERS
    assert len(members) <= MAX_GAME_MODE_MEMBERS
