"""Luck adjustment: a roll's luck worked out by hand (signs, opening rolls, cube weight),
gnubg-nn's judgement reproduced through another gnubg-nn path, and adjusted results
unbiased (a model against itself, a model against a random player) yet less noisy."""

import json
import os

import gnubg_nn
import numpy as np
import pytest
import torch

from helpers import ROOT, assert_one_line_error, run
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.encoding import encode_batch
from tdbg.game.modes import game_mode
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.play.agents import RandomAgent
from tdbg.play.luck import game_luck, luck_summary
from tdbg.play.match import GameRecord, play_games
from tdbg.play.players import Player
from tdbg.play.seating import evaluator

DMP = os.path.join(ROOT, "best_models", "dmp_128x2.pt")


@pytest.fixture(scope="module")
def small_ckpt(tmp_path_factory):
    torch.manual_seed(7)
    m = TDNetwork(196, [16], "probability")
    path = str(tmp_path_factory.mktemp("luck") / "small.pt")
    save_checkpoint(path, m, new_metadata(m, "dmp"))
    return path, m


def best_value_by_hand(model, board, d1, d2):
    """2 P(win) - 1 of the mover's best play, from the Python engine and the bare network."""
    best = -np.inf
    for _, after in be.legal_moves(board, d1, d2):
        if after[1].sum() == 0:
            p = 1.0
        else:
            with torch.no_grad():
                p = 1.0 - model(torch.from_numpy(encode_batch(be.swap(after)[None]))).item()
        best = max(best, 2 * p - 1)
    return best


def luck_by_hand(model, board, dice, opening):
    rolls = [tuple(r) for r in ALL_ROLLS.tolist() if not (opening and r[0] == r[1])]
    weights = [1 / 15 if opening else (1 / 36 if a == b else 2 / 36) for a, b in rolls]
    values = {r: best_value_by_hand(model, board, *r) for r in rolls}
    mean = sum(w * values[r] for w, r in zip(weights, rolls, strict=True))
    return values[tuple(sorted(dice))] - mean


def test_luck_by_hand(small_ckpt):
    path, model = small_ckpt
    ref = evaluator(Player(path))
    start = be.initial_board()
    _, after = be.parse_move(start, 6, 4, "24/14")
    second = be.swap(after)  # B on roll
    rec = GameRecord(
        0,
        0,
        1.0,
        1,
        2,
        2,
        turns=[
            (0, (6, 4), "move", start, after),  # A's opening roll
            (1, None, "double", second, None),  # B doubles, A takes: the cube is 2 for B's roll
            (0, None, "take", second, None),
            (1, (5, 5), "move", second, be.legal_moves(second, 5, 5)[0][1]),
        ],
    )
    expected = luck_by_hand(model, start, (6, 4), True) - 2 * luck_by_hand(
        model, second, (5, 5), False
    )
    assert game_luck([rec], ref)[0] == pytest.approx(expected, abs=1e-6)
    assert abs(expected) > 1e-3  # the roll was not neutral: the test can tell signs apart


def test_gnubg_nn_reference_through_moves_and_probabilities(positions_20k):
    """bestmove(list=1) values reproduced from gnubg_nn.moves() + probabilities()."""
    ref = evaluator(Player("gnubg-nn"), game_mode("dmp"))
    rng = np.random.default_rng(3)
    boards = np.asarray(positions_20k)[rng.choice(len(positions_20k), 8, replace=False)]
    got = ref.all_rolls(boards, np.zeros(len(boards), dtype=np.int64))[0]
    for board, row in zip(boards, got, strict=True):
        for r, (d1, d2) in enumerate(ALL_ROLLS.tolist()):
            keys = gnubg_nn.moves(board.tolist(), d1, d2)
            afters = [gnubg_nn.board_from_position_key(k) for k in keys] or [board.tolist()]
            values = []
            for a in afters:  # mover in row 1
                if sum(a[1]) == 0:
                    values.append(1.0)
                else:
                    values.append(1.0 - 2 * gnubg_nn.probabilities([list(a[1]), list(a[0])], 0)[0])
            assert row[r] == pytest.approx(max(values), abs=1e-5)


