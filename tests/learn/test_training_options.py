"""Issue 18's training options: exploration and its targets, 1-ply cube targets, narrow
depth expansion, hidden activations, --keep-output-layer, the optimizer options,
--torch-seed, --save-every snapshots and prob5's losses."""

from dataclasses import replace
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from helpers import ROOT, assert_one_line_error, board, brute_value, run
from oracle_positions import oracle_positions
from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup, _Recorder
from tdbg.learn.stage_settings import Acting, Optimisation
from tdbg.learn.trainer import Trainer
from tdbg.net import net_growth
from tdbg.net.losses import prob5_loss
from tdbg.net.model import TDNetwork, load_checkpoint, new_metadata, save_checkpoint
from tdbg.net.scoring import Scorer, ScoringSettings, segment_argmax, segment_sample
from tdbg.net.search import Search
from tdbg.play.td_agent import TDAgent

QUICK = ["--episodes-per-round", "20", "--quiet", "--parallel-games", "8"]


@pytest.fixture(scope="module")
def positions():
    return oracle_positions(400, seed=5)


def _net(n_inputs=196, hidden=(24, 16), output="probability", activation="relu", seed=0):
    torch.manual_seed(seed)
    return TDNetwork(n_inputs, list(hidden), output, activation).eval()


# --------------------------------------------------------------------------- exploration


def test_segment_sample_follows_the_softmax():
    values = np.array([0.0, 0.1, 0.2, 0.5, 0.3])  # segments [0.0, 0.1, 0.2] and [0.5] and [0.3]
    base = np.array([0, 3, 4, 5])
    reps = 20000
    vals = np.tile(values, reps)
    offsets = np.concatenate([[0], (np.arange(1, reps + 1)[:, None] * 5 - 5 + base[1:]).ravel()])
    rows = segment_sample(vals, offsets, 0.1, np.random.default_rng(0))
    assert np.all((rows >= offsets[:-1]) & (rows < offsets[1:]))
    first = rows[::3] % 5
    want = np.exp(np.array([0.0, 1.0, 2.0]))
    want /= want.sum()
    freq = np.bincount(first, minlength=3) / reps
    assert np.abs(freq - want).max() < 4 * np.sqrt(want * (1 - want) / reps).max()
    # a cold temperature is the argmax
    cold = segment_sample(vals, offsets, 1e-6, np.random.default_rng(1))
    assert np.array_equal(cold, segment_argmax(vals, offsets)[0])


def _recorder(model, mode, acting, oneply=False, seed=3):
    sp = SelfPlay(
        model,
        SelfPlaySetup(mode, replace(FP32_COLLECTION, oneply=oneply), acting=acting, engine="c"),
    )
    rec = _Recorder(sp, None, np.random.default_rng(seed))
    return sp, rec


def test_exploration_changes_the_move_not_the_target(positions):
    """Boltzmann play: the target is the greedy candidate's value; the move played is
    some candidate, often not the best at a high temperature."""
    model, mode = _net(), game_mode("dmp")
    boards = positions[:200]
    dice = np.random.default_rng(2).integers(1, 7, (len(boards), 2))
    sp, rec = _recorder(model, mode, Acting(boltzmann_temp=1.0))
    chosen = rec.move(np.arange(len(boards)), boards, dice, None)
    after, offsets, values, scalar = Scorer(model, mode, "c").score(boards, dice)
    after = after.copy()
    best, best_v = segment_argmax(scalar, offsets)
    assert np.allclose(rec.targets[0], best_v)
    key = {
        (i, a.tobytes())
        for i in range(len(boards))
        for a in after[offsets[i] : offsets[i + 1]].astype(np.int64)
    }
    assert all((i, c.tobytes()) in key for i, c in enumerate(chosen))
    greedy = after[best].astype(np.int64)
    several = np.diff(offsets) > 3
    assert (chosen[several] != greedy[several]).any(axis=(1, 2)).mean() > 0.3
    # with 1-ply targets the target is the 1-ply mean, whatever is played
    sp, rec = _recorder(model, mode, Acting(boltzmann_temp=1.0), oneply=True)
    rec.move(np.arange(20), boards[:20], dice[:20], None)
    assert np.allclose(
        rec.targets[0],
        [brute_value(model, mode, b, 0, sp.scorer.values) for b in boards[:3]]
        + list(sp.scorer.oneply(boards[3:20])[0]),
    )


