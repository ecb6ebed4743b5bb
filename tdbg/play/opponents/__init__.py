"""The built-in opponents, by name: each module of this package registers the opponents
it offers (``register``), so adding one is one new module here.

An opponent is made from the game mode and the Player (tdbg.play.players) that names it:
``make(mode, player)`` returns the Agent, or raises ValueError when the player's settings
do not apply to it.  ``rank`` orders the names where they are listed (--help, errors).
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Callable


@dataclasses.dataclass(frozen=True)
class Opponent:
    name: str
    make: Callable  # (mode, player) -> Agent
    rank: int       # its place in the listed names
    cube: bool      # makes cube decisions (quick evaluations give it the cubeful game)
    plies: bool     # takes a search depth (Player.plies)


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
