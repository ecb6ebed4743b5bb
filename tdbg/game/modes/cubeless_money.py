"""Money play with the cube centred (cube 1 throughout)."""

from __future__ import annotations

from tdbg.game.modes.base import GameMode


class CubelessMoney(GameMode):
    """Money play with the cube centred: 1/2/3 points for single/gammon/backgammon."""

    name = "cubeless-money"
    outputs: tuple[str, ...] = ("equity", "prob5")

    def mover_state(self, owner, cube, crawford=False, away=(0, 0)):
        if any(away):
            raise ValueError(
                f"a match position ({away[0]} and {away[1]} away) needs match equities; "
                f"this is a {self.name} model"
            )
        return super().mover_state(owner, cube, crawford, away)
