"""The board features (features.py) against hand arithmetic and gnubg-nn's move generator,
and the models that read them: a zero-weight warm start changes nothing, the incremental
first layer equals the dense forward pass."""

import gnubg_nn
import numpy as np
import pytest
import torch

from oracle_positions import oracle_positions
from tdbg.game import encoding, features as F
from tdbg.game.modes import game_mode
from tdbg.net.model import TDNetwork
from tdbg.net.net_growth import add_board_features
from tdbg.net.scoring import Scorer, ScoringSettings

# shots (of 36) at a lone blot n pips in front of one enemy checker, nothing in between:
# the standard table (direct and indirect shots), e.g. 6 away: 11 sixes + 5-1, 4-2, 3-3, 2-2 = 17
SHOTS = {
    1: 11,
    2: 12,
    3: 14,
    4: 15,
    5: 15,
    6: 17,
    7: 6,
    8: 6,
    9: 5,
    10: 3,
    11: 2,
    12: 3,
    13: 0,
    14: 0,
    15: 1,
    16: 1,
    17: 0,
    18: 1,
    19: 0,
    20: 1,
    21: 0,
    22: 0,
    23: 0,
    24: 1,
}
HIT, LOSS, BACK, ANCHOR, CONTACT, PRIME, HOME, ESCAPE, BLOTS = range(1, 10)


def _board(mine: dict, theirs: dict) -> np.ndarray:
    """Row 1 (on roll) from {point: checkers}, row 0 likewise in the opponent's numbering
    (25 = the bar); the rest is borne off."""
    b = np.zeros((2, 25), dtype=np.int64)
    for row, pts in ((1, mine), (0, theirs)):
        for p, n in pts.items():
            b[row, p - 1] = n
    return b


def test_names_and_widths_agree():
    assert (
        len(F.FEATURE_NAMES) == F.FEATURES_PER_SIDE
        and F.NUM_BOARD_FEATURES == encoding.NUM_BOARD_FEATURES
    )
    assert F.board_features(np.zeros((3, 2, 25), dtype=np.int64)).shape == (3, 20)


@pytest.mark.parametrize("distance", sorted(SHOTS))
def test_shots_at_a_lone_blot(distance):
    """My blot on point 24 at most; the enemy checker ``distance`` pips behind it, from its bar
    at 24 (their bar enters on my home board, so 24 pips from the bar is my point 24)."""
    blot = min(24, distance + 1)
    enemy_at = blot - distance  # my numbering; 0 is their bar
    board = _board({blot: 1}, {25 - enemy_at: 1})
    f = F.board_features(board[None])[0]
    assert round(f[HIT] * 36) == SHOTS[distance]
    assert f[LOSS] == pytest.approx(SHOTS[distance] / 36 * (25 - blot) / 24, abs=1e-6)
    # the enemy's checker is a blot the same distance in front of mine (I move down, it moves
    # up), so it is as exposed; on the bar it cannot be hit
    assert round(f[F.FEATURES_PER_SIDE + HIT] * 36) == (SHOTS[distance] if enemy_at > 0 else 0)


def test_made_points_block_the_indirect_shots():
    """Blot 6 away (the enemy's checker on my 1, the blot on my 7); my points 3-6 block 3-3,
    2-2, 4-2 and 5-1 by way of my 6, not 5-1 by way of 2: 11 sixes + the two 5-1s = 13."""
    board = _board({7: 1, 3: 2, 4: 2, 5: 2, 6: 2}, {24: 1})
    assert round(F.board_features(board[None])[0][HIT] * 36) == 11 + 2


def test_two_on_the_bar_only_entering_checkers_hit():
    """Two enemy checkers on the bar.  My blot on my 3-point: any 3 (11 rolls), and 1-1 (both
    enter on 1, one goes on 1-2-3): 12.  On my 8: non-doubles only enter; 4-4 enters both on 4
    and one goes on to 8: 1 roll."""
    assert round(F.board_features(_board({3: 1}, {25: 2})[None])[0][HIT] * 36) == 12
    assert round(F.board_features(_board({8: 1}, {25: 2})[None])[0][HIT] * 36) == 1


