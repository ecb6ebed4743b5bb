"""Rollouts against exact bear-off values (bearoff.py, itself checked against gnubg's
bear-off database), paired differences, stratified dice, and the command line."""

import json
import os

import numpy as np
import pytest

from helpers import ROOT, assert_one_line_error, run
from tdbg.game import backgammon_engine as be, bearoff as bo
from tdbg.game.dice import RolloutDice
from tdbg.play.rollout import (
    RolloutSettings,
    move_outcomes,
    rank_moves,
    rollout_positions,
    summarize,
)

DMP_MODEL = os.path.join(ROOT, "best_models", "dmp_128x2.pt")
# a bear-off with three checkers a side, on roll P(win) = 0.82884...
BEAROFF = bo.board_of((0, 1, 1, 0, 1, 0), (1, 0, 1, 0, 0, 1))


def test_stratified_dice():
    dice = RolloutDice(1296, seed=5)
    t = np.arange(1296)
    first, second = dice(t, np.zeros(1296, dtype=int)), dice(t, np.ones(1296, dtype=int))
    pairs = {(a, b, c, d) for (a, b), (c, d) in zip(first.tolist(), second.tolist(), strict=True)}
    assert len(pairs) == 1296  # every ordered pair of first and second rolls exactly once
    counts = np.unique(first[:36], axis=0, return_counts=True)[1]
    assert len(counts) == 36 and (counts == 1).all()  # every 36 trials: each first roll once
    later = dice(t, np.full(1296, 70))
    assert np.array_equal(
        later, RolloutDice(1296, seed=5)(t, np.full(1296, 70))
    )  # same seed, same dice
    assert not np.array_equal(later, RolloutDice(1296, seed=6)(t, np.full(1296, 70)))
    assert later.min() == 1 and later.max() == 6


def test_gnubg_nn_rollout_matches_exact_bearoff():
    """gnubg-nn plays bear-offs from its exact database, so its rollout must find the exact
    P(win); judged by the same database the luck adjustment leaves almost no noise."""
    pytest.importorskip("gnubg_nn")
    exact = bo.exact_win_probability(BEAROFF)
    roller = RolloutSettings("gnubg-nn", 1, game_mode="dmp").roller()
    settings = RolloutSettings("gnubg-nn", 216, game_mode="dmp", seed=1)
    s = summarize(rollout_positions(roller, BEAROFF[None], settings)[0], roller.mode)
    assert s["finished"] == 216
    assert abs(s["p_win"] - exact) < 3 * s["se"] / 2 + 1e-9
    assert abs(s["p_win_adjusted"] - exact) < 1e-4
    assert s["se_factor"] > 100


def test_network_rollout_of_bearoff_and_identical_moves():
    exact = bo.exact_win_probability(BEAROFF)
    roller = RolloutSettings(DMP_MODEL, 1).roller()
    both = rollout_positions(
        roller, np.stack([BEAROFF, BEAROFF]), RolloutSettings(DMP_MODEL, 144, seed=2)
    )
    s = summarize(both[0], roller.mode)
    # a trained net plays these bear-offs almost perfectly: its value is at most the exact one
    assert (
        s["p_win_adjusted"] <= exact + 3 * s["se_adjusted"] / 2
        and s["p_win_adjusted"] > exact - 0.02
    )
    assert s["se_factor"] > 3
    # two identical positions on the same dice: identical games, a result difference of exactly 0
    # (the luck terms agree to float rounding: the rows sit at other places in the batch)
    assert np.array_equal(both[0].points, both[1].points)
    assert np.abs(both[0].luck - both[1].luck).max() < 1e-9


