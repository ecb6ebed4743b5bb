"""The 1-ply move filter (net/move_filter.py, learn/filter_training.py, --oneply-filter K):
equal to exact 1-ply where it must be, stored in checkpoints, carried through growth,
trained by train_batch.py and recorded in the stage's settings."""

from dataclasses import replace
import numpy as np
import pytest
import torch

from helpers import ROOT, assert_one_line_error, run
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS, roll_dice
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.modes import game_mode
from tdbg.learn.filter_training import FilterTrainer
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup
from tdbg.net import net_growth
from tdbg.net.model import (
    TDNetwork,
    load_checkpoint,
    move_filter_of,
    save_checkpoint,
    set_move_filter,
)
from tdbg.net.move_filter import (
    FILTER_HIDDEN,
    FilteredOnePly,
    encode_after_states,
    filter_rows,
    new_filter,
)
from tdbg.net.scoring import Scorer, ScoringSettings, greedy_game_positions
from tdbg.net.search import Search


def _positions(games, rng):
    """Every pre-roll position (row 1 on roll) of ``games`` greedy games of a small random DMP
    net: contact, race, bear-off."""
    scorer = Scorer(TDNetwork(196, [8], "probability").eval(), game_mode("dmp"))
    return greedy_game_positions(scorer, games, rng)


def _owners(mode_name, n, rng):
    if mode_name != "cubeful-money":
        return None
    return rng.choice([CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS], n)


MODES = [
    ("dmp", "probability", "incremental"),
    ("dmp", "probability", "dense"),
    ("cubeless-money", "prob5", "incremental"),
    ("cubeful-money", "equity", "incremental"),
]


@pytest.mark.parametrize("mode_name,output,first_layer", MODES)
def test_k_at_least_every_candidate_is_exact(mode_name, output, first_layer):
    """K >= the largest candidate count keeps every row, in order: exact 1-ply's targets,
    bit for bit, and the same move for the roll thrown."""
    torch.manual_seed(3)
    mode = game_mode(mode_name)
    model = TDNetwork(mode.n_inputs, [32, 16], output).eval()
    scorer = Scorer(model, mode, scoring=ScoringSettings(first_layer=first_layer))
    rng = np.random.default_rng(5)
    boards = _positions(6, rng)
    owner = _owners(mode_name, len(boards), rng)
    exact, (after_e, rows_e) = scorer.oneply(boards, owner)
    chosen_e = after_e[rows_e].copy()
    filtered = FilteredOnePly(scorer, new_filter(model), k=10_000)
    played = rng.integers(0, len(ALL_ROLLS), len(boards))
    got, (after, rows) = filtered.oneply(boards, owner, played=played)
    assert np.array_equal(got, exact)
    assert np.array_equal(after[rows], chosen_e)
    assert filtered.kept == filtered.candidates  # every candidate went through the main network


@pytest.mark.parametrize("mode_name,output", [("dmp", "probability"), ("cubeful-money", "equity")])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_filter_ranking_as_the_network_gives_exact_targets(mode_name, output, k):
    """A filter that is a copy of a one-layer main network ranks as it does, so the best of
    its K is each roll's best: exact 1-ply's targets for any K >= 1 (up to float32 rounding
    of the smaller batches), while the main network values far fewer rows."""
    torch.manual_seed(11)
    mode = game_mode(mode_name)
    model = TDNetwork(mode.n_inputs, [24], output).eval()
    scorer = Scorer(model, mode)
    rng = np.random.default_rng(6)
    boards = _positions(6, rng)
    owner = _owners(mode_name, len(boards), rng)
    exact, _ = scorer.oneply(boards, owner)
    twin = TDNetwork(mode.n_inputs, [24], output)
    twin.load_state_dict(model.state_dict())
    filtered = FilteredOnePly(scorer, twin.eval(), k=k)
    got, _ = filtered.oneply(boards, owner)
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-6)
    assert filtered.kept < filtered.candidates / 3


