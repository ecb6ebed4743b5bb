"""tdbg/net/health.py: dead and active units counted on a hand-built net whose firing is
known by hand; revival keeps the function and brings the dead units back; the tools and
the training log report it."""

import csv
import json

import pytest
import torch

from helpers import run
from tdbg.game.modes import game_mode
from tdbg.net.health import MIN_POSITIONS, firing_rates, health_positions, revive_dead, unit_health
from tdbg.net.model import TDNetwork, load_checkpoint, new_metadata, save_checkpoint


def _hand_net():
    """196 -> [4, 3]: on inputs whose first two features are (a, b), layer 1's units are
    relu(a), relu(-1000) (dead), relu(b), relu(a - 0.5); layer 2's are relu(u0 + u2),
    relu(-u0 - 1) (dead: u0 >= 0) and relu(u3 - 0.25)."""
    m = TDNetwork(196, [4, 3], "probability")
    with torch.no_grad():
        for p in m.parameters():
            p.zero_()
        w1, b1 = m.layers[0].weight, m.layers[0].bias
        w1[0, 0] = 1.0
        b1[1] = -1000.0
        w1[2, 1] = 1.0
        w1[3, 0], b1[3] = 1.0, -0.5
        w2, b2 = m.layers[1].weight, m.layers[1].bias
        w2[0, 0], w2[0, 2] = 1.0, 1.0
        w2[1, 0], b2[1] = -1.0, -1.0
        w2[2, 3], b2[2] = 1.0, -0.25
        m.head.weight[0] = torch.tensor([1.0, 1.0, 1.0])
        m.head.weight[0, 1] = 0.3  # a dead unit's outgoing weight: revival sets it to zero
    return m


def _inputs():
    """Eight positions' inputs: (a, b) = (0,0) (1,0) (0,1) (1,1) (0.6,0) (0.8,0) (0,0.2) (0.9,1)."""
    x = torch.zeros(8, 196)
    ab = [(0, 0), (1, 0), (0, 1), (1, 1), (0.6, 0), (0.8, 0), (0, 0.2), (0.9, 1)]
    x[:, :2] = torch.tensor(ab, dtype=torch.float32)
    return x


def test_dead_and_active_units_by_hand():
    h = unit_health(_hand_net(), _inputs())
    # layer 1: u0 fires where a > 0: 5 of 8; u1 never; u2 where b > 0: 4 of 8; u3 where a > 0.5: 5 of 8
    # layer 2: v0 where a > 0 or b > 0: 7 of 8; v1 never; v2 where a - 0.5 > 0.25: (1,0) (1,1) (0.8,0) (0.9,1): 4
    assert h.dead == (1, 1) and h.widths == (4, 3) and h.positions == 8
    assert h.active == pytest.approx(((5 + 0 + 4 + 5) / 32, (7 + 0 + 4) / 24))
    assert [r.tolist() for r in firing_rates(_hand_net(), _inputs())] == [
        [5 / 8, 0, 4 / 8, 5 / 8],
        [7 / 8, 0, 4 / 8],
    ]
    assert h.log_fields() == {
        "dead_units": "1/1",
        "distinct_units": "4/3",
        "active_fraction": "0.4375/0.4583",
    }


def test_revival_keeps_the_function_and_revives():
    m, x = _hand_net(), _inputs()
    torch.manual_seed(1)
    wide = torch.rand(10_000, 196)  # any inputs: the revived units have no path to the output
    revived, counts = revive_dead(m, x, seed=3)
    assert counts == [1, 1]
    with torch.no_grad():
        assert float((revived(wide) - m(wide)).abs().max()) < 1e-6
        assert float((revived(x) - m(x)).abs().max()) == 0.0
        # the revived units: fresh weights within a new layer's bound, zero outgoing weights
        w = revived.layers[0].weight[1]
        assert (
            0 < float(w.abs().max()) <= 1 / 196**0.5 and float(revived.layers[0].bias[1]) != -1000.0
        )
        assert (
            float(revived.layers[1].weight[[0, 2], 1].abs().max()) == 0.0
        )  # row 1 is itself revived
        assert float(revived.head.weight[0, 1]) == 0.0
    # the untouched units keep their weights
    assert torch.equal(revived.layers[0].weight[0], m.layers[0].weight[0])
    # on positions where the fresh row can fire (a random input half the time), the layer is no longer dead
    assert unit_health(revived, wide).dead[0] == 0


