"""Which agent plays what: a reference name (random, pubeval, gnubg-nn, ...) or a loaded
checkpoint, and how an agent sits at a game mode's table.

The checkpoint's output head chooses the agent class (a head with ``five_outcomes``
plays through ProbAgent, every other through TDAgent); a cubeful money agent at a
match table plays by its money rules (matches.MoneyInMatch).
"""
from __future__ import annotations

from tdbg.game.heads import output_head
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.play.agents import Agent, GNUBG_NN_PLIES, GnubgNNAgent, PubevalAgent, REFERENCE_AGENTS, RandomAgent
from tdbg.play.gnubg_cube_agent import GnubgNNCubefulAgent
from tdbg.play.matches import MoneyInMatch
from tdbg.play.prob_agent import ProbAgent
from tdbg.play.td_agent import TDAgent


def checkpoint_agent(model, mode: GameMode, **kw) -> TDAgent:
    """The agent that plays ``model`` in ``mode`` (``kw``: TDAgent's search settings)."""
    cls = ProbAgent if output_head(model.output_mode).five_outcomes else TDAgent
    return cls(model, mode, **kw)


def seat(mode: GameMode, agent: Agent) -> Agent:
    """``agent`` adapted to ``mode``'s table: at a match table a cubeful money agent that
    does not read the match score plays by its money rules."""
    if isinstance(mode, MatchPlay) and not getattr(agent, "match_capable", False) and agent.cube_capable:
        return MoneyInMatch(agent)
    return agent


def make_reference_agent(name: str, mode: GameMode, seed: int = 0, backend: str = "auto",
                         plies: int | None = None) -> Agent:
    """A named opponent for games of ``mode`` (gnubg-nn plays that mode's objective, looking
    ``plies`` ahead: 0, 1 or 2; gnubg-nn-1ply is gnubg-nn at 1 ply)."""
    if plies is not None and (not name.startswith("gnubg-nn") or plies not in GNUBG_NN_PLIES):
        raise ValueError(f"--plies {plies}: only gnubg-nn looks ahead, at {', '.join(map(str, GNUBG_NN_PLIES))} plies")
    if name == "gnubg-nn-1ply" and plies not in (None, 1):
        raise ValueError(f"gnubg-nn-1ply with --plies {plies}: use --model2 gnubg-nn --plies {plies}")
    if name == "random":
        return RandomAgent(seed, backend)
    if name == "pubeval":
        return PubevalAgent()
    if name == "gnubg-nn":
        return GnubgNNAgent(mode, plies or 0)
    if name == "gnubg-nn-cubeful":
        return GnubgNNCubefulAgent(mode, plies or 0)
    if name == "gnubg-nn-1ply":
        return GnubgNNAgent(mode, 1)
    raise ValueError(f"unknown opponent {name!r}; choose a checkpoint path or one of {', '.join(REFERENCE_AGENTS)}")
