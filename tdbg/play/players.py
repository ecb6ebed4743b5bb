"""A player: what plays (a built-in opponent's name, tdbg.play.opponents, or a checkpoint path)
and how it searches, as one frozen value sent whole to worker processes.

* ``Player``: the value; ``pinned(player)`` reads its checkpoint once, and every evaluator
  made from the pinned value plays those bytes (the md5 a result records is theirs,
  whatever replaces the file during the run).  A player made of a checkpoint the app opened
  also carries, in this process, the network those bytes hold (``opened``; a worker opens
  the bytes again);
* ``opened(spec, data)``: a checkpoint's network and metadata, loaded once per process for
  each content (net.model.opened_checkpoint).

What plays a player, its Evaluator, is tdbg.play.seating's ``evaluator(player, mode)``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os

from tdbg.game.heads import output_head
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import KIND_NAMES
from tdbg.net.model import CheckpointError, opened_checkpoint, read_checkpoint
from tdbg.net.search import Search
from tdbg.play import opponents


@dataclasses.dataclass(frozen=True)
class Player:
    """What plays and how it searches.  ``name``: a built-in opponent's name or a checkpoint
    path.  ``search``: how deep a checkpoint looks (search.Search: 0-ply, 1-ply, 2-ply and
    their filters; a built-in opponent takes none).  ``plies``: the depth of an opponent
    that takes one (gnubg-nn).  ``seed``: a random player's; ``engine``: the move generator
    (movegen.ENGINES).  ``data``: the checkpoint's bytes once pinned (``pinned``): what a
    worker loads instead of the file.  ``opened``: (network, metadata) of those bytes where
    they were opened in this process (net.model.opened_checkpoint); it does not travel to a
    worker."""

    name: str
    search: Search = Search()
    plies: int | None = None
    seed: int = 0
    engine: str = "auto"
    data: bytes | None = dataclasses.field(default=None, repr=False, compare=False)
    opened: tuple | None = dataclasses.field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict:
        """What is pickled (for a worker): everything but the network opened here."""
        return {**self.__dict__, "opened": None}

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


def opened(spec: str, data: bytes | None = None) -> tuple:
    """(model, meta) of the checkpoint ``spec`` (``data``: its bytes, when pinned), loaded once
    per process for each content (net.model.opened_checkpoint): the same bytes asked for
    again (the game mode it names, then the network that plays it; both players of a
    self-play series) give the same network.  CheckpointError for a file that is not one."""
    return opened_checkpoint(spec, data)[1:]


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
