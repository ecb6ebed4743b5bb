"""Malformed boards and dice give a ValueError saying what is wrong, on every path."""

import numpy as np
import pytest

from tdbg.game import c_engine
from tdbg.game import backgammon_engine as be, movegen

START = be.initial_board()


def _too_many():
    b = START.copy()
    b[1, 5] += 3
    return b, "18 checkers"


def _negative():
    b = START.copy()
    b[0, 3] = -1
    return b, "negative"


def _same_point():
    b = START.copy()
    b[1, 2] = 1  # my 3 point = their 22 point
    b[0, 21] = 1
    b[1, 5] -= 1
    b[0, 23] -= 1
    return b, "same point"


def _wrong_shape():
    return np.zeros((2, 24), dtype=int), "shape"


BAD_BOARDS = [_too_many, _negative, _same_point, _wrong_shape]
PATHS = {
    "python": lambda b, d1, d2: be.legal_moves(b, d1, d2),
    "c": lambda b, d1, d2: c_engine.legal_moves(b, d1, d2),
    "c_batch": lambda b, d1, d2: c_engine.expand_batch(np.asarray(b)[None], [[d1, d2]]),
    "python_batch": lambda b, d1, d2: movegen.make_expander("python").expand(
        np.asarray(b)[None], [[d1, d2]]
    ),
}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("make", BAD_BOARDS, ids=lambda f: f.__name__)
def test_bad_board(path, make):
    b, words = make()
    with pytest.raises(ValueError, match=words):
        PATHS[path](b, 3, 1)


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("dice", [(0, 1), (7, 2), (3, -1), (1.5, 2)])
def test_bad_dice(path, dice):
    with pytest.raises(ValueError, match="dice"):
        PATHS[path](START, *dice)


def test_batch_error_names_the_input():
    boards = np.stack([START, START, _too_many()[0]])
    with pytest.raises(ValueError, match="input 2: .*18 checkers"):
        c_engine.expand_batch(boards, [[3, 1]] * 3)
    with pytest.raises(ValueError, match="input 1"):
        c_engine.expand_batch(np.stack([START, START]), [[3, 1], [9, 1]])


def test_large_counts_do_not_wrap_in_int8():
    b = START.copy()
    b[1, 5] = 256 + 5  # would read as 5 after an int8 cast
    with pytest.raises(ValueError):
        c_engine.expand_batch(b[None], [[3, 1]])
    with pytest.raises(ValueError):
        c_engine.legal_moves(b, 3, 1)


def test_unknown_engine():
    with pytest.raises(ValueError, match="unknown engine"):
        movegen.resolve_engine("fortran")
