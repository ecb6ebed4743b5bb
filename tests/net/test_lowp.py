"""Reduced-precision collection (lowp.py, c_engine/mlp_lowp.c): the kernels against a
numpy reference of the same rounded weights, the float32 fallback against torch, the
bf16 path's move choices against float32 on 20,000+ decisions of real games, weight
refresh, and train_batch's --collect-precision.  No timing here
(experiments/benchmarks/reduced_precision.py measures speed)."""

import numpy as np
import pytest
import torch

from tdbg.net import lowp
from helpers import ROOT, run
from tdbg.net.model import TDNetwork, load_checkpoint
from tdbg.game.modes import game_mode
from tdbg.net.scoring import Scorer, ScoringSettings, greedy_game_decisions, segment_argmax

# A differing choice must be a near-tie: the float32 value of bf16's move within NEAR_TIE of
# float32's best.  2e-3 P(win) is 4 millipoints of DMP equity (2 P - 1), a fifth of what
# dmp_512x2x256 loses to gnubg per decision on average (22.3 mEq, best_models/README.md); and
# it is what bf16's own errors allow: a choice flips only where the gap is under the two
# candidates' errors, whose p99 was 8e-4 and max 2.5e-3 on these positions.
NEAR_TIE = 2e-3
AGREE = 0.99  # the bar for bf16
AGREE_INT8 = 0.98  # int8 measured 98.4%: below the bar, so it is not a candidate default


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _needs(kernel):
    if not lowp.available()[kernel]:
        pytest.skip(f"this CPU cannot run the {kernel} kernel (its fallback is tested below)")


def _rows(n, width, seed):
    rng = np.random.default_rng(seed)
    x = np.maximum(rng.normal(size=(n, width)), 0).astype(np.float32)  # ReLU activations: half zero
    x[:2] = 0.0  # all-zero rows (the int8 scale is then 0)
    return x


# widths that run every tile width (4, 3, 2 and 1 vectors of 16 outputs), 0 to 3 hidden layers
# after the first, and every head
NETS = [
    ([256, 256, 256], "probability"),
    ([64, 80, 48, 32], "prob5"),
    ([32], "equity"),
    ([16, 96], "probability"),
]


@pytest.mark.parametrize("hidden,output", NETS, ids=lambda v: str(v))
@pytest.mark.parametrize("kernel", ["bf16", "int8", "fp32-c", "bf16-amx"])
def test_kernel_matches_numpy_reference(kernel, hidden, output):
    """The head's raw outputs equal a float64 numpy computation from the same rounded (bf16)
    or quantised (int8) weights and activations, for 1 to 1,000 rows (every row tail).
    bf16-amx (torch's bfloat16 matmul) runs on any CPU, on AMX tiles where there are some."""
    if kernel != "bf16-amx":
        _needs(kernel)
    torch.manual_seed(len(hidden))
    model = TDNetwork(196, hidden, output).eval()
    mlp = lowp.LowpMLP(model, kernel, path=kernel)
    for n in (1, 5, 6, 47, 49, 1000):
        x = _rows(n, hidden[0], n)
        out, ref = mlp.logits(x), lowp.reference_logits(model, x, kernel)
        # float32 sums in another order; a rare activation one bf16 / uint8 step off for it
        assert np.abs(out - ref).max() <= 2e-4 * max(1.0, np.abs(ref).max()), (
            n,
            np.abs(out - ref).max(),
        )


@pytest.mark.parametrize("path", ["fp32-c", "fp32-portable"])
@pytest.mark.parametrize("hidden,output", NETS, ids=lambda v: str(v))
def test_float32_fallback_equals_torch(path, hidden, output):
    """The float32 C paths (AVX-512 FMA, and the portable loops that run on any CPU) give
    torch's float32 values within float32 rounding, heads included."""
    torch.manual_seed(7)
    model = TDNetwork(208 if output == "mwc-outcomes" else 196, hidden, output).eval()
    mlp = lowp.LowpMLP(model, "fp32-c", path=path)
    x = _rows(300, hidden[0], 3)
    with torch.no_grad():
        want = model.from_first_hidden(torch.from_numpy(x))
    got = mlp.forward(x)
    assert torch.allclose(got, want, atol=1e-5, rtol=1e-5), (got - want).abs().max()


