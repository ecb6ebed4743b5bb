"""The one way from a player's name to its agent: a reference name (random, pubeval,
gnubg-nn, ...) or a checkpoint path, and how an agent sits at a game mode's table.

* ``build_agent(spec, mode)``: the agent that plays ``mode``'s games (head to head,
  matches, the gnubg bridge);
* ``load_player(path)``: a checkpoint's agent in the mode it was trained for
  (``load_checkpoint_mode``: the model and that mode, for luck and rollouts);
* ``checkpoint_agent(model, mode)``: the agent of a model already loaded (evaluations).

A checkpoint plays the mode it names (its output head's default for one that does not
say); its output head chooses the agent class (a head with ``five_outcomes`` plays
through ProbAgent, every other through TDAgent); a cubeful money agent at a match table
plays by its money rules (matches.MoneyInMatch).
"""
from __future__ import annotations

import os

from tdbg.game.heads import output_head
from tdbg.game.modes import game_mode
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.infra.errors import InputError
from tdbg.net.model import CheckpointError, load_checkpoint
from tdbg.play.agents import GNUBG_NN_PLIES, REFERENCE_AGENTS, Agent, GnubgNNAgent, PubevalAgent, RandomAgent
from tdbg.play.gnubg_cube_agent import GnubgNNCubefulAgent
from tdbg.play.matches import MoneyInMatch
from tdbg.play.prob_agent import ProbAgent
from tdbg.play.td_agent import TDAgent


def checkpoint_mode_name(model, meta: dict) -> str:
    """The game mode a checkpoint was trained for (its head's default if it does not say)."""
    return meta.get("game_mode") or output_head(model.output_mode).default_mode


def load_checkpoint_mode(path: str, mode_name: str | None = None, jacoby: bool = True, match_length: int = 0,
                         met: str | None = None):
    """(model, meta, mode): the checkpoint and the game mode it plays, ``mode_name`` or its own;
    CheckpointError for a file that is not one, ValueError for a bad mode."""
    model, meta, _ = load_checkpoint(path)
    return model, meta, game_mode(mode_name or checkpoint_mode_name(model, meta), jacoby, match_length, met)


def load_player(path: str, mode_name: str | None = None, jacoby: bool = True, match_length: int = 0,
                **agent_kw) -> TDAgent:
    """The checkpoint's agent in the game mode it was trained for (or ``mode_name``);
    ``agent_kw``: TDAgent's search settings and name (default: the path)."""
    model, _, mode = load_checkpoint_mode(path, mode_name, jacoby, match_length)
    return checkpoint_agent(model, mode, name=agent_kw.pop("name", path), **agent_kw)


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


def check_spec(spec: str) -> None:
    """InputError unless ``spec`` is a named opponent or an existing file."""
    if spec not in REFERENCE_AGENTS and not os.path.isfile(spec):
        if spec.endswith(".pt") or os.sep in spec:
            raise InputError(f"{spec}: no such checkpoint file")
        raise InputError(f"unknown opponent {spec!r}; give a checkpoint path or one of {', '.join(REFERENCE_AGENTS)}")


def checkpoint_game_mode(spec: str) -> str | None:
    """The game mode a checkpoint was trained for, or None for a named opponent."""
    check_spec(spec)
    if spec in REFERENCE_AGENTS:
        return None
    try:
        _, meta, _ = load_checkpoint(spec)
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    return meta.get("game_mode")


def build_agent(spec: str, mode, oneply: bool = False, seed: int = 0, backend: str = "auto",
                twoply: tuple[int, int] | None = None, plies: int | None = None, oneply_k: int | None = None,
                oneply_filter: int | None = None):
    """An agent from a reference name or a checkpoint path; InputError when it cannot play ``mode``.
    ``twoply`` = (k1, k2): a checkpoint searches 2 plies; ``plies``: gnubg-nn's depth;
    ``oneply_k``: a 1-ply checkpoint looks ahead from its k best candidates only;
    ``oneply_filter``: a 1-ply or 2-ply checkpoint's lookahead values only each roll's K best
    replies by its move filter (ignored for 0-ply players)."""
    if spec in REFERENCE_AGENTS:
        if oneply or twoply:
            raise InputError(f"--oneply/--twoply apply to checkpoints, not to {spec}")
        try:
            return make_reference_agent(spec, mode, seed, backend, plies)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if plies is not None:
        raise InputError(f"--plies sets gnubg-nn's depth; {spec} is a checkpoint (use --oneply/--twoply)")
    check_spec(spec)
    try:
        model, _, _ = load_checkpoint(spec)
        # the mode the model plays in: a DMP model can still play cubeless money games, maximising
        # P(win) and ignoring gammons (the baseline a cubeless leg has to beat)
        agent_mode = mode.mode_for(model.output_mode)
        agent_mode.check_model(model.output_mode, model.n_inputs)
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    except ValueError as exc:
        raise InputError(f"{spec}: {exc}") from None
    try:
        agent = checkpoint_agent(model, agent_mode, oneply=oneply, backend=backend, name=spec,
                                 twoply=twoply, oneply_k=oneply_k if oneply else None,
                                 oneply_filter=oneply_filter if (oneply or twoply) else None)
    except ValueError as exc:
        raise InputError(f"{spec}: {exc}") from None
    return seat(mode, agent)


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
