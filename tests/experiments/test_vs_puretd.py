"""experiments/benchmarks/vs_puretd.py: PureTD's checkpoints read as ours (the input order
worked out by hand from PureTD's documented layout), and its refusals of a folder that is no
built PureTD checkout.  The timed runs themselves need a PureTD checkout and are not run here."""

import importlib.util
import os

import numpy as np
import pytest
import torch

from helpers import ROOT, assert_one_line_error, run
from tdbg.game.encoding import encode
from tdbg.infra.errors import InputError
from tdbg.net.model import TDNetwork, load_checkpoint, new_metadata, save_checkpoint

SCRIPT = "experiments/benchmarks/vs_puretd.py"


def bench():
    spec = importlib.util.spec_from_file_location("vs_puretd", os.path.join(ROOT, SCRIPT))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def puretd_vector(me: dict, me_bar: int, opp: dict, opp_bar: int) -> np.ndarray:
    """PureTD's perspective196 inputs written out from its layout: the mover's points in its
    own numbering (4 units: 1, 1, 1, (n - 3) / 2), bar / 2, off / 15 at 96 and 97; then from
    98 the opponent's points numbered as the mover sees them (its point p is the mover's
    25 - p), its bar / 2 and off / 15 at 194 and 195."""
    x = np.zeros(196, np.float32)

    def units(at, n):
        x[at : at + 3] = [n >= 1, n >= 2, n >= 3]
        x[at + 3] = max(n - 3, 0) * 0.5

    for p, n in me.items():
        units(4 * (p - 1), n)
    for p, n in opp.items():
        units(98 + 4 * (25 - p - 1), n)
    x[96], x[97] = me_bar / 2, (15 - sum(me.values()) - me_bar) / 15
    x[194], x[195] = opp_bar / 2, (15 - sum(opp.values()) - opp_bar) / 15
    return x


def our_board(me: dict, me_bar: int, opp: dict, opp_bar: int) -> np.ndarray:
    b = np.zeros((2, 25), np.int64)  # row 1 on roll, each row in its own numbering
    for row, pts, bar in ((1, me, me_bar), (0, opp, opp_bar)):
        for p, n in pts.items():
            b[row, p - 1] = n
        b[row, 24] = bar
    return b


POSITIONS = [
    ({24: 2, 13: 5, 8: 3, 6: 5}, 0, {24: 2, 13: 5, 8: 3, 6: 5}, 0),  # the opening
    ({20: 1, 6: 4, 5: 3, 3: 2}, 1, {24: 2, 13: 4, 1: 1}, 2),  # bars, checkers off
    ({1: 7, 2: 1}, 0, {23: 6, 19: 1, 2: 1}, 0),  # a lopsided race-like one
]


@pytest.mark.parametrize("with_output_mode", [True, False])
def test_a_puretd_net_gives_its_own_values_on_our_inputs(tmp_path, with_output_mode):
    torch.manual_seed(3)
    sizes = [8, 4]
    linear = [torch.nn.Linear(a, b) for a, b in zip([196, *sizes], [*sizes, 1], strict=True)]
    state = {
        f"hidden_layers.{i}.{k}": getattr(m, k).detach().clone()
        for i, m in enumerate(linear[:-1])
        for k in ("weight", "bias")
    }
    state.update(
        {
            "fc_output.weight": linear[-1].weight.detach().clone(),
            "fc_output.bias": linear[-1].bias.detach().clone(),
        }
    )
    path = tmp_path / "p.pt"
    payload = {
        "hidden_sizes": sizes,
        "input_size": 196,
        "activation": "relu",
        "encoder_name": "perspective196",
        "output_mode": "probability",
        "state_dict": state,
    }
    if not with_output_mode:  # PureTD's first releases have no such field
        del payload["output_mode"]
    torch.save(payload, path)
    model = bench().puretd_checkpoint(str(path)).eval()
    for pos in POSITIONS:
        x = torch.tensor(puretd_vector(*pos))
        for m in linear[:-1]:
            x = torch.relu(m(x))
        theirs = torch.sigmoid(linear[-1](x)).item()
        with torch.no_grad():
            ours = model(torch.tensor(encode(our_board(*pos)))[None]).item()
        assert ours == pytest.approx(theirs, abs=1e-6)


