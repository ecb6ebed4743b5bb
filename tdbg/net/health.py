"""Unit health: how much of a network's hidden capacity is in use, and reviving what is not.

A ReLU unit that is never positive on any position the network meets is *dead*: its
output is always zero, so it contributes nothing and, its gradient being zero as well,
training never brings it back.  Large learning rates kill units early (a from-scratch
net at Adam 1e-3 loses some within a few thousand episodes), and growth by copying
hands dead units on to the bigger net.  So a net's real size is its live, distinct units.

* ``health_positions(model, mode)``: the fixed sample the measures are taken on: every
  pre-roll position of ``HEALTH_GAMES`` games the net plays greedily against itself
  (seeded dice: the same net always gets the same sample), encoded as its inputs.  About
  8,800 positions for a trained net; never fewer than ``MIN_POSITIONS`` (more games are
  played until there are).
* ``unit_health(model, inputs)``: per hidden layer, its width, dead units, distinct units
  (twins.py: units whose incoming weights point the same way count once) and the mean
  over its units of the fraction of positions each fires on.  ``UnitHealth.text()``
  prints it as the tools and logs show it.
* ``revive_dead(model, inputs, seed)``: a copy in which every dead unit has fresh
  incoming weights at the scale of a new layer (torch's default: uniform within
  1/sqrt(fan_in), bias too) and zero outgoing weights.  A dead unit adds nothing to
  the output and a revived one has no path to it yet, so the function is unchanged on
  the sample exactly (off the sample, only where a "dead" unit would have fired).
  Layers are revived first to last on the weights the previous step left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from tdbg.game.encoding import NUM_FEATURES
from tdbg.net.model import TDNetwork, move_filter_of, set_move_filter
from tdbg.net.scoring import Scorer, greedy_game_decisions
from tdbg.net.twins import TWIN_COSINE, distinct_units, next_weights

HEALTH_GAMES = 150  # greedy self-play games whose positions make the sample
HEALTH_SEED = 20_261_206  # their dice: fixed, so one net always meets the same positions
MIN_POSITIONS = 5_000  # a sample smaller than this is topped up with more games


@dataclass(frozen=True)
class UnitHealth:
    """Per hidden layer: ``widths``, ``dead`` (never positive on the sample), ``distinct``
    (twins counted once) and ``active`` (mean over the layer's units of the fraction of
    positions each is positive on); ``positions``: the sample's size."""

    widths: tuple[int, ...]
    dead: tuple[int, ...]
    distinct: tuple[int, ...]
    active: tuple[float, ...]
    positions: int

    def text(self) -> str:
        return (
            f"dead [{'/'.join(map(str, self.dead))}] of [{'/'.join(map(str, self.widths))}], "
            f"distinct [{'/'.join(map(str, self.distinct))}], active "
            f"[{'/'.join(f'{a:.2f}' for a in self.active)}] (on {self.positions:,} self-play positions)"
        )

    def log_fields(self) -> dict:
        """The CSV log's columns: one cell each, layers separated by '/'."""
        return {
            "dead_units": "/".join(map(str, self.dead)),
            "distinct_units": "/".join(map(str, self.distinct)),
            "active_fraction": "/".join(f"{a:.4f}" for a in self.active),
        }

    def as_dict(self) -> dict:
        return {
            "widths": list(self.widths),
            "dead": list(self.dead),
            "distinct": list(self.distinct),
            "active": [round(a, 6) for a in self.active],
            "positions": self.positions,
            "twin_cosine": TWIN_COSINE,
        }


HEALTH_LOG_FIELDS = ["dead_units", "distinct_units", "active_fraction"]