def test_other_features_by_hand():
    board = _board({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    me = F.board_features(board[None])[0][: F.FEATURES_PER_SIDE]
    assert me[0] == pytest.approx((48 + 65 + 24 + 24 + 5) / 167)
    assert me[BACK] == pytest.approx(24 / 25) and me[ANCHOR] == pytest.approx(24 / 24)
    # their rearmost checkers are on their 24 = my 1: each of mine still has to pass them
    assert me[CONTACT] == pytest.approx((2 * 23 + 5 * 12 + 3 * 7 + 4 * 5 + 1 * 4) / 152)
    assert me[PRIME] == pytest.approx(1 / 6) and me[HOME] == pytest.approx(
        1 / 6
    )  # made 6 only in home
    assert me[BLOTS] == pytest.approx(1 / 15)
    # escape from my 24: their made points within 12 pips ahead (my 12..23) are their 13, 8 and 6
    # = my 12, 17 and 19 (25 - p); past the lowest, 11 or lower, is 13+ pips away: only doubles
    # reach it, and 3-3 stops on 12, 4-4 and 6-6 land on 12, 5-5 on 19: none escapes
    assert me[ESCAPE] == 0
    # contact broken: everything 0 and escape 1
    race = F.board_features(_board({6: 3, 2: 2}, {6: 4})[None])[0]
    assert race[CONTACT] == 0 and race[ESCAPE] == 1 and race[HIT] == 0


def _gnubg_hit_chance(board) -> tuple[float, float]:
    """Chance over the 36 rolls that the opponent (row 0) can hit a checker of mine (row 1),
    and the mean over the rolls of the most pips a hit costs me / 24, from gnubg-nn's moves."""
    opp_on_roll = [list(board[1]), list(board[0])]  # gnubg-nn's convention too: row 1 on roll
    hits = loss = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            best = 0
            for key in gnubg_nn.moves(opp_on_roll, d1, d2):
                mine = np.array(gnubg_nn.board_from_position_key(key)[0])  # the mover is in row 1
                if mine[24] > board[1][24]:
                    gone = np.flatnonzero(board[1][:24] - mine[:24] > 0) + 1
                    best = max(best, int((25 - gone).max()))
            hits += best > 0
            loss += best
    return hits / 36, loss / 36 / 24


def test_hit_chance_and_pip_loss_agree_with_gnubg_nn_moves():
    """On positions from random games and gnubg-nn self-play, each side's hit chance and pip
    loss equal what gnubg-nn's legal moves give, but for rare legality corners (a hit with one
    die that would leave the other unplayable)."""
    boards = oracle_positions(400, seed=11)
    f = F.board_features(boards)
    want = np.array([_gnubg_hit_chance(b) for b in boards])
    hit_err, loss_err = np.abs(f[:, HIT] - want[:, 0]), np.abs(f[:, LOSS] - want[:, 1])
    assert (want[:, 0] > 0).mean() > 0.3  # the sample has plenty of blots in range
    assert (hit_err < 1e-6).mean() >= 0.98 and hit_err.max() <= 2 / 36 + 1e-6
    assert (loss_err < 1e-6).mean() >= 0.98


@pytest.mark.parametrize(
    "mode_name,output,n_inputs", [("dmp", "probability", 196), ("cubeful-money", "equity", 200)]
)
def test_models_reading_the_features(positions_20k, mode_name, output, n_inputs):
    """A zero-weight warm start scores every candidate as before; once the feature weights
    are trained (here: random), the incremental first layer (C sums + the features' columns)
    equals the dense forward pass on inputs built from features.board_features."""
    mode = game_mode(mode_name)
    torch.manual_seed(5)
    base = TDNetwork(n_inputs, [64, 24], output).eval()
    grown = add_board_features(base).eval()
    assert grown.n_inputs == n_inputs + 20 and encoding.reads_board_features(grown.n_inputs)
    boards = positions_20k[:3000]
    rng = np.random.default_rng(3)
    dice = rng.integers(1, 7, (len(boards), 2))
    owner = rng.integers(0, 3, len(boards)) if mode.cubeful else None
    before = (
        Scorer(base, mode, scoring=ScoringSettings(first_layer="dense"))
        .score(boards, dice, owner)[3]
        .copy()
    )
    after = (
        Scorer(grown, mode, scoring=ScoringSettings(first_layer="dense"))
        .score(boards, dice, owner)[3]
        .copy()
    )
    assert np.abs(after - before).max() <= 1e-6
    with torch.no_grad():
        grown.layers[0].weight[:, n_inputs:].normal_(0, 0.5)
    inc = Scorer(grown, mode, scoring=ScoringSettings(first_layer="incremental"))
    dense = Scorer(grown, mode, scoring=ScoringSettings(first_layer="dense"))
    assert inc.first_layer == "incremental"
    a_inc, o_inc, _, s_inc = (x.copy() for x in inc.score(boards, dice, owner))
    a_dense, o_dense, _, s_dense = dense.score(boards, dice, owner)
    assert np.array_equal(a_inc, a_dense) and np.abs(s_inc - s_dense).max() <= 1e-5
    assert np.abs(s_dense - before).max() > 1e-3  # the features now matter
    # the dense path's inputs end with the features of each after-state, opponent on roll
    states = Scorer(grown, mode).encode_states(
        boards[:50], owner if owner is None else owner[:50], None if owner is None else np.zeros(50)
    )
    assert np.allclose(states[:, -20:], F.board_features(boards[:50]))
    assert np.allclose(states[:, :196], encoding.encode_batch(boards[:50]))


def test_warm_starts_carry_the_features_weights():
    """DMP (216) -> cubeless equity (216) -> cubeful (220) -> match (228): each new input
    starts at zero weight, the board features keep theirs, so the first hidden layer is
    unchanged whatever the new inputs hold."""
    from tdbg.net.net_growth import warm_start_cubeful, warm_start_equity, warm_start_match

    torch.manual_seed(2)
    dmp = add_board_features(TDNetwork(196, [32, 16], "probability"))
    with torch.no_grad():
        dmp.layers[0].weight[:, 196:].normal_(0, 0.5)
    equity = warm_start_equity(dmp)
    cubeful = warm_start_cubeful(equity)
    match = warm_start_match(cubeful, head="mwc-outcomes")
    assert (equity.n_inputs, cubeful.n_inputs, match.n_inputs) == (216, 220, 228)
    raw, feats = torch.rand(50, 196), torch.rand(50, 20)
    first = lambda m, x: m.layers[0](x)  # noqa: E731
    want = first(dmp, torch.cat([raw, feats], 1))
    assert torch.allclose(first(equity, torch.cat([raw, feats], 1)), want)
    assert torch.allclose(
        first(cubeful, torch.cat([raw, torch.rand(50, 4), feats], 1)), want, atol=1e-6
    )
    assert torch.allclose(
        first(match, torch.cat([raw, torch.rand(50, 12), feats], 1)), want, atol=1e-6
    )
    with pytest.raises(ValueError, match="already reads"):
        add_board_features(dmp)


def test_c_engine_features_equal_the_numpy_reference(positions_20k):
    """The C engine computes the same numbers as the numpy reference, for either row on roll."""
    from tdbg.game import c_engine

    boards = positions_20k
    want = F.board_features_numpy(boards)
    assert np.abs(c_engine.board_features(boards) - want).max() <= 1e-6
    assert np.abs(c_engine.board_features(boards[:, ::-1], on_roll_row=0) - want).max() <= 1e-6
    rng = np.random.default_rng(0)  # and on boards with many checkers on the bars
    odd = boards[:2000].copy()
    odd[:, :, 24] += rng.integers(0, 4, (2000, 2)).astype(odd.dtype)
    assert np.abs(c_engine.board_features(odd) - F.board_features_numpy(odd)).max() <= 1e-6