def test_oneply_acting_plays_the_1ply_move_with_0ply_targets(positions):
    model, mode = _net(n_inputs=196, output="equity", seed=4), game_mode("cubeless-money")
    boards = positions[:40]
    dice = np.random.default_rng(6).integers(1, 7, (len(boards), 2))
    owner = np.zeros(len(boards), dtype=np.int64)
    _, rec = _recorder(model, mode, Acting(oneply_acting=True))
    chosen = rec.move(np.arange(len(boards)), boards, dice, owner)
    assert np.array_equal(
        chosen, TDAgent(model, mode, Search(oneply=True)).choose_moves(boards, dice, owner)
    )
    _, offsets, _, scalar = Scorer(model, mode, "c").score(boards, dice, owner)
    _, best_v = segment_argmax(scalar, offsets)  # equity: the scalar is the value
    assert np.allclose(rec.targets[0], best_v)
    zero_ply = TDAgent(model, mode).choose_moves(boards, dice, owner)
    assert (chosen != zero_ply).any()  # the lookahead changed some choices


def test_cube_targets_1ply_are_the_backed_up_cube_rule():
    """Cube node targets from a brute-force 1-ply value (one network call per move)."""
    model, mode = _net(200, (16,), "equity", seed=7), game_mode("cubeful-money")
    boards = np.array(
        [
            board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2}),
            board({1: 3, 2: 3, 3: 3, 4: 3, 5: 3}, {19: 2, 6: 4, 12: 2, 13: 7}),
        ]
    )
    owner = np.zeros(2, dtype=np.int64)
    _, rec = _recorder(model, mode, Acting(cube_targets_1ply=True))
    rec.cube(np.arange(2), boards, owner)
    head = Scorer(model, mode).values
    take_owner = mode.after_take(owner)
    want = [
        max(
            brute_value(model, mode, b, 0, head),
            min(2 * brute_value(model, mode, b, int(t), head), 1.0),
        )
        for b, t in zip(boards, take_owner, strict=True)
    ]
    assert np.allclose(rec.targets[0], want, atol=1e-6)
    _, rec0 = _recorder(model, mode, Acting())
    rec0.cube(np.arange(2), boards, owner)
    assert not np.allclose(rec0.targets[0], want, atol=1e-4)


# --------------------------------------------------------------------------- growth and activations


@pytest.mark.parametrize(
    "path,new",
    [
        ("best_models/dmp_256x2.pt", [256, 256, 128]),
        ("best_models/prob5_128x2.pt", [128, 128, 16]),
        ("best_models/cubeful_256x2.pt", [256, 256, 2, 40]),
    ],
)
def test_narrow_depth_expansion_preserves_trained_nets(path, new, positions):
    model, meta, _ = load_checkpoint(f"{ROOT}/{path}")
    grown = net_growth.expand(model, new, seed=1).eval()
    assert grown.hidden == new
    x = torch.rand(500, model.n_inputs)
    if model.n_inputs == 196:
        x = torch.from_numpy(Scorer(model, game_mode(meta["game_mode"])).encode_states(positions))
    with torch.no_grad():
        # exact for a narrower layer; [256,256,2,40] also adds a 2-wide identity layer (before
        # widening it to 40), whose weights carry DEEPEN_NOISE (std 1e-4): about 1.5e-5 here
        assert (grown(x) - model(x)).abs().max() < (1e-4 if new[-1] > new[-2] else 1e-5)
        # every new unit starts active (above ReLU's kink), so all of them get gradients
        a = x
        for layer in grown.layers[: len(model.hidden) + 1]:
            a = torch.relu(layer(a))
        assert (a > 0).all()


