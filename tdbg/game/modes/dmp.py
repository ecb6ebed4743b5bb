"""Double match point: a game is a 1-point match; values are P(win)."""

from __future__ import annotations

import numpy as np

from tdbg.game.modes.base import GameMode


class DMP(GameMode):
    """Double match point: only winning counts; values are P(win)."""

    name = "dmp"
    outputs = ("probability",)

    def objective(self, probs):
        return np.asarray(probs, dtype=np.float64)[..., 0]

    def value_points(self, value):
        return 2.0 * value - 1.0

    def points(self, result, owner=None):
        return np.sign(np.asarray(result, dtype=np.float64))

    def result_points(self, result) -> float:
        return 1.0
