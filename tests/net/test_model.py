import os
import zipfile

import numpy as np
import pytest
import torch

from tdbg.game.heads import output_head
from tdbg.net import net_growth
from tdbg.net.model import (
    CheckpointError,
    TDNetwork,
    load_checkpoint,
    new_metadata,
    parse_hidden,
    read_checkpoint,
    save_checkpoint,
)


def _outputs(model, x):
    with torch.no_grad():
        return model(x)


@pytest.mark.parametrize("output_mode", ["probability", "equity", "prob5"])
def test_checkpoint_round_trip(tmp_path, output_mode):
    m = TDNetwork(196, [16, 8], output_mode)
    meta = new_metadata(m, output_head(output_mode).default_mode)
    meta["episodes"] = 1234
    meta["lineage"] = [{"command": "x", "episodes": 1234}]
    path = str(tmp_path / "m.pt")
    # its lineage entry's episodes, and the settings every stage records
    save_checkpoint(
        path, m, meta, {"stage": {"episodes_done": 1234, "settings": {"num_episodes": 1234}}}
    )
    assert [f for f in os.listdir(tmp_path) if f.startswith(".tmp")] == []
    m2, meta2, ts = load_checkpoint(path)
    x = torch.rand(50, 196)
    assert torch.equal(_outputs(m, x), _outputs(m2, x))
    assert (
        meta2["episodes"] == 1234
        and meta2["hidden"] == [16, 8]
        and meta2["output_mode"] == output_mode
    )
    assert ts["stage"]["episodes_done"] == 1234


