"""experiments/retraining/move_changes.py: a copy of the base net changes none of its choices;
a net that ranks every play the other way round changes every choice it has; bad input is one
error line."""

import json

import torch

from helpers import assert_one_line_error, run
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint

SCRIPT = "experiments/retraining/move_changes.py"


def _save(path, model, mode="dmp"):
    save_checkpoint(str(path), model, new_metadata(model, mode))
    return str(path)


def test_copy_changes_nothing_and_a_mirrored_net_changes_every_choice(tmp_path):
    torch.manual_seed(11)
    base = TDNetwork(196, [16], "probability")
    flipped = TDNetwork(196, [16], "probability")
    flipped.load_state_dict(base.state_dict())
    with (
        torch.no_grad()
    ):  # the logit negated: sigmoid(-z) = 1 - sigmoid(z), the order of every play reversed
        flipped.head.weight.neg_()
        flipped.head.bias.neg_()
    a, b, c = (
        _save(tmp_path / "a.pt", base),
        _save(tmp_path / "b.pt", base),
        _save(tmp_path / "c.pt", flipped),
    )
    proc = run(SCRIPT, a, b, c, "--games", "3", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    n = out["decisions_with_a_choice"]
    assert n > 0
    assert out["others"][b] == {
        "changed_choices": 0,
        "changed_share": 0.0,
        "mean_abs_value_change": 0.0,
    }
    # reversed ranking: the best play becomes the worst, another play, wherever there is a choice
    # (unless two plays tie exactly, which a random float net does not produce)
    assert out["others"][c]["changed_choices"] == n


def test_bad_input(tmp_path):
    assert_one_line_error(
        run(SCRIPT, str(tmp_path / "missing.pt"), str(tmp_path / "x.pt")), "no such checkpoint"
    )
    m = TDNetwork(200, [16], "equity")
    money = _save(tmp_path / "m.pt", m, "cubeful-money")
    d = _save(tmp_path / "d.pt", TDNetwork(196, [16], "probability"))
    assert_one_line_error(run(SCRIPT, d, money), "DMP")
    assert_one_line_error(run(SCRIPT, d, d, "--games", "0"), "at least 1")
