"""Hand-built positions for each rule, with the answer worked out by hand and checked
against gnubg-nn as well."""

import gnubg_nn
import numpy as np
import pytest

from tdbg.game import c_engine
from helpers import board
from oracle_positions import gnubg_keys, result_keys
from tdbg.game import backgammon_engine as be

ENGINES = {"python": be.legal_moves, "c": c_engine.legal_moves}


def moves_of(engine, b, d1, d2):
    return sorted(tuple(sorted(m)) for m, _ in ENGINES[engine](b, d1, d2))


@pytest.fixture(params=sorted(ENGINES))
def engine(request):
    return request.param


def agrees_with_gnubg(b, d1, d2):
    for fn in ENGINES.values():
        assert result_keys(fn(b, d1, d2)) == gnubg_keys(b.tolist(), d1, d2)


def test_opening_31(engine):
    b = be.initial_board()
    ms = ENGINES[engine](b, 3, 1)
    assert len(ms) == 16
    assert ((8, 5), (6, 5)) in [tuple(sorted(m, reverse=True)) for m, _ in ms]
    agrees_with_gnubg(b, 3, 1)


def test_bar_entry_comes_first(engine):
    # one checker on the bar; opponent holds my 20 and 22 points (its 5 and 3)
    b = board({25: 1, 6: 5, 8: 3, 13: 5, 24: 1}, {5: 2, 3: 2, 6: 11})
    ms = ENGINES[engine](b, 4, 1)
    assert len(ms) > 1
    for m, nb in ms:
        assert m[0][0] == 25 and nb[1][24] == 0
    # a 5 would enter on my 20 and a 3 on my 22: both held, so 5-3 is a pass
    assert moves_of(engine, b, 5, 3) == [()]
    b2 = board({25: 1, 6: 5, 8: 3, 13: 6}, {5: 2, 3: 2, 6: 11})
    assert moves_of(engine, b2, 5, 3) == [()]
    agrees_with_gnubg(b, 4, 1)
    agrees_with_gnubg(b, 5, 3)
    agrees_with_gnubg(b2, 5, 3)


def test_closed_board_blocks_entry(engine):
    b = board({25: 2, 6: 5, 8: 3, 13: 5}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3})
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            ms = ENGINES[engine](b, d1, d2)
            assert len(ms) == 1 and ms[0][0] == () and np.array_equal(ms[0][1], b)
    agrees_with_gnubg(b, 6, 6)


def test_one_enters_the_other_stays_and_nothing_else_moves(engine):
    # two on the bar, only my 22 point (die 3) open: one checker enters with the 3, the 5 is lost
    b = board({25: 2, 6: 5, 8: 3, 13: 5}, {1: 2, 2: 2, 4: 2, 5: 2, 6: 2, 8: 5})
    assert moves_of(engine, b, 5, 3) == [((25, 22),)]
    agrees_with_gnubg(b, 5, 3)


def test_bear_off_exact_and_from_highest_point(engine):
    b = board({3: 1, 2: 1}, {20: 5})
    # a 6 and a 5 take both checkers off (no checker above 3 or 2)
    assert moves_of(engine, b, 6, 5) == [((2, 0), (3, 0))]
    # with 4 on the 6 point a 5 cannot bear off from the 3: it must move 6/1
    b2 = board({6: 4, 3: 1}, {20: 5})
    assert all(m[0] != (3, 0) for m, _ in ENGINES[engine](b2, 5, 5))
    agrees_with_gnubg(b, 6, 5)
    agrees_with_gnubg(b2, 5, 5)
    agrees_with_gnubg(b2, 6, 1)


def test_no_bear_off_while_a_checker_is_outside(engine):
    b = board({7: 1, 2: 14}, {20: 5})
    for m, _ in ENGINES[engine](b, 6, 2):
        assert (2, 0) not in m[:1]  # the 7 point must come in before any bear-off
    agrees_with_gnubg(b, 6, 2)


def test_larger_die_when_only_one_can_be_played(engine):
    # a lone checker on my 10 point, opponent holds my ace point: 10/4 or 10/7 each
    # block the other die, so only one die can be played and it must be the 6
    b = board({10: 1}, {24: 2, 6: 13})
    assert moves_of(engine, b, 6, 3) == [((10, 4),)]
    agrees_with_gnubg(b, 6, 3)


def test_both_dice_must_be_used_when_possible(engine):
    # 13/7 alone would leave the 1 unplayable, but 13/12/6 or 13/7/6 use both
    b = board({13: 1}, {18: 2, 6: 13})  # opponent's 18 = my 7 point: 13/7 blocked
    assert moves_of(engine, b, 6, 1) == [((12, 6), (13, 12))]
    agrees_with_gnubg(b, 6, 1)


def test_doubles_play_four_when_possible(engine):
    b = be.initial_board()
    ms = ENGINES[engine](b, 6, 6)
    assert all(len(m) == 4 for m, _ in ms)
    agrees_with_gnubg(b, 6, 6)
    # only two of the four 5s can be played: 13/8 10/5, then my 3 point is held
    # and bearing off waits for the checker on 8
    b2 = board({13: 1, 10: 1}, {22: 2, 6: 13})
    assert moves_of(engine, b2, 5, 5) == [((10, 5), (13, 8))]
    agrees_with_gnubg(b2, 5, 5)


def test_hit_sends_to_bar(engine):
    b = board({13: 2, 8: 13}, {18: 1, 6: 14})  # an opponent blot on its 18 = my 7 point
    ms = dict((tuple(sorted(m)), nb) for m, nb in ENGINES[engine](b, 6, 1))
    nb = ms[((8, 7), (13, 7))]
    assert nb[0][24] == 1 and nb[0][17] == 0
    assert be.format_move(b, ((13, 7), (8, 7))) == "13/7* 8/7"


def test_each_result_listed_once(engine):
    b = be.initial_board()
    res = [nb.tobytes() for _, nb in ENGINES[engine](b, 2, 2)]
    assert len(res) == len(set(res))


def test_game_result_single_gammon_backgammon():
    assert be.game_result(be.initial_board()) == 0
    assert be.game_result(board({}, {6: 5, 1: 1})) == 1  # loser has borne off some
    assert be.game_result(board({}, {6: 15})) == 2
    assert be.game_result(board({}, {20: 1, 6: 14})) == 3  # its 20 = my 5 point
    assert be.game_result(board({}, {25: 1, 6: 14})) == 3
    assert be.game_result(be.swap(board({}, {6: 15}))) == -2


def test_swap_and_initial_board():
    b = board({6: 5, 25: 1}, {24: 2})
    assert np.array_equal(be.swap(be.swap(b)), b)
    assert np.array_equal(be.swap(b)[1], b[0])
    assert be.position_id(be.initial_board()) == "4HPwATDgc/ABMA"


@pytest.mark.parametrize(
    "pid", ["4HPwATDgc/ABMA", "sNvAAAAAAAAAAA", "AAAAAAAAAAAAAA", "xOfgATDgc/ABUA"]
)
def test_position_id_round_trip_against_gnubg(pid):
    b = be.board_from_position_id(pid)
    assert np.array_equal(b, np.array(gnubg_nn.board_from_position_id(pid)))
    assert be.position_id(b) == pid


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////", 42])
def test_position_id_malformed(bad):
    with pytest.raises(ValueError):
        be.board_from_position_id(bad)
