"""Dice: the 21 distinct rolls and their weights, and every way the project draws rolls.

* ``ALL_ROLLS`` / ``ROLL_WEIGHTS``: the 21 rolls (d1 <= d2) and their probabilities
  (doubles 1/36, others 2/36), the order every 1-ply backup and luck table uses;
  ``OPENING_WEIGHTS``: the same rolls for the opening roll, which is never a double;
* ``roll_dice``: a batch of rolls from one generator (self-play, online TD);
* ``DiceStream``: one game's (or duplicate pair's) rolls from its own seed, so head-to-head
  results do not depend on how games are split over workers;
* ``RolloutDice``: rollout dice, stratified over the first two plies.
"""

from __future__ import annotations

import numpy as np

# the 21 distinct rolls and their probabilities (doubles 1/36, others 2/36)
ALL_ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)], dtype=np.int8)
ROLL_WEIGHTS = np.array([1 / 36 if d1 == d2 else 2 / 36 for d1, d2 in ALL_ROLLS])
# the opening roll is never a double: the 15 others, equally likely
OPENING_WEIGHTS = np.where(ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1], 0.0, 1.0 / 15)
_ROLL_INDEX = {(int(a), int(b)): i for i, (a, b) in enumerate(ALL_ROLLS)}


def roll_index(dice: np.ndarray) -> np.ndarray:
    """Index into ALL_ROLLS of each (N, 2) roll, in either die order."""
    d = np.sort(np.asarray(dice), axis=1)
    return np.array([_ROLL_INDEX[(int(a), int(b))] for a, b in d], dtype=np.int64)


def roll_dice(rng: np.random.Generator, n: int, opening: np.ndarray | None = None) -> np.ndarray:
    """(n, 2) dice; rows flagged ``opening`` are re-rolled until not a double (the opening roll)."""
    dice = rng.integers(1, 7, (n, 2))
    if opening is not None:
        redo = opening & (dice[:, 0] == dice[:, 1])
        while redo.any():
            dice[redo] = rng.integers(1, 7, (int(redo.sum()), 2))
            redo = opening & (dice[:, 0] == dice[:, 1])
    return dice


class DiceStream:
    """The rolls of one game (or duplicate pair), drawn lazily from a seeded generator."""

    def __init__(self, seed: int, pair: int, game: int | None = None):
        # game: the game's number within a match (matches.py), its own stream
        self.rng = np.random.default_rng([seed, pair] if game is None else [seed, pair, game])
        first = self.rng.integers(1, 7, 2)
        while first[0] == first[1]:
            first = self.rng.integers(1, 7, 2)
        self.rolls = [first]

    def roll(self, i: int) -> np.ndarray:
        while len(self.rolls) <= i:
            self.rolls.extend(self.rng.integers(1, 7, (64, 2)))
        return self.rolls[i]


ORDERED_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int64)
DICE_BLOCK = 64  # plies of dice drawn at a time, from (seed, block): the same for every candidate


class RolloutDice:
    """Dice for trial t at ply p, identical for every rollout made with the same seed (so
    candidate moves are compared on the same dice).  The first two plies are stratified:
    trial t throws first roll ``first[t mod 36]`` and second roll
    ``second[(t div 36 + shift[t mod 36]) mod 36]``, with ``first``/``second`` random
    orders of the 36 rolls and ``shift`` random offsets drawn from the seed, so that 1,296
    trials throw every pair of opening rolls once, and any number of trials is unbiased
    (each trial's dice are uniform over the draw of orders and shifts)."""

    def __init__(self, trials: int, seed: int):
        self.trials, self.seed = trials, seed
        self.blocks: list[np.ndarray] = []
        rng = np.random.default_rng([seed, 1 << 30])
        self.first, self.second = rng.permutation(36), rng.permutation(36)
        self.shift = rng.integers(0, 36, 36)

    def __call__(self, trial: np.ndarray, ply: np.ndarray) -> np.ndarray:
        trial, ply = np.asarray(trial, dtype=np.int64), np.asarray(ply, dtype=np.int64)
        need = int(ply.max()) // DICE_BLOCK + 1 if len(ply) else 0
        while len(self.blocks) < need:
            rng = np.random.default_rng([self.seed, len(self.blocks)])
            self.blocks.append(rng.integers(1, 7, (self.trials, DICE_BLOCK, 2)))
        out = np.empty((len(trial), 2), dtype=np.int64)
        later = ply >= 2
        for b in np.unique(ply[later] // DICE_BLOCK):
            k = later & (ply // DICE_BLOCK == b)
            out[k] = self.blocks[b][trial[k], ply[k] % DICE_BLOCK]
        cls = trial % 36
        out[ply == 0] = ORDERED_ROLLS[self.first[cls[ply == 0]]]
        s = ply == 1
        out[s] = ORDERED_ROLLS[self.second[(trial[s] // 36 + self.shift[cls[s]]) % 36]]
        return out
