"""Exact bear-off values against hand arithmetic and against GNU Backgammon's bear-off
database (gnubg-nn's probabilities for these positions are read from it, stored to
about 1e-5)."""

import pytest

from tdbg.game import bearoff as bo


def test_hand_arithmetic():
    one_on = lambda p: tuple(1 if i == p - 1 else 0 for i in range(6))  # noqa: E731
    # on roll with a checker on the 6 point against one on the ace point: only 11, 21, 31, 41
    # and 32 fail to bear it off (9 of 36), and then the opponent surely wins
    assert bo.win_probability(one_on(6), one_on(1)) == pytest.approx(27 / 36, abs=1e-15)
    # a checker on the ace point comes off with any roll
    assert bo.win_probability(one_on(1), one_on(6)) == pytest.approx(1.0, abs=1e-15)
    # two checkers on the 2 point against one on the ace point: both come off unless the roll is
    # a 1 with another number (12 .. 16: 10 of 36; 11 moves four pips and clears them)
    assert bo.win_probability((0, 2, 0, 0, 0, 0), one_on(1)) == pytest.approx(26 / 36, abs=1e-15)


def test_positions_count_and_bad_input():
    assert len(bo.positions(3)) == 84  # C(6 + 3, 3): 0..3 checkers on 6 points
    assert bo.is_bearoff(bo.board_of((1, 1, 0, 0, 0, 0), (0, 0, 2, 0, 0, 0)), 3)
    from tdbg.game import backgammon_engine as be

    with pytest.raises(ValueError):
        bo.exact_win_probability(be.initial_board())


def test_agrees_with_gnubg_bearoff_database():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    sides = [p for p in bo.positions(3) if sum(p)]
    worst = 0.0
    for a in sides:
        for b in sides:
            board = bo.board_of(a, b)
            theirs = gnubg_nn.probabilities([board[0].tolist(), board[1].tolist()], 0)[0]
            worst = max(worst, abs(theirs - bo.win_probability(a, b)))
    assert len(sides) ** 2 == 6889 and worst < 1e-4
