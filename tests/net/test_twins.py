"""tdbg/net/twins.py and tools/repair_twins.py: twin hidden units counted, and folded into
one with the function kept, checked by hand arithmetic and against the unrepaired net."""

import json

import pytest
import torch

from helpers import assert_one_line_error, run
from tdbg.net.model import TDNetwork, load_checkpoint, save_checkpoint, new_metadata
from tdbg.net.twins import distinct_units, repair_twins, twin_groups


def _net_with_twins(seed=0, noise=0.0):
    """[6, 5] DMP net whose first-layer units 3 and 4 are positive multiples (x2, x0.5) of
    unit 0 (plus ``noise`` on their weights), and whose second-layer unit 4 copies unit 1."""
    torch.manual_seed(seed)
    m = TDNetwork(196, [6, 5], "probability")
    with torch.no_grad():
        w, b = m.layers[0].weight, m.layers[0].bias
        for j, scale in ((3, 2.0), (4, 0.5)):
            w[j] = scale * w[0] + noise * torch.randn(196)
            b[j] = scale * b[0]
        m.layers[1].weight[4] = m.layers[1].weight[1]
        m.layers[1].bias[4] = m.layers[1].bias[1]
    return m


def test_groups_by_hand():
    m = _net_with_twins()
    assert twin_groups(m.layers[0]) == [[0, 3, 4], [1], [2], [5]]
    assert twin_groups(m.layers[1]) == [[0], [1, 4], [2], [3]]
    assert distinct_units(m) == [4, 4]


def test_fold_by_hand():
    """h3 = 2 h0 and h4 = h0 / 2 exactly, so the next layer's column 0 becomes
    w0 + 2 w3 + w4 / 2 and columns 3 and 4 become zero."""
    m = _net_with_twins()
    w_next = m.layers[1].weight.detach().clone()
    r, _ = repair_twins(m, seed=1)
    want = w_next[:, 0] + 2.0 * w_next[:, 3] + 0.5 * w_next[:, 4]
    # layer 2's units 1 and 4 are twins too: unit 4 is then freed and gets fresh incoming weights
    got = r.layers[1].weight.detach()[:4]
    assert torch.allclose(got[:, 0], want[:4], atol=1e-6)
    assert (got[:, 3] == 0).all() and (got[:, 4] == 0).all()
    assert (r.head.weight[:, 4] == 0).all()
    assert torch.allclose(r.head.weight[:, 1], m.head.weight[:, 1] + m.head.weight[:, 4], atol=1e-6)


@pytest.mark.parametrize("with_inputs", [False, True])
def test_repair_keeps_the_function_of_exact_twins(with_inputs):
    m = _net_with_twins()
    x = torch.rand(2000, 196)
    r, report = repair_twins(m, seed=1, inputs=x if with_inputs else None)
    assert report["distinct_before"] == [4, 4] and report["distinct_after"] == [6, 5]
    assert report["freed"] == [2, 1]
    with torch.no_grad():
        assert (r(x) - m(x)).abs().max() < 1e-5
    # the freed units have new incoming weights, unlike any other unit's
    assert distinct_units(r) == [6, 5]


def test_fitting_on_inputs_folds_an_affine_twin_exactly():
    """Unit 3 = relu(2 z0 + 0.1) with z0 > 0 on every input: h3 = 2 h0 + 0.1, affine in h0.
    Fitted on the inputs the fold is exact (slope 2, intercept into the next bias); the norm
    ratio without inputs is not."""
    m = _net_with_twins()
    with torch.no_grad():
        m.layers[0].bias[0] = 3.0  # unit 0 active everywhere below
        m.layers[0].bias[4] = 1.5  # unit 4 stays half of it
        m.layers[0].weight[3] = 2 * m.layers[0].weight[0]
        m.layers[0].bias[3] = 2 * m.layers[0].bias[0] + 0.1
    assert twin_groups(m.layers[0])[0] == [0, 3, 4]
    x = torch.rand(4000, 196)
    with torch.no_grad():
        assert (m.layers[0](x)[:, 0] > 0).all()
        plain = (repair_twins(m, seed=1)[0](x) - m(x)).abs().max()
        fitted = (repair_twins(m, seed=1, inputs=x)[0](x) - m(x)).abs().max()
    assert fitted < 1e-5 < 1e-4 < plain


def test_tool_repairs_a_checkpoint(tmp_path):
    src, out = tmp_path / "twins.pt", tmp_path / "repaired.pt"
    m = _net_with_twins()
    save_checkpoint(str(src), m, new_metadata(m, "dmp"))
    res = run("tools/repair_twins.py", src, "-o", out, "--games", "20", "--json", check=True)
    report = json.loads(res.stdout)
    assert report["distinct_before"] == [4, 4] and report["distinct_after"] == [6, 5]
    assert report["output_change"]["max_abs_change"] < 1e-5
    assert report["output_change"]["choices_changed"] == 0
    repaired, meta, trainer_state = load_checkpoint(str(out))
    assert distinct_units(repaired) == [6, 5] and trainer_state is None
    assert "repaired_twins" in meta["lineage"][-1]
    assert_one_line_error(run("tools/repair_twins.py", src, "-o", out), "exists")
    assert_one_line_error(
        run("tools/repair_twins.py", src, "-o", tmp_path / "x.pt", "--threshold", "1.5"),
        "--threshold",
    )


def test_describe_model_reports_distinct_units(tmp_path):
    src = tmp_path / "twins.pt"
    m = _net_with_twins()
    save_checkpoint(str(src), m, new_metadata(m, "dmp"))
    res = run("tools/describe_model.py", src, "--json", check=True)
    assert json.loads(res.stdout)["distinct_units"] == [4, 4]
    text = run("tools/describe_model.py", src, check=True).stdout
    assert "distinct      [4,4] of [6,5] hidden units" in text
