"""The net judges a resignation by its own value of playing on: the loser's value of a game
given up (Jacoby, the cube's owner, the match score) against that value, by hand arithmetic."""

import numpy as np
import pytest

from tdbg.app.terminal_game import Net, Session, TerminalSettings, resignation_value
from tdbg.app.terminal_turns import NET, Game
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import DiceStream
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE
from tdbg.game.modes import game_mode
from tdbg.game.modes.matchplay import pack


@pytest.mark.parametrize(
    "mode, head, state, level, loser",
    [
        (
            "cubeful-money",
            "equity",
            CUBE_CENTERED,
            2,
            -1.0,
        ),  # Jacoby: a gammon counts once the cube is turned
        ("cubeful-money", "equity", CUBE_CENTERED, 3, -1.0),
        ("cubeful-money", "equity", CUBE_MINE, 2, -2.0),  # the winner owns the cube: it was turned
        ("cubeless-money", "equity", CUBE_CENTERED, 3, -3.0),
        (
            "cubeless-money",
            "prob5",
            CUBE_CENTERED,
            2,
            -2.0,
        ),  # 2 P(w) + P(wg) + P(wbg) - P(lg) - P(lbg) - 1
        ("dmp", "probability", CUBE_CENTERED, 3, 0.0),  # a lost game is P(win) 0, whatever its size
    ],
)
def test_the_losers_value_of_a_game_given_up(mode, head, state, level, loser):
    assert resignation_value(head, game_mode(mode), level, state) == loser


def test_in_a_match_the_loser_keeps_the_table_entry_at_the_new_score():
    mode = game_mode("match", match_length=7)
    # the winner 3-away, the loser 5-away, cube 2 centred: a single game gives the winner 2 points
    state = pack(CUBE_CENTERED, 1, 0, 3, 5)
    assert resignation_value("mwc", mode, 1, state) == pytest.approx(
        float(mode.met.mwc(5, 1, False))
    )
    assert resignation_value("mwc", mode, 2, state) == 0.0  # a gammon at 2 ends the match


def test_the_net_declines_a_resignation_worth_less_than_playing_on():
    net = Net("tdbg", game_mode("cubeful-money"), "equity", 0, True, None, None, None)
    session = Session(net, TerminalSettings(checkpoint="net.pt"), seed=0)
    owned = Game(be.initial_board(), DiceStream(0, 0), cube=2, owner=NET)
    # the human's cubeful equity -1.5 (normalised to the cube), its gammon chances count
    assert not session.accepts_resignation(owned, 1, -1.5)  # -1 for a single game: more than -1.5
    assert session.accepts_resignation(owned, 2, -1.5)  # -2 for a gammon
    centred = Game(be.initial_board(), DiceStream(0, 0))
    assert session.accepts_resignation(centred, 1, -0.8)  # Jacoby: -1 is all the net can win
    assert not session.accepts_resignation(centred, 1, np.float64(-0.8) - 0.5)
