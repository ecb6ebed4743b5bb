"""A player, and the one way from a player to what plays it: ``evaluator(player, mode)``.

* ``Player``: what plays (a built-in opponent's name, tdbg.play.opponents, or a checkpoint
  path) and how it searches; one frozen value, sent whole to worker processes.
  ``pinned(player)`` reads its checkpoint once, and every evaluator made from the pinned
  value plays those bytes (the md5 a result records is theirs, whatever replaces the file
  during the run);
* ``evaluator(player, mode)``: the Evaluator (evaluator.py) that plays ``mode``'s games or
  judges its positions: head to head, matches, the gnubg bridge, rollouts, luck, analysis
  and the quick evaluations of training (there with the model already in memory).

A checkpoint plays the mode it names (its output head's default for one that does not
say) when no mode is given; its output head chooses the class (a head with
``five_outcomes`` plays through ProbAgent, every other through TDAgent); a cubeful money
network at a match table plays by its money rules (MoneyInMatch).  A process
opens each checkpoint once (``opened``): the game mode it names and the network that plays
it come from the same load.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os

from tdbg.game.heads import output_head
from tdbg.game.modes import GameMode, MatchPlay, for_mode, game_mode
from tdbg.game.modes.matchplay import unpack
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import KIND_NAMES
from tdbg.net.model import CheckpointError, TDNetwork, load_checkpoint, read_checkpoint
from tdbg.net.search import Search
from tdbg.play import opponents
from tdbg.play.evaluator import Evaluator
from tdbg.play.model_fit import check_model, game_for
from tdbg.play.prob_agent import ProbAgent
from tdbg.play.td_agent import TDAgent


class MoneyInMatch:
    """A cubeful money agent seated at a match table: it sees only the cube's owner and
    plays by its money rules, blind to the score (the baseline a match model must beat).
    An Evaluator that plays only: its values would be money values, not the match's."""

    match_capable = True
    cube_capable = True
    values_positions = False
    plays_own_0ply = False

    def __init__(self, agent):
        self.agent, self.name, self.mode = agent, agent.name, agent.mode

    def choose_moves(self, boards, dice, owner=None):
        return self.agent.choose_moves(boards, dice, unpack(owner)[0])

    def double_decisions(self, boards, owner):
        return self.agent.double_decisions(boards, unpack(owner)[0])

    def take_decisions(self, boards, owner):
        return self.agent.take_decisions(boards, unpack(owner)[0])

    def _refuse(self, *args):
        raise ValueError(
            f"{self.name} plays a match by its money rules; it does not value match positions"
        )

    all_rolls = after_values = position_values = _refuse


def seated_in_match(agent):
    """A cubeful money agent that does not read the match score plays by its money rules."""
    if not getattr(agent, "match_capable", False) and agent.cube_capable:
        return MoneyInMatch(agent)
    return agent


