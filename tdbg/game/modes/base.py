"""The game mode interface (GameMode); each mode is one module of this package.

Every value is from the side on roll.  A game mode holds the game: what a finished
game is worth and everything that follows from it; behaviour that differs between
modes lives in the mode's class, and nothing outside this package (and the model
modules: heads.py, model.py) compares mode names.  A mode knows

* its network inputs (``n_inputs``, ``cube_inputs``) and the output heads that can
  play it (``outputs``, the default first; heads.py says how each head states a value);
* what a player maximises (``objective``) and what a result is worth
  (``points``: DMP +-1, money 1/2/3 times the cube, Jacoby in cubeful money);
* whether and how the cube is used (``may_double``, ``cube_action``: the one cube
  rule), and the cube state: as the mover sees it (``mover_state``: also how a position
  from outside the game, a parsed ID or a live game, is read), as the other side sees it;
* what callers elsewhere need of its kind, asked as one check rather than by reading
  ``cubeful`` or ``is_match`` (``require``).

How results are counted and stated, and how gnubg is set up for a mode, belong to the
layers that do it, in small tables keyed by the mode's class (``for_mode``):
tdbg.play.units (what a series counts), tdbg.play.matches (the points of a mode's
matches), tdbg.play.metrics (headline numbers, value text), tdbg.play.evaluation
(summaries, quick evaluations), tdbg.play.model_fit (which networks and agents play the
mode, and the advice when one does not fit), tdbg.net.model (the input layout checkpoints
record), tdbg.gnubg.gnubg_rules.

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

import numpy as np

from tdbg.game.cube import CubeAction, owner_for_opponent
from tdbg.game.encoding import CUBE_CENTERED, CUBE_THEIRS
from tdbg.game.heads import prob5_equity


class GameMode:
    name = ""
    cubeful = False  # cube nodes and cube inputs
    is_match = False  # the cube-owner slot holds a whole match state (matchplay.py)
    take_scale = (
        1.0  # a value after a take, in the units of the value before it (lambda_returns.py)
    )
    n_inputs = 196
    outputs: tuple[str, ...] = ()  # output heads that can play this mode; the first is the default

    def mover_state(
        self, owner: int, cube: int, crawford: bool = False, away: tuple = (0, 0)
    ) -> np.ndarray:
        """The cube state an agent of this mode sees as the mover, from the cube's owner (its
        view), the cube, and in match play the Crawford flag and the points each side needs
        (the mover's first; (0, 0) out of a match); ValueError for a state this mode cannot
        read (money models refuse a match score: their equities mean nothing there)."""
        return np.array([owner])

    def __init__(self, jacoby: bool = True):
        self.jacoby = jacoby

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.jacoby == other.jacoby

    def __hash__(self) -> int:
        return hash((type(self), self.jacoby))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(jacoby={self.jacoby})"

    # ------------------------------------------------------------------ values and points

    def objective(self, probs: np.ndarray) -> np.ndarray:
        """What a player of this mode maximises, read from five cubeless probabilities
        (P(win), P(win gammon), P(win bg), P(lose gammon), P(lose bg)) of the mover."""
        return prob5_equity(np.asarray(probs, dtype=np.float64))

    def value_points(self, value: np.ndarray) -> np.ndarray:
        """An ``objective`` value in points from the mover's side (cube 1)."""
        return value

    def points(self, result: np.ndarray | int, owner=None) -> np.ndarray:
        """Points (at cube 1) for game results +-1/2/3 from game_result(); ``owner`` is
        the cube owner (cubeful modes)."""
        return np.asarray(result, dtype=np.float64)

    def result_points(self, result) -> float:
        """Points of a finished game for its winner, gammons counted (cube 1, no Jacoby)."""
        return float(abs(result))

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

    @classmethod
    def require(cls, message: str, *, cube: bool | None = None, match: bool | None = None) -> None:
        """ValueError(``message``) unless this mode has a cube (``cube=True``) or none
        (``cube=False``), and plays matches (``match=True``) or single games (``match=False``);
        None asks nothing.  What a setting, an agent or a caller outside this package needs
        of the mode's kind, asked as one check rather than by reading ``cubeful`` or
        ``is_match`` (callable on the class, before the mode is built)."""
        if (cube is not None and cls.cubeful != cube) or (
            match is not None and cls.is_match != match
        ):
            raise ValueError(message)