def test_payoff_head_and_fallback_choice(monkeypatch):
    """mwc-outcomes reads the rows' payoffs through TDNetwork.head_output; a CPU without the instructions
    gets the float32 C path and a line saying so; one with AMX runs bf16 on it and says so."""
    torch.manual_seed(3)
    model = TDNetwork(208, [32, 32], "mwc-outcomes").eval()
    x = _rows(50, 32, 4)
    pay = torch.rand(50, 6)
    with torch.no_grad():
        want = model.from_first_hidden(torch.from_numpy(x), pay)
    assert torch.allclose(lowp.LowpMLP(model, "fp32-c").forward(x, pay), want, atol=1e-5)
    monkeypatch.setattr(
        lowp,
        "available",
        lambda: {"fp32-c": True, "bf16": False, "int8": False, "fp32-avx512": False},
    )
    assert lowp.resolve("bf16") == "fp32-c" and lowp.resolve("int8") == "fp32-c"
    assert "fallback" in lowp.describe("bf16") and "portable" in lowp.describe("bf16")
    assert lowp.LowpMLP(model, "bf16").kernel == "fp32-c"
    monkeypatch.setattr(
        lowp,
        "available",
        lambda: {"fp32-c": True, "bf16": True, "int8": True, "fp32-avx512": True, "bf16-amx": True},
    )
    assert lowp.resolve("bf16") == "bf16-amx" and lowp.resolve("int8") == "int8"
    assert lowp.describe("bf16") == "collect precision bf16: AMX-BF16 tiles (torch's oneDNN)"
    assert lowp.LowpMLP(model, "bf16").kernel == "bf16-amx"


def test_unsupported_models_and_modes():
    with pytest.raises(ValueError, match="ReLU"):
        lowp.LowpMLP(TDNetwork(196, [32, 32], "probability", "tanh"), "bf16")
    with pytest.raises(ValueError, match="multiples of 16"):
        lowp.LowpMLP(TDNetwork(196, [40, 20], "probability"), "bf16")
    model = TDNetwork(196, [32, 32], "probability")
    with pytest.raises(ValueError, match="incremental"):
        Scorer(
            model,
            game_mode("dmp"),
            engine="c",
            scoring=ScoringSettings(first_layer="dense", precision="bf16"),
        )
    with pytest.raises(ValueError, match="unknown precision"):
        Scorer(model, game_mode("dmp"), engine="c", scoring=ScoringSettings(precision="fp8"))


def test_weights_refresh_when_they_change():
    """Converted once, then again only after a change: an optimiser step, load_state_dict."""
    torch.manual_seed(0)
    model = TDNetwork(196, [32, 32, 32], "probability")
    mlp = lowp.LowpMLP(model, "fp32-c")
    x = _rows(20, 32, 0)

    def check():
        with torch.no_grad():
            assert np.allclose(
                mlp.forward(x).numpy(),
                model.from_first_hidden(torch.from_numpy(x)).numpy(),
                atol=1e-6,
            )

    check()
    check()
    assert mlp.conversions == 1
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    model(torch.rand(8, 196)).sum().backward()
    opt.step()
    check()
    assert mlp.conversions == 2
    other = TDNetwork(196, [32, 32, 32], "probability")
    model.load_state_dict(other.state_dict())
    check()
    check()
    assert mlp.conversions == 3


@pytest.fixture(scope="module")
def real_decisions():
    """400 greedy games of dmp_512x2x256 (a trained [512,512,256] net): 22,768 decisions,
    contact, race and bear-off, scored by float32."""
    model = load_checkpoint(f"{ROOT}/best_models/dmp_512x2x256.pt")[0].eval()
    mode = game_mode("dmp")
    s32 = Scorer(model, mode, engine="c")
    boards, dice = greedy_game_decisions(s32, 400, np.random.default_rng(1))
    _, offsets, _, scalar = s32.score(boards, dice)
    return model, mode, boards, dice, offsets, scalar.copy()


