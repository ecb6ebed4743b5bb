"""gnubg-nn-cubeful's cube decisions on clear-cut money positions equal the gnubg binary's
``hint`` (money, Jacoby, no beavers), at the binary's 0 and 2 plies."""

import numpy as np
import pytest

from helpers import board
from tdbg.game import backgammon_engine as be
from tdbg.game.encoding import CUBE_CENTERED
from tdbg.game.modes import game_mode
from tdbg.gnubg.gnubg_binary import available, installed_binaries
from tdbg.play.gnubg_cube_agent import GnubgNNCubefulAgent

POSITIONS = {  # (the side on roll in row 1; races and bear-offs whose action no ply disputes)
    "start": be.initial_board(),
    # an even race (93 pips each): a 6-pip lead here was a double for 1.07.001 at 0-ply, too close to call
    "race, no double": board({4: 3, 5: 3, 6: 4, 8: 3, 9: 2}, {3: 3, 5: 3, 6: 3, 8: 3, 9: 3}),
    "race, double/take": board({3: 3, 5: 3, 6: 3, 8: 3, 10: 3}, {4: 3, 5: 3, 6: 3, 9: 3, 11: 3}),
    "race, double/pass": board({4: 3, 5: 3, 6: 4, 8: 3, 9: 2}, {4: 3, 5: 3, 6: 3, 9: 3, 14: 3}),
    "cash": board({1: 3, 2: 3, 3: 3, 4: 3, 5: 2, 6: 1}, {7: 3, 8: 3, 9: 3, 10: 3, 11: 3}),
    "gammonish cash": board({1: 5, 2: 5, 3: 5}, {19: 5, 20: 5, 21: 5}),
}
ACTIONS = {
    (False, True): "No double, take",
    (True, True): "Double, take",
    (True, False): "Double, pass",
}


@pytest.mark.skipif(not available(), reason="no gnubg binary")
@pytest.mark.parametrize("binary", installed_binaries() or [None])
@pytest.mark.parametrize("binary_plies", [0, 2])
def test_cube_decisions_equal_the_binary_hint(binary_plies, binary):
    """Against every supported binary installed (1.08.003, and Debian's 1.07.001 where present)."""
    from gnubg_python import cube_actions

    boards = np.array(list(POSITIONS.values()))
    hints = cube_actions(
        [be.position_id(b) + ":cAkAAAAAAAAA" for b in boards], binary_plies, binary
    )  # centred, money
    agent = GnubgNNCubefulAgent(game_mode("cubeful-money"))
    got = agent.cube_decisions(boards, np.full(len(boards), CUBE_CENTERED))
    for name, (double, take), hint in zip(POSITIONS, got.tolist(), hints, strict=True):
        assert hint.startswith(ACTIONS[(double, take)]), (name, hint, double, take)


def test_too_good_without_jacoby():
    """Without Jacoby a gammon counts undoubled, and the gammonish cash is played on."""
    gammonish = POSITIONS["gammonish cash"][None]
    centred = np.array([CUBE_CENTERED])
    assert GnubgNNCubefulAgent(game_mode("cubeful-money")).cube_decisions(gammonish, centred)[0, 0]
    assert not GnubgNNCubefulAgent(game_mode("cubeful-money", jacoby=False)).cube_decisions(
        gammonish, centred
    )[0, 0]


def test_only_cubeful_money():
    with pytest.raises(ValueError, match="cubeful money only"):
        GnubgNNCubefulAgent(game_mode("dmp"))
