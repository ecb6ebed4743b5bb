"""GNU Backgammon 1.08's networks through the gnubg-nn package (no binary): checker play by
the game mode's objective at 0, 1 or 2 plies, and gnubg-nn-cubeful with its cube decisions."""

from __future__ import annotations

from tdbg.play.agents import GnubgNNAgent
from tdbg.play.gnubg_cube_agent import GnubgNNCubefulAgent
from tdbg.play.opponents import register


@register("gnubg-nn", rank=2, plies=True)
def gnubg_nn(mode, player, seed=None):
    return GnubgNNAgent(mode, player.plies or 0)


@register("gnubg-nn-1ply", rank=3, plies=True)
def gnubg_nn_1ply(mode, player, seed=None):
    if player.plies not in (None, 1):
        raise ValueError(
            f"gnubg-nn-1ply with --plies {player.plies}: use --model2 gnubg-nn --plies {player.plies}"
        )
    return GnubgNNAgent(mode, 1)


@register("gnubg-nn-cubeful", rank=4, cube=True, plies=True)
def gnubg_nn_cubeful(mode, player, seed=None):
    return GnubgNNCubefulAgent(mode, player.plies or 0)
