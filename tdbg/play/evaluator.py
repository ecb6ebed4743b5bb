"""The one interface of everything that values positions or plays them: a network at 0, 1
or 2 plies (td_agent.TDAgent, prob_agent.ProbAgent), gnubg-nn at its plies
(agents.GnubgNNAgent), gnubg-nn's cube (gnubg_cube_agent.GnubgNNCubefulAgent), pubeval and
random (agents.py).  Series, rollouts, luck, analysis and the gnubg bridge take an
``Evaluator``; ``seating.evaluator(player, mode)`` is the one way to make one.

Boards are gnubg's two rows of 25 with the side on roll in row 1, many at once: (n, 2, 25).
``owner`` is each mover's cube state from its own view (the cube owner; in match play the
packed match state); None means a centred cube.  Values are in the game mode's points from
the mover's side with the cube at 1 (DMP: 2 P(win) - 1; a finished game: its result).

* ``choose_moves(boards, dice, owner=None)`` -> after-states (n, 2, 25), the mover still in
  row 1: the play the evaluator makes for each roll (at its own depth);
* ``double_decisions(boards, owner)`` / ``take_decisions(boards, owner)`` -> bool (n,):
  offer a double now, take one (``boards`` and ``owner`` from the doubler's view).  Only
  where ``cube_capable``; elsewhere they raise NotImplementedError (a network without a
  cube: ValueError);
* ``all_rolls(boards, owner=None)`` -> (values (n, 21), best after-states (n, 21, 2, 25)):
  each of the 21 rolls (dice.ALL_ROLLS) with its 0-ply best move and that move's value.
  Its mean weighted by dice.ROLL_WEIGHTS is the position's 1-ply all-rolls value, and what
  luck (the thrown roll's value minus that mean) and rollouts are made of;
* ``after_values(afters)`` -> (n,): the mover's 0-ply value of after-states (the mover in
  row 1, the opponent to roll);
* ``position_values(boards)`` -> (points, P(win), net gammons), each (n,), of the side on
  roll (nan where the evaluator does not say).

The last three are there where ``values_positions``; elsewhere (random, pubeval, gnubg-nn's
cube) they raise ValueError.  ``plays_own_0ply``: ``choose_moves`` makes the 0-ply best
move ``all_rolls`` lists (a rollout then takes it from there, one pass for both).
"""

from __future__ import annotations

from typing import NoReturn, Protocol, runtime_checkable

import numpy as np

from tdbg.game.modes.base import GameMode


@runtime_checkable
class Evaluator(Protocol):
    """What plays a side and values positions; the module notes give the contract."""

    name: str
    mode: GameMode
    cube_capable: bool
    values_positions: bool
    plays_own_0ply: bool

    def choose_moves(
        self, boards: np.ndarray, dice: np.ndarray, owner: np.ndarray | None = None
    ) -> np.ndarray:
        """The after-state each mover plays for its roll."""
        ...

    def double_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """Whether each mover doubles now, before rolling (cube_capable only)."""
        ...

    def take_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """Whether each double is taken; boards and owner from the doubler's view (cube_capable only)."""
        ...

    def all_rolls(
        self, boards: np.ndarray, owner: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(values (n, 21), after-states (n, 21, 2, 25)): every roll's 0-ply best move and its value."""
        ...

    def after_values(self, afters: np.ndarray) -> np.ndarray:
        """The mover's 0-ply value of each after-state."""
        ...

    def position_values(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(points, P(win), net gammons) of the side on roll."""
        ...


class NoCubeDecisions:
    """For an evaluator that makes no cube decisions (``cube_capable`` False)."""

    name: str
    cube_capable = False

    def double_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{self.name} makes no cube decisions")

    def take_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{self.name} makes no cube decisions")


class PlaysOnly:
    """For an evaluator that chooses moves but puts no value on positions (``values_positions``
    False): a luck judge or a rollout player needs one that does."""

    name: str
    values_positions = False
    plays_own_0ply = False

    def _refuse(self) -> NoReturn:
        raise ValueError(
            f"{self.name} plays; it does not value positions (a judge is a network or gnubg-nn)"
        )

    def all_rolls(
        self, boards: np.ndarray, owner: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        self._refuse()

    def after_values(self, afters: np.ndarray) -> np.ndarray:
        self._refuse()

    def position_values(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self._refuse()
