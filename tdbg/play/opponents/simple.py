"""random and pubeval: opponents with no search of their own."""

from __future__ import annotations

from tdbg.play.agents import PubevalAgent, RandomAgent
from tdbg.play.opponents import register


@register("random", rank=0)
def random_agent(mode, player, seed=None):
    return RandomAgent(player.seed if seed is None else seed, player.engine, mode)


@register("pubeval", rank=1)
def pubeval(mode, player, seed=None):
    return PubevalAgent(mode)
