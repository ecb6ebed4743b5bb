"""A player, and the one way from a player to its agent: what plays (a built-in opponent's
name, tdbg.play.opponents, or a checkpoint path) and how it searches, and how an agent
sits at a game mode's table.

* ``Player``: one frozen value, sent whole to worker processes; ``pinned(player)`` reads its
  checkpoint once, and every agent built from the pinned value plays those bytes (the md5 a
  result records is theirs, whatever replaces the file during the run);
* ``build_agent(player, mode)``: the agent that plays ``mode``'s games (head to head,
  matches, the gnubg bridge);
* ``load_player(path)``: a checkpoint's agent in the mode it was trained for
  (``load_checkpoint_mode``: the model and that mode, for luck and rollouts);
* ``checkpoint_agent(model, mode)``: the agent of a model already loaded (evaluations).

A checkpoint plays the mode it names (its output head's default for one that does not
say); its output head chooses the agent class (a head with ``five_outcomes`` plays
through ProbAgent, every other through TDAgent); a cubeful money agent at a match table
plays by its money rules (matchplay.MoneyInMatch).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os

from tdbg.game.heads import output_head
from tdbg.game.modes import game_mode
from tdbg.game.modes.base import GameMode
from tdbg.infra.errors import InputError
from tdbg.net.model import CheckpointError, load_checkpoint, read_checkpoint
from tdbg.net.search import Search
from tdbg.play import opponents
from tdbg.play.agents import Agent
from tdbg.play.prob_agent import ProbAgent
from tdbg.play.td_agent import TDAgent


@dataclasses.dataclass(frozen=True)
class Player:
    """What plays and how it searches.  ``name``: a built-in opponent's name or a checkpoint
    path.  ``search``: how deep a checkpoint looks (search.Search: 0-ply, 1-ply, 2-ply and
    their filters; a built-in opponent takes none).  ``plies``: the depth of an opponent
    that takes one (gnubg-nn).  ``seed``: a random player's; ``engine``: the move generator
    (movegen.ENGINES).  ``data``: the checkpoint's bytes once pinned (``pinned``): what a
    worker loads instead of the file."""
    name: str
    search: Search = Search()
    plies: int | None = None
    seed: int = 0
    engine: str = "auto"
    data: bytes | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def md5(self) -> str | None:
        """The md5 of the checkpoint bytes this player plays (None: a named opponent, or not pinned)."""
        return hashlib.md5(self.data).hexdigest() if self.data is not None else None

    def seeded(self, seed: int) -> "Player":
        """The same player with another seed (each worker's, each seat's)."""
        return dataclasses.replace(self, seed=seed)


def pinned(player: Player) -> Player:
    """``player`` with its checkpoint read now, once (``data``); a named opponent, a name that
    is no file (build_agent says what is wrong with it) or a player already pinned, as it is.
    InputError for a checkpoint that cannot be read."""
    if player.data is not None or opponents.get(player.name) is not None or not os.path.isfile(player.name):
        return player
    try:
        return dataclasses.replace(player, data=read_checkpoint(player.name))
    except CheckpointError as exc:
        raise InputError(str(exc)) from None


def checkpoint_mode_name(model, meta: dict) -> str:
    """The game mode a checkpoint was trained for (its head's default if it does not say)."""
    return meta.get("game_mode") or output_head(model.output_mode).default_mode


def load_checkpoint_mode(path: str, mode_name: str | None = None, jacoby: bool = True, match_length: int = 0,
                         met: str | None = None, data: bytes | None = None):
    """(model, meta, mode): the checkpoint (from ``data``, its bytes, when given) and the game
    mode it plays, ``mode_name`` or its own; CheckpointError for a file that is not one,
    ValueError for a bad mode."""
    model, meta, _ = load_checkpoint(path, data=data)
    return model, meta, game_mode(mode_name or checkpoint_mode_name(model, meta), jacoby, match_length, met)


def load_player(path: str, mode_name: str | None = None, jacoby: bool = True, match_length: int = 0,
                search: Search = Search(), **agent_kw) -> TDAgent:
    """The checkpoint's agent in the game mode it was trained for (or ``mode_name``),
    looking as deep as ``search`` says; ``agent_kw``: TDAgent's other settings and name
    (default: the path)."""
    model, _, mode = load_checkpoint_mode(path, mode_name, jacoby, match_length)
    return checkpoint_agent(model, mode, search, name=agent_kw.pop("name", path), **agent_kw)


def checkpoint_agent(model, mode: GameMode, search: Search = Search(), **kw) -> TDAgent:
    """The agent that plays ``model`` in ``mode``, looking as deep as ``search`` says
    (``kw``: TDAgent's other settings: engine, name, ...)."""
    cls = ProbAgent if output_head(model.output_mode).five_outcomes else TDAgent
    return cls(model, mode, search, **kw)


def seat(mode: GameMode, agent: Agent) -> Agent:
    """``agent`` adapted to ``mode``'s table: at a match table a cubeful money agent that
    does not read the match score plays by its money rules."""
    return mode.seat(agent)


def check_spec(spec: str) -> None:
    """InputError unless ``spec`` is a named opponent or an existing file."""
    if opponents.get(spec) is None and not os.path.isfile(spec):
        if spec.endswith(".pt") or os.sep in spec:
            raise InputError(f"{spec}: no such checkpoint file")
        raise InputError(f"unknown opponent {spec!r}; give a checkpoint path or one of {', '.join(opponents.NAMES)}")


def checkpoint_game_mode(spec: str, data: bytes | None = None) -> str | None:
    """The game mode a checkpoint (``data``, its bytes, when given) was trained for, or None
    for a named opponent."""
    if opponents.get(spec) is not None:
        return None
    if data is None:
        check_spec(spec)
    try:
        _, meta, _ = load_checkpoint(spec, data=data)
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    return meta.get("game_mode")


def build_agent(player: Player, mode) -> Agent:
    """The agent ``player`` plays ``mode``'s games with; InputError when it cannot play them."""
    spec = player.name
    found = opponents.get(spec)   # the registry, asked once
    if found is not None:
        try:
            return found.agent(mode, player)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if player.plies is not None:
        raise InputError(f"--plies sets gnubg-nn's depth; {spec} is a checkpoint (use --oneply/--twoply)")
    if player.data is None:
        check_spec(spec)
    try:
        model, _, _ = load_checkpoint(spec, data=player.data)
        # the mode the model plays in: a DMP model can still play cubeless money games, maximising
        # P(win) and ignoring gammons (the baseline a cubeless leg has to beat)
        agent_mode = mode.mode_for(model.output_mode)
        agent_mode.check_model(model.output_mode, model.n_inputs)
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    except ValueError as exc:
        raise InputError(f"{spec}: {exc}") from None
    try:
        agent = checkpoint_agent(model, agent_mode, player.search, engine=player.engine, name=spec)
    except ValueError as exc:
        raise InputError(f"{spec}: {exc}") from None
    return seat(mode, agent)


def make_reference_agent(player: Player | str, mode: GameMode) -> Agent:
    """A built-in opponent for games of ``mode`` (a name stands for its Player with the
    defaults).  ValueError when it is none, or the player's search settings do not apply
    to it (opponents.Opponent.agent)."""
    if isinstance(player, str):
        player = Player(player)
    found = opponents.get(player.name)
    if found is None:
        raise ValueError(f"unknown opponent {player.name!r}; choose a checkpoint path or one of "
                         f"{', '.join(opponents.NAMES)}")
    return found.agent(mode, player)
