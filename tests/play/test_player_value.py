"""A player is one frozen value (tdbg.play.players.Player) built into its agent by one
factory; the built-in opponents are registered by name (tdbg.play.opponents); a series of
games or matches (tdbg.play.series) travels to its workers whole."""

from __future__ import annotations

import dataclasses
import os
import pickle

import pytest

from helpers import ROOT
from tdbg.game.modes import game_mode
from tdbg.infra.errors import InputError
from tdbg.net.search import Search
from tdbg.play import opponents
from tdbg.play.players import Player
from tdbg.play.seating import evaluator
from tdbg.play.series import ModeSpec, Series, play_series

DMP = os.path.join(ROOT, "best_models", "dmp_128x2.pt")


def test_the_built_in_opponents_are_listed_in_their_order():
    assert opponents.NAMES == ("random", "pubeval", "gnubg-nn", "gnubg-nn-1ply", "gnubg-nn-cubeful")
    assert opponents.CUBE_NAMES == ("gnubg-nn-cubeful",)


def test_a_player_is_a_frozen_value_that_pickles_whole():
    p = Player(DMP, Search(oneply=True, oneply_k=4), seed=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.seed = 4
    assert pickle.loads(pickle.dumps(p)) == p
    assert p.seeded(9) == dataclasses.replace(p, seed=9) and p.seed == 3


def test_one_factory_builds_checkpoints_and_opponents():
    dmp = game_mode("dmp")
    assert evaluator(Player(DMP, Search(oneply=True)), dmp).search.oneply
    assert evaluator(Player("gnubg-nn", plies=1), dmp).plies == 1
    assert evaluator(Player("gnubg-nn-1ply"), dmp).plies == 1
    with pytest.raises(InputError, match="apply to checkpoints"):
        evaluator(Player("pubeval", Search(oneply=True)), dmp)
    with pytest.raises(InputError, match="gnubg-nn's depth"):
        evaluator(Player(DMP, plies=1), dmp)
    with pytest.raises(InputError, match="unknown opponent"):
        evaluator(Player("nobody"), dmp)


def test_a_series_of_games_or_matches_is_one_runner():
    players = (Player(DMP), Player("pubeval"))
    games = play_series(Series(players, ModeSpec("dmp"), 4, seed=1), progress=False).records
    assert [r.index for r in games] == [0, 1, 2, 3]
    match = os.path.join(ROOT, "best_models", "match_256x2.pt")
    matches = play_series(
        Series((Player(match), Player(match)), ModeSpec("match", match_length=1), 2, seed=1),
        progress=False,
    ).records
    assert [m.index for m in matches] == [0, 1] and all(m.length == 1 for m in matches)
