"""Growing and re-purposing trained networks without losing what they know.

* Width expansion, two ways (``GROWTHS``):
  - ``fresh`` (the default, as PureTD grows its nets): each new unit gets random incoming
    weights (twins.fresh_rows) and zero outgoing weights, so the function is unchanged
    exactly and the new units start different from every existing one.  Their outgoing
    weights get gradient at once (the units are active on about half the inputs), and
    their incoming weights follow as the outgoing ones move away from zero.
  - ``net2net``: a new unit copies an existing unit's incoming weights, and the copies'
    outgoing weights share the original's out of random fractions that sum to one.  The
    function is unchanged, but the copies are *twins* (twins.py): under low-LR TD they
    stay parallel, so a net widened this way is narrower than it looks (a [128,128] net
    widened to [256,256,256] and trained 7M episodes kept about [176, 213, 256] distinct
    units).  Kept for comparison and to read old lineages.
* Depth expansion appends layers after the last hidden layer h (ReLU nets only:
  the constructions rest on ReLU(z) = z for z >= 0, and h >= 0).
  - As wide as h (or wider): identity weights plus small noise (``DEEPEN_NOISE``, so
    no two of the new layer's units start as exact pass-throughs of the same scale),
    zero bias, so ReLU((I + E) h) is close to h: a trained [128,128] net grown to
    [256,256,256] moves its P(win) by 1e-4 on average, at most 1e-3 (a wider one is
    then widened as above).
  - Narrower (e.g. [512,512] -> [512,512,256]): the head is linear in h, so each
    output o is a sum of a positive and a negative part, w_o.h = P_o - N_o with
    P_o = sum of w_oi h_i over w_oi > 0 and N_o = sum of |w_oi| h_i over w_oi < 0,
    both >= 0 and so unchanged by a ReLU.  The new layer's units split those sums
    into parts: output o gets about width / outputs units, half summing disjoint
    groups of its positive terms, half of its negative ones (h's units dealt out
    round-robin), and the new head weights are +1 / -1 on its own units.  Each unit
    adds a bias eps, taken back out by the head's bias, so that no unit sits at
    ReLU's kink (where it would get no gradient).  The function is preserved exactly
    (to float rounding) whenever width >= 2 x outputs (2 for scalar heads, 10 for
    prob5); every unit starts as an active, non-negative summary of h.
* Warm starts: DMP -> cubeless equity keeps the trunk and puts a fresh linear
  equity head on it; cubeless -> cubeful grows the first layer from 196 to 200
  inputs with zero weights on the cube inputs, so play is unchanged at first.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from tdbg.game.encoding import BASE_WIDTHS, NUM_BOARD_FEATURES, reads_board_features
from tdbg.game.heads import EquityHead, MwcHead, MwcOutcomesHead, ProbabilityHead, output_head
from tdbg.net.model import TDNetwork, move_filter_of, set_move_filter
from tdbg.net.twins import fresh_rows


def _base_inputs(model: TDNetwork) -> int:
    """The model's inputs before the board features (features.py), if it reads them."""
    return model.n_inputs - (NUM_BOARD_FEATURES if reads_board_features(model.n_inputs) else 0)


def _carry_first_layer(new: TDNetwork, model: TDNetwork) -> None:
    """``new``'s first layer = ``model``'s, with zero weights on the inputs ``new`` adds
    (after the model's base inputs, before its board features, which keep their weights)."""
    base, extra = _base_inputs(model), model.n_inputs - _base_inputs(model)
    w = new.layers[0].weight
    w.zero_()
    w[:, :base].copy_(model.layers[0].weight[:, :base])
    if extra:
        w[:, new.n_inputs - extra :].copy_(model.layers[0].weight[:, base:])
    new.layers[0].bias.copy_(model.layers[0].bias)


def _copy_model(model: TDNetwork, n_inputs=None, hidden=None, output_mode=None) -> TDNetwork:
    return TDNetwork(
        n_inputs or model.n_inputs,
        hidden or model.hidden,
        output_mode or model.output_mode,
        model.activation,
    )