def test_exact_races_values_races_in_full():
    """With ``exact_races`` a position with no contact left gets exact 1-ply's target and
    each roll's best move whatever the filter ranks (K=1, an untrained filter); contact
    positions are still filtered."""
    torch.manual_seed(4)
    mode = game_mode("dmp")
    model = TDNetwork(196, [32], "probability").eval()
    scorer = Scorer(model, mode)
    boards = _positions(6, np.random.default_rng(9))
    race = be.no_contact(boards)
    assert race.any() and not race.all()
    exact, (after_e, rows_e) = scorer.oneply(boards)
    want = after_e[rows_e].copy()
    plain = FilteredOnePly(scorer, new_filter(model), k=1)
    filtered = FilteredOnePly(scorer, plain.filter, k=1, exact_races=True)
    got, (after, rows) = filtered.oneply(boards)
    np.testing.assert_allclose(got[race], exact[race], rtol=0, atol=1e-6)
    assert np.array_equal(after[rows][race], want[race])
    pruned, _ = plain.oneply(boards)
    np.testing.assert_array_equal(got[~race], pruned[~race])  # contact: the same filtered targets
    assert not np.allclose(
        pruned[race], exact[race], rtol=0, atol=1e-6
    )  # (K=1 alone misses in races)
    assert plain.kept < filtered.kept < filtered.candidates


def test_thrown_roll_is_valued_in_full():
    """Whatever the filter says, the roll thrown gets exact 0-ply's best move (so games play
    as with exact 1-ply), and its candidates are the filter's training rows."""
    torch.manual_seed(2)
    mode = game_mode("dmp")
    model = TDNetwork(196, [32], "probability").eval()
    scorer = Scorer(model, mode)
    rng = np.random.default_rng(8)
    boards = _positions(4, rng)
    played = rng.integers(0, len(ALL_ROLLS), len(boards))
    _, (after_e, rows_e) = scorer.oneply(boards)
    want = after_e[rows_e[np.arange(len(boards)), played]].copy()
    filtered = FilteredOnePly(scorer, new_filter(model), k=1)
    _, (after, rows) = filtered.oneply(boards, played=played)
    assert np.array_equal(after[rows[np.arange(len(boards)), played]], want)
    # the rows are the thrown rolls' live candidates with the network's raw values
    a, offs, values, _ = scorer.score(boards, ALL_ROLLS[played])
    ref = filter_rows(a, offs, values, None, scorer.values.flip)
    data = filtered.take_rows()
    assert np.array_equal(data["after"], ref["after"])
    np.testing.assert_allclose(data["raw"], ref["raw"], rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    "mode_name,features", [("dmp", False), ("cubeful-money", False), ("dmp", True)]
)
def test_filter_inputs_are_the_expanders(mode_name, features):
    """The filter trains on the same inputs the network sees for an after-state (the expander's)."""
    mode = game_mode(mode_name)
    n_inputs = mode.n_inputs + (20 if features else 0)
    scorer = Scorer(
        TDNetwork(n_inputs, [8], mode.outputs[0]),
        mode,
        scoring=ScoringSettings(first_layer="dense"),
    )
    rng = np.random.default_rng(1)
    boards = _positions(2, rng)
    owner = _owners(mode_name, len(boards), rng)
    dice = roll_dice(rng, len(boards))
    after, offsets, values, _ = scorer.score(boards, dice, owner)
    after = after.copy()
    # the dense path's inputs, as Scorer.score builds them
    _, feats, _ = scorer.expander.expand(boards, dice)
    cube = mode.reply_cube_inputs(owner)
    if cube is not None:
        feats[:, 196 : scorer.base_inputs] = np.repeat(cube, np.diff(offsets), axis=0)
    if features:
        from tdbg.game.features import board_features

        feats[:, scorer.base_inputs :] = board_features(after, on_roll_row=0)
    rows = filter_rows(after, offsets, values, cube, scorer.values.flip)
    live = after[:, 1].sum(axis=1) != 0
    got = encode_after_states(rows["after"], rows["cube"], n_inputs, with_board_features=features)
    assert np.array_equal(got, feats[live])


def test_filter_training_fits_the_network():
    """Regression on the network's after-state values lowers the filter's error on them."""
    torch.manual_seed(4)
    mode = game_mode("dmp")
    model = TDNetwork(196, [16], "probability").eval()
    scorer = Scorer(model, mode)
    rng = np.random.default_rng(2)
    boards = _positions(6, rng)
    a, offs, values, _ = scorer.score(boards, roll_dice(rng, len(boards)))
    rows = filter_rows(a, offs, values, None, scorer.values.flip)
    filt = new_filter(model)

    def mse():
        with torch.no_grad():
            x = torch.from_numpy(encode_after_states(rows["after"], None, 196))
            return float(((filt(x) - torch.from_numpy(rows["raw"])) ** 2).mean())

    before = mse()
    FilterTrainer(filt, np.random.default_rng(0)).fit(rows, epochs=5)
    assert mse() < before / 4
    assert filt.samples == 5 * len(rows["raw"])


