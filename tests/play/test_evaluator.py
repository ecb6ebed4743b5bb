"""The one Evaluator interface (tdbg.play.evaluator) and its one factory (seating.evaluator):
every kind of player and judge is made by the factory and answers the protocol; a judge's
best move of each roll (``all_rolls``) is the best of the engine's own legal moves valued
one by one (``after_values``); and play_models.py opens each checkpoint once."""

from __future__ import annotations

import os

import numpy as np
import pytest

from helpers import ROOT, run
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.modes import game_mode
from tdbg.net import model
from tdbg.net.search import Search
from tdbg.play import luck, players
from tdbg.play.evaluator import Evaluator
from tdbg.play.players import Player
from tdbg.play.seating import evaluator

BEST = os.path.join(ROOT, "best_models")
DMP, DMP2 = os.path.join(BEST, "dmp_128x2.pt"), os.path.join(BEST, "dmp_256x2.pt")
CUBEFUL, MATCH, PROB5 = (
    os.path.join(BEST, f) for f in ("cubeful_256x2.pt", "match_256x2.pt", "prob5_128x2.pt")
)

KINDS = [  # (player, mode name, values positions, makes cube decisions)
    (Player(DMP), "dmp", True, False),
    (Player(DMP, Search(oneply=True)), "dmp", True, False),
    (Player(DMP, Search(twoply=(2, 2))), "dmp", True, False),
    (Player(PROB5), "cubeless-money", True, False),
    (Player(CUBEFUL), "cubeful-money", True, True),
    (Player(MATCH), "match", True, True),
    (Player(CUBEFUL), "match", False, True),  # a money net at a match table: plays by money rules
    (Player("gnubg-nn"), "dmp", True, False),
    (Player("gnubg-nn", plies=1), "cubeless-money", True, False),
    (Player("gnubg-nn-cubeful"), "cubeful-money", False, True),
    (Player("pubeval"), "dmp", False, False),
    (Player("random"), "dmp", False, False),
]


@pytest.mark.parametrize(
    "player,mode_name,values,cube",
    KINDS,
    ids=[
        f"{os.path.basename(p.name)}-{p.search.name_suffix or p.plies or 0}-{m}"
        for p, m, _, _ in KINDS
    ],
)
def test_every_kind_is_an_evaluator(player, mode_name, values, cube):
    if player.name.startswith("gnubg-nn"):
        pytest.importorskip("gnubg_nn")
    found = evaluator(player, game_mode(mode_name, match_length=3 if mode_name == "match" else 0))
    assert isinstance(found, Evaluator)
    assert (found.values_positions, found.cube_capable) == (values, cube)
    board = be.initial_board()[None]
    if not values:
        with pytest.raises(ValueError, match="value"):
            found.all_rolls(board)
    if not cube:
        with pytest.raises((NotImplementedError, ValueError), match="cube"):
            found.double_decisions(board, np.zeros(1, dtype=np.int64))


def positions(n: int) -> np.ndarray:
    """Middle-game positions from random play, side on roll in row 1."""
    rng = np.random.default_rng(4)
    out = []
    for _ in range(n):
        board = be.initial_board()
        for _ in range(int(rng.integers(6, 16))):
            moves = be.legal_moves(board, *(int(x) for x in rng.integers(1, 7, size=2)))
            board = be.swap(moves[int(rng.integers(len(moves)))][1]) if moves else be.swap(board)
        out.append(board)
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize(
    "spec,mode_name", [(DMP, "dmp"), (PROB5, "cubeless-money"), ("gnubg-nn", "dmp")]
)
def test_all_rolls_is_the_best_legal_move_of_each_roll(spec, mode_name):
    """The batched 21-roll best move (the code luck and rollouts share) against the engine's
    legal moves of each roll, each valued on its own through ``after_values``."""
    if spec == "gnubg-nn":
        pytest.importorskip("gnubg_nn")
    judge = evaluator(Player(spec), game_mode(mode_name))
    boards = positions(3)
    values, afters = judge.all_rolls(boards)
    assert values.shape == (3, 21) and afters.shape == (3, 21, 2, 25)
    for i, board in enumerate(boards):
        for r, (d1, d2) in enumerate(ALL_ROLLS.tolist()):
            legal = np.array([a for _, a in be.legal_moves(board, d1, d2)] or [board])
            each = judge.after_values(legal)
            assert values[i, r] == pytest.approx(each.max(), abs=1e-5)
            assert judge.after_values(afters[i, r][None])[0] == pytest.approx(each.max(), abs=1e-5)


def test_play_models_opens_each_checkpoint_once(tmp_path, monkeypatch):
    """Two checkpoints, the second also the luck judge: each file read once and each loaded
    once in this process (the game mode it names, the network that plays, the judge)."""
    reads, loads = [], []
    read, load = model.read_checkpoint, model.load_checkpoint
    monkeypatch.setattr(model, "_opened", {})
    monkeypatch.setattr(model, "read_checkpoint", lambda path: reads.append(path) or read(path))
    monkeypatch.setattr(players, "read_checkpoint", lambda path: reads.append(path) or read(path))
    monkeypatch.setattr(luck, "read_checkpoint", lambda path: reads.append(path) or read(path))
    monkeypatch.setattr(
        model, "load_checkpoint", lambda path, **kw: loads.append(path) or load(path, **kw)
    )
    run(
        "play_models.py",
        "--model1",
        DMP,
        "--model2",
        DMP2,
        "--luck",
        DMP2,
        "--games",
        "2",
        "--quiet",
        "--workers",
        "1",
        check=True,
    )
    assert sorted(reads) == sorted(loads) == sorted([DMP, DMP2])


def test_a_roller_plays_in_the_mode_its_network_reads():
    """A rollout's roller comes from the same factory as every player: a DMP net asked for
    cubeless money plays P(win) (as it does in a head-to-head cubeless leg), and a net whose
    head does not fit the mode is refused before any trial."""
    from tdbg.infra.errors import InputError
    from tdbg.play.rollout import RolloutSettings

    assert RolloutSettings(DMP, 1, game_mode="cubeless-money").roller().mode.name == "dmp"
    with pytest.raises(InputError, match="equity model cannot be used for dmp"):
        RolloutSettings(os.path.join(BEST, "cubeless_256x2.pt"), 1, game_mode="dmp").roller()
    with pytest.raises(ValueError, match="cubeful model"):
        RolloutSettings(CUBEFUL, 1).roller()
