"""Cube state shared by the cubeful modes: the cube node's decision, who may double and
the cube as the other side sees it (owner codes: encoding.CUBE_CENTERED/MINE/THEIRS)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS

# Money play has no limit on the cube; this one stops two untrained networks from
# redoubling forever (the value model never sees the cube's size, only its owner).
MAX_CUBE = 1024


class CubeAction(NamedTuple):
    double: np.ndarray  # the mover doubles
    take: np.ndarray  # the opponent would take (meaningful where double)
    value: np.ndarray  # the cube node's value for the mover


def can_double(owner: np.ndarray, cube=1) -> np.ndarray:
    """The side on roll may double when the cube is centred or its own (money: no Crawford)
    and below MAX_CUBE."""
    owner = np.asarray(owner)
    return ((owner == CUBE_CENTERED) | (owner == CUBE_MINE)) & (np.asarray(cube) < MAX_CUBE)


def owner_for_opponent(owner: np.ndarray) -> np.ndarray:
    """The same cube seen by the other side."""
    owner = np.asarray(owner)
    out = owner.copy()
    out[owner == CUBE_MINE] = CUBE_THEIRS
    out[owner == CUBE_THEIRS] = CUBE_MINE
    return out
