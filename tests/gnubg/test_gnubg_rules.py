"""The gnubg commands that set each mode's rules (no binary needed): written out by hand
from gnubg's manual (`set jacoby`, `set cube use`, `set automatic game`)."""

import pytest

from tdbg.game.modes import DMP, CubefulMoney, CubelessMoney, MatchPlay
from tdbg.gnubg.gnubg_rules import analysis_rules, gnubg_plays, session_rules

NO_CUBE = ["set cube use off", "set analysis cube off"]


@pytest.mark.parametrize(
    "mode, session, analysis",
    [
        (
            CubelessMoney(),
            ["set jacoby off", "set beavers 0", "set automatic game off", "set cube use off"],
            NO_CUBE,
        ),
        (CubefulMoney(), ["set jacoby on", "set beavers 0", "set automatic game off"], []),
        (
            CubefulMoney(jacoby=False),
            ["set jacoby off", "set beavers 0", "set automatic game off"],
            [],
        ),
        (MatchPlay(length=5), ["set jacoby off", "set beavers 0", "set automatic game on"], []),
    ],
)
def test_rules_of_each_mode(mode, session, analysis):
    assert session_rules(mode) == session
    assert analysis_rules(mode) == analysis
    assert gnubg_plays(mode)


def test_dmp_is_analysed_without_the_cube_but_never_played_against_the_binary():
    assert not gnubg_plays(DMP())
    assert analysis_rules(DMP()) == NO_CUBE