def test_depth_expansion_refusals():
    with pytest.raises(ValueError, match="ReLU"):
        net_growth.expand(_net(activation="sigmoid"), [24, 16, 16])
    with pytest.raises(ValueError, match="at least 10"):
        net_growth.expand(_net(output="prob5"), [24, 16, 8])
    grown = net_growth.expand(_net(activation="tanh"), [30, 20])  # widening keeps any activation
    x = torch.rand(50, 196)
    with torch.no_grad():
        assert (grown(x) - _net(activation="tanh")(x)).abs().max() < 1e-6


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "leaky_relu"])
def test_activation_everywhere(tmp_path, positions, activation):
    """The checkpoint keeps it; both first-layer paths apply it (by hand: torch's own
    function on the dense product)."""
    model, mode = _net(activation=activation), game_mode("dmp")
    path = str(tmp_path / "m.pt")
    save_checkpoint(path, model, new_metadata(model, "dmp"))
    loaded, meta, _ = load_checkpoint(path)
    assert loaded.activation == activation == meta["activation"]
    x = torch.from_numpy(Scorer(model, mode).encode_states(positions))
    fn = {
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "leaky_relu": lambda v: torch.where(v > 0, v, 0.01 * v),
    }
    a = x
    with torch.no_grad():
        for layer in model.layers:
            a = fn[activation](layer(a))
        want = torch.sigmoid(model.head(a)).squeeze(-1)
        assert (loaded(x) - want).abs().max() < 1e-6
    dice = np.random.default_rng(0).integers(1, 7, (len(positions), 2))
    inc = (
        Scorer(model, mode, "c", scoring=ScoringSettings(first_layer="incremental"))
        .score(positions, dice)[2]
        .copy()
    )
    dense = Scorer(model, mode, "c", scoring=ScoringSettings(first_layer="dense")).score(
        positions, dice
    )[2]
    assert np.abs(inc - dense).max() < 1e-5


def test_old_checkpoints_are_relu(tmp_path):
    model = _net()
    meta = new_metadata(model, "dmp")
    del meta["activation"]
    save_checkpoint(str(tmp_path / "old.pt"), model, meta)
    assert load_checkpoint(str(tmp_path / "old.pt"))[0].activation == "relu"


def test_keep_output_layer_halves_the_dmp_head(positions):
    dmp, _, _ = load_checkpoint(f"{ROOT}/best_models/dmp_128x2.pt")
    eq = net_growth.warm_start_equity(dmp, keep_output_layer=True)
    assert torch.equal(eq.head.weight, dmp.head.weight / 2) and torch.equal(
        eq.head.bias, dmp.head.bias / 2
    )
    x = torch.from_numpy(Scorer(dmp, game_mode("dmp")).encode_states(positions))
    with torch.no_grad():
        p, e = dmp(x), eq(x)
    near = (p - 0.5).abs() < 0.1
    assert (
        near.sum() > 10 and ((2 * p - 1) - e)[near].abs().max() < 0.01
    )  # tanh(z/2) = z/2 + O(z^3)


# --------------------------------------------------------------------------- optimisation


