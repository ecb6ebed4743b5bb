"""The built-in opponents as tdbg.play.opponents registers them: random and pubeval
(opponents/simple.py), gnubg-nn at each depth and gnubg-nn-cubeful (opponents/gnubg_networks.py).

The oracles are gnubg-nn's own: its move generator (``gnubg_nn.moves``) for what is legal,
its pubeval score of each candidate, and its 1-ply probabilities; positions come from
gnubg-nn's self-play (oracle_positions), so our engine shapes neither."""

import random

import gnubg_nn
import numpy as np
import pytest

from helpers import board
from oracle_positions import gnubg_games
from tdbg.game import backgammon_engine as be
from tdbg.game.modes import game_mode
from tdbg.play import opponents
from tdbg.play.agents import GnubgNNAgent
from tdbg.play.gnubg_cube_agent import GnubgNNCubefulAgent
from tdbg.play.opponents import gnubg_networks, simple
from tdbg.play.players import Player

DMP = game_mode("dmp")
CONTACT = (gnubg_nn.c_crashed, gnubg_nn.c_contact)


def key(after) -> str:
    """gnubg-nn's key of an after-board (mover in row 1), as gnubg_nn.moves lists them."""
    return gnubg_nn.key_of_board([list(r) for r in np.asarray(after).tolist()])


def mover_first(key_: str) -> list:
    """The board of a gnubg-nn move key with the mover in row 0, as pubeval scores it."""
    opponent, mover = gnubg_nn.board_from_position_key(key_)
    return [list(mover), list(opponent)]


def decisions(n, seed):
    """(board, d1, d2) from gnubg-nn self-play with at least two distinct legal moves."""
    rng, out = random.Random(seed), []
    for b in gnubg_games(4 * n, seed, "gnubg"):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if len(gnubg_nn.moves(b, d1, d2)) >= 2:
            out.append((b, d1, d2))
        if len(out) == n:
            return out
    raise AssertionError("not enough decisions")


def test_each_name_builds_its_own_agent():
    assert opponents.get("random").make is simple.random_agent
    assert opponents.get("pubeval").make is simple.pubeval
    assert opponents.get("gnubg-nn").make is gnubg_networks.gnubg_nn
    assert opponents.get("gnubg-nn-1ply").make is gnubg_networks.gnubg_nn_1ply
    assert opponents.get("gnubg-nn-cubeful").make is gnubg_networks.gnubg_nn_cubeful
    # only gnubg-nn-cubeful makes cube decisions; only gnubg-nn's networks look ahead
    assert [n for n in opponents.NAMES if opponents.get(n).cube] == ["gnubg-nn-cubeful"]
    assert [n for n in opponents.NAMES if opponents.get(n).plies] == [
        "gnubg-nn",
        "gnubg-nn-1ply",
        "gnubg-nn-cubeful",
    ]


def test_random_plays_each_legal_position_about_equally_often():
    """3-1 from the start: every choice is one of gnubg-nn's legal moves, each distinct
    position drawn about 1/k of the time (chi-square, k - 1 degrees of freedom)."""
    start, draws = be.initial_board(), 4000
    legal = set(gnubg_nn.moves(start.tolist(), 3, 1))
    agent = simple.random_agent(DMP, Player("random", seed=5))
    chosen = agent.choose_moves(np.repeat(start[None], draws, 0), np.tile([3, 1], (draws, 1)))
    counts = {k: 0 for k in legal}
    for after in chosen:
        counts[key(after)] += 1  # a KeyError: an illegal move
    expected = draws / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert len(legal) == 16  # 3-1 from the start: 16 distinct positions (hand count)
    assert chi2 < 37.7  # chi-square's 0.001 upper quantile at 15 degrees of freedom


def test_random_follows_its_players_seed():
    cases = decisions(40, seed=3)
    boards = np.array([b for b, _, _ in cases])
    dice = np.array([(d1, d2) for _, d1, d2 in cases])

    def play(seed):
        return simple.random_agent(DMP, Player("random", seed=seed)).choose_moves(boards, dice)

    assert np.array_equal(play(5), play(5))
    assert not np.array_equal(play(5), play(6))


