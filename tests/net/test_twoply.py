"""2-ply search against a move-by-move reference: every move of every roll scored one at
a time with the Python engine, the numpy encoder and one network call per position."""

import numpy as np
import pytest
import torch

from helpers import board
from tdbg.game import backgammon_engine as be, encoding
from tdbg.game.cube import can_double, owner_for_opponent
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.heads import output_head
from tdbg.game.modes import game_mode
from tdbg.net.model import TDNetwork
from tdbg.net.search import Search, top_k
from tdbg.play.td_agent import TDAgent

WEIGHTS = [1 / 36 if a == b else 2 / 36 for a, b in ALL_ROLLS.tolist()]
SMALL = [  # few checkers: the full 2-ply tree is small enough to walk move by move
    board({3: 1, 5: 1}, {2: 1, 4: 1}),
    board({6: 2, 1: 1}, {5: 1, 3: 1}),
    board({20: 1, 2: 1}, {22: 1, 4: 1}),  # contact: hits and re-entry
]


class Reference:
    """Expectimax by brute force; ``k2`` keeps the k2 best moves per roll by 0-ply."""

    def __init__(self, model, mode):
        self.model, self.mode, self.head = model, mode, output_head(model.output_mode)

    def after_value(self, after, owner, plies):
        """The mover's value of an after-state looking ``plies`` plies ahead."""
        result = be.game_result(after)
        if result:
            return self.head.terminal(self.mode.points(np.array([result]), owner))[0]
        opp = None if owner is None else owner_for_opponent(np.array([owner]))[0]
        if plies == 0:
            x = encoding.encode(be.swap(after))
            if self.mode.cubeful:
                x = np.concatenate(
                    [x, encoding.cube_features(np.array([opp]), can_double(np.array([opp])))[0]]
                )
            with torch.no_grad():
                raw = self.model(torch.from_numpy(x[None]).float()).numpy().astype(np.float64)
            return self.head.flip(raw)[0]
        return self.head.flip(np.asarray(self.position_value(be.swap(after), opp, plies))[None])[0]

    def position_value(self, b, owner, plies, k2=None):
        """Mean over the rolls of the best move's value, the moves valued at plies - 1."""
        total = 0.0
        for (d1, d2), w in zip(ALL_ROLLS.tolist(), WEIGHTS, strict=True):
            afters = [a for _, a in be.legal_moves(b, d1, d2)]
            if k2 is not None:
                zero = [self.scalar(self.after_value(a, owner, 0)) for a in afters]
                afters = [afters[i] for i in np.argsort(-np.array(zero), kind="stable")[:k2]]
            vals = [self.after_value(a, owner, plies - 1) for a in afters]
            total = total + w * np.asarray(vals[int(np.argmax([self.scalar(v) for v in vals]))])
        return total

    def scalar(self, v):
        return float(self.head.scalar(np.asarray(v)[None])[0])


CASES = [
    ("dmp", "probability", [None]),
    ("cubeless-money", "equity", [None]),
    ("cubeless-money", "prob5", [None]),
    ("cubeful-money", "equity", [CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS]),
]


@pytest.mark.parametrize("mode_name,output,owners", CASES)
def test_twoply_position_values_equal_brute_force(mode_name, output, owners):
    torch.manual_seed(3)
    mode = game_mode(mode_name)
    model = TDNetwork(mode.n_inputs, [16], output).eval()
    ref = Reference(model, mode)
    for k2 in (99, 1):  # unfiltered, and gnubg's one reply per roll
        agent = TDAgent(model, mode, Search(twoply=(3, k2)), engine="python")
        for owner in owners:
            own = None if owner is None else np.full(len(SMALL), owner)
            got = agent.twoply.position_values(np.array(SMALL), own)
            for i, b in enumerate(SMALL):
                want = ref.position_value(b, owner, 2, None if k2 == 99 else k2)
                assert np.allclose(got[i], want, atol=1e-5), (
                    mode_name,
                    output,
                    owner,
                    k2,
                    be.position_id(b),
                )


@pytest.mark.parametrize("mode_name,output", [("dmp", "probability"), ("cubeless-money", "prob5")])
def test_twoply_moves_equal_brute_force_and_differ_from_oneply(mode_name, output):
    """The agent plays the brute-force 2-ply best of the k1 best moves by 1-ply, and at
    least one of these choices is not the 1-ply agent's (so the search is really used)."""
    torch.manual_seed(5)
    mode = game_mode(mode_name)
    model = TDNetwork(mode.n_inputs, [16], output).eval()
    ref = Reference(model, mode)
    k1 = 2
    two = TDAgent(model, mode, Search(twoply=(k1, 99)), engine="python")
    one = TDAgent(model, mode, Search(oneply=True), engine="python")
    cases = [
        (b, (d1, d2))
        for b in SMALL
        for d1, d2 in ((6, 1), (4, 2), (5, 3), (2, 1))
        if len(be.legal_moves(b, d1, d2)) > k1
    ]
    boards = np.array([b for b, _ in cases])
    dice = np.array([d for _, d in cases])
    got2, got1 = two.choose_moves(boards, dice), one.choose_moves(boards, dice)
    differ = 0
    for (b, (d1, d2)), c2, c1 in zip(cases, got2, got1, strict=True):
        afters = [a for _, a in be.legal_moves(b, d1, d2)]
        v1 = [ref.scalar(ref.after_value(a, None, 1)) for a in afters]
        assert np.array_equal(afters[int(np.argmax(v1))], c1)
        short = [afters[i] for i in np.argsort(-np.array(v1), kind="stable")[:k1]]
        v2 = [ref.scalar(ref.after_value(a, None, 2)) for a in short]
        assert np.array_equal(short[int(np.argmax(v2))], c2), be.position_id(b)
        differ += not np.array_equal(c1, c2)
    assert differ > 0, "the 2-ply agent played the 1-ply moves everywhere"


