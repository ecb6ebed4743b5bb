"""The standalone C program against PyTorch and td_agent."""

import copy
import os
import subprocess

import numpy as np
import pytest
import torch

from helpers import ROOT, move_values, run
from oracle_positions import oracle_positions
from tdbg.game import backgammon_engine as be
from tdbg.game.heads import output_head
from tdbg.game.modes import game_mode
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.net.scoring import Scorer
from tdbg.play.td_agent import TDAgent

BINARY = f"{ROOT}/c_inference/tdbg_move"
KINDS = [
    ("dmp", "probability", 196),
    ("cubeless-money", "equity", 196),
    ("cubeless-money", "prob5", 196),
    ("cubeful-money", "equity", 200),
]


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "-C", f"{ROOT}/c_inference"], check=True, capture_output=True)


@pytest.fixture(scope="module")
def positions():
    return oracle_positions(3000, seed=21)


def _export(tmp_path, mode_name, output, n_inputs, hidden=(32, 16), activation="relu"):
    torch.manual_seed(hash((mode_name, output)) % 1000)
    model = TDNetwork(n_inputs, list(hidden), output, activation).eval()
    ckpt, binf = (
        tmp_path / f"{output}{n_inputs}{activation}.pt",
        tmp_path / f"{output}{n_inputs}{activation}.bin",
    )
    save_checkpoint(str(ckpt), model, new_metadata(model, mode_name))
    run("tools/export_weights.py", ckpt, binf, check=True)
    return model, str(binf)