def test_pubeval_plays_a_legal_move_that_pubeval_scores_highest():
    """Among decisions whose candidates are all contact positions (pubeval has other weights
    for a race, so scores of the two kinds do not compare), pubeval's move is the candidate
    gnubg-nn's pubeval score puts first."""
    agent = simple.pubeval(DMP, Player("pubeval"))
    cases = decisions(150, seed=21)
    chosen = agent.choose_moves(
        np.array([b for b, _, _ in cases]), np.array([(d1, d2) for _, d1, d2 in cases])
    )
    checked = 0
    for (b, d1, d2), after in zip(cases, chosen, strict=True):
        legal = gnubg_nn.moves(b, d1, d2)
        assert key(after) in legal
        boards = {k: mover_first(k) for k in legal}
        if all(gnubg_nn.classify(x) in CONTACT for x in boards.values()):
            scores = {k: gnubg_nn.pub_eval_score(x) for k, x in boards.items()}
            assert scores[key(after)] == max(scores.values()), (be.position_id(np.array(b)), d1, d2)
            checked += 1
    assert checked >= 100


def test_pubeval_bears_off_its_last_two_checkers_when_it_can():
    """One checker on each of the 1 and 2 points, 2-1: 2/off 1/off wins; 2/1 1/off leaves one
    behind.  Pubeval scores a position with all fifteen off above any other."""
    before = board({1: 1, 2: 1}, {19: 15})
    assert len(gnubg_nn.moves(before.tolist(), 2, 1)) == 2
    after = simple.pubeval(DMP, Player("pubeval")).choose_moves(before[None], np.array([[2, 1]]))
    assert after[0][1].sum() == 0


def test_gnubg_nn_takes_its_players_depth():
    assert gnubg_networks.gnubg_nn(DMP, Player("gnubg-nn")).plies == 0
    agent = gnubg_networks.gnubg_nn(DMP, Player("gnubg-nn", plies=2))
    assert isinstance(agent, GnubgNNAgent) and agent.plies == 2 and agent.name == "gnubg-nn-2ply"
    assert gnubg_networks.gnubg_nn_1ply(DMP, Player("gnubg-nn-1ply", plies=1)).plies == 1
    with pytest.raises(ValueError, match="use --model2 gnubg-nn --plies 2"):
        gnubg_networks.gnubg_nn_1ply(DMP, Player("gnubg-nn-1ply", plies=2))


def test_gnubg_nn_1ply_plays_the_best_move_by_gnubg_nns_1ply_win_probability():
    agent = gnubg_networks.gnubg_nn_1ply(DMP, Player("gnubg-nn-1ply"))
    cases = decisions(2, seed=41)
    chosen = agent.choose_moves(
        np.array([b for b, _, _ in cases]), np.array([(d1, d2) for _, d1, d2 in cases])
    )
    for (b, d1, d2), after in zip(cases, chosen, strict=True):
        p_win = {}
        for k in gnubg_nn.moves(b, d1, d2):
            opponent, mover = gnubg_nn.board_from_position_key(k)
            # the opponent is on roll: the mover wins when the opponent loses
            p_win[k] = 1 - gnubg_nn.probabilities([list(mover), list(opponent)], 1)[0]
        assert p_win[key(after)] >= max(p_win.values()) - 1e-6


def test_gnubg_nn_cubeful_plays_cubeful_money_only():
    money = game_mode("cubeful-money")
    agent = gnubg_networks.gnubg_nn_cubeful(money, Player("gnubg-nn-cubeful", plies=1))
    assert isinstance(agent, GnubgNNCubefulAgent) and agent.cube_capable and agent.plies == 1
    with pytest.raises(ValueError, match="plays cubeful money only"):
        gnubg_networks.gnubg_nn_cubeful(DMP, Player("gnubg-nn-cubeful"))
