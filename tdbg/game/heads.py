"""Output heads: how a network states a value, one class per head.

Every value is from the side on roll.  A head knows

* its width and how its values ``flip`` to the other side;
* the ``scalar`` a player maximises (P(win), or equity) and the ``terminal``
  value of a game just won by the side that moved;
* how a scalar reads in points (``points_of``: P(win) -> 2 P(win) - 1);
* the game mode a checkpoint of it plays by default, how its values are printed,
  and whether its value is the five outcome probabilities themselves
  (``five_outcomes``: played through play.prob_agent, trained with losses.prob5_loss).

``output_head(name)`` gives the head for a checkpoint's ``output_mode``; nothing
outside this module and the model compares those names.
"""

from __future__ import annotations

import numpy as np


class OutputHead:
    name = ""
    width = 1  # values per position
    net_outputs = 1  # the network's output units (more where the head reads them out)
    reads_payoffs = False  # the value is read out through match play's payoff inputs
    default_mode = "cubeless-money"  # the game mode of a checkpoint that does not say
    value_name = "Eq."  # how analysis labels a value
    value_format, delta_format = "{:+.3f}", "{:+.3f}"
    five_outcomes = False  # the value is P(win), P(wg), P(wbg), P(lg), P(lbg) themselves

    def flip(self, v: np.ndarray) -> np.ndarray:
        """Value for the other side."""
        raise NotImplementedError

    def scalar(self, v: np.ndarray) -> np.ndarray:
        """The number a player maximises."""
        return v

    def terminal(self, points: np.ndarray) -> np.ndarray:
        """Exact value for the side that just won ``points`` (1..3, already per game mode)."""
        raise NotImplementedError

    def points_of(self, scalar: np.ndarray) -> np.ndarray:
        """A scalar value in points from the mover's side (cube 1)."""
        return scalar

    def win_probability(self, v: np.ndarray) -> np.ndarray:
        """P(win) of the side on roll where the head states it (nan otherwise)."""
        return np.full(len(v), np.nan)

    def net_gammons(self, v: np.ndarray) -> np.ndarray:
        """P(win a gammon or more) - P(lose one) where the head states them (nan otherwise)."""
        return np.full(len(v), np.nan)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ProbabilityHead(OutputHead):
    """P(win): DMP."""

    name = "probability"
    default_mode = "dmp"
    value_name = "P(win)"
    value_format, delta_format = "{:.4f}", "{:+.4f}"

    def flip(self, v):
        return 1.0 - v

    def terminal(self, points):
        return np.ones_like(np.asarray(points, dtype=np.float64))

    def points_of(self, scalar):
        return 2.0 * scalar - 1.0

    def win_probability(self, v):
        return np.asarray(v, dtype=np.float64).reshape(-1)


class MwcHead(ProbabilityHead):
    """Match-winning chance of the side on roll (match play); a finished game's value
    depends on the score, so the game mode supplies it (MatchPlay.terminal_values)."""

    name = "mwc"
    default_mode = "match"
    value_name = "MWC"

    def terminal(self, points):
        raise ValueError(
            "a finished game's match-winning chance depends on the score: "
            "ask the match mode (terminal_values)"
        )

    def win_probability(self, v):
        return np.full(len(v), np.nan)


class MwcOutcomesHead(MwcHead):
    """Match-winning chance read out through the score: the network states the game's
    outcome probabilities (as prob5: P(win), P(wg), P(wbg), P(lg), P(lbg), consistent by
    construction) and the MWC is their sum weighted by the six payoff inputs, the MWC of
    each outcome at this score and cube (model.outcome_mwc).  The network then learns one
    board evaluation for every score; the plain ``mwc`` head has to build the product of
    outcome chances and payoffs out of ReLUs, which it does poorly at lopsided scores
    (experiments/match/cube_bias.py)."""

    name = "mwc-outcomes"
    net_outputs = 5
    reads_payoffs = True


class EquityHead(OutputHead):
    """Points at cube 1: money play (cubeless or cubeful, normalised to the cube)."""

    name = "equity"

    def flip(self, v):
        return -v

    def terminal(self, points):
        return np.asarray(points, dtype=np.float64)


class Prob5Head(OutputHead):
    """Five probabilities: P(win), P(win gammon), P(win bg), P(lose gammon), P(lose bg)."""

    name = "prob5"
    width = 5
    five_outcomes = True
    net_outputs = 5

    def flip(self, v):
        # my win = their loss; my gammons are their lost gammons
        return np.stack([1.0 - v[:, 0], v[:, 3], v[:, 4], v[:, 1], v[:, 2]], axis=1)

    def scalar(self, v):
        return prob5_equity(v)

    def win_probability(self, v):
        return np.asarray(v)[:, 0]

    def net_gammons(self, v):
        return np.asarray(v)[:, 1] - np.asarray(v)[:, 3]

    def terminal(self, points):
        points = np.asarray(points, dtype=np.float64)
        return np.stack(
            [
                np.ones_like(points),
                points >= 2,
                points >= 3,
                np.zeros_like(points),
                np.zeros_like(points),
            ],
            axis=1,
        ).astype(np.float64)


def prob5_equity(v: np.ndarray) -> np.ndarray:
    """Cubeless equity of prob5 outputs: 2 P(win) + P(wg) + P(wbg) - P(lg) - P(lbg) - 1."""
    v = np.asarray(v)
    return 2 * v[..., 0] + v[..., 1] + v[..., 2] - v[..., 3] - v[..., 4] - 1


HEADS = {
    cls.name: cls() for cls in (ProbabilityHead, EquityHead, Prob5Head, MwcHead, MwcOutcomesHead)
}
OUTPUT_MODES = tuple(HEADS)


def output_head(name: str) -> OutputHead:
    if name not in HEADS:
        raise ValueError(f"unknown output mode {name!r}; choose one of {', '.join(OUTPUT_MODES)}")
    return HEADS[name]