def test_grad_clip_and_momentum_by_hand():
    x, y = torch.rand(8, 196), torch.full((8,), 5.0)
    model = _net(output="equity", hidden=(6,))
    start = [p.detach().clone() for p in model.parameters()]
    tr = Trainer(model, Optimisation(optimizer="sgd", batch_size=8, grad_clip=1e-3), lr=0.1)
    tr.train_epoch(x.numpy(), y.numpy(), np.random.default_rng(0))
    step = float(
        torch.sqrt(
            sum(
                ((p.detach() - s) ** 2).sum()
                for p, s in zip(model.parameters(), start, strict=True)
            )
        )
    )
    assert (
        abs(step / (0.1 * 1e-3) - 1) < 1e-3
    )  # the clipped gradient has norm 1e-3 (unclipped: ~10)
    # momentum m: the second step is lr (g2 + m g1)
    model = _net(output="equity", hidden=(6,))
    p0 = [p.detach().clone() for p in model.parameters()]

    def grad(params):
        m = _net(output="equity", hidden=(6,))
        with torch.no_grad():
            for q, v in zip(m.parameters(), params, strict=True):
                q.copy_(v)
        loss = torch.mean((m(x) - y) ** 2)
        return torch.autograd.grad(loss, list(m.parameters()))

    g1 = grad(p0)
    p1 = [p - 0.01 * g for p, g in zip(p0, g1, strict=True)]
    g2 = grad(p1)
    want = [p - 0.01 * (b + 0.9 * a) for p, a, b in zip(p1, g1, g2, strict=True)]
    tr = Trainer(model, Optimisation(optimizer="sgd", batch_size=8, momentum=0.9), lr=0.01)
    for _ in range(2):
        tr.train_epoch(x.numpy(), y.numpy(), np.random.default_rng(0))
    assert all(
        torch.allclose(p, w, atol=1e-6) for p, w in zip(model.parameters(), want, strict=True)
    )
    with pytest.raises(ValueError, match="sgd"):
        Trainer(model, Optimisation(optimizer="adam", momentum=0.5))


def test_prob5_losses_by_hand():
    z = torch.tensor([[0.3, -0.2, 0.5, 0.1, -1.0], [40.0, 0.0, 0.0, 0.0, 0.0]])

    class Fixed(torch.nn.Module):
        def logits(self, x):
            return z[x]

        def forward(self, x):
            from tdbg.net.model import prob5_from_conditionals

            return prob5_from_conditionals(torch.sigmoid(z[x]))

    m = Fixed()
    y = torch.tensor([[0.6, 0.2, 0.05, 0.1, 0.01], [0.0, 0.0, 0.0, 0.0, 0.0]])
    first = torch.tensor([0])
    p = m(first)
    bce = F.binary_cross_entropy(p.double(), y[:1].double(), reduction="none")[0]
    for raw in (False, True):
        assert (
            abs(
                float(prob5_loss("cross-entropy", raw_logits=raw)(m, first, y[:1]))
                - float(bce.mean())
            )
            < 1e-5
        )
    w = torch.tensor([3.0, 1, 1, 1, 1], dtype=torch.float64)
    assert (
        abs(float(prob5_loss("cross-entropy", 3.0)(m, first, y[:1])) - float((bce * w).sum() / 7))
        < 1e-5
    )
    mse = float(((p - y[:1]) ** 2).mean())
    assert abs(float(prob5_loss("mse")(m, first, y[:1])) - mse) < 1e-7
    # a confident wrong P(win) (logit 40, lost): -log(1 - sigmoid(40)) = 40 + log(1 + e^-40) ~ 40
    second = torch.tensor([1])
    exact = float(prob5_loss("cross-entropy", raw_logits=True)(m, second, y[1:]))
    clamped = float(prob5_loss("cross-entropy")(m, second, y[1:]))
    # targets all 0; P(wg) = 1/2 and P(wbg) = 1/4 (s = 1/2), P(lg), P(lbg) ~ e^-40: terms 40, log 2, log 4/3, 0, 0
    assert abs(exact * 5 - (40 + np.log(2) + np.log(4 / 3))) < 1e-4
    assert clamped < exact
    with pytest.raises(ValueError, match="cross-entropy"):
        prob5_loss("mse", raw_logits=True)


# --------------------------------------------------------------------------- command line