SEAT = {
    GameMode: None,
    MatchPlay: seated_in_match,
}  # what seats an agent at the mode's table (None: it sits there as it is)


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
    is no file (evaluator says what is wrong with it) or a player already pinned, as it is.
    InputError for a checkpoint that cannot be read."""
    if (
        player.data is not None
        or opponents.get(player.name) is not None
        or not os.path.isfile(player.name)
    ):
        return player
    try:
        return dataclasses.replace(player, data=read_checkpoint(player.name))
    except CheckpointError as exc:
        raise InputError(str(exc)) from None


def resolved(player: Player) -> tuple[Player, str | None]:
    """``player`` as it will play, checked and read once, now, and the game mode its checkpoint
    names: a named opponent as it is (no mode); a checkpoint pinned (its bytes read, as
    ``pinned``) and opened (``opened``: a file that is no checkpoint is refused here, before
    any game), with the mode its metadata names (None where it names none).  InputError for a
    name that is neither a named opponent nor a checkpoint file, or a checkpoint that cannot
    be opened.  (The registry's names are read, not asked: a checkpoint's path goes
    from here to its file only.)"""
    if player.name in opponents.NAMES:
        return player, None
    if not os.path.isfile(player.name):
        check_spec(player.name)  # says what is wrong with the name
    try:
        data = player.data if player.data is not None else read_checkpoint(player.name)
        _, meta = opened(player.name, data)
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    return dataclasses.replace(player, data=data), meta.get("game_mode")


OPENED_KEPT = 4  # checkpoints a process keeps open (a series plays two, a luck judge makes three)
_opened: dict[str, tuple] = {}


def opened(spec: str, data: bytes | None = None) -> tuple:
    """(model, meta) of the checkpoint ``spec`` (``data``: its bytes, when pinned), loaded once
    per process for each content: the same bytes asked for again (the game mode it names,
    then the network that plays it; both players of a self-play series) give the same network.
    CheckpointError for a file that is not one."""
    if data is None:
        data = read_checkpoint(spec)
    key = hashlib.md5(data).hexdigest()
    if key not in _opened:
        if len(_opened) >= OPENED_KEPT:
            _opened.pop(next(iter(_opened)))
        model, meta, _ = load_checkpoint(spec, data=data)
        _opened[key] = (model, meta)
    return _opened[key]


def checkpoint_mode_name(model, meta: dict) -> str:
    """The game mode a checkpoint was trained for (its head's default if it does not say)."""
    return meta.get("game_mode") or output_head(model.output_mode).default_mode


def check_spec(spec: str) -> None:
    """InputError unless ``spec`` is a named opponent or an existing file."""
    if opponents.get(spec) is None and not os.path.isfile(spec):
        if os.path.exists(spec):  # a FIFO, a device or a folder: there, but no checkpoint file
            raise InputError(f"{spec}: {KIND_NAMES['special']}, not a checkpoint")
        if spec.endswith(".pt") or os.sep in spec:
            raise InputError(f"{spec}: no such checkpoint file")
        raise InputError(
            f"unknown opponent {spec!r}; give a checkpoint path or one of {', '.join(opponents.NAMES)}"
        )


def checkpoint_game_mode(spec: str, data: bytes | None = None) -> str | None:
    """The game mode a checkpoint (``data``, its bytes, when given) was trained for, or None
    for a named opponent."""
    if opponents.get(spec) is not None:
        return None
    if data is None:
        check_spec(spec)
    try:
        _, meta = opened(spec, data)
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    return meta.get("game_mode")


def evaluator(player: Player, mode: GameMode | None = None, model=None) -> Evaluator:
    """The Evaluator that plays ``player`` in ``mode``'s games; InputError when it cannot.

    ``mode`` None: a checkpoint's own game mode (the one it was trained for).  ``model``: a
    network already in memory to play instead of reading ``player``'s checkpoint (then
    ``mode`` is needed, and ``player.name`` only names it)."""
    spec = player.name
    # the registry, asked once; a pinned player is a checkpoint (pinned leaves opponents as they are)
    found = opponents.get(spec) if model is None and player.data is None else None
    if found is not None:
        if mode is None:
            raise InputError(f"{spec} plays the game mode it is given; name one")
        try:
            return found.agent(mode, player)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if player.plies is not None:
        raise InputError(
            f"--plies sets gnubg-nn's depth; {spec} is a checkpoint (use --oneply/--twoply)"
        )
    if model is None:
        model, mode = _checkpoint(player, mode)
    elif mode is None:
        raise ValueError(f"{spec}: a network in memory plays the game mode it is given; name one")
    try:
        # the mode the model plays in: a DMP model can still play cubeless money games, maximising
        # P(win) and ignoring gammons (the baseline a cubeless leg has to beat)
        agent_mode = game_for(mode, model.output_mode)
        check_model(agent_mode, model.output_mode, model.n_inputs)
        cls = ProbAgent if output_head(model.output_mode).five_outcomes else TDAgent
        agent = cls(model, agent_mode, player.search, engine=player.engine, name=spec)
    except ValueError as exc:
        raise InputError(f"{spec}: {exc}") from None
    seat = for_mode(SEAT, mode)
    return agent if seat is None else seat(agent)


def _checkpoint(player: Player, mode: GameMode | None) -> tuple[TDNetwork, GameMode]:
    """(model, mode) of ``player``'s checkpoint: ``mode``, or the one it was trained for."""
    if player.data is None:
        check_spec(player.name)
    try:
        model, meta = opened(player.name, player.data)
    except CheckpointError as exc:
        raise InputError(str(exc)) from None
    return model, mode if mode is not None else game_mode(checkpoint_mode_name(model, meta))
