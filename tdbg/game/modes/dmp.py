"""Double match point: a game is a 1-point match; values are P(win)."""
from __future__ import annotations

import numpy as np

from tdbg.game.modes.base import GameMode


class DMP(GameMode):
    """Double match point: only winning counts; values are P(win)."""
    name = "dmp"
    money = False
    outputs = ("probability",)
    metric = "win_rate"
    result_metric = "win"
    match_length = 1
    analysis_units = "MWC (1-point matches)"
    gnubg_plays = False   # gnubg has no DMP session

    def objective(self, probs):
        return np.asarray(probs, dtype=np.float64)[..., 0]

    def value_points(self, value):
        return 2.0 * value - 1.0

    def points(self, result, owner=None):
        return np.sign(np.asarray(result, dtype=np.float64))

    def result_points(self, result) -> float:
        return 1.0

    def metric_of_points(self, points):
        return (1.0 + points) / 2.0

    def summarize(self, idx, pts, res, records, seed, n_boot=2000):
        return {}

    def _hint(self, output_mode):
        return "; prob5 models play cubeless money only" if output_mode == "prob5" else ""

    def eval_label(self, opponent, cube_opponent=False):
        return f"win rate vs {opponent}", 0.5