def test_cli_options_end_to_end(tmp_path):
    save = tmp_path / "a.pt"
    run(
        "train_batch.py",
        "--hidden",
        "12",
        "--num-episodes",
        "60",
        "--save",
        save,
        "--save-every",
        "2",
        "--boltzmann-temp",
        "0.05",
        "--torch-seed",
        "4",
        *QUICK,
        check=True,
    )
    assert sorted(p.name for p in tmp_path.glob("a_r*.pt")) == ["a_r000002.pt"]
    assert load_checkpoint(str(tmp_path / "a_r000002.pt"))[2]["stage"]["episodes_done"] == 40
    _, _, ts = load_checkpoint(str(save))
    assert ts["stage"]["settings"]["boltzmann_temp"] == 0.05 and ts["stage"]["episodes_done"] == 60
    # another run's snapshots are not replaced without --overwrite
    other = tmp_path / "c.pt"
    (tmp_path / "c_r000001.pt").write_bytes(b"")
    assert_one_line_error(
        run(
            "train_batch.py",
            "--hidden",
            "12",
            "--num-episodes",
            "20",
            "--save",
            other,
            "--save-every",
            "1",
            *QUICK,
        ),
        "exists",
    )
    base = tmp_path / "b.pt"
    run(
        "train_batch.py",
        "--hidden",
        "12",
        "--num-episodes",
        "20",
        "--save",
        base,
        *QUICK,
        check=True,
    )
    grown = tmp_path / "g.pt"
    run(
        "train_batch.py",
        "--resume",
        base,
        "--expand-depth-size",
        "4",
        "--num-episodes",
        "20",
        "--save",
        grown,
        *QUICK,
        check=True,
    )
    assert load_checkpoint(str(grown))[0].hidden == [12, 4]
    online = tmp_path / "o.pt"
    run(
        "train_online.py",
        "--resume",
        base,
        "--expand",
        "14",
        "--expand-depth-size",
        "6",
        "--num-episodes",
        "2",
        "--log-every",
        "1",
        "--save",
        online,
        "--quiet",
        check=True,
    )
    assert load_checkpoint(str(online))[0].hidden == [14, 6]


def test_torch_seed_sets_weights_not_dice(tmp_path):
    """With a vanishing learning rate a checkpoint holds its initial weights: they follow
    --torch-seed, not --seed; --torch-seed equal to --seed is the old behaviour."""

    def weights(name, *flags):
        path = tmp_path / f"{name}.pt"
        run(
            "train_batch.py",
            "--hidden",
            "8",
            "--num-episodes",
            "20",
            "--lr",
            "1e-30",
            "--save",
            path,
            *flags,
            *QUICK,
            check=True,
        )
        return load_checkpoint(str(path))[0].layers[0].weight

    a = weights("a", "--seed", "1", "--torch-seed", "5")
    assert torch.equal(a, weights("b", "--seed", "2", "--torch-seed", "5"))
    assert not torch.equal(a, weights("c", "--seed", "1", "--torch-seed", "6"))
    assert torch.equal(
        weights("d", "--seed", "3"), weights("e", "--seed", "9", "--torch-seed", "3")
    )


def test_bad_option_combinations(tmp_path):
    save = tmp_path / "x.pt"
    cases = [
        (["--optimizer", "adam", "--momentum", "0.9"], "sgd"),
        (["--momentum", "1.5"], "[0, 1)"),
        (["--boltzmann-temp", "-1"], "negative"),
        (["--cube-targets-1ply"], "cube"),
        (["--expand-depth-size", "1"], "at least 2"),
        (["--activation", "sigmoid", "--expand-depth-size", "8"], "relu"),
        (["--keep-output-layer"], "--warm-start-equity"),
        (["--grad-clip", "0"], "positive"),
    ]
    for extra, words in cases:
        assert_one_line_error(
            run(
                "train_batch.py",
                "--hidden",
                "8",
                "--num-episodes",
                "20",
                "--save",
                save,
                *extra,
                *QUICK,
            ),
            words,
        )
    assert_one_line_error(
        run(
            "train_prob5.py",
            "--hidden",
            "8",
            "--num-episodes",
            "20",
            "--save",
            save,
            "--raw-logits",
            *QUICK,
        ),
        "cross-entropy",
    )
    assert not save.exists()