def test_twoply_cube_decisions_use_twoply_values():
    torch.manual_seed(2)
    mode = game_mode("cubeful-money")
    model = TDNetwork(mode.n_inputs, [16], "equity").eval()
    ref = Reference(model, mode)
    agent = TDAgent(model, mode, Search(twoply=(3, 99)), engine="python")
    boards = np.array(SMALL)
    owner = np.full(len(SMALL), CUBE_CENTERED)
    action = agent.cube_action(boards, owner)
    for i, b in enumerate(SMALL):
        nd = ref.position_value(b, CUBE_CENTERED, 2)
        take = ref.position_value(b, CUBE_THEIRS, 2)
        want = mode.cube_action(np.array([nd]), np.array([take]))
        assert action.double[i] == want.double[0] and action.take[i] == want.take[0]
        assert action.value[i] == pytest.approx(want.value[0], abs=1e-5)


def test_top_k_keeps_the_best_rows_of_each_segment():
    scalar = np.array([0.1, 0.5, 0.3, 0.9, 0.2, 0.2])
    offsets = np.array([0, 3, 4, 6])
    rows, offs = top_k(scalar, offsets, 2)
    assert rows.tolist() == [1, 2, 3, 4, 5] and offs.tolist() == [0, 2, 3, 5]


@pytest.mark.parametrize("mode_name,output", [("dmp", "probability"), ("cubeful-money", "equity")])
def test_filtered_oneply_plays_the_best_of_the_k_best_by_zero_ply(mode_name, output):
    """--oneply-k K: the brute-force 1-ply best among each roll's K best moves by 0-ply;
    K=1 is the 0-ply choice, and some choice differs from the unfiltered 1-ply agent's."""
    torch.manual_seed(7)
    mode = game_mode(mode_name)
    model = TDNetwork(mode.n_inputs, [16], output).eval()
    ref = Reference(model, mode)
    owner = None if not mode.cubeful else CUBE_CENTERED
    cases = [
        (b, (d1, d2))
        for b in SMALL
        for d1, d2 in ((6, 1), (4, 2), (5, 3), (2, 1), (6, 6))
        if len(be.legal_moves(b, d1, d2)) > 2
    ]
    boards, dice = np.array([b for b, _ in cases]), np.array([d for _, d in cases])
    own = None if owner is None else np.full(len(cases), owner)
    full = TDAgent(model, mode, Search(oneply=True), engine="python").choose_moves(
        boards, dice, own
    )
    zero = TDAgent(model, mode, engine="python").choose_moves(boards, dice, own)
    differ = 0
    for k in (1, 2):
        got = TDAgent(model, mode, Search(oneply=True, oneply_k=k), engine="python").choose_moves(
            boards, dice, own
        )
        for i, (b, (d1, d2)) in enumerate(cases):
            afters = [a for _, a in be.legal_moves(b, d1, d2)]
            v0 = [ref.scalar(ref.after_value(a, owner, 0)) for a in afters]
            short = [afters[j] for j in np.argsort(-np.array(v0), kind="stable")[:k]]
            v1 = [ref.scalar(ref.after_value(a, owner, 1)) for a in short]
            assert np.array_equal(got[i], short[int(np.argmax(v1))]), (k, be.position_id(b), d1, d2)
            if k == 1:
                assert np.array_equal(got[i], zero[i])
            differ += not np.array_equal(got[i], full[i])
    assert differ > 0, (
        "the filter never changed a choice: the test cannot tell filtered from full 1-ply"
    )


def test_a_search_names_its_depth_in_the_players_name():
    suffixes = [
        Search(**kw).name_suffix
        for kw in (
            {},
            {"oneply": True},
            {"oneply": True, "oneply_k": 3},
            {"oneply": True, "oneply_k": 3, "oneply_filter": 10},
            {"twoply": (3, 3)},
            {"twoply": (3, 3), "oneply_filter": 10},
        )
    ]
    assert suffixes == ["", "-1ply", "-1ply-k3", "-1ply-k3-filter10", "-2ply", "-2ply-filter10"]
    model = TDNetwork(game_mode("dmp").n_inputs, [8], "probability").eval()
    assert (
        TDAgent(model, game_mode("dmp"), Search(oneply=True, oneply_k=3), engine="python").name
        == "td[8]-1ply-k3"
    )


def test_oneply_k_needs_a_one_ply_player_and_at_least_one():
    mode = game_mode("dmp")
    model = TDNetwork(mode.n_inputs, [8], "probability").eval()
    for kw in ({"oneply": True, "oneply_k": 0}, {"oneply_k": 3}):
        with pytest.raises(ValueError, match="oneply-k"):
            TDAgent(model, mode, Search(**kw), engine="python")
