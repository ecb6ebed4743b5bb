"""Game modes as objects: DMP, cubeless money, cubeful money.

Every value is from the side on roll.  A game mode says what a finished game is
worth and everything that follows from it; behaviour that differs between modes
lives in the mode's class, and nothing outside this module (and the model
modules: heads.py, model.py) compares mode names.  A mode knows

* its network inputs (``n_inputs``, ``cube_inputs``) and the output heads that can
  play it (``outputs``; heads.py says how each head states a value);
* what a player maximises (``objective``) and what a result is worth
  (``points``: DMP +-1, money 1/2/3 times the cube, Jacoby in cubeful money);
* whether and how the cube is used (``may_double``, ``cube_action``: the one cube
  rule), and the cube state as the other side sees it;
* how a set of head-to-head results is summarised (``metric``, ``summarize``).

Cubeful money treats cube decisions as ordinary transitions.  A turn whose mover
may double starts at a *cube node* (is_cube_action = 1): no-double leads to the
same board with is_cube_action = 0 (the roll and checker play follow), double
leads to the opponent's choice between drop (the game ends, the doubler wins the
cube value) and take (same board, cube doubled and owned by the taker).  Values
are normalised to the current cube value, so a take is worth twice the value of
the post-take position.

Match play (matchplay.MatchPlay) is one more such class, with its state and inputs.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS, NUM_BOARD_FEATURES, cube_features
from heads import prob5_equity
from stats import CAP, bootstrap_ci, pair_means

# Money play has no limit on the cube; this one stops two untrained networks from
# redoubling forever (the value model never sees the cube's size, only its owner).
MAX_CUBE = 1024


class CubeAction(NamedTuple):
    double: np.ndarray   # the mover doubles
    take: np.ndarray     # the opponent would take (meaningful where double)
    value: np.ndarray    # the cube node's value for the mover


class GameMode:
    name = ""
    cubeful = False        # cube nodes and cube inputs
    money = True           # points per game (False: DMP, a game is a 1-point match)
    is_match = False       # the cube-owner slot holds a whole match state (matchplay.py)
    take_scale = 1.0       # a value after a take, in the units of the value before it (lambda_returns.py)
    n_inputs = 196
    outputs: tuple = ()    # output heads that can play this mode; the first is the default
    metric = "points_per_game"   # the summary's headline number
    result_metric = "points"     # results_file's metric for this mode
    match_length = 0             # .mat files: 0 = a money session
    analysis_units = "EMG"

    def __init__(self, jacoby: bool = True):
        self.jacoby = jacoby

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.jacoby == other.jacoby

    def __hash__(self) -> int:
        return hash((type(self), self.jacoby))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(jacoby={self.jacoby})"

    @property
    def default_output(self) -> str:
        return self.outputs[0]

    # ------------------------------------------------------------------ values and points

    def objective(self, probs: np.ndarray) -> np.ndarray:
        """What a player of this mode maximises, read from five cubeless probabilities
        (P(win), P(win gammon), P(win bg), P(lose gammon), P(lose bg)) of the mover."""
        return prob5_equity(np.asarray(probs, dtype=np.float64))

    def value_points(self, value: np.ndarray) -> np.ndarray:
        """An ``objective`` value in points from the mover's side (cube 1)."""
        return value

    def points(self, result: np.ndarray, owner=None) -> np.ndarray:
        """Points (at cube 1) for game results +-1/2/3 from game_result(); ``owner`` is
        the cube owner (cubeful modes)."""
        return np.asarray(result, dtype=np.float64)

    def result_points(self, result) -> float:
        """Points of a finished game for its winner, gammons counted (cube 1, no Jacoby)."""
        return float(abs(result))

    def metric_of_points(self, points: np.ndarray) -> np.ndarray:
        """Points per game in the summary's metric."""
        return points

    # ------------------------------------------------------------------ cube

    def cube_inputs(self, owner, is_cube_action):
        """The cube's network inputs (N, 4), or None when the mode has no cube."""
        return None

    def reply_cube_inputs(self, owner):
        """Cube inputs of after-states: the cube as the opponent, on roll next, sees it."""
        return None

    def may_double(self, owner: np.ndarray, cube: np.ndarray) -> np.ndarray:
        """Games whose mover may double now (before rolling)."""
        return np.zeros(len(owner), dtype=bool)

    def cube_action(self, v_no_double: np.ndarray, v_take: np.ndarray, state=None) -> CubeAction:
        raise ValueError(f"{self.name} has no cube")

    def cube_owner(self, state) -> np.ndarray:
        """CUBE_CENTERED / CUBE_MINE / CUBE_THEIRS of cube states (match play packs more in them)."""
        return np.asarray(state)

    def after_take(self, owner) -> np.ndarray:
        """The cube state (mover's view) after the opponent takes: doubled, theirs."""
        return np.full(len(owner), CUBE_THEIRS, dtype=np.int64)

    def for_opponent(self, owner) -> np.ndarray:
        """The same cube state seen by the other side (at each change of turn)."""
        return owner_for_opponent(owner)

    def initial_states(self, n: int, rng=None, turned: float = 0.0) -> np.ndarray:
        """Cube states of new games (match play: their scores, and with chance ``turned``
        a cube already turned; the other modes start centred)."""
        return np.full(n, CUBE_CENTERED, dtype=np.int64)

    def terminal_values(self, head, results, state) -> np.ndarray:
        """Exact values, in ``head``'s representation, of games just won by the mover with
        game_result() ``results`` (1/2/3) from the cube state ``state``."""
        return head.terminal(self.points(results, state))

    def check_agent(self, agent) -> None:
        """ValueError when ``agent`` cannot play this mode's games."""

    def seat(self, agent):
        """``agent`` adapted to this mode's table (match play seats a money player)."""
        return agent

    def without_cube(self) -> "GameMode":
        """The mode played when the cube stays centred (quick evaluations)."""
        return self

    # ------------------------------------------------------------------ models

    def mode_for(self, output_mode: str) -> "GameMode":
        """The mode a model with this head plays this mode's games in (itself, or DMP
        for a P(win) model in cubeless money: it ignores gammons)."""
        return self

    def check_model(self, output_mode: str, n_inputs: int) -> None:
        """ValueError when a network of this kind cannot play or train this mode."""
        if output_mode not in self.outputs:
            raise ValueError(f"a {output_mode} model cannot be used for {self.name}{self._hint(output_mode)}")
        if n_inputs not in (self.n_inputs, self.n_inputs + NUM_BOARD_FEATURES):   # raw, or + board features
            raise ValueError(f"{self.name} needs a {self.n_inputs}-input model, this one has {n_inputs}"
                             f"{self._input_hint()}")

    def _hint(self, output_mode: str) -> str:
        return ""

    def _input_hint(self) -> str:
        return ""

    # ------------------------------------------------------------------ summaries

    def summarize(self, idx: np.ndarray, pts: np.ndarray, res: np.ndarray, records, seed: int,
                  n_boot: int = 2000) -> dict:
        """The mode's entries of a head-to-head summary (besides games, win rate, abandoned);
        CIs from ``n_boot`` bootstrap resamples."""
        m, lo, hi = bootstrap_ci(pair_means(idx, pts), n_boot, seed=seed)
        out = {"points_per_game": {"mean": m, "ci_low": lo, "ci_high": hi}}
        out["meq_per_game"] = {k: 1000 * v for k, v in out["points_per_game"].items()}
        out["gammon_rate"] = float((res == 2).mean())
        out["backgammon_rate"] = float((res == 3).mean())
        return out

    def eval_label(self, opponent: str) -> tuple[str, float]:
        """(axis label, even result) for plots of quick evaluations."""
        return f"points/game vs {opponent} (cube centred)", 0.0