NARROW_BIAS = 0.01  # eps: keeps a narrowed layer's units above ReLU's kink (see the module notes)
DEEPEN_NOISE = 1e-4  # std of the noise added to a new identity layer's weights
GROWTHS = ("fresh", "net2net")  # how widening makes its new units (see the module notes)


def plan_expansion(
    old: list[int], new: list[int], activation: str = "relu", n_outputs: int = 1
) -> None:
    """Raise ValueError unless ``new`` widens ``old`` and/or appends layers that can
    preserve the function."""
    if len(new) < len(old):
        raise ValueError(
            f"--expand {','.join(map(str, new))} has fewer layers than the model's "
            f"{','.join(map(str, old))}; layers can only be added"
        )
    for i, (a, b) in enumerate(zip(old, new, strict=False)):  # new may append layers
        if b < a:
            raise ValueError(f"--expand cannot narrow hidden layer {i + 1} from {a} to {b}")
    if len(new) > len(old) and activation != "relu":
        raise ValueError(
            f"depth expansion needs ReLU hidden units (a new layer passes its input through "
            f"unchanged only where ReLU(z) = z); this model's are {activation}"
        )
    for b in new[len(old) :]:
        if b < 2 * n_outputs:
            raise ValueError(
                f"a new layer needs at least {2 * n_outputs} units to carry the head's "
                f"{n_outputs} output(s) (a positive and a negative part each), got {b}"
            )


@torch.no_grad()
def expand(
    model: TDNetwork, new_hidden: list[int], seed: int = 0, growth: str = "fresh"
) -> TDNetwork:
    """A copy of ``model`` with hidden sizes ``new_hidden``, its function preserved (exactly
    by widening, within about 1e-3 by an added identity layer); ``growth``
    says how new units are made (GROWTHS).  Its move filter (model.py), if any, rides
    along unchanged (it reads the same inputs and does not depend on the main network's
    widths)."""
    if growth not in GROWTHS:
        raise ValueError(f"unknown growth {growth!r}; choose one of {', '.join(GROWTHS)}")
    grown = _expand(model, new_hidden, seed, growth)
    set_move_filter(grown, move_filter_of(model))
    return grown


@torch.no_grad()
def _expand(model: TDNetwork, new_hidden: list[int], seed: int, growth: str) -> TDNetwork:
    old_hidden = list(model.hidden)
    plan_expansion(old_hidden, new_hidden, model.activation, model.n_outputs)
    rng = np.random.default_rng(seed)
    widths = new_hidden[: len(old_hidden)]
    if len(new_hidden) > len(old_hidden):  # widen first, then one new layer at a time
        model = _expand(model, widths, seed, growth)
        for k, width in enumerate(new_hidden[len(old_hidden) :]):
            last = model.hidden[-1]
            model = _append_layer(model, min(width, last), rng)
            if width > last:
                model = _expand(model, model.hidden[:-1] + [width], seed + 1 + k, growth)
        return model
    if growth == "fresh":
        return _widen_fresh(model, widths, seed)
    grown = _copy_model(model, hidden=widths)

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
    for k, layer in enumerate(grown.layers):
        layer.weight.copy_(weights[k])
        layer.bias.copy_(biases[k])
    grown.head.weight.copy_(weights[-1])
    grown.head.bias.copy_(biases[-1])
    return grown


@torch.no_grad()
def _widen_fresh(model: TDNetwork, widths: list[int], seed: int) -> TDNetwork:
    """``model`` widened to ``widths``: the old units keep their weights, each new unit
    gets random incoming weights (from every unit of the layer below, new ones too) and
    zero outgoing weights."""
    grown = _copy_model(model, hidden=widths)
    generator = torch.Generator().manual_seed(seed)
    old = [layer for layer in model.layers] + [model.head]
    new = [layer for layer in grown.layers] + [grown.head]
    for k, (dst, src) in enumerate(zip(new, old, strict=True)):
        dst.weight.zero_()
        dst.weight[: src.out_features, : src.in_features].copy_(src.weight)
        dst.bias.zero_()
        dst.bias[: src.out_features].copy_(src.bias)
        if k < len(widths):
            fresh_rows(dst, range(src.out_features, dst.out_features), generator)
    return grown


