"""tools/average_checkpoints.py: the mean of the weights, by hand, and its refusals."""

import torch

from helpers import assert_one_line_error, run
from tdbg.net.model import TDNetwork, load_checkpoint, new_metadata, save_checkpoint


def _ckpt(path, seed, hidden=(8,), mode="dmp", head="probability"):
    torch.manual_seed(seed)
    net = TDNetwork(196, list(hidden), head)
    save_checkpoint(str(path), net, new_metadata(net, mode))
    return net


def test_mean_of_the_weights(tmp_path):
    nets = [_ckpt(tmp_path / f"{k}.pt", k) for k in range(3)]
    out = tmp_path / "mean.pt"
    run(
        "tools/average_checkpoints.py",
        *(tmp_path / f"{k}.pt" for k in range(3)),
        "-o",
        out,
        check=True,
    )
    mean, meta, ts = load_checkpoint(str(out))
    for name, value in mean.state_dict().items():
        by_hand = (
            nets[0].state_dict()[name] + nets[1].state_dict()[name] + nets[2].state_dict()[name]
        ) / 3
        assert torch.allclose(value, by_hand, atol=1e-7), name
    assert len(meta["lineage"][-1]["averaged"]) == 3 and ts is None
    x = torch.rand(5, 196)  # a real mean, not one of the inputs
    assert not torch.allclose(mean(x), nets[0](x))


def test_the_averages_lineage_entry_has_its_date_and_commit(tmp_path):
    """As every writer's entry has (repair_twins, cubeless_as_cubeful, a stage): the average's
    alone had none, and describe_model showed it as "?  commit ?"."""
    for k in range(2):
        _ckpt(tmp_path / f"{k}.pt", k)
    out = tmp_path / "mean.pt"
    run("tools/average_checkpoints.py", tmp_path / "0.pt", tmp_path / "1.pt", "-o", out, check=True)
    entry = load_checkpoint(str(out))[1]["lineage"][-1]
    assert {"command", "episodes", "date", "commit", "averaged"} <= set(entry)
    assert entry["command"].split()[0].endswith("average_checkpoints.py")
    described = run("tools/describe_model.py", out, check=True).stdout
    assert "?  commit ?" not in described


def test_refusals(tmp_path):
    _ckpt(tmp_path / "a.pt", 0)
    _ckpt(tmp_path / "wide.pt", 1, hidden=(16,))
    _ckpt(tmp_path / "money.pt", 2, mode="cubeless-money", head="equity")
    out = tmp_path / "m.pt"
    assert_one_line_error(
        run("tools/average_checkpoints.py", tmp_path / "a.pt", tmp_path / "wide.pt", "-o", out),
        "only one network",
    )
    assert_one_line_error(
        run("tools/average_checkpoints.py", tmp_path / "a.pt", tmp_path / "money.pt", "-o", out),
        "only one network",
    )
    assert_one_line_error(
        run("tools/average_checkpoints.py", tmp_path / "a.pt", "-o", out), "at least two"
    )
    assert_one_line_error(
        run("tools/average_checkpoints.py", tmp_path / "a.pt", tmp_path / "none.pt", "-o", out),
        "no such checkpoint",
    )
    assert_one_line_error(
        run(
            "tools/average_checkpoints.py",
            tmp_path / "a.pt",
            tmp_path / "a.pt",
            "-o",
            tmp_path / "a.pt",
        ),
        "",
    )
    assert not out.exists()


def test_the_md5_recorded_is_of_the_bytes_averaged(tmp_path, monkeypatch):
    """A checkpoint replaced while it is averaged (the --save file of a running training,
    saved again after it was read): the lineage names the md5 of the bytes that went into
    the mean, not of the file that replaced them."""
    import hashlib

    import tools.average_checkpoints as tool

    paths = [tmp_path / "a.pt", tmp_path / "b.pt"]
    for k, path in enumerate(paths):
        _ckpt(path, k)
    read = {str(p): hashlib.md5(p.read_bytes()).hexdigest() for p in paths}
    real = tool.load_checkpoint

    def load_then_replace(path, *args, **kwargs):
        loaded = real(path, *args, **kwargs)
        _ckpt(path, 7)  # the next save of the run lands just after the read
        return loaded

    monkeypatch.setattr(tool, "load_checkpoint", load_then_replace)
    _, meta = tool.average([str(p) for p in paths])
    assert meta["lineage"][-1]["averaged"] == [f"{p} (md5 {read[str(p)]})" for p in paths]
    assert all(
        hashlib.md5(p.read_bytes()).hexdigest() != read[str(p)] for p in paths
    )  # both were replaced
