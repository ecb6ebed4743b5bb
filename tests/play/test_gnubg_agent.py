"""The gnubg-nn reference agent plays each game mode's own objective.

The oracle is computed here from gnubg-nn alone: ``gnubg_nn.moves`` lists the
candidates (as position keys, mover in the second half), and
``gnubg_nn.probabilities`` of each candidate with the opponent on roll gives the
opponent's five probabilities, which this file turns into the mover's by hand.
Positions come from gnubg-nn's own self-play, so our engine shapes neither the
positions nor the candidates.
"""

import random

import gnubg_nn
import numpy as np
import pytest

from oracle_positions import gnubg_games
from tdbg.game import backgammon_engine as be
from tdbg.game.modes import game_mode
from tdbg.play.agents import GnubgNNAgent
from tdbg.play.players import Player
from tdbg.play.seating import evaluator

TIE = 1e-6  # candidates whose values differ by less than this are equally good


def oracle_values(board, d1, d2, plies, mode_name):
    """{mover-in-row-1 board key: value the mover maximises} for every legal move."""
    out = {}
    for key in gnubg_nn.moves(board, d1, d2):
        after = gnubg_nn.board_from_position_key(key)  # (opponent, mover)
        win, gam, bg, lgam, lbg = gnubg_nn.probabilities([list(after[1]), list(after[0])], plies)
        # the opponent is on roll: the mover wins when the opponent loses
        p_win, p_wg, p_wbg, p_lg, p_lbg = 1 - win, lgam, lbg, gam, bg
        if mode_name == "dmp":
            out[key] = p_win
        else:
            out[key] = 2 * p_win - 1 + p_wg + p_wbg - p_lg - p_lbg
    return out


def decisions(n, seed):
    """(board, d1, d2) from gnubg-nn self-play with at least two distinct legal moves."""
    rng = random.Random(seed)
    out = []
    for board in gnubg_games(4 * n, seed, "gnubg"):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if len(gnubg_nn.moves(board, d1, d2)) >= 2:
            out.append((board, d1, d2))
        if len(out) == n:
            return out
    raise AssertionError("not enough decisions")


def check_agent(agent, cases, mode_name):
    boards = np.array([b for b, _, _ in cases])
    dice = np.array([(d1, d2) for _, d1, d2 in cases])
    chosen = agent.choose_moves(boards, dice)
    disagreements = 0
    for (board, d1, d2), after in zip(cases, chosen, strict=True):
        values = oracle_values(board, d1, d2, agent.plies, mode_name)
        got = gnubg_nn.key_of_board([list(r) for r in after.tolist()])
        assert got in values, "the agent's move is not a legal gnubg-nn move"
        best = max(values.values())
        assert values[got] >= best - TIE, (
            be.position_id(np.array(board)),
            d1,
            d2,
            values[got],
            best,
        )
        disagreements += values[got] < best
    return disagreements


@pytest.mark.parametrize("mode_name", ["dmp", "cubeless-money"])
def test_gnubg_nn_0ply_maximises_the_mode_objective(mode_name):
    cases = decisions(1000, seed=31)
    agent = evaluator(Player("gnubg-nn"), game_mode(mode_name))
    assert check_agent(agent, cases, mode_name) == 0


@pytest.mark.slow
@pytest.mark.parametrize("mode_name", ["dmp", "cubeless-money"])
def test_gnubg_nn_1ply_maximises_the_mode_objective(mode_name):
    cases = decisions(100, seed=32)
    agent = evaluator(Player("gnubg-nn-1ply"), game_mode(mode_name))
    assert agent.plies == 1
    assert check_agent(agent, cases, mode_name) == 0


def test_dmp_and_money_objectives_really_differ():
    """The reason for all this: on the same positions the money-equity choice
    (gnubg_nn.bestmove) is often not the P(win) choice, so a DMP yardstick built on
    bestmove plays the wrong game."""
    cases = decisions(300, seed=33)
    differ = 0
    for board, d1, d2 in cases:
        values = oracle_values(board, d1, d2, 0, "dmp")
        money_key = gnubg_nn.bestmove(board, d1, d2, b=1)[1]  # mover in the first half
        after = gnubg_nn.board_from_position_key(money_key)
        money_choice = gnubg_nn.key_of_board([list(after[1]), list(after[0])])
        differ += values[money_choice] < max(values.values()) - TIE
    assert differ >= 0.05 * len(cases), differ


def test_forced_moves_and_passes():
    mode = game_mode("dmp")
    agent = GnubgNNAgent(mode, 0)
    # on the bar against a closed board: no legal move, the board stays
    closed = np.zeros((2, 25), dtype=np.int64)
    closed[0, :6] = 2
    closed[0, 6] = 3
    closed[1, 24] = 2
    closed[1, 12] = 13
    assert np.array_equal(agent.choose_moves(closed[None], np.array([[1, 2]]))[0], closed)
    # one checker left, a 6-1 bears it off: the game is won whatever the network says
    last = np.zeros((2, 25), dtype=np.int64)
    last[1, 0] = 1
    last[0, 5] = 15
    after = agent.choose_moves(last[None], np.array([[6, 1]]))[0]
    assert after[1].sum() == 0


def test_known_opening_moves_per_mode():
    """Opening 3-1 makes the 5 point (8/5 6/5) in both modes, as every book says."""
    start = be.initial_board()
    for mode_name in ("dmp", "cubeless-money"):
        agent = GnubgNNAgent(game_mode(mode_name), 0)
        want = be.parse_move(start, 3, 1, "8/5 6/5")[1]
        assert np.array_equal(agent.choose_moves(start[None], np.array([[3, 1]]))[0], want)


@pytest.mark.slow
@pytest.mark.parametrize("mode_name", ["dmp", "cubeless-money"])
def test_gnubg_nn_2ply_maximises_the_mode_objective(mode_name):
    """--plies 2: each candidate valued by gnubg-nn's own 2-ply evaluation."""
    cases = decisions(
        10, seed=34
    )  # cases 8 and 9 are DMP decisions where 1-ply and 2-ply choose differently
    agent = evaluator(Player("gnubg-nn", plies=2), game_mode(mode_name))
    assert agent.plies == 2 and agent.name == "gnubg-nn-2ply"
    assert check_agent(agent, cases, mode_name) == 0