def _c(binf, lines, *args):
    proc = subprocess.run(
        [BINARY, binf, *args], input="\n".join(lines) + "\n", capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.parametrize("mode_name,output,n_inputs", KINDS)
def test_forward_pass_matches_pytorch(tmp_path, positions, mode_name, output, n_inputs):
    model, binf = _export(tmp_path, mode_name, output, n_inputs)
    pids = [be.position_id(b) for b in positions]
    cube = ["--cube", "mine", "--cube-action"] if n_inputs == 200 else []
    got = np.array(
        [[float(x) for x in line.split()[1:]] for line in _c(binf, pids, "--eval", *cube)]
    )
    scorer = Scorer(model, game_mode(mode_name))
    owner = np.ones(len(positions), dtype=int) if n_inputs == 200 else None
    want = scorer.state_values(
        positions, owner, np.ones(len(positions)) if n_inputs == 200 else None
    )
    assert np.abs(got.reshape(want.shape) - want).max() < 1e-5


@pytest.mark.slow
@pytest.mark.parametrize("mode_name,output,n_inputs", KINDS)
def test_same_moves_as_td_agent(tmp_path, positions, mode_name, output, n_inputs):
    model, binf = _export(tmp_path, mode_name, output, n_inputs)
    rng = np.random.default_rng(0)
    dice = rng.integers(1, 7, (len(positions), 2))
    lines = [f"{be.position_id(b)} {d1} {d2}" for b, (d1, d2) in zip(positions, dice, strict=True)]
    out = [line.split("\t") for line in _c(binf, lines)]
    agent = TDAgent(model, game_mode(mode_name))
    chosen = agent.choose_moves(positions, dice)
    want = [be.position_id(be.swap(c)) for c in chosen]
    differ = [k for k, (o, w) in enumerate(zip(out, want, strict=True)) if o[4] != w]
    # a different choice is only acceptable between candidates of equal value (float ties)
    for k in differ:
        after, offsets, _, scalar = agent.scorer.score(positions[k : k + 1], dice[k : k + 1])
        vals = {be.position_id(be.swap(a)): v for a, v in zip(after, scalar, strict=True)}
        assert abs(vals[out[k][4]] - vals[want[k]]) < 1e-5
    assert len(differ) <= len(positions) // 200
    # the printed move text is our notation of that move
    k = 7
    assert (
        be.parse_move(
            positions[k], *map(int, dice[k]), out[k][2] if out[k][2] != "(no move)" else ""
        )[1].tolist()
        == be.swap(be.board_from_position_id(out[k][4])).tolist()
    )


def test_bad_weight_files(tmp_path):
    _, binf = _export(tmp_path, "dmp", "probability", 196)
    data = open(binf, "rb").read()
    cases = {
        "magic": b"XXXXXXXX" + data[8:],
        "version": data[:8] + b"\x07\x00\x00\x00" + data[12:],
        "size": data[:-4],
        "extra": data + b"\x00" * 8,
        "short": data[:20],
    }
    for name, blob in cases.items():
        path = tmp_path / f"{name}.bin"
        path.write_bytes(blob)
        proc = subprocess.run(
            [BINARY, str(path), "4HPwATDgc/ABMA", "3", "1"], capture_output=True, text=True
        )
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, (
            name,
            proc.stderr,
        )
        assert "error" in proc.stderr
    for args in (["nope!nope!nope", "3", "1"], ["4HPwATDgc/ABMA", "7", "1"]):
        proc = subprocess.run([BINARY, binf, *args], capture_output=True, text=True)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    proc = run("tools/export_weights.py", tmp_path / "missing.pt", tmp_path / "o.bin")
    assert proc.returncode == 2 and "no such checkpoint" in proc.stderr
    # a match model: C plays money and DMP only, so one error line, nothing written
    proc = run(
        "tools/export_weights.py",
        os.path.join(ROOT, "best_models", "match_256x2.pt"),
        tmp_path / "m.bin",
    )
    assert (
        proc.returncode == 2
        and len(proc.stderr.strip().splitlines()) == 1
        and "match model" in proc.stderr
    )
    assert not (tmp_path / "m.bin").exists()
    # a model reading the board features (features.py): C computes only the raw inputs
    from tdbg.net.model import load_checkpoint, save_checkpoint
    from tdbg.net.net_growth import add_board_features

    model, meta, _ = load_checkpoint(os.path.join(ROOT, "best_models", "dmp_128x2.pt"))
    save_checkpoint(
        str(tmp_path / "f.pt"),
        add_board_features(model),
        {**meta, "n_inputs": 216, "encoder": "tesauro196+board20"},  # (as growth writes them)
    )
    proc = run("tools/export_weights.py", tmp_path / "f.pt", tmp_path / "f.bin")
    assert (
        proc.returncode == 2
        and len(proc.stderr.strip().splitlines()) == 1
        and "board features" in proc.stderr
    )
    assert not (tmp_path / "f.bin").exists()


ACTIVATION_KINDS = [
    (a, *k) for a in ("sigmoid", "tanh", "leaky_relu") for k in (KINDS[0], KINDS[3])
]


@pytest.mark.parametrize("activation,mode_name,output,n_inputs", ACTIVATION_KINDS)
def test_other_activations_match_pytorch(
    tmp_path, positions, activation, mode_name, output, n_inputs
):
    """The exported activation is the one C applies, in the forward pass and in the move
    choice (whose first layer comes from the C engine's pre-activations)."""
    model, binf = _export(tmp_path, mode_name, output, n_inputs, activation=activation)
    assert open(binf, "rb").read()[24] == ["relu", "sigmoid", "tanh", "leaky_relu"].index(
        activation
    )
    pids = [be.position_id(b) for b in positions[:500]]
    got = np.array([float(line.split()[1]) for line in _c(binf, pids, "--eval")])
    owner = np.zeros(len(pids), dtype=int) if n_inputs == 200 else None
    want = Scorer(model, game_mode(mode_name)).state_values(
        positions[:500], owner, np.zeros(len(pids)) if n_inputs == 200 else None
    )
    assert np.abs(got - want).max() < 1e-5
    relu = TDNetwork(n_inputs, [32, 16], output).eval()
    relu.load_state_dict(model.state_dict())
    assert (
        np.abs(
            Scorer(relu, game_mode(mode_name)).state_values(
                positions[:500], owner, np.zeros(len(pids)) if n_inputs == 200 else None
            )
            - want
        ).max()
        > 1e-4
    )
    dice = np.random.default_rng(1).integers(1, 7, (500, 2))
    out = _c(binf, [f"{p} {d1} {d2}" for p, (d1, d2) in zip(pids, dice, strict=True)])
    chosen = TDAgent(model, game_mode(mode_name)).choose_moves(positions[:500], dice)
    differ = [
        k
        for k, (o, c) in enumerate(zip(out, chosen, strict=True))
        if o.split("\t")[4] != be.position_id(be.swap(c))
    ]
    assert len(differ) <= 5
    # C (float32) and PyTorch (float32) may break a near-tie differently: each differing pair
    # must be a tie within 1e-5 in a float64 reference (one call per move, Python engine)
    model64, head = copy.deepcopy(model).double(), output_head(output)
    for k in differ:
        vals = {
            be.position_id(be.swap(a)): s
            for a, _, s in move_values(
                model64,
                game_mode(mode_name),
                positions[k],
                *map(int, dice[k]),
                0,
                head,
                torch.float64,
            )
        }
        assert abs(vals[out[k].split("\t")[4]] - vals[be.position_id(be.swap(chosen[k]))]) < 1e-5, k


def test_version_1_files_still_read_as_relu(tmp_path, positions):
    """A file from before the activation field (version 1): same header less that word."""
    model, binf = _export(tmp_path, "dmp", "probability", 196)
    data = open(binf, "rb").read()
    old = tmp_path / "v1.bin"
    old.write_bytes(data[:8] + b"\x01\x00\x00\x00" + data[12:24] + data[28:])
    pids = [be.position_id(b) for b in positions[:200]]
    assert _c(str(old), pids, "--eval") == _c(binf, pids, "--eval")
    bad = tmp_path / "act9.bin"
    bad.write_bytes(data[:24] + b"\x09\x00\x00\x00" + data[28:])
    proc = subprocess.run(
        [BINARY, str(bad), "4HPwATDgc/ABMA", "3", "1"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "out of range" in proc.stderr


def test_version_1_copy_for_the_benchmark_baseline(tmp_path, positions):
    """export_weights.version1_bytes (the C inference benchmark hands its baseline commit,
    which reads version 1 only, this copy): the header by hand (version word 1, the activation
    word at offset 24 gone), the same answers from today's reader, and the moves of the
    baseline program built from git at that commit equal today's.  No timing."""
    import importlib.util
    import struct

    from tools.export_weights import version1_bytes

    _, binf = _export(tmp_path, "dmp", "probability", 196)
    data = open(binf, "rb").read()
    v1 = version1_bytes(data)
    assert len(v1) == len(data) - 4 and v1[:8] == b"TDBGNET1"
    assert struct.unpack_from("<5I", v1, 8) == (
        1,
        0,
        0,
        1,
        196,
    )  # version, output, game, flags, inputs
    assert v1[24:] == data[28:]
    old = tmp_path / "v1.bin"
    old.write_bytes(v1)
    pids = [be.position_id(b) for b in positions[:200]]
    assert _c(str(old), pids, "--eval") == _c(binf, pids, "--eval")
    with pytest.raises(ValueError, match="ReLU"):
        version1_bytes(
            open(_export(tmp_path, "dmp", "probability", 196, activation="tanh")[1], "rb").read()
        )
    with pytest.raises(ValueError, match="version 1"):
        version1_bytes(v1)
    spec = importlib.util.spec_from_file_location(
        "bench_c", f"{ROOT}/experiments/benchmarks/c_inference.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    if subprocess.run(
        ["git", "-C", ROOT, "cat-file", "-e", f"{bench.BASELINE}^{{commit}}"]
    ).returncode:
        pytest.skip(f"no commit {bench.BASELINE} in this clone (shallow?)")
    folder = tmp_path / "baseline"
    folder.mkdir()
    exe = bench.build_baseline(bench.BASELINE, str(folder))
    dice = np.random.default_rng(2).integers(1, 7, (200, 2))
    lines = [f"{p} {d1} {d2}" for p, (d1, d2) in zip(pids, dice, strict=True)]
    base = subprocess.run(
        [exe, str(old)], input="\n".join(lines) + "\n", capture_output=True, text=True
    )
    assert base.returncode == 0, base.stderr
    assert [ln.split("\t")[4] for ln in base.stdout.splitlines()] == [
        ln.split("\t")[4] for ln in _c(binf, lines)
    ]
    assert (
        subprocess.run(
            [exe, binf], input=lines[0] + "\n", capture_output=True, text=True
        ).returncode
        == 2
    )  # v2: why