def test_corrupt_and_truncated_checkpoints(tmp_path):
    m = TDNetwork(196, [8])
    path = str(tmp_path / "m.pt")
    save_checkpoint(path, m, new_metadata(m, "dmp"))
    data = open(path, "rb").read()
    (tmp_path / "trunc.pt").write_bytes(data[: len(data) // 2])
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    torch.save({"weights": 1}, str(tmp_path / "foreign.pt"))
    for name in ("trunc.pt", "junk.pt", "foreign.pt", "missing.pt"):
        with pytest.raises(CheckpointError):
            load_checkpoint(str(tmp_path / name))


def test_parse_hidden():
    assert parse_hidden("512,512,256") == [512, 512, 256] == parse_hidden(" 512, 512 ,256")
    # an empty size is not skipped ("16,,16" was read as 16,16), nor is Python's "1_0" a size
    for bad in (
        "",
        "0",
        "a,b",
        "-3",
        "10,,x",
        "16,,16",
        "16,",
        ",16",
        "1_0",
        "+16",
        "\uff11\uff16",
    ):
        with pytest.raises(ValueError):
            parse_hidden(bad)


@pytest.mark.parametrize("growth", net_growth.GROWTHS)
@pytest.mark.parametrize("output_mode", ["probability", "equity", "prob5"])
@pytest.mark.parametrize(
    "old,new",
    [([32, 16], [64, 40]), ([32, 16], [32, 16, 16]), ([20], [48, 48, 48]), ([8, 8], [8, 30])],
)
def test_growth_preserves_function(output_mode, old, new, growth):
    """Widening is exact; an added identity layer moves the outputs by its noise only
    (std DEEPEN_NOISE = 1e-4 on each weight: here under 1e-3 of an output)."""
    torch.manual_seed(1)
    m = TDNetwork(196, old, output_mode)
    g = net_growth.expand(m, new, seed=3, growth=growth)
    assert g.hidden == new
    x = torch.rand(500, 196) * 2
    deepened = len(new) > len(old)
    assert torch.allclose(_outputs(m, x), _outputs(g, x), atol=1e-3 if deepened else 1e-5)
    if (
        deepened
    ):  # the noise is there: an exact identity would give the same outputs to float rounding
        assert not torch.allclose(_outputs(m, x), _outputs(g, x), atol=1e-7)


def _train_briefly(g, steps=20, lr=0.05, seed=0):
    """A few SGD steps on a random regression task: enough to show whether units move apart."""
    gen = torch.Generator().manual_seed(seed)
    x, y = torch.rand(256, 196, generator=gen), torch.rand(256, generator=gen)
    opt = torch.optim.SGD(g.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        ((g(x) - y) ** 2).mean().backward()
        opt.step()
    return g


def test_fresh_growth_adds_units_that_are_not_twins():
    """Widening [16,16] to [32,32] the default way gives 32 distinct units per layer, before and
    after a short training; Net2Net copies stay twins (cosine > 0.95) under the same training."""
    from tdbg.net.twins import distinct_units

    torch.manual_seed(0)
    m = TDNetwork(196, [16, 16], "probability")
    fresh = net_growth.expand(m, [32, 32], seed=0)
    assert distinct_units(fresh) == [32, 32]
    new_rows = fresh.layers[0].weight[16:]
    assert (
        new_rows.abs().sum() > 0 and fresh.layers[1].weight[:16, 16:].abs().sum() == 0
    )  # zero outgoing
    assert distinct_units(_train_briefly(fresh)) == [32, 32]
    copies = net_growth.expand(m, [32, 32], seed=0, growth="net2net")
    assert distinct_units(copies) == [16, 16]
    assert distinct_units(_train_briefly(copies)) == [16, 16]


def test_widened_copies_are_not_identical_after_training():
    """Unequal outgoing shares let Net2Net copies of a unit diverge when trained (slightly:
    they stay twins by the cosine measure, see above)."""
    torch.manual_seed(0)
    g = net_growth.expand(TDNetwork(196, [4], "equity"), [8], seed=0, growth="net2net")
    opt = torch.optim.SGD(g.parameters(), lr=0.1)
    x, y = torch.rand(64, 196), torch.rand(64)
    for _ in range(5):
        opt.zero_grad()
        ((g(x) - y) ** 2).mean().backward()
        opt.step()
    w = g.layers[0].weight.detach()
    rows = {tuple(np.round(r.numpy(), 6)) for r in w}
    assert len(rows) == 8


def test_unknown_growth_refused():
    with pytest.raises(ValueError, match="unknown growth"):
        net_growth.expand(TDNetwork(196, [4]), [8], growth="copy")


@pytest.mark.parametrize(
    "old,new,words",
    [
        ([32, 16], [16, 16], "narrow"),
        ([32, 16], [32], "fewer"),
        ([32, 16], [32, 16, 1], "at least 2 units"),
    ],
)
def test_impossible_expansion(old, new, words):
    with pytest.raises(ValueError, match=words):
        net_growth.expand(TDNetwork(196, old), new)


def test_warm_start_equity_keeps_trunk():
    torch.manual_seed(2)
    m = TDNetwork(196, [32, 16], "probability")
    e = net_growth.warm_start_equity(m)
    assert e.output_mode == "equity"
    x = torch.rand(10, 196)
    assert torch.equal(m.trunk(x), e.trunk(x))


def test_warm_start_cubeful_leaves_play_unchanged():
    torch.manual_seed(3)
    m = TDNetwork(196, [32, 16], "equity")
    c = net_growth.warm_start_cubeful(m)
    assert c.n_inputs == 200
    x = torch.rand(100, 196)
    cube = torch.zeros(100, 4)
    cube[torch.arange(100), torch.randint(0, 3, (100,))] = 1
    cube[:, 3] = torch.randint(0, 2, (100,)).float()
    assert torch.allclose(_outputs(m, x), _outputs(c, torch.cat([x, cube], 1)), atol=1e-6)
    with pytest.raises(ValueError, match="warm-start-equity"):
        net_growth.warm_start_cubeful(TDNetwork(196, [8], "probability"))


def test_cubeless_as_cubeful_tool(tmp_path):
    from helpers import assert_one_line_error, run

    m = TDNetwork(196, [8], "equity")
    parent = tmp_path / "cl.pt"
    save_checkpoint(str(parent), m, new_metadata(m, "cubeless-money"))
    out = tmp_path / "cf.pt"
    run("tools/cubeless_as_cubeful.py", parent, out, check=True)
    c, meta, _ = load_checkpoint(str(out))
    assert c.n_inputs == 200 and meta["game_mode"] == "cubeful-money"
    x = torch.rand(20, 196)
    assert torch.allclose(
        m(x), c(torch.cat([x, torch.tensor([[0, 1, 0, 1.0]]).repeat(20, 1)], 1)), atol=1e-6
    )
    assert_one_line_error(run("tools/cubeless_as_cubeful.py", parent, out), "exists")


def test_cubeless_as_cubeful_keeps_the_board_features(tmp_path):
    """A cubeless model that reads the board features becomes a cubeful one of 220 inputs;
    its metadata said 200 (written as a constant), a checkpoint that no reader could load."""
    from helpers import run

    m = TDNetwork(216, [8], "equity")
    parent = tmp_path / "cl.pt"
    save_checkpoint(str(parent), m, new_metadata(m, "cubeless-money"))
    run("tools/cubeless_as_cubeful.py", parent, tmp_path / "cf.pt", check=True)
    c, meta, _ = load_checkpoint(str(tmp_path / "cf.pt"))
    assert c.n_inputs == meta["n_inputs"] == 220
    assert meta["encoder"] == "tesauro196+cube4+board20"


def test_read_checkpoint_judges_the_kind_of_the_bytes_it_read(tmp_path):
    """What read_checkpoint returns is what it checked (fileio.content_kind of those bytes):
    a zip that torch.save did not write and a text file are refused by their kind, a
    checkpoint's bytes come back whole."""
    with zipfile.ZipFile(tmp_path / "plain.pt", "w") as zf:
        zf.writestr("readme.txt", "a zip that torch.save did not write")
    with pytest.raises(CheckpointError, match="it is a file of unknown kind"):
        read_checkpoint(str(tmp_path / "plain.pt"))
    (tmp_path / "t.pt").write_bytes(b"episodes,loss\n")
    with pytest.raises(CheckpointError, match="it is a text file"):
        read_checkpoint(str(tmp_path / "t.pt"))
    torch.save(torch.nn.Linear(2, 1).state_dict(), tmp_path / "c.pt")
    assert read_checkpoint(str(tmp_path / "c.pt")) == (tmp_path / "c.pt").read_bytes()
