"""The built-in opponents, by name: each module of this package registers the opponents
it offers (``register``), so adding one is one new module here.

An opponent is made from the game mode and the Player (tdbg.play.players) that names it:
``Opponent.agent(mode, player, seed)`` checks that the player's search settings apply to it
and returns the Agent its ``make(mode, player, seed=None)`` builds (ValueError otherwise;
``seed``: a random player's, in place of the player's own).  ``rank`` orders
the names where they are listed (--help, errors).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Callable

from tdbg.play.agents import GNUBG_NN_PLIES


@dataclasses.dataclass(frozen=True)
class Opponent:
    name: str
    make: Callable  # (mode, player, seed=None) -> Agent (seed: in place of player.seed)
    rank: int  # its place in the listed names
    cube: bool  # makes cube decisions (quick evaluations give it the cubeful game)
    plies: bool  # takes a search depth (Player.plies)

    def agent(self, mode, player, seed: int | None = None):
        """The agent ``player`` (which names this opponent) plays ``mode``'s games with, with
        ``seed`` (None: the player's); ValueError when its search settings do not apply to
        this opponent."""
        if player.search.looks_ahead:
            raise ValueError(f"--oneply/--twoply apply to checkpoints, not to {self.name}")
        if player.plies is not None and (not self.plies or player.plies not in GNUBG_NN_PLIES):
            raise ValueError(
                f"--plies {player.plies}: only gnubg-nn looks ahead, at "
                f"{', '.join(map(str, GNUBG_NN_PLIES))} plies"
            )
        return self.make(mode, player, seed)


_REGISTERED: dict[str, Opponent] = {}


def register(name: str, rank: int, cube: bool = False, plies: bool = False):
    """Decorator: the function ``make(mode, player, seed=None)`` builds the opponent ``name``
    (``seed``, where given, in place of the player's)."""

    def add(make: Callable) -> Callable:
        if name in _REGISTERED:
            raise ValueError(f"opponent {name!r} registered twice")
        _REGISTERED[name] = Opponent(name, make, rank, cube, plies)
        return make

    return add


def get(name: str) -> Opponent | None:
    return _REGISTERED.get(name)


# every module here registers itself on import; importlib (not import statements) because
# the package does not know their names
for _found in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_found.name}")

NAMES = tuple(o.name for o in sorted(_REGISTERED.values(), key=lambda o: o.rank))
CUBE_NAMES = tuple(n for n in NAMES if _REGISTERED[n].cube)
