"""Hand-made board features, in the spirit of gnubg's contact inputs, for both sides.

Tesauro's 196 raw inputs say where the checkers are; they leave the network to discover
that a blot six pips in front of an enemy checker is hit 17 times in 36, or that a checker
behind a five-point prime rarely escapes.  The diagnostics in experiments/limits/ found
the [512,512,256] DMP net limited by how precisely it ranks close candidates on the raw
inputs, and gnubg's contact net reads 250 inputs, many of them computed like these.

Each side gets ``FEATURES_PER_SIDE`` numbers, computed from that side's own view (it
moves from point 24 down to 1, the opponent moves up through the same points):

== ================= =====================================================================
0  pips              pip count / 167 (167: the starting count)
1  hit_chance        chance, over the 36 rolls, that the opponent can hit one of its blots
                     next roll (direct and combination shots through open points; rules on
                     the opponent's bar checkers simplified, see ``_hits``)
2  pip_loss          mean over the 36 rolls of the most pips a hit could cost it / 24
3  back_checker      its rearmost checker's point / 25 (the bar is 25)
4  back_anchor       its rearmost point with two or more checkers / 24 (0: none)
5  contact_pips      pips its checkers still need to get past the opponent's rearmost checker
                     / 152 (0 once contact is broken)
6  prime             longest run of consecutive points with two or more checkers / 6 (capped)
7  home_points       points made in its home board (1-6) / 6
8  escape            chance that its rearmost checker can reach a point in front of every
                     opponent point made within 12 pips ahead of it (1 when none is)
9  blots             its blots (single checkers on points) / 15
== ================= =====================================================================

``board_features(boards)`` returns (N, 2 * FEATURES_PER_SIDE) for boards with row 1 on
roll: the side on roll's features first, then the opponent's.  All numbers are in [0, 1].
"""

from __future__ import annotations

import numpy as np

from tdbg.game import movegen
from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS

FEATURES_PER_SIDE = 10
NUM_BOARD_FEATURES = 2 * FEATURES_PER_SIDE
FEATURE_NAMES = (
    "pips",
    "hit_chance",
    "pip_loss",
    "back_checker",
    "back_anchor",
    "contact_pips",
    "prime",
    "home_points",
    "escape",
    "blots",
)


def _shift_up(x: np.ndarray, d: int) -> np.ndarray:
    """y -> x[y - d] along the last axis (zeros where y - d < 0)."""
    out = np.zeros_like(x)
    out[..., d:] = x[..., :-d]
    return out


def _reach_not_doubles(src, src_board, from_bar, open_, bar, d1: int, d2: int) -> np.ndarray:
    """(N, 26) bool: the points x the opponent's checkers can reach with the roll d1-d2
    (d1 != d2), each row by how many of them are on the bar (``bar``): none, a die directly
    or both dice through an open point; one, the entering checker (and on), or another
    checker with the die left where that die's entry point is open; two or more, only the
    entering checkers.  For ``_hits``: all positions at once, one roll a call."""
    direct = _shift_up(src, d1) | _shift_up(src, d2)
    combo = _shift_up(src, d1 + d2) & (_shift_up(open_, d2) | _shift_up(open_, d1))
    # one on the bar: it enters and may go on; another checker may use the die left
    one_up = _shift_up(from_bar, d1) | _shift_up(from_bar, d2)
    one_up |= _shift_up(from_bar, d1 + d2) & (open_[:, d1 : d1 + 1] | open_[:, d2 : d2 + 1])
    one_up |= _shift_up(src_board, d1) & open_[:, d2 : d2 + 1]
    one_up |= _shift_up(src_board, d2) & open_[:, d1 : d1 + 1]
    two_up = _shift_up(from_bar, d1) | _shift_up(from_bar, d2)
    return np.where(
        (bar == 0)[:, None], direct | combo, np.where((bar == 1)[:, None], one_up, two_up)
    )


