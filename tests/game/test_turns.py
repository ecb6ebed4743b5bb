"""The one turn loop (turns.Table) and the one cube rule (the mode's cube_action),
with scripted players whose every decision is known."""

import numpy as np
import pytest

from tdbg.game.cube import MAX_CUBE
from tdbg.game.dice import roll_dice
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE
from tdbg.game.modes import game_mode
from tdbg.game.movegen import make_expander
from tdbg.game.turns import ABANDONED, DROPPED, Table


class Scripted:
    """First legal move; doubles and takes as told; records what it was asked."""

    def __init__(self, double=False, take=True):
        self.double, self.take = double, take
        self.expander = make_expander("auto")
        self.cube_calls = []

    def cube(self, slots, boards, owner):
        self.cube_calls.append((slots.copy(), owner.copy()))
        return np.full(len(slots), self.double), np.full(len(slots), self.take)

    def move(self, slots, boards, dice, owner):
        after, _, offsets = self.expander.expand(boards, dice, encode=False)
        return after[offsets[:-1]].astype(np.int64)


def play(mode_name, players, n=4, max_plies=3000, seed=0):
    table = Table(game_mode(mode_name), n, max_plies)
    rng = np.random.default_rng(seed)
    ended = []
    table.play(
        players, lambda idx: roll_dice(rng, len(idx), opening=table.ply[idx] == 0), ended.append
    )
    return table, ended


def test_dropped_double_ends_the_game_for_the_cube():
    table, ended = play("cubeful-money", Scripted(double=True, take=False))
    assert len(ended) == 1  # all four games drop at the first chance, together
    e = ended[0]
    assert e.result.tolist() == [DROPPED] * 4 and e.points.tolist() == [1.0] * 4
    assert e.turn.tolist() == [1] * 4  # never on the opening turn: the second player doubles
    assert not table.live.any()


def test_takes_double_the_cube_up_to_the_limit_and_hand_it_over():
    players = Scripted(double=True, take=True)
    table, ended = play("cubeful-money", players, n=2)
    # the opening turn has no cube node; after a take the taker owns the cube and redoubles
    first_slots, first_owner = players.cube_calls[0]
    assert first_owner.tolist() == [CUBE_CENTERED, CUBE_CENTERED]
    assert all((owner == CUBE_MINE).all() for _, owner in players.cube_calls[1:])
    assert set(table.cube.tolist()) == {MAX_CUBE}
    assert sum(len(s) for s, _ in players.cube_calls) == 2 * 10  # 1 -> 1024: ten takes per game
    for e in ended:
        assert (np.abs(e.points) == MAX_CUBE * e.result).all() or (e.result == ABANDONED).all()


def test_modes_without_a_cube_never_ask():
    players = Scripted(double=True, take=False)
    for mode in ("dmp", "cubeless-money"):
        _, ended = play(mode, players, n=3)
        assert players.cube_calls == []
        results = np.concatenate([e.result for e in ended])
        assert len(results) == 3 and set(results.tolist()) <= {1, 2, 3}


def test_ply_limit_abandons():
    table, ended = play("dmp", Scripted(), n=2, max_plies=5)
    assert len(ended) == 1 and ended[0].result.tolist() == [ABANDONED] * 2
    assert ended[0].turn.tolist() == [5, 5] and ended[0].points.tolist() == [0.0, 0.0]


def test_finished_game_scored_by_the_mode_times_the_cube():
    """A bear-off that wins a gammon: 2 points in cubeless money, 1 in DMP, and with Jacoby
    1 while the cube is centred."""
    start = np.zeros((2, 25), dtype=np.int64)
    start[1, 0] = 1  # my last checker on my 1-point
    start[0, 5] = (
        15  # the opponent has borne off nothing: a gammon (none in my home: no backgammon)
    )
    for mode_name, want in (("dmp", 1.0), ("cubeless-money", 2.0), ("cubeful-money", 1.0)):
        table = Table(game_mode(mode_name), 1)
        table.boards[0], table.ply[0] = start, 0  # ply 0: no cube node
        ended = []
        table.play_turn(np.array([0]), Scripted(), lambda idx: np.array([[3, 1]]), ended.append)
        assert ended[0].result.tolist() == [2] and ended[0].points.tolist() == [want], mode_name


@pytest.mark.parametrize(
    "v_nd,v_take,double,take,value",
    [
        (0.5, 0.4, True, True, 0.8),  # double, take: worth 2 x take
        (0.5, 0.6, True, False, 1.0),  # double, pass: worth the cube
        (1.5, 0.6, False, False, 1.5),  # too good to double
        (0.5, 0.2, False, True, 0.5),  # not good enough to double
    ],
)
def test_the_cube_rule(v_nd, v_take, double, take, value):
    act = game_mode("cubeful-money").cube_action(np.array([v_nd]), np.array([v_take]))
    assert act.double.tolist() == [double] and act.take.tolist() == [take]
    assert act.value.tolist() == pytest.approx([value])


def test_a_mode_without_a_cube_has_no_cube_rule():
    with pytest.raises(ValueError):
        game_mode("dmp").cube_action(np.array([0.5]), np.array([0.4]))
    assert not game_mode("cubeless-money").may_double(np.zeros(3, dtype=np.int64), np.ones(3)).any()