def test_self_play_adjusted_mean_is_even_and_tighter():
    """dmp_128x2 against itself, dice not shared (duplicate pairs would cancel exactly)."""
    mode = game_mode("dmp")
    agent = evaluator(Player(DMP))
    records = play_games(agent, agent, range(40), mode, seed=5, duplicate=False, record=True)
    luck = game_luck(records, evaluator(Player(DMP)))
    for rec, x in zip(records, luck, strict=True):
        rec.luck = x
    s = luck_summary(records, mode, DMP, seed=5)
    assert s["ci_low"] < 0.5 < s["ci_high"]
    assert s["games_factor"] > 2.0


def test_strong_against_random_luck_has_mean_zero():
    """Judging the best move, not the move played: a random player's poor plays are skill,
    not bad luck, so its luck still averages zero."""
    mode = game_mode("dmp")
    records = play_games(
        evaluator(Player(DMP)), RandomAgent(1), range(60), mode, seed=6, record=True
    )
    luck = game_luck(records, evaluator(Player(DMP)))
    pairs = luck.reshape(-1, 2).mean(axis=1)
    assert abs(pairs.mean()) < 3 * pairs.std(ddof=1) / np.sqrt(len(pairs))
    # the gap is skill: near-certain wins (so here, unlike between equals, subtracting the
    # reference's noisy luck widens the spread rather than narrowing it)
    assert np.mean([r.points for r in records]) > 0.8


def test_play_models_luck_json(tmp_path, small_ckpt):
    out = tmp_path / "s.json"
    proc = run(
        "play_models.py",
        "--model1",
        small_ckpt[0],
        "--model2",
        "pubeval",
        "--games",
        "10",
        "--quiet",
        "--luck",
        small_ckpt[0],
        "--json",
        out,
        check=True,
    )
    assert "luck-adjusted" in proc.stdout
    summary = json.loads(out.read_text())
    s = summary["luck_adjusted"]
    # the same ten games through the library, each game's luck from game_luck (checked by hand
    # in test_luck_by_hand): the summary's figures are then arithmetic on those games
    from tdbg.play.series import ModeSpec, Series, play_series

    records = play_series(
        Series((Player(small_ckpt[0]), Player("pubeval")), ModeSpec("dmp"), 10, record=True),
        progress=False,
    ).records
    points = np.array([r.points for r in records], dtype=np.float64)
    luck = game_luck(records, evaluator(Player(small_ckpt[0])))
    assert np.abs(luck).max() > 1e-3  # luck was judged, not left at zero
    raw = ((1 + points) / 2).reshape(-1, 2).mean(axis=1)  # DMP: win rate per duplicate pair
    adjusted = ((1 + points - luck) / 2).reshape(-1, 2).mean(axis=1)
    assert (
        s["units"] == 5
        and s["raw_mean"] == pytest.approx(raw.mean()) == summary["win_rate"]["mean"]
    )
    assert s["mean"] == pytest.approx(adjusted.mean(), abs=1e-9)
    assert s["raw_variance"] == pytest.approx(raw.var(ddof=1)) and s[
        "adjusted_variance"
    ] == pytest.approx(adjusted.var(ddof=1), abs=1e-12)
    assert s["games_factor"] == pytest.approx(raw.var(ddof=1) / adjusted.var(ddof=1), rel=1e-6)
    assert s["ci_low"] <= s["mean"] <= s["ci_high"]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--model2", "pubeval", "--luck", "nope.pt"], "no such checkpoint"),
        # against the binary too, a bad reference is refused before gnubg starts
        (
            ["--model2", "gnubg-ext", "--game-mode", "cubeless-money", "--luck", "nope.pt"],
            "no such checkpoint",
        ),
    ],
)
def test_luck_bad_input(small_ckpt, args, words):
    assert_one_line_error(
        run("play_models.py", "--model1", small_ckpt[0], "--games", "2", "--quiet", *args), words
    )
