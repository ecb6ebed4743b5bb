"""gnubg-nn-cubeful: a money-game opponent with cube decisions from GNU Backgammon 1.08's
networks, without the gnubg binary.

Why gnubg-nn and not the PyPI ``gnubg`` module (1.1.0a16, same gnubg.wd): that module's
``hint()`` refuses cube positions ("Hints for cube actions not yet implemented"), and its
``evaluate(board, cubeinfo, evalcontext(cubeful=1))`` returned the cubeless equity (the
same number for every cube owner and value, +1.58 for a gammonish cash position with
a centred cube under Jacoby), so it offers no cubeful money decision to call.
gnubg-nn's ``evaluate_cube_decision`` does make gnubg's cube decision, for match play
only ("Not implemented for money"); as PureTD does, money is approximated by a long
match at 0-0 (25 points, the longest its match equity table holds).  Two differences
from money play follow, and one is corrected:

* Jacoby: in a match, undoubled gammons count, so gnubg-nn may call a centred-cube
  position "too good to double"; under Jacoby an undoubled gammon is worth one point,
  so a position the opponent would pass is doubled (what the binary's ``hint`` says).
* cube ownership and value: every decision is evaluated as an initial double (cube 1,
  centred) at 0-0; redoubles are therefore somewhat loose.

Checker play is gnubg-nn's cubeless money choice (GnubgNNAgent in cubeless money).
"""

from __future__ import annotations

import numpy as np

from tdbg.game.encoding import CUBE_CENTERED
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.cubeless_money import CubelessMoney
from tdbg.play.agents import GnubgNNAgent
from tdbg.play.evaluator import Evaluator, PlaysOnly

MATCH_LENGTH = 25  # gnubg-nn's match equity table ends here (longer scores give garbage)


class GnubgNNCubefulAgent(PlaysOnly, Evaluator):
    cube_capable = True

    def __init__(self, mode: GameMode, plies: int = 0):
        mode.require(
            "gnubg-nn-cubeful plays cubeful money only; use gnubg-nn for DMP and cubeless money",
            cube=True,
        )
        self.mode, self.plies = mode, plies
        self.checkers = GnubgNNAgent(CubelessMoney(mode.jacoby), plies)
        self.name = "gnubg-nn-cubeful" + (f"-{plies}ply" if plies else "")

    def choose_moves(
        self, boards: np.ndarray, dice: np.ndarray, owner: np.ndarray | None = None
    ) -> np.ndarray:
        return self.checkers.choose_moves(boards, dice)

    def cube_decisions(self, boards, owner) -> np.ndarray:
        """(n, 2) bools, double and take, for positions with the doubler on roll in row 1."""
        import gnubg_nn

        gnubg_nn.set.score(MATCH_LENGTH, MATCH_LENGTH)
        out = np.zeros((len(boards), 2), dtype=bool)
        for k, (b, own) in enumerate(
            zip(np.asarray(boards).tolist(), np.asarray(owner).tolist(), strict=True)
        ):
            double, take, too_good = gnubg_nn.evaluate_cube_decision(
                gnubg_nn.key_of_board(b), n=self.plies, i=1
            )[:3]
            if too_good and not take and self.mode.jacoby and own == CUBE_CENTERED:
                double = 1  # an undoubled gammon counts once under Jacoby: cash it
            out[k] = bool(double), bool(take)
        return out

    def double_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return self.cube_decisions(boards, owner)[:, 0]

    def take_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return self.cube_decisions(boards, owner)[:, 1]
