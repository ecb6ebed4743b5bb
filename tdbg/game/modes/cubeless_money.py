"""Money play with the cube centred (cube 1 throughout)."""
from __future__ import annotations

from tdbg.game.modes.base import GameMode
from tdbg.game.modes.dmp import DMP


class CubelessMoney(GameMode):
    """Money play with the cube centred: 1/2/3 points for single/gammon/backgammon."""
    name = "cubeless-money"
    outputs: tuple[str, ...] = ("equity", "prob5")

    def mode_for(self, output_mode):
        return DMP() if output_mode == "probability" else self

    def _hint(self, output_mode):
        return "; warm-start it with --warm-start-equity" if output_mode == "probability" else ""