@pytest.mark.slow  # 400 games of the largest net, then 22,768 decisions per kernel; make test keeps
# each kernel against the numpy reference and the float32 fallbacks against torch (above)
@pytest.mark.parametrize(
    "kernel,bar", [("bf16", AGREE), ("int8", AGREE_INT8), ("fp32-c", 1.0), ("bf16-amx", AGREE)]
)
def test_same_moves_as_float32_on_real_games(real_decisions, kernel, bar, monkeypatch):
    if kernel != "bf16-amx":
        _needs(kernel)
        monkeypatch.setenv("TDBG_LOWP_AMX", "0")  # the C kernel, also where bf16 would run on AMX
    model, mode, boards, dice, offsets, s32 = real_decisions
    assert len(boards) >= 20_000
    _, off, _, s = Scorer(model, mode, engine="c", scoring=ScoringSettings(precision=kernel)).score(
        boards, dice
    )
    assert (off == offsets).all()
    rows32, best32 = segment_argmax(s32, offsets)
    rows, _ = segment_argmax(s, offsets)
    differ = rows != rows32
    gaps = best32[differ] - s32[rows[differ]]
    assert 1 - differ.mean() >= bar, (kernel, 1 - differ.mean())
    limit = NEAR_TIE if kernel != "int8" else 2.5 * NEAR_TIE
    assert (gaps <= (limit if kernel != "fp32-c" else 1e-5)).all(), (kernel, gaps.max())


@pytest.mark.parametrize(
    "flags,words",
    [
        (["--scoring", "dense"], "incremental first layer"),
        (["--engine", "python"], "incremental first layer"),
        (["--activation", "tanh"], "ReLU"),
        (["--hidden", "40"], "multiples of 16"),
    ],
)
def test_train_batch_collect_precision_bad_settings(tmp_path, flags, words):
    from helpers import assert_one_line_error

    args = ["--hidden", "16", *flags] if flags[0] != "--hidden" else flags
    proc = run(
        "train_batch.py",
        *args,
        "--num-episodes",
        "4",
        "--episodes-per-round",
        "2",
        "--quiet",
        "--collect-precision",
        "bf16",
        "--save",
        tmp_path / "x.pt",
    )
    assert_one_line_error(proc, words)
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.parametrize("precision", ["bf16", "fp32-c"])
def test_train_batch_collect_precision(tmp_path, precision):
    """--collect-precision trains (float32) with two self-play workers, says once which path
    ran, and the stage records it."""
    path = tmp_path / "lowp.pt"
    proc = run(
        "train_batch.py",
        "--hidden",
        "32,32",
        "--num-episodes",
        "40",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "8",
        "--workers",
        "2",
        "--quiet",
        "--collect-precision",
        precision,
        "--save",
        path,
        check=True,
    )
    assert proc.stderr.count(f"collect precision {precision}:") == 1
    model, meta, _ = load_checkpoint(str(path))
    assert meta["lineage"][-1]["stage"]["precision"] == precision
    assert all(p.dtype == torch.float32 for p in model.parameters())


# ---- --collect-precision auto (the default) -----------------------------------------------------

AUTO_FLAGS = [
    "--num-episodes",
    "40",
    "--episodes-per-round",
    "20",
    "--parallel-games",
    "8",
    "--quiet",
]


@pytest.mark.parametrize(
    "hidden,want,line",
    [
        ("32,32", "bf16", "collect precision bf16: "),
        ("8", "fp32", "not bf16: reduced precision needs hidden sizes"),
    ],
)
def test_auto_collects_in_bf16_where_it_can_and_records_what_ran(tmp_path, hidden, want, line):
    """The default: bf16 for a ReLU net with hidden sizes in multiples of 16 on a CPU with
    AVX512_BF16, else float32 with one line saying why (not with --quiet); the stage records
    the precision that ran."""
    if want == "bf16":
        _needs("bf16")
    path = tmp_path / "auto.pt"
    flags = AUTO_FLAGS if want == "bf16" else AUTO_FLAGS[:-1]
    proc = run("train_batch.py", "--hidden", hidden, *flags, "--save", path, check=True)
    assert proc.stderr.count(line) == 1
    _, meta, _ = load_checkpoint(str(path))
    assert meta["lineage"][-1]["stage"]["precision"] == want