def test_paired_moves_and_truncation():
    roller = RolloutSettings(DMP_MODEL, 1).roller()
    board = be.initial_board()
    moves, outcomes = move_outcomes(
        RolloutSettings(DMP_MODEL, 36, truncate=4, seed=3), roller, board, (3, 1), top=3
    )
    rows = rank_moves(roller, board, moves, outcomes)
    assert len(rows) == 3 and rows[0]["diff_adjusted"] == 0.0 and rows[0]["diff_se_adjusted"] == 0.0
    assert rows[0]["text"] == "8/5 6/5"  # the opening 31 every strong player makes
    assert all(r["finished"] == 0 for r in rows)  # nothing ends in 4 plies from the start
    assert all(r["diff_adjusted"] <= 0 for r in rows)


def test_move_that_wins_is_exact():
    roller = RolloutSettings(DMP_MODEL, 1).roller()
    board = bo.board_of((1, 1, 0, 0, 0, 0), (0, 0, 0, 0, 0, 3))
    moves, outcomes = move_outcomes(RolloutSettings(DMP_MODEL, 8, seed=0), roller, board, (2, 1))
    rows = rank_moves(roller, board, moves, outcomes)
    assert rows[0]["text"] == "2/off 1/off" and rows[0]["value"] == 1.0 and rows[0]["se"] == 0.0


def test_cli_text_json_and_workers(tmp_path):
    pid = be.position_id(BEAROFF)
    proc = run("tools/rollout.py", DMP_MODEL, pid, "--trials", "72", "--quiet", check=True)
    assert "luck-adjusted: P(win)" in proc.stdout
    one = json.loads(
        run(
            "tools/rollout.py", DMP_MODEL, pid, "--trials", "72", "--quiet", "--json", check=True
        ).stdout
    )["value"]
    two = json.loads(
        run(
            "tools/rollout.py",
            DMP_MODEL,
            pid,
            "--trials",
            "72",
            "--quiet",
            "--json",
            "--workers",
            "2",
            check=True,
        ).stdout
    )["value"]
    # the workers share the same trials on the same dice: the same answer
    assert one["value"] == pytest.approx(two["value"], abs=1e-12)
    assert one["value_adjusted"] == pytest.approx(two["value_adjusted"], abs=1e-9)
    moves = json.loads(
        run(
            "tools/rollout.py",
            DMP_MODEL,
            "4HPwATDgc/ABMA",
            "--dice",
            "31",
            "--top",
            "2",
            "--trials",
            "36",
            "--truncate",
            "2",
            "--quiet",
            "--json",
            check=True,
        ).stdout
    )["moves"]
    assert len(moves) == 2 and moves[0]["diff"] == 0.0


@pytest.mark.parametrize(
    "args,words",
    [(["--trials", "0"], "trials"), (["--truncate", "-1"], "truncate"), (["--dice", "72"], "dice")],
)
def test_cli_bad_input(args, words):
    assert_one_line_error(run("tools/rollout.py", DMP_MODEL, "4HPwATDgc/ABMA", *args), words)


def test_cli_bad_position_and_model(tmp_path):
    assert_one_line_error(run("tools/rollout.py", DMP_MODEL, "not-an-id"), "position")
    assert_one_line_error(
        run("tools/rollout.py", str(tmp_path / "missing.pt"), "4HPwATDgc/ABMA"), "missing.pt"
    )
    cubeful = os.path.join(ROOT, "best_models", "cubeful_256x2.pt")
    assert_one_line_error(run("tools/rollout.py", cubeful, "4HPwATDgc/ABMA"), "cubeful")


@pytest.mark.parametrize("mode", ["cubeless-money", "dmp"])
def test_gnubg_nn_all_rolls_fast_path_equals_exact(positions_20k, mode):
    """The batched all_rolls gives the one-roll-at-a-time values and moves exactly
    (every 50th of the 20,000 oracle positions: openings to bear-offs, forced moves, passes)."""
    pytest.importorskip("gnubg_nn")
    roller = RolloutSettings("gnubg-nn", 1, game_mode=mode).roller()
    boards = positions_20k[::50]
    values, afters = roller.all_rolls(boards)
    exact_values, exact_afters = roller.all_rolls_exact(boards)
    assert np.array_equal(values, exact_values)
    assert np.array_equal(afters, exact_afters)
