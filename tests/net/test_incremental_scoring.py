"""The incremental first layer (C engine: pre-move W1 x + b1 plus the columns of the
inputs a move changed) against the dense forward pass: every model kind, random and
trained weights, 20,000 (position, roll) pairs from gnubg-nn games."""

import numpy as np
import pytest
import torch

from tdbg.game import c_engine
from helpers import ROOT
from tdbg.game import backgammon_engine as be, encoding
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.modes import game_mode
from tdbg.net.model import TDNetwork, load_checkpoint
from tdbg.net.scoring import Scorer, ScoringSettings, segment_argmax

TOL = 1e-5
# (game mode, output, inputs, trained checkpoint of that kind)
KINDS = [
    ("dmp", "probability", 196, "best_models/dmp_256x2.pt"),
    ("cubeless-money", "equity", 196, "best_models/cubeless_256x2.pt"),
    ("cubeless-money", "prob5", 196, "best_models/prob5_128x2.pt"),
    ("cubeful-money", "equity", 200, "best_models/cubeful_256x2.pt"),
]


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Hundreds of thousands of rows per call: with two torch threads on a busy 2-core
    machine the threads' spin-waits made these tests 20x slower (as in self-play's workers)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _model(trained: bool, output: str, n_inputs: int, path: str):
    if trained:
        model, meta, _ = load_checkpoint(f"{ROOT}/{path}")
        assert (model.output_mode, model.n_inputs) == (output, n_inputs)
        return model.eval()
    torch.manual_seed(n_inputs + len(output))
    # 100 and 20 wide: the C sums' 64-, 8- and 1-float paths all run
    return TDNetwork(n_inputs, [100, 20, 24], output).eval()


def _inputs(positions, mode, seed):
    rng = np.random.default_rng(seed)
    dice = rng.integers(1, 7, (len(positions), 2))
    owner = rng.integers(0, 3, len(positions)) if mode.cubeful else None
    return dice, owner


def _assert_same_choices(offsets, scalar_inc, scalar_dense):
    """The same move wherever the best is not a tie within TOL under the dense values."""
    rows_inc, _ = segment_argmax(scalar_inc, offsets)
    rows_dense, best = segment_argmax(scalar_dense, offsets)
    differ = rows_inc != rows_dense
    assert (best[differ] - scalar_dense[rows_inc[differ]] <= TOL).all()
    return int(differ.sum())


@pytest.mark.parametrize("trained", [False, True], ids=["random", "trained"])
@pytest.mark.parametrize("mode_name,output,n_inputs,path", KINDS)
def test_candidate_values_match_dense_forward(
    positions_20k, mode_name, output, n_inputs, path, trained
):
    mode = game_mode(mode_name)
    model = _model(trained, output, n_inputs, path)
    dice, owner = _inputs(positions_20k, mode, seed=n_inputs)
    inc = Scorer(model, mode, engine="c", scoring=ScoringSettings(first_layer="incremental"))
    dense = Scorer(model, mode, engine="c", scoring=ScoringSettings(first_layer="dense"))
    assert (inc.first_layer, dense.first_layer) == ("incremental", "dense")
    a_inc, o_inc, v_inc, s_inc = (x.copy() for x in inc.score(positions_20k, dice, owner))
    a_dense, o_dense, v_dense, s_dense = dense.score(positions_20k, dice, owner)
    assert (
        len(o_inc) == 20_001 and np.array_equal(o_inc, o_dense) and np.array_equal(a_inc, a_dense)
    )
    assert np.abs(v_inc - v_dense).max() <= TOL
    assert np.abs(s_inc - s_dense).max() <= TOL
    _assert_same_choices(o_dense, s_inc, s_dense)


