import numpy as np
import pytest

from helpers import board
from tdbg.game import backgammon_engine as be


def test_examples():
    b = be.initial_board()
    assert be.parse_move(b, 3, 1, "8/5 6/5")[0] == ((8, 5), (6, 5))
    assert be.format_move(b, ((8, 5), (6, 5))) == "8/5 6/5"
    assert be.format_move(b, ((24, 18), (24, 18), (13, 7), (13, 7))) == "24/18(2) 13/7(2)"
    mv, nb = be.parse_move(b, 6, 5, "24/13")
    assert nb[1][12] == 6 and nb[1][23] == 1
    bar = board({25: 1, 13: 14}, {6: 15})
    assert be.format_move(bar, ((25, 22),)) == "bar/22"
    assert be.parse_move(bar, 3, 3, "bar/22 13/10(3)")[0]
    off = board({6: 2, 1: 1}, {20: 15})
    assert be.format_move(off, ((6, 0), (6, 0))) == "6/off(2)"
    hit = board({13: 2, 8: 13}, {18: 1, 6: 14})
    assert be.parse_move(hit, 6, 1, "13/7* 8/7")[1][0][24] == 1


def test_round_trip_over_random_play():
    rng = np.random.default_rng(5)
    b = be.initial_board()
    checked = 0
    for _ in range(400):
        d1, d2 = map(int, rng.integers(1, 7, 2))
        moves = be.legal_moves(b, d1, d2)
        for m, nb in moves:
            text = be.format_move(b, m)
            assert np.array_equal(be.parse_move(b, d1, d2, text)[1], nb), text
            checked += 1
        _, nb = moves[rng.integers(len(moves))]
        b = be.initial_board() if be.game_result(nb) else be.swap(nb)
    assert checked > 5000


@pytest.mark.parametrize("text", ["8/5 6/3", "x/y", "25/20", "8/5 6/5 4/1", "5/8 6/5", "pass"])
def test_illegal_or_malformed_text(text):
    with pytest.raises(ValueError):
        be.parse_move(be.initial_board(), 3, 1, text)
