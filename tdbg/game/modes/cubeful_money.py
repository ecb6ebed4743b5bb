"""Cubeful money: the cube as actions (see tdbg.game.modes.base's notes), Jacoby by default."""
from __future__ import annotations

import numpy as np

from tdbg.game.cube import CubeAction, can_double, owner_for_opponent
from tdbg.game.encoding import CUBE_CENTERED, cube_features
from tdbg.game.modes.cubeless_money import CubelessMoney
from tdbg.infra.stats import CAP, pair_means, summary_ci


class CubefulMoney(CubelessMoney):
    """Money play with the cube as actions (see the module notes); Jacoby by default."""
    name = "cubeful-money"
    cubeful = True
    n_inputs = 200
    layout = "tesauro196+cube4"
    outputs: tuple[str, ...] = ("equity",)
    take_scale = 2.0       # values are normalised to the cube: after a take, one unit is two before

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
        return CubeAction(v_double > v_no_double, 2.0 * v_take < 1.0, np.maximum(v_no_double, v_double))

    def cube_options(self, v_no_double, v_take, state=None) -> tuple:
        """(no double, double/take, double/pass) for the doubler, in the units of the node's
        value (here normalised to the current cube: a take doubles, a pass wins it)."""
        v_take = np.asarray(v_take)
        return np.asarray(v_no_double), 2.0 * v_take, np.ones_like(v_take)

    def check_agent(self, agent):
        if not agent.cube_capable:
            raise ValueError(f"{agent.name} makes no cube decisions, so it cannot play cubeful money")

    def without_cube(self):
        return CubelessMoney()

    def eval_mode(self, cube_opponent):
        """Cubeful money itself against an opponent with a cube (gnubg-nn-cubeful); against
        the others, cubeless money: chequer play by an objective the net was not trained on
        (there every gammon counts; under Jacoby a centred-cube gammon counts once)."""
        return self if cube_opponent else self.without_cube()

    def eval_result(self, summary):
        """Points per game capped at +-CAP, as the cubeful summaries also report them: an
        early net that doubles every turn against an opponent that takes sends the cube
        past 1,000, and one such game would swamp a 1,000-game mean."""
        m = summary["capped_meq_per_game"]
        return tuple(None if m[k] is None else m[k] / 1000 for k in ("mean", "ci_low", "ci_high"))

    def eval_label(self, opponent, cube_opponent=False):
        if cube_opponent:
            return f"points/game vs {opponent} (cubeful money, capped at +-{CAP:g})", 0.0
        return super().eval_label(opponent)

    def mode_for(self, output_mode):
        return self

    def _hint(self, output_mode):
        return {"probability": "; warm-start a cubeless model with --warm-start-cubeful",
                "prob5": "; prob5 models play cubeless money only"}.get(output_mode, "")

    def _input_hint(self):
        return "; warm-start it with --warm-start-cubeful"

    def summarize(self, idx, pts, res, records, seed, n_boot=2000):
        out = super().summarize(idx, pts, res, records, seed, n_boot)
        capped = np.clip(pts, -CAP, CAP)
        out["capped_meq_per_game"] = summary_ci(pair_means(idx, capped), n_boot, seed, scale=1000)
        for key in ("doubles", "takes", "drops"):
            counts = np.array([getattr(r, key) for r in records])
            out[f"{key}_per_game"] = {"a": float(counts[:, 0].mean()), "b": float(counts[:, 1].mean())}
        return out