@pytest.mark.parametrize("mode_name,output,n_inputs,path", KINDS)
def test_first_hidden_layer_equals_torch_on_encoded_candidates(
    positions_20k, mode_name, output, n_inputs, path
):
    """The C sums against torch's first layer on the numpy encoder's inputs (with the
    cube inputs the scorer gives the opponent), for a trained model's weights."""
    mode = game_mode(mode_name)
    model = _model(True, output, n_inputs, path)
    boards = positions_20k[:5000]
    dice, owner = _inputs(boards, mode, seed=1)
    w = model.layers[0].weight.detach()
    w1t, b1 = w.t().contiguous().numpy(), model.layers[0].bias.detach().numpy()
    cube = None
    if mode.cubeful:
        cube = encoding.cube_features(owner, owner != 1)  # any per-input values will do
    after, hidden1, offsets = c_engine.Expander(n_inputs).expand_first_layer(
        boards, dice, w1t, b1, cube
    )
    x = np.zeros((len(after), n_inputs), dtype=np.float32)
    x[:, :196] = encoding.encode_batch(after[:, ::-1])  # the opponent, on roll next, in row 1
    if cube is not None:
        x[:, 196:] = np.repeat(cube, np.diff(offsets), axis=0)
    with torch.no_grad():
        want = torch.relu(model.layers[0](torch.from_numpy(x))).numpy()
    assert np.abs(hidden1 - want).max() <= TOL * max(1.0, np.abs(want).max())
    assert (hidden1 >= 0).all() and ((hidden1 == 0) == (want == 0)).mean() > 0.999


@pytest.mark.parametrize("mode_name,output,n_inputs,path", KINDS)
def test_oneply_targets_match_dense(positions_20k, mode_name, output, n_inputs, path):
    """1-ply scores each position for all 21 rolls: the C side reuses the pre-move sums."""
    mode = game_mode(mode_name)
    model = _model(True, output, n_inputs, path)
    boards = positions_20k[::40]  # 500 positions x 21 rolls
    _, owner = _inputs(boards, mode, seed=2)
    inc = Scorer(model, mode, scoring=ScoringSettings(first_layer="incremental"))
    dense = Scorer(model, mode, scoring=ScoringSettings(first_layer="dense"))
    t_inc, (_, rows_inc) = inc.oneply(boards, owner)
    t_dense, (_, rows_dense) = dense.oneply(boards, owner)
    assert np.abs(t_inc - t_dense).max() <= TOL
    assert (rows_inc == rows_dense).mean() > 0.99  # ties aside; checked exactly in the test above


@pytest.mark.parametrize("capacity", [1 << 20, 64], ids=["one call", "buffers grown mid-run"])
def test_distinct_rows_are_the_rows_each_candidate_would_get(positions_20k, capacity):
    """``distinct``: consecutive identical inputs (board and cube inputs, as 1-ply's 21 rolls
    of a position) give each distinct after-state one hidden row.  Every candidate's row must
    be the bits it gets on its own, the boards and offsets unchanged, and (in one call) the
    rows exactly one per distinct after-state of each run of inputs, counted here with numpy."""
    model = _model(True, "equity", 200, "best_models/cubeful_256x2.pt")
    w1t = model.layers[0].weight.detach().t().contiguous().numpy()
    b1 = model.layers[0].bias.detach().numpy()
    boards = np.repeat(positions_20k[:40], len(ALL_ROLLS), axis=0)
    dice = np.tile(ALL_ROLLS, (40, 1))
    owner = np.repeat(np.arange(40) % 3, len(ALL_ROLLS))
    owner[5 * 21 + 10 : 6 * 21] = 2 - owner[5 * 21]  # one position's run split by other cube inputs
    cube = encoding.cube_features(owner, owner != 1)
    after, hidden1, offsets = c_engine.Expander(200).expand_first_layer(boards, dice, w1t, b1, cube)
    after, hidden1 = after.copy(), hidden1.copy()
    d_after, d_hidden, d_offsets, src = c_engine.Expander(
        200, capacity=capacity
    ).expand_first_layer(boards, dice, w1t, b1, cube, distinct=True)
    assert np.array_equal(d_after, after) and np.array_equal(d_offsets, offsets)
    assert np.array_equal(d_hidden[src].view(np.uint32), hidden1.view(np.uint32))
    assert src.min() == 0 and src.max() == len(d_hidden) - 1
    if capacity > len(after):
        same = np.r_[
            False, (boards[1:] == boards[:-1]).all(axis=(1, 2)) & (owner[1:] == owner[:-1])
        ]
        run = np.repeat(np.cumsum(~same), np.diff(offsets))
        keys = np.concatenate([run[:, None], after.reshape(len(after), -1)], axis=1)
        assert len(d_hidden) == len(np.unique(keys, axis=0)) < 0.95 * len(after)