def _model_with_filter(samples: int, path=None):
    """A small DMP model carrying a fresh filter said to be fitted to ``samples`` after-states
    (saved to ``path`` when given): (model, filter)."""
    torch.manual_seed(0)
    model = TDNetwork(196, [16], "probability")
    filt = new_filter(model)
    filt.samples = samples
    set_move_filter(model, filt)
    if path is not None:
        save_checkpoint(
            str(path), model, {"n_inputs": 196, "hidden": [16], "output_mode": "probability"}
        )
    return model, filt


def test_checkpoint_keeps_the_filter(tmp_path):
    model, filt = _model_with_filter(1234, tmp_path / "f.pt")
    assert not any("filter" in k for k in model.state_dict())  # outside the module tree
    loaded, _, _ = load_checkpoint(str(tmp_path / "f.pt"))
    got = move_filter_of(loaded)
    assert got is not None and got.samples == 1234 and got.hidden == [FILTER_HIDDEN]
    for k, v in filt.state_dict().items():
        assert torch.equal(got.state_dict()[k], v)
    with pytest.raises(ValueError):
        set_move_filter(loaded, TDNetwork(200, [8], "equity"))


def test_checkpoint_without_filter_loads():
    model, _, _ = load_checkpoint(f"{ROOT}/best_models/dmp_256x2.pt")
    assert move_filter_of(model) is None


def test_growth_keeps_the_filter():
    torch.manual_seed(1)
    model = TDNetwork(196, [16], "probability")
    filt = new_filter(model)
    set_move_filter(model, filt)
    wider = net_growth.expand(model, [24, 8])
    assert move_filter_of(wider) is filt
    x = torch.rand(50, 196)
    featured = net_growth.add_board_features(model)
    grown = move_filter_of(featured)
    assert grown.n_inputs == 216
    with torch.no_grad():  # zero weights on the new inputs: the same values
        assert torch.allclose(grown(torch.cat([x, torch.rand(50, 20)], dim=1)), filt(x))
    # a warm start changes the head's meaning: the filter does not carry over
    assert move_filter_of(net_growth.warm_start_equity(model)) is None


def test_collector_workers_ship_the_filter():
    """Two worker processes get the filter with the weights: with K above every candidate
    count the targets equal exact 1-ply's on the same dice, and filter rows come back."""
    torch.manual_seed(0)
    mode = game_mode("dmp")
    model = TDNetwork(196, [16], "probability").eval()
    set_move_filter(model, new_filter(model))
    seed = np.random.SeedSequence(9)
    exact = Collector(
        SelfPlaySetup(mode, replace(FP32_COLLECTION, oneply=True, parallel_games=4, workers=2))
    )
    filt = Collector(
        SelfPlaySetup(
            mode,
            replace(
                FP32_COLLECTION, oneply=True, parallel_games=4, oneply_filter=10_000, workers=2
            ),
        )
    )
    try:
        a = exact.collect(model, 4, seed)
        b = filt.collect(model, 4, seed)
    finally:
        exact.close()
        filt.close()
    assert np.array_equal(a["targets"], b["targets"]) and a["filter"] is None
    assert b["filter"] is not None and len(b["filter"]["raw"]) > len(b["targets"])


QUICK = ["--hidden", "16", "--episodes-per-round", "10", "--parallel-games", "8", "--quiet"]