def health_positions(
    model: TDNetwork, mode, games: int = HEALTH_GAMES, seed: int = HEALTH_SEED, engine: str = "c"
) -> torch.Tensor:
    """The encoded pre-roll positions of ``games`` greedy self-play games of ``model`` in
    game mode ``mode`` (more games until there are MIN_POSITIONS), each encoded as the net
    read it when it chose the move that made it; (positions, inputs)."""
    was_training = model.training
    scorer = Scorer(model.eval(), mode, engine=engine)
    rng = np.random.default_rng(seed)
    boards: list[np.ndarray] = []
    states: list[np.ndarray] = []  # none in a mode without a cube
    count = 0  # (more games while count < MIN_POSITIONS)
    while count < MIN_POSITIONS:
        b, _, st = greedy_game_decisions(scorer, games, rng, with_states=True)
        boards.append(b)
        if st is not None:
            states.append(st)
        count += len(b)
    model.train(was_training)
    if not states:
        return torch.from_numpy(scorer.encode_states(np.concatenate(boards)))
    # each position with the cube inputs the net read when it valued it: as the after-state of the
    # previous move (the mode's reply_cube_inputs of the previous mover's state)
    owner = np.concatenate(states)
    feats = scorer.encode_states(np.concatenate(boards), owner, np.zeros(count))
    feats[:, NUM_FEATURES : scorer.base_inputs] = mode.reply_cube_inputs(mode.for_opponent(owner))
    return torch.from_numpy(feats)


def played_inputs(scorer: Scorer, boards: np.ndarray, dice: np.ndarray, owner=None) -> torch.Tensor:
    """Every candidate after-state of the decisions (``boards``, ``dice``, cube states
    ``owner`` or None) encoded as the net reads it when it values them: the opponent on
    roll, the cube as the opponent sees it.  A wider sample than health_positions, for a
    revival that must keep every value the net computes in play."""
    after, offsets, _, _ = scorer.score(boards, dice, owner)
    after = np.ascontiguousarray(after[:, ::-1])
    if owner is None:
        return torch.from_numpy(scorer.encode_states(after))
    owner = np.repeat(np.asarray(owner), np.diff(offsets))
    feats = scorer.encode_states(after, owner, np.zeros(len(after)))
    feats[:, NUM_FEATURES : scorer.base_inputs] = scorer.mode.reply_cube_inputs(owner)
    return torch.from_numpy(feats)


@torch.no_grad()
def firing_rates(model: TDNetwork, inputs: torch.Tensor) -> list[torch.Tensor]:
    """For each hidden layer, the fraction of ``inputs`` on which each unit is positive."""
    rates, x = [], inputs.to(model.layers[0].weight.dtype)
    for layer in model.layers:
        x = model.act(layer(x))
        rates.append((x > 0).double().mean(dim=0))
    return rates


def unit_health(model: TDNetwork, inputs: torch.Tensor) -> UnitHealth:
    """Dead, distinct and active units of each hidden layer on the positions ``inputs``."""
    rates = firing_rates(model, inputs)
    return UnitHealth(
        widths=tuple(model.hidden),
        dead=tuple(int((r == 0).sum()) for r in rates),
        distinct=tuple(distinct_units(model)),
        active=tuple(float(r.mean()) for r in rates),
        positions=len(inputs),
    )


def measure_health(model: TDNetwork, mode) -> UnitHealth:
    """unit_health on the net's own sample (health_positions)."""
    return unit_health(model, health_positions(model, mode))


@torch.no_grad()
def revive_dead(
    model: TDNetwork, inputs: torch.Tensor, seed: int = 0
) -> tuple[TDNetwork, list[int]]:
    """A copy of ``model`` with its dead units (on ``inputs``) given fresh incoming weights
    and zero outgoing weights (module notes); and the units revived in each layer."""
    revived = TDNetwork(model.n_inputs, model.hidden, model.output_mode, model.activation)
    revived.load_state_dict(model.state_dict())
    set_move_filter(revived, move_filter_of(model))
    generator = torch.Generator().manual_seed(seed)
    counts = []
    # measured once: a revived unit's zero outgoing weights leave every later layer's activations as they were
    for i, (layer, rates) in enumerate(
        zip(revived.layers, firing_rates(model, inputs), strict=True)
    ):
        dead = torch.nonzero(rates == 0).flatten()
        bound = 1.0 / math.sqrt(layer.in_features)  # torch's default init for a Linear layer
        n = len(dead)
        if n:
            layer.weight[dead] = (
                (torch.rand(n, layer.in_features, generator=generator, dtype=torch.float64) * 2 - 1)
                .mul(bound)
                .to(layer.weight.dtype)
            )
            layer.bias[dead] = (
                (torch.rand(n, generator=generator, dtype=torch.float64) * 2 - 1)
                .mul(bound)
                .to(layer.bias.dtype)
            )
            next_weights(revived, i)[:, dead] = 0.0
        counts.append(n)
    return revived, counts