@pytest.mark.parametrize("mode_name,output,n_inputs,path", KINDS)
def test_python_engine_falls_back_to_dense_and_agrees(
    positions_20k, mode_name, output, n_inputs, path
):
    mode = game_mode(mode_name)
    model = _model(False, output, n_inputs, path)
    boards = positions_20k[:300]  # the reference engine is slow
    dice, owner = _inputs(boards, mode, seed=3)
    slow = Scorer(model, mode, engine="python", scoring=ScoringSettings(first_layer="incremental"))
    assert slow.first_layer == "dense"
    inc = Scorer(model, mode, engine="c", scoring=ScoringSettings(first_layer="incremental"))
    _, o_py, v_py, s_py = slow.score(boards, dice, owner)
    _, o_c, v_c, s_c = inc.score(boards, dice, owner)
    assert np.array_equal(o_py, o_c)  # (the candidate order may differ between engines)
    for i in range(len(boards)):
        a, b = np.sort(s_py[o_py[i] : o_py[i + 1]]), np.sort(s_c[o_c[i] : o_c[i + 1]])
        assert np.abs(a - b).max() <= TOL


def test_incremental_follows_weight_updates():
    """The cached W1^T is refreshed after in-place updates (online TD) and reloads."""
    mode = game_mode("dmp")
    torch.manual_seed(0)
    model = TDNetwork(196, [32], "probability").eval()
    boards = np.tile(be.initial_board(), (21, 1, 1))
    inc, dense = (
        Scorer(model, mode, scoring=ScoringSettings(first_layer="incremental")),
        Scorer(model, mode, scoring=ScoringSettings(first_layer="dense")),
    )
    before = inc.score(boards, ALL_ROLLS)[2].copy()
    with torch.no_grad():
        model.layers[0].weight.add_(0.5)
        model.layers[0].bias.sub_(0.25)
    after = inc.score(boards, ALL_ROLLS)[2].copy()
    assert np.abs(after - before).max() > 1e-3
    assert np.abs(after - dense.score(boards, ALL_ROLLS)[2]).max() <= TOL
    other = TDNetwork(196, [32], "probability")
    model.load_state_dict(other.state_dict())
    assert np.abs(inc.score(boards, ALL_ROLLS)[2] - dense.score(boards, ALL_ROLLS)[2]).max() <= TOL


def test_first_layer_modes():
    model = TDNetwork(196, [8], "probability")
    mode = game_mode("dmp")
    assert Scorer(model, mode).first_layer == "incremental"  # auto on a CPU with the C engine
    assert Scorer(model, mode, scoring=ScoringSettings(first_layer="dense")).first_layer == "dense"
    assert Scorer(model, mode, engine="python").first_layer == "dense"
    with pytest.raises(ValueError, match="first-layer mode"):
        Scorer(model, mode, scoring=ScoringSettings(first_layer="sparse"))
    with pytest.raises(ValueError, match="w1t"):
        c_engine.Expander().expand_first_layer(
            np.zeros((1, 2, 25)), [[1, 2]], np.zeros((10, 8), np.float32), np.zeros(8, np.float32)
        )


def test_incremental_with_the_python_engine_is_refused(monkeypatch):
    """Only the C engine computes the incremental sums: asked for with the Python engine (named,
    or the only one built) it would run dense, so the command line refuses it; the modes that
    can run pass."""
    from tdbg.game import movegen
    from tdbg.infra.errors import InputError
    from tdbg.net.scoring import check_first_layer

    with pytest.raises(InputError, match="--engine python"):
        check_first_layer("incremental", "python")
    for first_layer, engine in (
        ("incremental", "c"),
        ("incremental", "auto"),
        ("auto", "python"),
        ("dense", "python"),
    ):
        check_first_layer(first_layer, engine)
    monkeypatch.setattr(movegen, "c_available", lambda: False)
    with pytest.raises(InputError, match="C engine is not built"):
        check_first_layer("incremental", "auto")


def test_train_batch_refuses_incremental_with_the_python_engine(tmp_path):
    from helpers import assert_one_line_error, run

    proc = run(
        "train_batch.py",
        "--hidden",
        "16",
        "--engine",
        "python",
        "--scoring",
        "incremental",
        "--num-episodes",
        "4",
        "--episodes-per-round",
        "2",
        "--quiet",
        "--save",
        tmp_path / "x.pt",
    )
    assert_one_line_error(proc, "--scoring incremental needs the C engine")
    assert not (tmp_path / "x.pt").exists()