def test_train_batch_oneply_filter(tmp_path):
    """--oneply-filter K warms a filter up on a checkpoint without one, saves it, records K in
    the stage; a resume with another K is refused as for any stage option, the same K goes on
    without a warm-up, a new stage refits the filter; K needs --oneply."""
    path = tmp_path / "f.pt"
    proc = run(
        "train_batch.py",
        "--num-episodes",
        "20",
        "--oneply",
        "--oneply-filter",
        "3",
        "--filter-warmup",
        "10",
        "--save",
        path,
        *QUICK,
        check=True,
    )
    assert proc.stderr.count("move filter: none in the checkpoint") == 1
    model, meta, ts = load_checkpoint(str(path))
    filt = move_filter_of(model)
    assert filt is not None and filt.samples > 0
    assert meta["lineage"][-1]["stage"]["oneply_filter"] == 3
    # an unfinished stage: another K needs --new-stage; the same K continues without a new warm-up
    ts["stage"]["settings"]["num_episodes"] = 40
    save_checkpoint(str(path), model, meta, ts)
    proc = run(
        "train_batch.py",
        "--resume",
        path,
        "--save",
        path,
        "--num-episodes",
        "40",
        "--oneply",
        "--oneply-filter",
        "2",
        *QUICK,
    )
    assert_one_line_error(proc, "oneply-filter 3 -> 2")
    proc = run(
        "train_batch.py",
        "--resume",
        path,
        "--save",
        path,
        "--num-episodes",
        "40",
        "--oneply",
        "--oneply-filter",
        "3",
        *QUICK,
        check=True,
    )
    assert "move filter:" not in proc.stderr  # no warm-up: the stage's filter is current
    model, meta, _ = load_checkpoint(str(path))
    assert move_filter_of(model).samples > filt.samples and len(meta["lineage"]) == 1
    # a new stage on it refits the filter it has (stages without the flag leave it stale)
    proc = run(
        "train_batch.py",
        "--resume",
        path,
        "--save",
        tmp_path / "h.pt",
        "--num-episodes",
        "10",
        "--oneply",
        "--oneply-filter",
        "2",
        "--filter-warmup",
        "5",
        *QUICK,
        check=True,
    )
    assert proc.stderr.count("move filter: the checkpoint's, refitted") == 1
    proc = run(
        "train_batch.py",
        "--num-episodes",
        "20",
        "--oneply-filter",
        "3",
        "--save",
        tmp_path / "g.pt",
        *QUICK,
    )
    assert_one_line_error(proc, "add --oneply")
    proc = run(
        "train_batch.py",
        "--num-episodes",
        "20",
        "--oneply",
        "--filter-exact-races",
        "--save",
        tmp_path / "r.pt",
        *QUICK,
    )
    assert_one_line_error(proc, "add --oneply-filter K")


def test_segment_top_k_keeps_what_top_k_keeps():
    """The k-pass top-k mask keeps the rows search.top_k's sort keeps, ties included."""
    from tdbg.net.move_filter import segment_top_k
    from tdbg.net.search import top_k

    rng = np.random.default_rng(0)
    counts = rng.integers(1, 30, 400)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    values = rng.integers(0, 6, offsets[-1]).astype(float)  # many ties
    for k in (1, 2, 4, 8, 40):
        rows, _ = top_k(values, offsets, k)
        want = np.zeros(len(values), dtype=bool)
        want[rows] = True
        assert np.array_equal(segment_top_k(values, offsets, k), want), k


# ---- the filter in 1-ply and 2-ply play (td_agent.TDAgent(..., Search(oneply_filter=K))) ---------


def _agent_positions(mode_name, n_inputs, output, seed):
    """A one-layer model with a copy of itself as its move filter, and positions from real games."""
    torch.manual_seed(seed)
    mode = game_mode(mode_name)
    model = TDNetwork(mode.n_inputs, [24], output).eval()
    twin = TDNetwork(mode.n_inputs, [24], output)
    twin.load_state_dict(model.state_dict())
    set_move_filter(model, twin.eval())
    rng = np.random.default_rng(seed)
    boards = _positions(4, rng)[:40]
    dice = roll_dice(rng, len(boards))
    owner = _owners(mode_name, len(boards), rng)
    return mode, model, boards, dice, owner


@pytest.mark.parametrize("mode_name,output", [("dmp", "probability"), ("cubeful-money", "equity")])
def test_filtered_play_with_every_reply_is_exact(mode_name, output):
    """K at least every candidate count: the filtered 1-ply and 2-ply players value every reply,
    so they choose exactly the exact players' moves, and a cubeful 1-ply player's cube values
    (its 1-ply backups) are exact's bit for bit."""
    from tdbg.play.td_agent import TDAgent

    mode, model, boards, dice, owner = _agent_positions(mode_name, None, output, 21)
    exact = TDAgent(model, mode, Search(oneply=True))
    filtered = TDAgent(model, mode, Search(oneply=True, oneply_filter=10_000))
    assert filtered.name.endswith("-1ply-filter10000")
    assert np.array_equal(
        filtered.choose_moves(boards, dice, owner), exact.choose_moves(boards, dice, owner)
    )
    assert filtered.filtered.kept == filtered.filtered.candidates > 0
    exact2 = TDAgent(model, mode, Search(twoply=(2, 2)))
    filtered2 = TDAgent(model, mode, Search(twoply=(2, 2), oneply_filter=10_000))
    assert np.array_equal(
        filtered2.choose_moves(boards[:8], dice[:8], None if owner is None else owner[:8]),
        exact2.choose_moves(boards[:8], dice[:8], None if owner is None else owner[:8]),
    )
    if mode.cubeful:
        got = filtered.scorer.cube_values(boards, owner, True, filtered._backup)
        want = exact.scorer.cube_values(boards, owner, True)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def test_filtered_play_prunes_and_ranks_as_the_network():
    """A filter that ranks as the main network does keeps each roll's best reply at K=1: the
    same 1-ply moves as exact while the main network values under a third of the replies."""
    from tdbg.play.td_agent import TDAgent

    mode, model, boards, dice, owner = _agent_positions("dmp", None, "probability", 22)
    exact = TDAgent(model, mode, Search(oneply=True))
    filtered = TDAgent(model, mode, Search(oneply=True, oneply_filter=1))
    assert np.array_equal(filtered.choose_moves(boards, dice), exact.choose_moves(boards, dice))
    assert filtered.filtered.kept < filtered.filtered.candidates / 3