@torch.no_grad()
def _append_layer(model: TDNetwork, width: int, rng: np.random.Generator) -> TDNetwork:
    """``model`` with a ReLU layer of ``width`` <= the last hidden width appended before the
    head, the function unchanged (the module notes say how)."""
    last = model.hidden[-1]
    grown = _copy_model(model, hidden=list(model.hidden) + [width])
    for dst, src in zip(grown.layers, model.layers, strict=False):  # the appended layer is new
        dst.load_state_dict(src.state_dict())
    new, head = grown.layers[-1], grown.head
    if width == last:
        noise = torch.from_numpy(rng.normal(0.0, DEEPEN_NOISE, (last, last))).to(new.weight.dtype)
        new.weight.copy_(torch.eye(last) + noise)
        new.bias.zero_()
        head.load_state_dict(model.head.state_dict())
        return grown
    w_head, b_head = model.head.weight, model.head.bias  # (outputs, last)
    outputs = w_head.shape[0]
    new.weight.zero_()
    head.weight.zero_()
    new.bias.fill_(NARROW_BIAS)
    head.bias.copy_(b_head)
    per_output = np.diff(np.linspace(0, width, outputs + 1).astype(int))  # units for each output
    unit = 0
    for o in range(outputs):
        groups = per_output[o] // 2
        for sign, n_groups in ((1.0, per_output[o] - groups), (-1.0, groups)):
            terms = np.flatnonzero((sign * w_head[o].numpy()) > 0)
            terms = terms[rng.permutation(len(terms))]
            for g in range(n_groups):
                part = torch.from_numpy(terms[g::n_groups])
                new.weight[unit, part] = sign * w_head[o, part]
                head.weight[o, unit] = sign
                head.bias[o] -= sign * NARROW_BIAS
                unit += 1
    return grown


@torch.no_grad()
def warm_start_equity(
    model: TDNetwork, seed: int = 0, keep_output_layer: bool = False
) -> TDNetwork:
    """Same trunk, fresh linear equity head (DMP probability -> cubeless money equity).
    ``keep_output_layer``: the DMP head instead, halved: its logit z gives P(win) =
    sigmoid(z), and cubeless equity without gammons, 2 P(win) - 1 = tanh(z / 2), is z / 2
    to first order, so play starts as the DMP model's near even positions."""
    if _base_inputs(model) != 196:
        raise ValueError(
            f"--warm-start-equity needs a 196-input model (with or without the board features), "
            f"got {model.n_inputs} inputs"
        )
    if type(output_head(model.output_mode)) is not ProbabilityHead:
        raise ValueError(
            f"--warm-start-equity expects a DMP probability model, this one is {model.output_mode}"
        )
    new = _copy_model(model, output_mode="equity")
    for dst, src in zip(new.layers, model.layers, strict=True):
        dst.load_state_dict(src.state_dict())
    if keep_output_layer:
        new.head.weight.copy_(model.head.weight / 2)
        new.head.bias.copy_(model.head.bias / 2)
        return new
    gen = torch.Generator().manual_seed(seed)
    bound = 1.0 / np.sqrt(new.head.in_features)
    new.head.weight.copy_((torch.rand(new.head.weight.shape, generator=gen) * 2 - 1) * bound * 0.1)
    new.head.bias.zero_()
    return new


@torch.no_grad()
def warm_start_cubeful(model: TDNetwork, seed: int = 0) -> TDNetwork:
    """200-input copy (220 with the board features): the four cube inputs get zero weights, so
    outputs are unchanged."""
    if _base_inputs(model) != 196:
        raise ValueError(
            f"--warm-start-cubeful needs a 196-input cubeless model (with or without the board "
            f"features), got {model.n_inputs} inputs"
        )
    if type(output_head(model.output_mode)) is not EquityHead:
        raise ValueError(
            f"--warm-start-cubeful needs an equity (cubeless money) model, got a "
            f"{model.output_mode} model; warm-start it with --warm-start-equity first"
        )
    new = _copy_model(model, n_inputs=model.n_inputs + 4)
    new.load_state_dict(
        {k: v for k, v in model.state_dict().items() if k != "layers.0.weight"}, strict=False
    )
    _carry_first_layer(new, model)
    return new


