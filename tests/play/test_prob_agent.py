"""tdbg.play.prob_agent: a prob5 checkpoint's five probabilities, its cubeless equity worked
out by hand from them, and the move that equity puts first (each candidate valued here by a
plain float64 forward pass of the network, one call per move)."""

import os
import random

import gnubg_nn
import numpy as np
import pytest
import torch

from helpers import ROOT
from oracle_positions import gnubg_games
from tdbg.game import backgammon_engine as be, encoding
from tdbg.game.modes import game_mode
from tdbg.net.model import load_checkpoint
from tdbg.play.prob_agent import ProbAgent

MONEY = game_mode("cubeless-money")
PROB5 = os.path.join(ROOT, "best_models", "prob5_128x2.pt")
DMP_NET = os.path.join(ROOT, "best_models", "dmp_128x2.pt")


@pytest.fixture(scope="module")
def net():
    model = load_checkpoint(PROB5)[0]
    model.eval()
    return model


def forward64(model, boards) -> np.ndarray:
    """The network's five outputs for positions (side on roll in row 1), in float64."""
    x = np.stack([encoding.encode(np.asarray(b)) for b in boards])
    with torch.no_grad():
        return model.double()(torch.from_numpy(x).double()).numpy()


def equity(p) -> float:
    """Cubeless money equity by hand: a win counts 1, each gammon and backgammon 1 more."""
    win, wg, wbg, lg, lbg = p
    return win * 1 + wg + wbg - (1 - win) * 1 - lg - lbg


def test_probabilities_are_the_networks_and_equities_read_them_by_hand(net):
    boards = gnubg_games(30, 5, "gnubg")
    agent = ProbAgent(load_checkpoint(PROB5)[0], MONEY)
    got = agent.probabilities(boards)
    want = forward64(net, boards)
    assert got.shape == (30, 5)
    np.testing.assert_allclose(got, want, atol=1e-5)
    np.testing.assert_allclose(agent.equities(boards), [equity(p) for p in want], atol=3e-5)


def mover_equities(model, afters) -> list[float]:
    """The mover's equity after each move: exact at a game's end, else the network's
    probabilities for the opponent on roll, turned to the mover's side by hand."""
    opponent = forward64(model, [be.swap(a) for a in afters])
    out = []
    for after, (o_win, o_wg, o_wbg, o_lg, o_lbg) in zip(afters, opponent, strict=True):
        result = be.game_result(after)  # the mover bore off last: 1, 2 or 3 points
        out.append(float(result) if result else equity((1 - o_win, o_lg, o_lbg, o_wg, o_wbg)))
    return out


def test_a_move_maximises_the_cubeless_equity(net):
    rng, cases = random.Random(8), []
    for b in gnubg_games(120, 9, "gnubg"):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if len(gnubg_nn.moves(b, d1, d2)) >= 2:
            cases.append((np.array(b), d1, d2))
    cases = cases[:20]
    agent = ProbAgent(load_checkpoint(PROB5)[0], MONEY)
    chosen = agent.choose_moves(
        np.array([b for b, _, _ in cases]), np.array([(d1, d2) for _, d1, d2 in cases])
    )
    for (b, d1, d2), after in zip(cases, chosen, strict=True):
        values = mover_equities(net, [a for _, a in be.legal_moves(b, d1, d2)])
        assert mover_equities(net, [after])[0] >= max(values) - 1e-5, (be.position_id(b), d1, d2)


def test_only_prob5_models_in_cubeless_money():
    with pytest.raises(ValueError, match="ProbAgent plays prob5 models, this one is probability"):
        ProbAgent(load_checkpoint(DMP_NET)[0], game_mode("dmp"))
    with pytest.raises(ValueError, match="cubeless money only"):
        ProbAgent(load_checkpoint(PROB5)[0], game_mode("cubeful-money"))
    assert ProbAgent(load_checkpoint(PROB5)[0], MONEY).cube_capable is False
