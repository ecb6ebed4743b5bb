"""Tesauro's perspective encoding: 196 network inputs, always from the side on roll.

Layout (row 1 of a board is the side on roll, "me"; row 0 is "them"):

====== =====================================================================
0..95  my points 1..24, four units each: n>=1, n>=2, n>=3, (n-3)/2 if n>3
96..191 their points 1..24 (their own numbering), the same four units each
192    my checkers on the bar / 2
193    my checkers borne off / 15
194    their checkers on the bar / 2
195    their checkers borne off / 15
====== =====================================================================

Cubeful models append four cube inputs (``CUBE_FEATURES``): cube centred, cube
owned by the side on roll, cube owned by the opponent (one-hot), and
is_cube_action (1 when the decision is a cube decision, 0 for a checker play).
Models may also read the 20 hand-made board features of ``features.py`` (hitting
chances, escapes, primes...), always as the last ``NUM_BOARD_FEATURES`` inputs, after
the cube and match inputs, so every slice above keeps its place (``reads_board_features``).
The C engine writes the same 196 numbers (``c_engine.encode_batch``); the tests
hold the two to identical arrays.
"""

from __future__ import annotations

import numpy as np

NUM_FEATURES = 196
CUBE_FEATURES = 4
NUM_CUBEFUL_FEATURES = NUM_FEATURES + CUBE_FEATURES

NUM_BOARD_FEATURES = 20  # features.NUM_BOARD_FEATURES (tests hold the two equal)
BASE_WIDTHS = (196, 200, 208)  # raw; + cube; + cube and match inputs

CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS = 0, 1, 2
# match play's six payoff inputs (matchplay.py): the mover's MWC after winning a single game,
# a gammon, a backgammon, then after losing each, at the current cube
MATCH_PAYOFFS = slice(NUM_CUBEFUL_FEATURES, NUM_CUBEFUL_FEATURES + 6)


def reads_board_features(n_inputs: int) -> bool:
    """Whether a network with ``n_inputs`` inputs ends with the board features."""
    return n_inputs - NUM_BOARD_FEATURES in BASE_WIDTHS


def _point_units(rows: np.ndarray) -> np.ndarray:
    """(N, 24) checker counts -> (N, 96) Tesauro units."""
    n = rows.astype(np.float32)
    units = np.empty(rows.shape + (4,), dtype=np.float32)
    units[..., 0] = n >= 1
    units[..., 1] = n >= 2
    units[..., 2] = n >= 3
    units[..., 3] = np.maximum(n - 3.0, 0.0) * 0.5
    return units.reshape(len(rows), 96)


def encode_batch(boards) -> np.ndarray:
    """(N, 2, 25) boards with row 1 on roll -> (N, 196) float32."""
    b = np.asarray(boards).reshape(-1, 2, 25)
    me, them = b[:, 1], b[:, 0]
    out = np.empty((len(b), NUM_FEATURES), dtype=np.float32)
    out[:, 0:96] = _point_units(me[:, :24])
    out[:, 96:192] = _point_units(them[:, :24])
    out[:, 192] = me[:, 24] * 0.5
    out[:, 193] = (15 - me.sum(axis=1)) / 15.0
    out[:, 194] = them[:, 24] * 0.5
    out[:, 195] = (15 - them.sum(axis=1)) / 15.0
    return out


def encode(board) -> np.ndarray:
    """One board with row 1 on roll -> (196,) float32."""
    return encode_batch(np.asarray(board)[None])[0]


def cube_features(owner, is_cube_action) -> np.ndarray:
    """(N, 4) cube inputs from owner codes (CUBE_CENTERED / CUBE_MINE / CUBE_THEIRS,
    seen from the side on roll) and 0/1 cube-action flags."""
    owner = np.asarray(owner, dtype=np.int64).reshape(-1)
    out = np.zeros((len(owner), CUBE_FEATURES), dtype=np.float32)
    out[np.arange(len(owner)), owner] = 1.0
    out[:, 3] = np.asarray(is_cube_action, dtype=np.float32).reshape(-1)
    return out


def encode_cubeful_batch(boards, owner, is_cube_action) -> np.ndarray:
    """(N, 200): the 196 board inputs followed by the four cube inputs."""
    return np.concatenate([encode_batch(boards), cube_features(owner, is_cube_action)], axis=1)
