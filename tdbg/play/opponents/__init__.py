"""The built-in opponents, by name: each module of this package registers the opponents
it offers (``register``), so adding one is one new module here.

An opponent is made from the game mode and the Player (tdbg.play.players) that names it:
``Opponent.agent(mode, player)`` checks that the player's search settings apply to it and
returns the Agent its ``make(mode, player)`` builds (ValueError otherwise).  ``rank`` orders
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
    make: Callable  # (mode, player) -> Agent
    rank: int  # its place in the listed names
    cube: bool  # makes cube decisions (quick evaluations give it the cubeful game)
    plies: bool  # takes a search depth (Player.plies)

    def agent(self, mode, player):
        """The agent ``player`` (which names this opponent) plays ``mode``'s games with;
        ValueError when its search settings do not apply to this opponent."""
        if player.search.looks_ahead:
            raise ValueError(f"--oneply/--twoply apply to checkpoints, not to {self.name}")
        if player.plies is not None and (not self.plies or player.plies not in GNUBG_NN_PLIES):
            raise ValueError(
                f"--plies {player.plies}: only gnubg-nn looks ahead, at "
                f"{', '.join(map(str, GNUBG_NN_PLIES))} plies"
            )
        return self.make(mode, player)


_REGISTERED: dict[str, Opponent] = {}


def register(name: str, rank: int, cube: bool = False, plies: bool = False):
    """Decorator: the function ``make(mode, player)`` builds the opponent ``name``."""

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