def test_sample_is_the_nets_own_seeded_self_play():
    torch.manual_seed(0)
    m = TDNetwork(196, [16], "probability")
    a = health_positions(m, game_mode("dmp"))
    b = health_positions(m, game_mode("dmp"))
    assert len(a) >= MIN_POSITIONS and torch.equal(a, b)
    assert a.shape[1] == 196


def test_tools_report_health_and_revive(tmp_path):
    src, out = tmp_path / "hand.pt", tmp_path / "revived.pt"
    m = _hand_net()
    save_checkpoint(str(src), m, new_metadata(m, "dmp"))
    d = json.loads(run("tools/describe_model.py", src, "--json", check=True).stdout)
    # on real positions u1 (bias -1000) and v1 (relu(-u0 - 1), u0 >= 0) are dead whatever the sample
    assert d["unit_health"]["dead"][0] >= 1 and d["unit_health"]["dead"][1] >= 1
    assert d["unit_health"]["games"] == 150 and d["unit_health"]["positions"] >= MIN_POSITIONS
    rep = json.loads(
        run(
            "tools/repair_twins.py",
            src,
            "-o",
            out,
            "--no-twins",
            "--games",
            "10",
            "--json",
            check=True,
        ).stdout
    )
    assert (
        all(r <= d for r, d in zip(rep["revived"], rep["health_before"]["dead"], strict=True))
        and rep["revived"][0] >= 1
    )
    assert rep["output_change"]["max_abs_change"] < 1e-6
    assert "revived" in load_checkpoint(str(out))[1]["lineage"][-1]


def test_training_log_has_health_columns(tmp_path):
    save = tmp_path / "t.pt"
    run(
        "train_batch.py",
        "--hidden",
        "16",
        "--num-episodes",
        "60",
        "--episodes-per-round",
        "20",
        "--health-every",
        "2",
        "--save",
        save,
        "--quiet",
        "--workers",
        "1",
        check=True,
    )
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert [bool(r["dead_units"]) for r in rows] == [
        False,
        True,
        True,
    ]  # round 2, and the stage's last
    assert all(int(d) <= 16 for d in rows[-1]["dead_units"].split("/"))
    model = load_checkpoint(str(save))[0]
    assert (
        rows[-1]["dead_units"]
        == unit_health(model, health_positions(model, game_mode("dmp"))).log_fields()["dead_units"]
    )


@pytest.mark.parametrize("release", ["best_models/cubeful_256x2.pt", "best_models/match_256x2.pt"])
def test_repair_tool_takes_cube_and_match_nets(tmp_path, release):
    """Cubeful and match nets play their greedy games with a cube state (it crashed without)."""
    out = tmp_path / "r.pt"
    rep = json.loads(
        run(
            "tools/repair_twins.py",
            release,
            "-o",
            out,
            "--games",
            "5",
            "--no-twins",
            "--json",
            check=True,
        ).stdout
    )
    # revival alone keeps every value to the bit
    assert (
        rep["output_change"]["max_abs_change"] == 0.0
        and rep["health_after"]["positions"] >= MIN_POSITIONS
    )
    # revived: the units dead on the sample and on every play of the measuring games (a subset)
    assert sum(rep["revived"]) > 0 and all(
        r <= d for r, d in zip(rep["revived"], rep["health_before"]["dead"], strict=True)
    )
