"""Game modes and value conventions.

Every value is from the side on roll.  Two separate ideas live here:

* the *game mode* says what a finished game is worth: DMP (a win is a win),
  cubeless money (1/2/3 points for single/gammon/backgammon) and cubeful money
  (the same times the cube; with the Jacoby rule gammons count only once the
  cube has been turned);
* the *output representation* says how a network states a value: ``probability``
  (P(win)), ``equity`` (points at cube 1) or ``prob5`` (five probabilities).
  ``flip`` turns a value for one side into the value for the other, ``scalar``
  reads it as the number to maximise, ``terminal`` is the exact value of a game
  just won by the side that moved.

Cubeful money treats cube decisions as ordinary transitions.  A turn whose mover
may double starts at a *cube node* (is_cube_action = 1): no-double leads to the
same board with is_cube_action = 0 (the roll and checker play follow), double
leads to the opponent's choice between drop (the game ends, the doubler wins the
cube value) and take (same board, cube doubled and owned by the taker).  Values
are normalised to the current cube value, so a take is worth twice the value of
the post-take position.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS

GAME_MODES = ("dmp", "cubeless-money", "cubeful-money")
OUTPUT_FOR_MODE = {
    "dmp": ("probability",),
    "cubeless-money": ("equity", "prob5"),
    "cubeful-money": ("equity",),
}


@dataclass(frozen=True)
class GameMode:
    name: str
    jacoby: bool = True

    @property
    def cubeful(self) -> bool:
        return self.name == "cubeful-money"

    @property
    def n_inputs(self) -> int:
        return 200 if self.cubeful else 196

    @property
    def default_output(self) -> str:
        return OUTPUT_FOR_MODE[self.name][0]

    def objective(self, probs: np.ndarray) -> np.ndarray:
        """What a player of this mode maximises, read from five cubeless probabilities
        (P(win), P(win gammon), P(win bg), P(lose gammon), P(lose bg)) of the mover:
        P(win) in DMP, where only winning counts; cubeless equity in money play."""
        probs = np.asarray(probs, dtype=np.float64)
        if self.name == "dmp":
            return probs[..., 0]
        return prob5_equity(probs)

    def points(self, result: np.ndarray, cube_centered=True) -> np.ndarray:
        """Points (at cube 1) for game results +-1/2/3 from game_result()."""
        result = np.asarray(result, dtype=np.float64)
        if self.name == "dmp":
            return np.sign(result)
        if self.cubeful and self.jacoby:
            return np.where(np.asarray(cube_centered), np.sign(result), result)
        return result


def game_mode(name: str, jacoby: bool = True) -> GameMode:
    if name not in GAME_MODES:
        raise ValueError(f"unknown game mode {name!r}; choose one of {', '.join(GAME_MODES)}")
    return GameMode(name, jacoby)


def check_model_for_mode(output_mode: str, n_inputs: int, mode: GameMode) -> None:
    """ValueError when a network of this kind cannot play or train ``mode``."""
    if output_mode not in OUTPUT_FOR_MODE[mode.name]:
        hint = {
            ("probability", "cubeless-money"): "; warm-start it with --warm-start-equity",
            ("probability", "cubeful-money"): "; warm-start a cubeless model with --warm-start-cubeful",
            ("prob5", "cubeful-money"): "; prob5 models play cubeless money only",
        }.get((output_mode, mode.name), "")
        raise ValueError(f"a {output_mode} model cannot be used for {mode.name}{hint}")
    if n_inputs != mode.n_inputs:
        hint = "; warm-start it with --warm-start-cubeful" if mode.cubeful else ""
        raise ValueError(f"{mode.name} needs a {mode.n_inputs}-input model, this one has {n_inputs}{hint}")


# --------------------------------------------------------------------------- value representations

class Values:
    """How one output representation flips, reads and scores values (numpy, batched)."""

    def __init__(self, output_mode: str):
        self.output_mode = output_mode

    def flip(self, v: np.ndarray) -> np.ndarray:
        """Value for the other side."""
        if self.output_mode == "probability":
            return 1.0 - v
        if self.output_mode == "equity":
            return -v
        # prob5: my win = their loss; my gammons are their lost gammons
        return np.stack([1.0 - v[:, 0], v[:, 3], v[:, 4], v[:, 1], v[:, 2]], axis=1)

    def scalar(self, v: np.ndarray) -> np.ndarray:
        """The number a player maximises: P(win) or equity."""
        if self.output_mode == "prob5":
            return prob5_equity(v)
        return v

    def terminal(self, points: np.ndarray) -> np.ndarray:
        """Exact value for the side that just won ``points`` (1..3, already per game mode)."""
        points = np.asarray(points, dtype=np.float64)
        if self.output_mode == "probability":
            return np.ones_like(points)
        if self.output_mode == "equity":
            return points
        return np.stack([np.ones_like(points), points >= 2, points >= 3,
                         np.zeros_like(points), np.zeros_like(points)], axis=1).astype(np.float64)

    @property
    def width(self) -> int:
        return 5 if self.output_mode == "prob5" else 1


def prob5_equity(v: np.ndarray) -> np.ndarray:
    """Cubeless equity of prob5 outputs: 2 P(win) + P(wg) + P(wbg) - P(lg) - P(lbg) - 1."""
    v = np.asarray(v)
    return 2 * v[..., 0] + v[..., 1] + v[..., 2] - v[..., 3] - v[..., 4] - 1


# --------------------------------------------------------------------------- cube state

# Money play has no limit on the cube; this one stops two untrained networks from
# redoubling forever (the value model never sees the cube's size, only its owner).
MAX_CUBE = 1024


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
