"""Growing and re-purposing trained networks without losing what they know.

* Net2Net width expansion: a new unit copies an existing unit's incoming weights;
  the copies' outgoing weights share the original's out of random fractions that
  sum to one.  The function is unchanged, and unequal shares break the symmetry
  between copies so they can learn different things.
* Depth expansion: a square layer with identity weights and zero bias appended
  after the last hidden layer.  Its input is a ReLU output (non-negative), so
  ReLU(I x) = x and the function is unchanged.
* Warm starts: DMP -> cubeless equity keeps the trunk and puts a fresh linear
  equity head on it; cubeless -> cubeful grows the first layer from 196 to 200
  inputs with zero weights on the cube inputs, so play is unchanged at first.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from model import TDNetwork


def _copy_model(model: TDNetwork, n_inputs=None, hidden=None, output_mode=None) -> TDNetwork:
    return TDNetwork(n_inputs or model.n_inputs, hidden or model.hidden, output_mode or model.output_mode)


def plan_expansion(old: list[int], new: list[int]) -> None:
    """Raise ValueError unless ``new`` widens ``old`` and/or appends square layers."""
    if len(new) < len(old):
        raise ValueError(f"--expand {','.join(map(str, new))} has fewer layers than the model's "
                         f"{','.join(map(str, old))}; layers can only be added")
    for i, (a, b) in enumerate(zip(old, new)):
        if b < a:
            raise ValueError(f"--expand cannot narrow hidden layer {i + 1} from {a} to {b}")
    last = new[len(old) - 1]
    for b in new[len(old):]:
        if b != last:
            raise ValueError(f"depth expansion appends square layers only: a new layer after width "
                             f"{last} must have {last} units, got {b}")


@torch.no_grad()
def expand(model: TDNetwork, new_hidden: list[int], seed: int = 0) -> TDNetwork:
    """A function-preserving copy of ``model`` with hidden sizes ``new_hidden``."""
    old_hidden = list(model.hidden)
    plan_expansion(old_hidden, new_hidden)
    rng = np.random.default_rng(seed)
    widths = new_hidden[: len(old_hidden)]
    grown = _copy_model(model, hidden=widths + new_hidden[len(old_hidden):])

    # weights as (out, in) matrices, layer by layer, head last
    weights = [layer.weight.clone() for layer in model.layers] + [model.head.weight.clone()]
    biases = [layer.bias.clone() for layer in model.layers] + [model.head.bias.clone()]
    for i, new_w in enumerate(widths):
        old_w = weights[i].shape[0]
        if new_w == old_w:
            continue
        # mapping: unit j of the new layer copies unit source[j] of the old one
        source = np.concatenate([np.arange(old_w), rng.integers(0, old_w, new_w - old_w)])
        weights[i] = weights[i][source]
        biases[i] = biases[i][source]
        # each original's outgoing weight is split among its copies by random fractions
        share = rng.uniform(0.25, 1.0, new_w)
        totals = np.bincount(source, weights=share, minlength=old_w)
        frac = torch.tensor(share / totals[source], dtype=weights[i + 1].dtype)
        weights[i + 1] = weights[i + 1][:, source] * frac[None, :]
    for k, layer in enumerate(grown.layers[: len(old_hidden)]):
        layer.weight.copy_(weights[k])
        layer.bias.copy_(biases[k])
    for layer in grown.layers[len(old_hidden):]:
        layer.weight.copy_(torch.eye(layer.weight.shape[0]))
        layer.bias.zero_()
    grown.head.weight.copy_(weights[-1])
    grown.head.bias.copy_(biases[-1])
    return grown


@torch.no_grad()
def warm_start_equity(model: TDNetwork, seed: int = 0) -> TDNetwork:
    """Same trunk, fresh linear equity head (DMP probability -> cubeless money equity)."""
    if model.n_inputs != 196:
        raise ValueError(f"--warm-start-equity needs a 196-input model, got {model.n_inputs} inputs")
    if model.output_mode != "probability":
        raise ValueError(f"--warm-start-equity expects a DMP probability model, this one is {model.output_mode}")
    new = _copy_model(model, output_mode="equity")
    for dst, src in zip(new.layers, model.layers):
        dst.load_state_dict(src.state_dict())
    gen = torch.Generator().manual_seed(seed)
    bound = 1.0 / np.sqrt(new.head.in_features)
    new.head.weight.copy_((torch.rand(new.head.weight.shape, generator=gen) * 2 - 1) * bound * 0.1)
    new.head.bias.zero_()
    return new


@torch.no_grad()
def warm_start_cubeful(model: TDNetwork, seed: int = 0) -> TDNetwork:
    """200-input copy: the four cube inputs get zero weights, so outputs are unchanged."""
    if model.n_inputs != 196:
        raise ValueError(f"--warm-start-cubeful needs a 196-input cubeless model, got {model.n_inputs} inputs")
    if model.output_mode != "equity":
        raise ValueError(f"--warm-start-cubeful needs an equity (cubeless money) model, got a "
                         f"{model.output_mode} model; warm-start it with --warm-start-equity first")
    new = _copy_model(model, n_inputs=200)
    new.load_state_dict({k: v for k, v in model.state_dict().items() if k != "layers.0.weight"}, strict=False)
    first: nn.Linear = new.layers[0]
    first.weight.zero_()
    first.weight[:, :196].copy_(model.layers[0].weight)
    return new


@torch.no_grad()
def warm_start_match(model: TDNetwork, seed: int = 0) -> TDNetwork:
    """A match model (208 inputs, MWC head) from a cubeful money model: the trunk is kept,
    the eight match inputs start with zero weights, and the head is doubled so that the
    sigmoid reads the money equity e as MWC ~ (1 + e) / 2 near e = 0 (sigmoid(2e) has
    slope 1/2 there)."""
    if model.n_inputs != 200 or model.output_mode != "equity":
        raise ValueError(f"--warm-start-match needs a cubeful money model (200 inputs, equity), got "
                         f"{model.n_inputs} inputs, {model.output_mode}")
    new = _copy_model(model, n_inputs=208, output_mode="mwc")
    for i, (dst, src) in enumerate(zip(new.layers, model.layers)):
        if i:
            dst.load_state_dict(src.state_dict())
    first: nn.Linear = new.layers[0]
    first.weight.zero_()
    first.weight[:, :200].copy_(model.layers[0].weight)
    first.bias.copy_(model.layers[0].bias)
    new.head.weight.copy_(2 * model.head.weight)
    new.head.bias.copy_(2 * model.head.bias)
    return new


# the warm starts by the flag that asks for them (training_loop.build_model)
WARM_STARTS = {"warm_start_equity": warm_start_equity, "warm_start_cubeful": warm_start_cubeful,
               "warm_start_match": warm_start_match}
