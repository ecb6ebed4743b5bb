"""Money play with the cube centred (cube 1 throughout)."""

from __future__ import annotations

from tdbg.game.modes.base import GameMode


class CubelessMoney(GameMode):
    """Money play with the cube centred: 1/2/3 points for single/gammon/backgammon."""

    name = "cubeless-money"
    outputs: tuple[str, ...] = ("equity", "prob5")

    def position_owner(self, state):
        if state.match_length:
            raise ValueError(
                f"a match position (match to {state.match_length}) needs match equities; "
                f"this is a {self.name} model"
            )
        return state.owner
