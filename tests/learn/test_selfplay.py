from dataclasses import replace
import numpy as np
import torch

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import roll_dice
from tdbg.game.encoding import encode
from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlay, SelfPlaySetup
from tdbg.learn.trainer import scheduled_lr
from tdbg.net.model import TDNetwork
from tdbg.net.scoring import segment_argmax


def test_segment_argmax_picks_first_max():
    values = np.array([1.0, 3.0, 3.0, 0.5, 2.0, -1.0])
    offsets = np.array([0, 3, 4, 6])
    rows, best = segment_argmax(values, offsets)
    assert rows.tolist() == [1, 3, 4] and best.tolist() == [3.0, 0.5, 2.0]


def test_opening_roll_is_never_a_double():
    d = roll_dice(np.random.default_rng(0), 5000, opening=np.ones(5000, dtype=bool))
    assert (d[:, 0] != d[:, 1]).all()


def test_sampled_targets_are_values_of_played_positions():
    """The first two samples of a fresh game, recomputed without the Scorer: the
    Python rules engine lists the moves for the same dice, the network values each
    resulting position from the opponent's side, and the target is the best of
    1 - that value; the second sample is the first move's result, turned around."""
    torch.manual_seed(0)
    mode = game_mode("dmp")
    model = TDNetwork(196, [16], "probability").eval()
    out = SelfPlay(model, SelfPlaySetup(mode, replace(FP32_COLLECTION, parallel_games=1))).collect(
        1, np.random.default_rng(5)
    )
    feats, targets = out["features"], out["targets"]
    assert len(feats) == out["stats"]["plies"] and out["stats"]["episodes"] == 1
    rng = np.random.default_rng(5)  # the game's dice, drawn as collect draws them
    dice = [roll_dice(rng, 1, opening=np.array([True]))[0], roll_dice(rng, 1)[0]]
    board = be.initial_board()
    for k in range(2):
        assert np.array_equal(feats[k], encode(board))
        afters = [after for _, after in be.legal_moves(board, *dice[k])]
        with torch.no_grad():
            opp = model(torch.from_numpy(np.stack([encode(be.swap(a)) for a in afters]))).numpy()
        mine = 1.0 - opp.astype(np.float64)
        assert np.isclose(targets[k], mine.max(), atol=1e-6), k
        board = be.swap(afters[int(np.argmax(mine))])
    assert targets[-1] == 1.0  # the last move wins the game: exact value, not the network's


def test_oneply_collection_and_workers_agree_on_shapes():
    torch.manual_seed(0)
    mode = game_mode("cubeless-money")
    model = TDNetwork(196, [16], "prob5")
    out = SelfPlay(model, SelfPlaySetup(mode, replace(FP32_COLLECTION, oneply=True))).collect(
        3, np.random.default_rng(1)
    )
    assert out["targets"].shape == (len(out["features"]), 5)
    col = Collector(SelfPlaySetup(mode, replace(FP32_COLLECTION, parallel_games=8, workers=2)))
    try:
        got = col.collect(model, 10, np.random.SeedSequence(3))
    finally:
        col.close()
    assert got["stats"]["episodes"] == 10 and got["features"].shape[1] == 196


def test_collection_is_reproducible_from_the_seed():
    torch.manual_seed(0)
    model = TDNetwork(196, [16], "probability").eval()
    a = SelfPlay(model, SelfPlaySetup(game_mode("dmp"))).collect(20, np.random.default_rng(9))
    b = SelfPlay(model, SelfPlaySetup(game_mode("dmp"))).collect(20, np.random.default_rng(9))
    assert np.array_equal(a["features"], b["features"]) and np.array_equal(
        a["targets"], b["targets"]
    )


def test_one_worker_plays_the_same_games_in_its_own_process():
    """--overlap with --workers 1 collects in a process of its own (so the trainer can train
    meanwhile): the same samples, to the bit, as collected in this process."""
    torch.manual_seed(0)
    model = TDNetwork(196, [16, 16], "probability").eval()
    here, apart = (
        Collector(
            SelfPlaySetup(game_mode("dmp"), replace(FP32_COLLECTION, parallel_games=8, workers=1))
        ),
        Collector(
            SelfPlaySetup(game_mode("dmp"), replace(FP32_COLLECTION, parallel_games=8, workers=1)),
            separate=True,
        ),
    )
    try:
        assert here.pool is None and apart.pool is not None
        a = here.collect(model, 12, np.random.SeedSequence(4))
        b = apart.collect(model, 12, np.random.SeedSequence(4))
    finally:
        here.close()
        apart.close()
    assert np.array_equal(a["features"], b["features"]) and np.array_equal(
        a["targets"], b["targets"]
    )


def test_lr_schedule():
    assert scheduled_lr(0, 11, 1e-3, 1e-4) == 1e-3
    assert np.isclose(scheduled_lr(10, 11, 1e-3, 1e-4), 1e-4)
    assert np.isclose(scheduled_lr(5, 11, 1e-3, 1e-4), 5.5e-4)
    # warm-up multiplies the anneal: 0.1x at round 0, 1x from round N on
    assert np.isclose(scheduled_lr(0, 11, 1e-3, 1e-4, warmup_cycles=4), 1e-4)
    assert np.isclose(scheduled_lr(2, 11, 1e-3, None, warmup_cycles=4), 1e-3 * 0.55)
    assert np.isclose(scheduled_lr(4, 11, 1e-3, None, warmup_cycles=4), 1e-3)


def test_incremental_and_dense_scoring_play_the_same_games():
    """Self-play with the incremental first layer plays the games the dense path plays
    (same dice, same choices) and gets the same targets within float32 rounding.  A
    trained net: a random one has near-ties (one float32 ulp apart) that either path may
    break its own way, as test_incremental_scoring allows."""
    from helpers import ROOT
    from tdbg.net.model import load_checkpoint

    model, meta, _ = load_checkpoint(f"{ROOT}/best_models/dmp_128x2.pt")
    mode = game_mode(meta["game_mode"])
    out = {
        k: SelfPlay(
            model.eval(),
            SelfPlaySetup(
                mode,
                replace(
                    FP32_COLLECTION,
                    scoring=replace(FP32_COLLECTION.scoring, first_layer=k),
                    parallel_games=8,
                ),
            ),
        ).collect(16, np.random.default_rng(9))
        for k in ("incremental", "dense")
    }
    inc, dense = out["incremental"], out["dense"]
    assert np.array_equal(inc["features"], dense["features"])
    assert np.abs(inc["targets"] - dense["targets"]).max() < 1e-5
    games = [{k: v for k, v in out[m]["stats"].items() if not k.endswith("_seconds")} for m in out]
    assert games[0] == games[1]