class DMP(GameMode):
    """Double match point: only winning counts; values are P(win)."""
    name = "dmp"
    money = False
    outputs = ("probability",)
    metric = "win_rate"
    result_metric = "win"
    match_length = 1
    analysis_units = "MWC (1-point matches)"

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

    def eval_label(self, opponent):
        return f"win rate vs {opponent}", 0.5


class CubelessMoney(GameMode):
    """Money play with the cube centred: 1/2/3 points for single/gammon/backgammon."""
    name = "cubeless-money"
    outputs = ("equity", "prob5")

    def mode_for(self, output_mode):
        return DMP() if output_mode == "probability" else self

    def _hint(self, output_mode):
        return "; warm-start it with --warm-start-equity" if output_mode == "probability" else ""


class CubefulMoney(CubelessMoney):
    """Money play with the cube as actions (see the module notes); Jacoby by default."""
    name = "cubeful-money"
    cubeful = True
    n_inputs = 200
    outputs = ("equity",)
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
        m, lo, hi = bootstrap_ci(pair_means(idx, capped), n_boot, seed=seed)
        out["capped_meq_per_game"] = {"mean": 1000 * m, "ci_low": 1000 * lo, "ci_high": 1000 * hi}
        for key, k in (("doubles", 0), ("takes", 1), ("drops", 2)):
            counts = np.array([getattr(r, key) for r in records])
            out[f"{key}_per_game"] = {"a": float(counts[:, 0].mean()), "b": float(counts[:, 1].mean())}
        return out


MODES = {cls.name: cls for cls in (DMP, CubelessMoney, CubefulMoney)}
GAME_MODES = tuple(MODES) + ("match",)


def game_mode(name: str, jacoby: bool = True, match_length: int = 0, met: str | None = None) -> GameMode:
    """The mode called ``name``; for match play ``match_length`` (1-25; 0: a spread of
    scores for training) and ``met``, a MET file (default: the shipped Kazaross-XG2).
    Match play's class lives in matchplay.py (it imports this module)."""
    if name == "match":
        from matchplay import MatchPlay
        return MatchPlay(length=match_length, met=met)
    if name not in MODES:
        raise ValueError(f"unknown game mode {name!r}; choose one of {', '.join(GAME_MODES)}")
    return MODES[name](jacoby)


# --------------------------------------------------------------------------- cube state

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