def _unfinished(path, recorded):
    """Rewrite ``path``'s stage as one planned for 80 episodes, 40 done, whose settings
    record ``recorded`` under the name checkpoints wrote it with before the Scorer took its
    settings whole, collect_precision (None: no precision, as before the option had 'auto')."""
    from tdbg.net.model import save_checkpoint

    model, meta, ts = load_checkpoint(str(path))
    for st in (ts["stage"]["settings"], meta["lineage"][-1]["stage"], ts["stage"]["config"]):
        st["num_episodes"] = 80
        st.pop("precision", None)  # (the config too: a run records the same in both)
        if recorded is not None:
            st["collect_precision"] = recorded
    ts["stage"].update(episodes_done=40, rounds_done=2)
    meta["lineage"][-1]["episodes"] = meta["episodes"] = 40  # the stage's story told the same way
    save_checkpoint(str(path), model, meta, ts)


@pytest.mark.parametrize("recorded,want", [(None, "fp32"), ("fp32", "fp32"), ("bf16", "bf16")])
def test_auto_continues_a_stage_in_the_precision_it_recorded(tmp_path, recorded, want):
    """A continued stage keeps its precision under auto: one recorded before auto existed (no
    key) collected in float32 and goes on in float32; an explicit other precision is refused."""
    _needs("bf16")
    path = tmp_path / "s.pt"
    run(
        "train_batch.py",
        "--hidden",
        "32,32",
        *AUTO_FLAGS,
        "--collect-precision",
        "fp32",
        "--save",
        path,
        check=True,
    )
    _unfinished(path, recorded)
    flags = [
        "--num-episodes",
        "80",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "8",
        "--quiet",
    ]
    proc = run("train_batch.py", "--resume", path, "--save", path, *flags, check=True)
    assert "continuing its unfinished stage at 40 of 80" in proc.stderr
    assert ("collect precision bf16:" in proc.stderr) == (want == "bf16")
    _, meta, ts = load_checkpoint(str(path))
    assert ts["stage"]["episodes_done"] == 80 and ts["stage"]["settings"]["precision"] == want
    other = "bf16" if want == "fp32" else "fp32"
    _unfinished(path, recorded)
    from helpers import assert_one_line_error

    assert_one_line_error(
        run(
            "train_batch.py", "--resume", path, "--save", path, *flags, "--collect-precision", other
        ),
        "other settings",
    )


@pytest.mark.parametrize("kernel", ["bf16", "int8", "fp32-c"])
def test_skipping_zero_steps_changes_no_bit(kernel, positions_20k):
    """The C kernels skip the input steps that are zero in all rows of a register tile
    (mlp_lowp.c): the outputs must be those of running every step, to the bit, on a trained
    net's first hidden layers of real candidates (70-85% zeros), on rows zero in whole tiles,
    and on every row tail."""
    _needs(kernel)
    model, _, _ = load_checkpoint(f"{ROOT}/best_models/dmp_256x3.pt")
    scorer = Scorer(model.eval(), game_mode("dmp"))
    boards = positions_20k[:60]
    dice = np.random.default_rng(5).integers(1, 7, (len(boards), 2))
    _, h1, _ = scorer.expand_first_layer(boards, dice, None, *scorer._first_layer_weights())
    sparse = _rows(1000, 256, 9)
    sparse[:, 64:200] = 0.0  # zero in every row: every tile skips these steps
    sparse[300:360] = 0.0  # whole tiles of zero rows
    sparse[500:560, ::3] = 0.0  # zero in a tile on one unit of some pairs only: no skip there
    skip, every = (
        lowp.LowpMLP(model, kernel, path=kernel),
        lowp.LowpMLP(model, kernel, path=kernel, every_step=True),
    )
    for x in [np.ascontiguousarray(h1), sparse, *(sparse[:n] for n in (1, 5, 6, 7, 47, 49))]:
        got, want = skip.logits(x), every.logits(x)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (kernel, len(x))


def test_a_checkout_without_its_c_engine_gets_one_clear_error(monkeypatch):
    # a fresh clone installed with `pip install .` has no tdbg/game/_bgcore of its own: the
    # low-precision kernels must say so in one line (scripts: `error:`, exit 2), not raise a
    # ModuleNotFoundError traceback; None in sys.modules makes the import fail as it would there
    import sys

    from tdbg.infra.errors import InputError
    from tdbg.net import lowp

    monkeypatch.setitem(sys.modules, "tdbg.game._bgcore", None)
    with pytest.raises(InputError, match="the C engine is not built in this checkout"):
        lowp._lib()