@torch.no_grad()
def warm_start_match(model: TDNetwork, seed: int = 0, head: str = "mwc") -> TDNetwork:
    """A match model (208 inputs) from a cubeful money model: the trunk is kept, the
    eight match inputs start with zero weights.  ``head`` "mwc": the equity head doubled,
    so that the sigmoid reads the money equity e as MWC ~ (1 + e) / 2 near e = 0
    (sigmoid(2e) has slope 1/2 there).  ``head`` "mwc-outcomes": the same logit gives
    P(win), and the gammon and backgammon rates start as constants (OUTCOME_PRIORS);
    a match model with the "mwc" head converts the same way, its logit giving P(win), so
    at 1-away each (where every win is worth 1 and every loss 0) its values are kept."""
    if head not in (MwcHead.name, MwcOutcomesHead.name):
        raise ValueError(f"a match model's head is mwc or mwc-outcomes, not {head!r}")
    outcomes = type(output_head(head)) is MwcOutcomesHead
    from_match = _base_inputs(model) == 208 and type(output_head(model.output_mode)) is MwcHead
    if from_match and outcomes:
        new = _copy_model(model, output_mode=head)
        for dst, src in zip(new.layers, model.layers, strict=True):
            dst.load_state_dict(src.state_dict())
        _outcome_head(new.head, model.head.weight[0], model.head.bias[0])
        return new
    if _base_inputs(model) != 200 or type(output_head(model.output_mode)) is not EquityHead:
        raise ValueError(
            f"--warm-start-match needs a cubeful money model (200 inputs, equity; 220 with the "
            f"board features)"
            f"{' or, for --match-head mwc-outcomes, an mwc match model' if outcomes else ''}, got "
            f"{model.n_inputs} inputs, {model.output_mode}"
        )
    new = _copy_model(model, n_inputs=model.n_inputs + 8, output_mode=head)
    for i, (dst, src) in enumerate(zip(new.layers, model.layers, strict=True)):
        if i:
            dst.load_state_dict(src.state_dict())
    _carry_first_layer(new, model)
    if not outcomes:
        new.head.weight.copy_(2 * model.head.weight)
        new.head.bias.copy_(2 * model.head.bias)
    else:
        _outcome_head(new.head, 2 * model.head.weight[0], 2 * model.head.bias[0])
    return new


# conditional rates an mwc-outcomes head starts with: P(gammon | win), P(bg | gammon),
# P(gammon | loss), P(bg | gammon) (about what money self-play shows)
OUTCOME_PRIORS = (0.25, 0.05, 0.25, 0.05)


def _outcome_head(head: nn.Linear, win_weight: torch.Tensor, win_bias: torch.Tensor) -> None:
    """Output 0 (P(win)'s logit) from the given weights; the four conditionals constant."""
    head.weight.zero_()
    head.weight[0].copy_(win_weight)
    head.bias[0] = win_bias
    for k, p in enumerate(OUTCOME_PRIORS, start=1):
        head.bias[k] = float(np.log(p / (1 - p)))


# the warm starts by the flag that asks for them (training_loop.build_model)
WARM_STARTS = {
    "warm_start_equity": warm_start_equity,
    "warm_start_cubeful": warm_start_cubeful,
    "warm_start_match": warm_start_match,
}


@torch.no_grad()
def add_board_features(model: TDNetwork) -> TDNetwork:
    """A copy that also reads the board features (features.py) as its last inputs, with zero
    weights on them, so its outputs are unchanged until training moves those weights."""
    if model.n_inputs not in BASE_WIDTHS:
        raise ValueError(f"this model already reads the board features ({model.n_inputs} inputs)")
    new = _copy_model(model, n_inputs=model.n_inputs + NUM_BOARD_FEATURES)
    new.load_state_dict(
        {k: v for k, v in model.state_dict().items() if k != "layers.0.weight"}, strict=False
    )
    _carry_first_layer(new, model)
    filt = move_filter_of(model)
    if filt is not None:  # the filter reads the new inputs too, with zero weights on them
        grown_filter = add_board_features(filt)
        grown_filter.samples = getattr(filt, "samples", 0)
        set_move_filter(new, grown_filter)
    return new
