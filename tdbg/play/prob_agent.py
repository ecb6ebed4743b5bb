"""Plays a prob5 checkpoint (cubeless money only) at 0-ply or 1-ply.

Moves maximise the cubeless equity implied by the five outputs,
2 P(win) + P(wg) + P(wbg) - P(lg) - P(lbg) - 1; the 1-ply lookahead backs up
all five probabilities and then reads the equity.  A prob5 model has no cube
policy: asking it for cubeful play is an error.
"""

from __future__ import annotations

import numpy as np

from tdbg.game.heads import Prob5Head, output_head, prob5_equity
from tdbg.game.modes.base import GameMode
from tdbg.net.search import Search
from tdbg.play.td_agent import TDAgent


class ProbAgent(TDAgent):
    def __init__(self, model, mode: GameMode, search: Search = Search(), **kw):
        if not isinstance(output_head(model.output_mode), Prob5Head):
            raise ValueError(f"ProbAgent plays prob5 models, this one is {model.output_mode}")
        mode.require(
            "prob5 models play cubeless money only; they make no cube decisions", cube=False
        )
        super().__init__(model, mode, search, **kw)
        self.cube_capable = False

    def probabilities(self, boards) -> np.ndarray:
        """(N, 5) outputs for positions with row 1 on roll."""
        return self.scorer.state_values(np.asarray(boards))

    def equities(self, boards) -> np.ndarray:
        return prob5_equity(self.probabilities(boards))
