"""Twin hidden units: finding them, and folding them back into one so the freed units
can learn something else.

Two ReLU units whose incoming weights and bias, read as one vector v, point the same
way compute the same thing up to scale: if v_j = a v_r with a > 0 then h_j = a h_r for
every input.  Such *twins* add parameters and no capacity.  Widening by copying units
(Net2Net without noise) makes them, and low-learning-rate TD does not pull them apart.

* ``twin_groups(layer)``: units grouped greedily, each group a representative (its
  lowest index) and the units whose v has cosine > ``threshold`` with the
  representative's.  ``distinct_units(model)`` counts the groups of each hidden layer.
* ``repair_twins(model, inputs)``: each twin j of a group with representative r is
  folded into r: h_j is fitted as a h_r + c by least squares over the hidden activations
  of ``inputs`` (real positions; without them a = |v_j| / |v_r| and c = 0, exact when v_j
  is a positive multiple of v_r), the next layer's weights from j move to r scaled by a,
  c times them to its bias, and j becomes a fresh unit: random incoming weights
  (``fresh_rows``) and zero outgoing weights.  The output then changes only by the
  twins' departure from the fit.  A dead unit (never active on ``inputs``) whose vector
  sits near another's is fitted with a = c = 0: it is freed at no cost.  Layers are
  repaired first to last, each on the weights the previous step left (folding layer i
  can make twins in layer i + 1, e.g. in an identity layer added by deepening).
"""

from __future__ import annotations

import torch

from tdbg.net.model import TDNetwork, move_filter_of, set_move_filter

TWIN_COSINE = 0.95  # above it two units count as one (the grown nets' twins sit above 0.99)


def unit_vectors(layer: torch.nn.Linear) -> torch.Tensor:
    """Each unit's incoming weights and bias as one row, (units, inputs + 1)."""
    return torch.cat([layer.weight, layer.bias[:, None]], dim=1).detach()


@torch.no_grad()
def twin_groups(layer: torch.nn.Linear, threshold: float = TWIN_COSINE) -> list[list[int]]:
    """Groups of units (representative first) whose vectors have cosine > ``threshold``
    with the representative's; a unit with no twin is a group of one."""
    v = unit_vectors(layer).double()
    v = v / v.norm(dim=1, keepdim=True).clamp_min(1e-30)
    cos = (v @ v.T).numpy()
    taken = [False] * len(cos)
    groups = []
    for i in range(len(cos)):
        if taken[i]:
            continue
        members = [i] + [
            j for j in range(i + 1, len(cos)) if not taken[j] and cos[i, j] > threshold
        ]
        for j in members:
            taken[j] = True
        groups.append(members)
    return groups


def distinct_units(model: TDNetwork, threshold: float = TWIN_COSINE) -> list[int]:
    """The number of twin groups in each hidden layer (= the layer's width when no unit
    has a twin)."""
    return [len(twin_groups(layer, threshold)) for layer in model.layers]


@torch.no_grad()
def fresh_rows(layer: torch.nn.Linear, rows, generator: torch.Generator) -> None:
    """Give ``layer``'s units ``rows`` new random incoming weights, each row as long as the
    median of the layer's other rows (so the new units sit in the range the next layer
    sees), and zero bias."""
    rows = torch.as_tensor(list(rows), dtype=torch.long)
    if not len(rows):
        return
    keep = torch.ones(layer.out_features, dtype=torch.bool)
    keep[rows] = False
    norms = layer.weight[keep].norm(dim=1) if keep.any() else torch.ones(1)
    scale = float(norms.median()) if len(norms) else 1.0
    w = torch.randn(len(rows), layer.in_features, generator=generator, dtype=layer.weight.dtype)
    layer.weight[rows] = w / w.norm(dim=1, keepdim=True) * scale
    layer.bias[rows] = 0.0


def next_weights(model: TDNetwork, i: int) -> torch.Tensor:
    """The weights that read hidden layer ``i``'s units: layer i + 1's, or the head's."""
    return model.layers[i + 1].weight if i + 1 < len(model.layers) else model.head.weight


def activations(model: TDNetwork, inputs: torch.Tensor, i: int) -> torch.Tensor:
    """Hidden layer ``i``'s activations on ``inputs``, (rows, units)."""
    x = inputs
    for layer in model.layers[: i + 1]:
        x = model.act(layer(x))
    return x


def fold_factors(h_twin: torch.Tensor, h_rep: torch.Tensor) -> tuple[float, float]:
    """(a, c) minimising the squared error of a h_rep + c against h_twin over the rows."""
    design = torch.stack([h_rep, torch.ones_like(h_rep)], dim=1).double()
    solution = torch.linalg.lstsq(design, h_twin.double()[:, None], driver="gelsd").solution
    return float(solution[0, 0]), float(solution[1, 0])


@torch.no_grad()
def repair_twins(
    model: TDNetwork,
    seed: int = 0,
    threshold: float = TWIN_COSINE,
    inputs: torch.Tensor | None = None,
) -> tuple[TDNetwork, dict]:
    """A copy of ``model`` with every twin group folded into its representative and the
    twins made fresh units (module notes; ``inputs``: encoded real positions to fit the
    folds on); and a report: the distinct units per layer before and after, and the units
    freed in each layer."""
    repaired = TDNetwork(model.n_inputs, model.hidden, model.output_mode, model.activation)
    repaired.load_state_dict(model.state_dict())
    set_move_filter(repaired, move_filter_of(model))
    generator = torch.Generator().manual_seed(seed)
    before = distinct_units(model, threshold)
    freed = []
    for i, layer in enumerate(repaired.layers):
        out = next_weights(repaired, i)
        bias = repaired.layers[i + 1].bias if i + 1 < len(repaired.layers) else repaired.head.bias
        assert bias is not None  # TDNetwork's layers and head have biases
        out_bias: torch.Tensor = bias  # updated in place
        h = activations(repaired, inputs, i) if inputs is not None else None
        norms = unit_vectors(layer).norm(dim=1)
        twins = []
        for rep, *members in twin_groups(layer, threshold):
            for j in members:
                a, c = (
                    fold_factors(h[:, j], h[:, rep])
                    if h is not None
                    else (float(norms[j] / norms[rep]), 0.0)
                )
                out[:, rep] += a * out[:, j]
                out_bias += c * out[:, j]
                out[:, j] = 0.0
                twins.append(j)
        fresh_rows(layer, twins, generator)
        freed.append(len(twins))
    return repaired, {
        "distinct_before": before,
        "distinct_after": distinct_units(repaired, threshold),
        "freed": freed,
        "threshold": threshold,
    }
