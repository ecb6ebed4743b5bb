"""Cubeful money: the cube as actions (see tdbg.game.modes.base's notes), Jacoby by default."""

from __future__ import annotations

import numpy as np

from tdbg.game.cube import CubeAction, can_double, owner_for_opponent
from tdbg.game.encoding import CUBE_CENTERED, cube_features
from tdbg.game.modes.cubeless_money import CubelessMoney


class CubefulMoney(CubelessMoney):
    """Money play with the cube as actions (see the module notes); Jacoby by default."""

    name = "cubeful-money"
    cubeful = True
    n_inputs = 200
    outputs: tuple[str, ...] = ("equity",)
    take_scale = 2.0  # values are normalised to the cube: after a take, one unit is two before

    def points(self, result, owner=None):
        result = np.asarray(result, dtype=np.float64)
        if not self.jacoby:
            return result
        centered = True if owner is None else np.asarray(owner) == CUBE_CENTERED
        return np.where(centered, np.sign(result), result)

    def cube_inputs(self, owner, is_cube_action):
        return cube_features(owner, is_cube_action)

    def reply_cube_inputs(self, owner):
        their_owner = owner_for_opponent(np.asarray(owner))
        return cube_features(their_owner, can_double(their_owner))

    def may_double(self, owner, cube):
        return can_double(owner, cube)

    def cube_action(self, v_no_double, v_take, state=None) -> CubeAction:
        """The one cube rule, on values normalised to the current cube: with v_nd the value
        of rolling on and v_take that of the position after a take (cube doubled, owned by
        the opponent), doubling is worth min(2 v_take, 1) (the opponent takes or drops,
        whichever is worse for us); double when that beats v_nd; take when 2 v_take < 1
        (taking loses less than the cube that dropping loses).  The node's value is
        max(v_nd, min(2 v_take, 1))."""
        v_double = np.minimum(2.0 * v_take, 1.0)
        return CubeAction(
            v_double > v_no_double, 2.0 * v_take < 1.0, np.maximum(v_no_double, v_double)
        )

    def cube_options(self, v_no_double, v_take, state=None) -> tuple:
        """(no double, double/take, double/pass) for the doubler, in the units of the node's
        value (here normalised to the current cube: a take doubles, a pass wins it)."""
        v_take = np.asarray(v_take)
        return np.asarray(v_no_double), 2.0 * v_take, np.ones_like(v_take)
