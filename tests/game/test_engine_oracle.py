"""Both engines against gnubg-nn's move generator and Position IDs on 20,000 positions x 21 rolls.

Results are compared as gnubg position keys: gnubg-nn's own strings on one side,
keys computed from our boards (vectorised, no gnubg-nn involved) on the other.
"""

import gnubg_nn
import numpy as np
import pytest

from tdbg.game import c_engine
from oracle_positions import ALL_ROLLS, gnubg_keys, key_set, result_keys
from tdbg.game import backgammon_engine as be


def _mismatches(engine_legal_moves, positions):
    bad = []
    for board in positions:
        lst = board.tolist()
        for d1, d2 in ALL_ROLLS:
            ours = result_keys(engine_legal_moves(board, d1, d2))
            theirs = gnubg_keys(lst, d1, d2)
            if ours != theirs:
                bad.append((be.position_id(board), d1, d2, len(ours), len(theirs)))
    return bad


@pytest.mark.slow
def test_python_engine_equals_gnubg_nn_moves(positions_20k):
    bad = _mismatches(be.legal_moves, positions_20k)
    assert not bad, f"{len(bad)} (position, roll) pairs differ, e.g. {bad[:5]}"


@pytest.mark.slow
def test_c_engine_equals_gnubg_nn_moves(positions_20k):
    bad = _mismatches(c_engine.legal_moves, positions_20k)
    assert not bad, f"{len(bad)} (position, roll) pairs differ, e.g. {bad[:5]}"


@pytest.mark.slow
def test_c_batch_equals_gnubg_nn_moves(positions_20k):
    """The batch path (what self-play uses) gives gnubg's sets for every input."""
    boards = np.repeat(positions_20k, len(ALL_ROLLS), axis=0)
    dice = np.tile(np.array(ALL_ROLLS), (len(positions_20k), 1))
    out_boards, _, offsets = c_engine.expand_batch(boards, dice, encode=False)
    assert offsets[-1] == len(out_boards)
    keys = be.position_keys(out_boards).tolist()
    bad = [
        i
        for i in range(len(boards))
        if set(keys[offsets[i] : offsets[i + 1]])
        != gnubg_keys(boards[i].tolist(), *map(int, dice[i]))
    ]
    assert not bad, f"{len(bad)} inputs differ, e.g. {[be.position_id(boards[i]) for i in bad[:5]]}"


def test_position_ids_equal_gnubg_nn(positions_20k):
    for board in positions_20k:
        pid = be.position_id(board)
        assert pid == gnubg_nn.position_id(board.tolist())
        assert np.array_equal(be.board_from_position_id(pid), board)
    assert key_set(positions_20k) == {
        gnubg_nn.key_of_board(b.tolist()).encode() for b in positions_20k
    }


def test_positions_cover_the_hard_cases(positions_20k):
    """The drawn set really contains bar, bear-off and no-move positions."""
    on_bar = (positions_20k[:, 1, 24] > 0).sum()
    bearing_off = (positions_20k[:, 1, 6:].sum(axis=1) == 0).sum()
    assert on_bar > 1000 and bearing_off > 500
    passes = sum(
        1 for b in positions_20k[:2000] for d in ALL_ROLLS if not gnubg_nn.moves(b.tolist(), *d)
    )
    assert passes > 50


def test_no_contact_is_gnubg_nns_race_and_bearoff_classes(positions_20k):
    """backgammon_engine.no_contact against gnubg-nn's own position classes, which it orders
    game over, bear-off (its two databases), race, crashed, contact: no contact is left exactly
    below crashed (every class but 'over' occurs in the positions)."""
    classes = np.array([gnubg_nn.classify([list(b[0]), list(b[1])]) for b in positions_20k])
    assert {gnubg_nn.c_race, gnubg_nn.c_bearoff, gnubg_nn.c_contact, gnubg_nn.c_crashed} <= set(
        classes.tolist()
    )
    assert np.array_equal(be.no_contact(positions_20k), classes < gnubg_nn.c_crashed)
