"""Exact 1-ply on real positions, as fast as it is now and with the numbers it had before.

Two things make exact 1-ply cheaper without changing a number: rolls that reach the same
after-state share one network row (scoring.py: the same inputs give the same value), and the
C kernel skips input steps that are zero in a whole tile of rows (mlp_lowp.c: adding +0
changes no sum).  The reference is the computation as it was: every candidate its own row,
every step run (``Scorer.share_rows`` off, ``LowpMLP.every_step`` on).  The tolerance is
zero: each position's target and each roll's chosen move must be the same to the bit, for
trained nets of every kind (P(win), equity, five outcomes, cubeful money with every cube
owner, match play with its payoff head) on positions of gnubg-nn games (contact, race,
bear-off) and on bear-offs where rolls end the game (values known exactly, never from the
network).  A per-roll computation (one ``score`` call per roll, so nothing to share) must
agree too, to float32 rounding of torch's sigmoid, which can differ in the last bit with a
value's place in its array: 1e-6."""

import numpy as np
import pytest
import torch

from helpers import ROOT, board
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.modes import game_mode
from tdbg.net import lowp
from tdbg.net.model import load_checkpoint
from tdbg.net.scoring import Scorer, ScoringSettings, segment_argmax

PER_ROLL_TOL = 1e-6
ENDINGS = [
    board({6: 1, 5: 1}, {18: 2, 6: 13}),  # 6-5, 6-6, 5-5 end the game (single win)
    board({2: 1, 1: 1}, {20: 1, 6: 14}),  # every roll ends it: a backgammon (loser in my home)
    board({4: 2, 3: 1}, {6: 15}),  # some rolls end it with a gammon
    board({6: 3, 5: 2, 2: 1}, {1: 3, 2: 3, 3: 2, 4: 1}),  # a race's last rolls, some ending it
]
MODELS = [
    ("dmp_256x3", "bf16"),
    ("dmp_256x3", "int8"),
    ("dmp_256x3", "fp32-c"),
    ("cubeless_256x3", "bf16"),
    ("prob5_128x2", "bf16"),
    ("cubeful_256x3", "bf16"),
    ("match_256x2_outcomes", "bf16"),
]


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _positions(positions_20k):
    """Every 100th of 20,000 gnubg-nn positions (contact, race and bear-off) and the endings."""
    return np.concatenate([positions_20k[::100], np.array(ENDINGS)])


def _owners(mode, n):
    """Cube states from each mover's side: every owner in cubeful money, a spread of scores
    and cubes in match play; None without a cube."""
    if mode.is_match:
        return mode.initial_states(n, np.random.default_rng(3), turned=0.5)
    if mode.cubeful:
        return np.resize([CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS], n)
    return None


def _scorers(name, precision):
    model, meta, _ = load_checkpoint(f"{ROOT}/best_models/{name}.pt")
    mode = game_mode(meta["game_mode"])
    fast = Scorer(model.eval(), mode, scoring=ScoringSettings(precision=precision))
    before = Scorer(model, mode, scoring=ScoringSettings(precision=precision))
    before.share_rows = False
    before.lowp.every_step = True
    return mode, fast, before


@pytest.mark.parametrize("name,precision", MODELS)
def test_oneply_targets_and_moves_as_before(positions_20k, name, precision):
    mode, fast, before = _scorers(name, precision)
    boards = _positions(positions_20k)
    owner = _owners(mode, len(boards))
    targets, (after, rows) = fast.oneply(boards, owner)
    want, (want_after, want_rows) = before.oneply(boards, owner)
    assert np.array_equal(targets.view(np.uint64), want.view(np.uint64)), np.abs(
        targets - want
    ).max()
    assert np.array_equal(after[rows], want_after[want_rows])  # each roll's chosen after-state
    assert fast.evaluations < 0.95 * before.evaluations  # rows were shared: the test is not idle
    # (position, roll): the chosen after-state has a side with no checker left, so the game is over
    finished = (want_after[want_rows].sum(axis=-1) == 0).any(axis=-1)
    # the constructed endings (not the drawn positions, which depend on gnubg-nn's state) have
    # rolls whose best move ends the game: their value is exact, and the test covers it
    assert finished[-len(ENDINGS) :].any()


@pytest.mark.parametrize("name,precision", [("dmp_256x3", "bf16"), ("cubeful_256x3", "bf16")])
def test_oneply_agrees_with_one_roll_at_a_time(positions_20k, name, precision):
    """The mean over rolls of each roll's best, with one ``score`` call per roll (each
    position once a call: nothing shared), and each roll's choice, ties within the tolerance
    aside; a roll that ends the game is worth the exact value."""
    mode, fast, _ = _scorers(name, precision)
    boards = _positions(positions_20k)
    owner = _owners(mode, len(boards))
    targets, (after, rows) = fast.oneply(boards, owner)
    after = after.copy()  # the scorer's buffers are reused by the calls below
    best = np.zeros((len(boards), len(ALL_ROLLS)))
    for r, roll in enumerate(ALL_ROLLS):
        a, offsets, values, scalar = fast.score(
            boards, np.repeat(roll[None], len(boards), axis=0), owner
        )
        chosen, top = segment_argmax(scalar, offsets)
        best[:, r] = values[chosen]
        same = (a[chosen] == after[rows[:, r]]).all(axis=(1, 2))
        mine = fast.values.scalar(np.asarray(values))  # the per-roll scalar of oneply's choice ...
        for i in np.flatnonzero(~same):  # ... is within the tolerance of the best
            row = offsets[i] + np.flatnonzero(
                (a[offsets[i] : offsets[i + 1]] == after[rows[i, r]]).all(axis=(1, 2))
            )
            assert top[i] - mine[row[0]] <= PER_ROLL_TOL
        ended = a[chosen][:, 1].sum(axis=-1) == 0
        for i in np.flatnonzero(ended):
            result = be.game_results(a[chosen][i : i + 1])
            own = None if owner is None else np.asarray(owner)[i : i + 1]
            assert best[i, r] == mode.terminal_values(fast.values, result, own)[0]
    assert np.abs(targets - best @ ROLL_WEIGHTS).max() <= PER_ROLL_TOL


def test_the_reference_really_runs_the_old_way():
    """The reference scorer's switches do what the tests above rely on."""
    _, fast, before = _scorers("dmp_256x3", "bf16")
    assert fast.share_rows and not fast.lowp.every_step
    assert not before.share_rows and before.lowp.every_step
    assert lowp.LowpMLP(fast.model, "bf16").rows_independent