def test_filtered_play_needs_a_filter_and_a_lookahead(tmp_path):
    """play_models.py: a model without a move filter, or --oneply-filter for 0-ply players, is one
    error line and exit 2 before any game."""
    from tdbg.play.td_agent import TDAgent

    model, _, _ = load_checkpoint(f"{ROOT}/best_models/dmp_128x2.pt")
    with pytest.raises(ValueError, match="0-ply"):
        TDAgent(model, game_mode("dmp"), Search(oneply_filter=3))
    proc = run(
        "play_models.py",
        "--model1",
        f"{ROOT}/best_models/dmp_128x2.pt",
        "--model2",
        "pubeval",
        "--games",
        "2",
        "--oneply1",
        "--oneply-filter",
        "3",
        "--quiet",
    )
    assert_one_line_error(proc, "no move filter")
    proc = run(
        "play_models.py",
        "--model1",
        f"{ROOT}/best_models/dmp_128x2.pt",
        "--model2",
        "pubeval",
        "--games",
        "2",
        "--oneply-filter",
        "3",
        "--quiet",
    )
    assert_one_line_error(proc, "--oneply-filter")


def test_checkpoint_with_a_broken_filter_is_refused(tmp_path):
    """A filter whose weights hold NaN: one error line and exit 2 before any game or episode,
    from the loader, play_models.py and train_batch.py alike."""
    from tdbg.net.model import CheckpointError

    torch.manual_seed(2)
    model = TDNetwork(196, [16], "probability")
    filt = new_filter(model)
    with torch.no_grad():
        filt.layers[0].weight[0, 0] = float("nan")
    set_move_filter(model, filt)
    path = tmp_path / "nan_filter.pt"
    save_checkpoint(
        str(path), model, {"n_inputs": 196, "hidden": [16], "output_mode": "probability"}
    )
    with pytest.raises(CheckpointError, match="move filter's weights contain NaN"):
        load_checkpoint(str(path))
    assert_one_line_error(
        run("play_models.py", "--model1", path, "--model2", "pubeval", "--games", "2", "--quiet"),
        "NaN",
    )
    assert_one_line_error(
        run(
            "train_batch.py",
            "--resume",
            path,
            "--save",
            tmp_path / "out.pt",
            *QUICK,
            "--num-episodes",
            "10",
        ),
        "NaN",
    )
    assert not (tmp_path / "out.pt").exists()


def test_divergence_check_covers_the_filter(tmp_path):
    """training_loop.check_finite stops a run whose filter diverged even when the main
    network and its loss are finite."""
    from tdbg.infra.errors import RunError
    from tdbg.learn.training_loop import check_finite

    model = TDNetwork(196, [16], "probability")
    check_finite(model, 0.1, "round 1", 1e-3, str(tmp_path / "x.pt"), 10)
    filt = new_filter(model)
    with torch.no_grad():
        filt.layers[-1].bias.fill_(float("inf"))
    set_move_filter(model, filt)
    with pytest.raises(RunError, match="no checkpoint was written"):
        check_finite(model, 0.1, "round 1", 1e-3, str(tmp_path / "x.pt"), 10)


def test_describe_model_names_the_filter(tmp_path):
    _model_with_filter(4321, tmp_path / "f.pt")
    out = run("tools/describe_model.py", tmp_path / "f.pt", check=True).stdout
    # 196 x 64 + 64 first-layer weights and biases, 64 + 1 for the head: 12,673
    assert (
        f"move filter   196 -> [{FILTER_HIDDEN}] -> 1, 12,673 parameters, fitted to 4,321 after-states"
        in out
    )
    out = run("tools/describe_model.py", f"{ROOT}/best_models/dmp_128x2.pt", check=True).stdout
    assert "move filter   none" in out
