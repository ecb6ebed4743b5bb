"""Exact values of small bear-offs: both sides' last few checkers in their home boards.

With no contact left, each side's moves depend only on its own checkers, and neither
side can be gammoned (both have borne checkers off), so the side on roll's chance of
winning satisfies

    P(a, b) = sum over the 21 rolls r of w(r) * max over a' in moves(a, r) of
              (1 if a' has no checkers left else 1 - P(b, a'))

(a: the roller's checkers, b: the opponent's; the roller picks the move that is
best for it).  Every move lowers a's pip count, so the recursion ends; memoised it
solves every pair of positions with up to ``max_checkers`` checkers on points 1-6
exactly.  Positions are tuples of six counts (points 1..6); moves come from the
reference engine (backgammon_engine.legal_moves), so the bear-off rules (exact
bear-off, bearing off from a lower point only when no checker is higher) are the
rules every other part of the project plays by.

This is ground truth no network estimates: rollouts (tools/rollout.py) and the
training targets of finished bear-offs can be checked against it.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS

HOME = 6
# far from any home-board checker of the roller: the opponent's checkers in its own home
# board are the roller's points 19-24 (row indices 18..23), never in the way
_OPPONENT_ROW = np.array([1] + [0] * 24, dtype=np.int64)


def positions(max_checkers: int) -> list[tuple]:
    """Every one-sided home-board position with 0..max_checkers checkers, as six counts."""
    out = []
    for n in range(max_checkers + 1):
        for combo in itertools.combinations_with_replacement(range(HOME), n):
            out.append(tuple(np.bincount(np.array(combo, dtype=np.int64), minlength=HOME).tolist()))
    return out


def is_bearoff(board, max_checkers: int) -> bool:
    """Whether ``board`` (two rows, side on roll in row 1) is a position this module solves."""
    b = np.asarray(board)
    return all(b[row, HOME:].sum() == 0 and 0 < b[row].sum() <= max_checkers for row in (0, 1))


def side_of(board, row: int) -> tuple:
    return tuple(int(x) for x in np.asarray(board)[row, :HOME])


def board_of(roller: tuple, opponent: tuple) -> np.ndarray:
    """The two-row board with ``roller`` on roll (row 1)."""
    b = np.zeros((2, 25), dtype=np.int64)
    b[1, :HOME] = roller
    b[0, :HOME] = opponent
    return b


@lru_cache(maxsize=None)
def moves(side: tuple, roll_index: int) -> tuple:
    """The distinct one-sided positions ``side`` can reach with ALL_ROLLS[roll_index]."""
    board = np.zeros((2, 25), dtype=np.int64)
    board[1, :HOME] = side
    board[0] = _OPPONENT_ROW  # one checker somewhere harmless: the opponent is still playing
    d1, d2 = (int(x) for x in ALL_ROLLS[roll_index])
    return tuple(sorted({side_of(after, 1) for _, after in be.legal_moves(board, d1, d2)}))


@lru_cache(maxsize=None)
def win_probability(roller: tuple, opponent: tuple) -> float:
    """P(the side on roll wins) with both sides playing to win, exactly (float64)."""
    if sum(roller) == 0:
        return 1.0  # already home (not reached from play: the game ended on the last move)
    if sum(opponent) == 0:
        return 0.0
    total = 0.0
    for r, w in enumerate(ROLL_WEIGHTS):
        best = 0.0
        for after in moves(roller, r):
            v = 1.0 if sum(after) == 0 else 1.0 - win_probability(opponent, after)
            if v > best:
                best = v
        total += w * best
    return total


def exact_win_probability(board) -> float:
    """P(win) of the side on roll of a two-row ``board`` that is a small bear-off."""
    b = np.asarray(board)
    if b[:, HOME:].sum() != 0 or b.sum(axis=1).min() == 0:
        raise ValueError(f"not a bear-off with checkers left on both sides: {be.position_id(b)}")
    return win_probability(side_of(b, 1), side_of(b, 0))