def _reach_doubles(src_board, from_bar, open_, bar, d: int) -> np.ndarray:
    """(N, 26) bool: the points x the opponent's checkers can reach with double ``d``: the
    dice left after its bar checkers enter (none where the entry point is made), each step
    through an open point; the entering checker itself may go on with them.  For ``_hits``:
    all positions at once, one roll a call."""
    entered = open_[:, d]  # a bar checker can come in at all
    free = np.where(bar > 0, np.where(entered, 4 - bar, 0), 4).clip(
        0, 4
    )  # dice left after entering
    reach = np.zeros_like(src_board)
    path = src_board.copy()  # board checkers: k steps of d through open points
    for k in range(1, 5):
        path = _shift_up(path, d)
        reach |= path & (free >= k)[:, None]
        path &= open_
    # the entering checker: up to free + 1 steps
    path = from_bar & (bar > 0)[:, None] & entered[:, None]
    for k in range(1, 5):
        path = _shift_up(path, d)
        reach |= path & (k <= free + 1)[:, None]
        path &= open_
    return reach


def _hits(own: np.ndarray, opp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(chance of being hit, mean pips lost) for the side with checkers ``own`` (N, 25: points
    1-24 then bar, its own numbering) against ``opp`` (the opponent's, in its own numbering).

    In the side's coordinates y = 1..24 its point y; the opponent's checkers sit at
    x = 25 - (their point) and move up, from x = 0 (their bar) to 24.  A roll hits when some
    opponent checker reaches one of the side's blots: a die directly, or the dice in either
    order (all four for doubles) through points the side has not made.  The opponent's bar
    checkers must come in first: with two or more up (non-doubles) only entering checkers
    hit; with one up, the entering checker may go on, and another checker may use the other
    die if that die's entry point is open; with doubles, the dice left after entering.
    (gnubg's own rules are exact; these are close enough for an input.)"""
    n = len(own)
    pts = np.zeros((n, 26), dtype=np.int16)  # index y: own checkers on point y (1..24)
    pts[:, 1:25] = own[:, :24]
    blot = pts == 1
    made = pts >= 2
    src = np.zeros((n, 26), dtype=bool)  # index x: opponent checkers at x
    src[:, 1:25] = opp[:, 23::-1] > 0  # their point p (index p-1) is x = 25 - p
    bar = opp[:, 24].astype(np.int64)
    src[:, 0] = bar > 0
    src_board = src.copy()
    src_board[:, 0] = False
    from_bar = np.zeros_like(src)
    from_bar[:, 0] = True
    loss = np.arange(26, dtype=np.float64)[None, :]
    loss = np.where((loss >= 1) & (loss <= 24), 25.0 - loss, 0.0)  # pips lost when hit on point y
    hit_p = np.zeros(n)
    pip_loss = np.zeros(n)
    open_ = ~made
    for (d1, d2), w in zip(ALL_ROLLS.tolist(), ROLL_WEIGHTS, strict=True):
        if d1 != d2:
            reach = _reach_not_doubles(src, src_board, from_bar, open_, bar, d1, d2)
        else:
            reach = _reach_doubles(src_board, from_bar, open_, bar, d1)
        hit_y = reach & blot
        hit_y[:, 25] = False
        any_hit = hit_y.any(axis=1)
        hit_p += w * any_hit
        pip_loss += w * np.where(hit_y, loss, 0.0).max(axis=1)
    return hit_p, pip_loss / 24.0


def _side_features(own: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """(N, FEATURES_PER_SIDE) for the side with checkers ``own``, both in their own numbering."""
    n = len(own)
    points = np.arange(1, 26)
    out = np.zeros((n, FEATURES_PER_SIDE), dtype=np.float32)
    out[:, 0] = (own * points).sum(axis=1) / 167.0
    out[:, 1], out[:, 2] = _hits(own, opp)
    on = own > 0
    back = np.where(
        on.any(axis=1), 25 - np.argmax(on[:, ::-1], axis=1), 0
    )  # highest occupied point
    out[:, 3] = back / 25.0
    made = own[:, :24] >= 2
    out[:, 4] = np.where(made.any(axis=1), 24 - np.argmax(made[:, ::-1], axis=1), 0) / 24.0
    # opponent's rearmost checker, in this side's numbering: their highest point p sits at 25 - p
    opp_on = opp > 0
    opp_back = np.where(
        opp_on.any(axis=1), 25 - np.argmax(opp_on[:, ::-1], axis=1), 0
    )  # their point (bar 25)
    front = 25 - opp_back  # this side's point of that checker (0 for their bar)
    beyond = np.clip(points[None, :] - front[:, None], 0, None)
    out[:, 5] = (own * beyond).sum(axis=1) / 152.0
    run = np.zeros(n, dtype=np.int64)
    best = np.zeros(n, dtype=np.int64)
    for i in range(24):
        run = np.where(made[:, i], run + 1, 0)
        best = np.maximum(best, run)
    out[:, 6] = np.minimum(best, 6) / 6.0
    out[:, 7] = made[:, :6].sum(axis=1) / 6.0
    out[:, 8] = _escape(own, opp, back)
    out[:, 9] = (own[:, :24] == 1).sum(axis=1) / 15.0
    return out


def _escape(own: np.ndarray, opp: np.ndarray, back: np.ndarray) -> np.ndarray:
    """Chance that the checker on point ``back`` (25: the bar) can move, alone, to a point in
    front of every opponent point made within 12 pips ahead of it (1 if there is none)."""
    n = len(own)
    blocked = np.zeros((n, 26), dtype=bool)  # index = this side's point
    blocked[:, 1:25] = opp[:, 23::-1] >= 2  # their point p is this side's 25 - p
    idx = np.arange(26)
    ahead = (
        (idx[None, :] < back[:, None]) & (idx[None, :] >= back[:, None] - 12) & (idx[None, :] >= 1)
    )
    wall = np.where(
        (blocked & ahead).any(axis=1), np.where(blocked & ahead, idx[None, :], 99).min(axis=1), 0
    )
    out = np.zeros(n)
    rows = np.arange(n)
    for (d1, d2), w in zip(ALL_ROLLS.tolist(), ROLL_WEIGHTS, strict=True):
        steps = [d1, d2] if d1 != d2 else [d1] * 4
        ok = np.zeros(n, dtype=bool)
        for order in [steps] if d1 == d2 else [steps, steps[::-1]]:
            pos = back.copy()
            alive = np.ones(n, dtype=bool)
            for s in order:
                pos = pos - s
                alive &= pos >= 1
                alive &= ~blocked[rows, np.clip(pos, 0, 25)]
                ok |= alive & (pos < wall)
        out += w * ok
    return np.where(wall == 0, 1.0, out)


def board_features_numpy(boards, on_roll_row: int = 1) -> np.ndarray:
    """(N, 2, 25) boards with row ``on_roll_row`` on roll -> (N, NUM_BOARD_FEATURES) float32:
    the side on roll's FEATURES_PER_SIDE features, then the opponent's.  The reference the
    C engine's version is tested against."""
    b = np.asarray(boards).reshape(-1, 2, 25).astype(np.int64)
    me, them = (b[:, 1], b[:, 0]) if on_roll_row else (b[:, 0], b[:, 1])
    return np.concatenate([_side_features(me, them), _side_features(them, me)], axis=1)


def board_features(boards, on_roll_row: int = 1) -> np.ndarray:
    """As ``board_features_numpy``, by the C engine when it is built (about 40x faster)."""
    if movegen.c_available():
        from tdbg.game import c_engine

        return c_engine.board_features(boards, on_roll_row)
    return board_features_numpy(boards, on_roll_row)