def test_only_puretds_dmp_checkpoints_convert(tmp_path):
    ours = tmp_path / "ours.pt"
    model = TDNetwork(196, [4], "probability")
    save_checkpoint(str(ours), model, new_metadata(model, "dmp"))
    with pytest.raises(InputError, match="not a PureTD checkpoint"):
        bench().puretd_checkpoint(str(ours))
    equity = tmp_path / "equity.pt"
    torch.save(
        {
            "hidden_sizes": [4],
            "input_size": 200,
            "encoder_name": "cubeful_perspective196",
            "output_mode": "equity",
            "state_dict": {},
        },
        equity,
    )
    with pytest.raises(InputError, match="only PureTD's DMP nets"):
        bench().puretd_checkpoint(str(equity))


def test_a_folder_that_is_no_built_puretd_checkout_is_refused(tmp_path):
    assert_one_line_error(run(SCRIPT, "--puretd", str(tmp_path)), "not a PureTD checkout")
    (tmp_path / "train_batch.py").write_text("")
    assert_one_line_error(run(SCRIPT, "--puretd", str(tmp_path)), "build_unix.sh")
    assert_one_line_error(run(SCRIPT, "--puretd", str(tmp_path), "--seeds", "1,x"), "--seeds")


def test_the_readme_speed_table_is_the_result_file():
    """README's table beside PureTD quotes vs_puretd_results/ (seconds and ratios), so the two
    cannot drift apart."""
    import json

    lines = [
        json.loads(ln)
        for ln in open(
            os.path.join(
                ROOT, "experiments/benchmarks/vs_puretd_results/vs_puretd_quiet_2core.jsonl"
            )
        )
    ]
    readme = open(os.path.join(ROOT, "README.md")).read()
    table = readme[
        readme.index("## Training speed beside PureTD") : readme.index("## Documentation")
    ]
    rows = [r for r in table.splitlines() if r.startswith("| ") and "workload" not in r]

    def secs(result, workload, who):
        return ", ".join(
            f"{r[who]['wall_seconds']:.1f}" for r in result["runs"] if r["workload"] == workload
        )

    plain, overlapped = lines[0], lines[1]
    assert not plain["overlap"] and overlapped["overlap"] and overlapped["workers"] == 2
    expected = [(plain, "0-ply"), (plain, "1-ply"), (overlapped, "0-ply")]
    assert len(rows) == len(expected)
    for row, (result, workload) in zip(rows, expected, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        ratio = result["ratio_puretd_seconds_over_ours"][workload]["ratio_of_totals"]
        assert cells[1:] == [
            secs(result, workload, "puretd"),
            secs(result, workload, "ours"),
            f"{ratio:.2f}x",
        ], row


def test_the_converter_writes_a_checkpoint_that_plays_as_a_dmp_net(tmp_path):
    sizes = [3]
    torch.manual_seed(0)
    hidden, out = torch.nn.Linear(196, 3), torch.nn.Linear(3, 1)
    state = {
        "hidden_layers.0.weight": hidden.weight.detach().clone(),
        "hidden_layers.0.bias": hidden.bias.detach().clone(),
        "fc_output.weight": out.weight.detach().clone(),
        "fc_output.bias": out.bias.detach().clone(),
    }
    src, dst = tmp_path / "p.pt", tmp_path / "ours.pt"
    payload = {"hidden_sizes": sizes, "input_size": 196, "encoder_name": "perspective196"}
    torch.save({**payload, "state_dict": state}, src)
    result = run("experiments/head_to_head/puretd_net.py", str(src), str(dst))
    assert result.returncode == 0, result.stderr
    model, meta, _ = load_checkpoint(str(dst))
    assert (model.hidden, meta["game_mode"]) == ([3], "dmp")
    x = torch.tensor(puretd_vector(*POSITIONS[1]))
    theirs = torch.sigmoid(out(torch.relu(hidden(x)))).item()
    with torch.no_grad():
        ours = model.eval()(torch.tensor(encode(our_board(*POSITIONS[1])))[None]).item()
    assert ours == pytest.approx(theirs, abs=1e-6)
    again = run("experiments/head_to_head/puretd_net.py", str(src), str(dst))
    assert_one_line_error(again, "exists")
