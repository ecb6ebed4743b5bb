"""Game modes as objects, one module per mode, and their registry (``game_mode``).

base.GameMode states the interface; dmp, cubeless_money, cubeful_money and matchplay
implement it.  Behaviour that differs between modes lives in the mode's class: nothing
outside this package and heads.py compares mode names.  What other layers do differently
per mode (how results are stated, counted, or set up in gnubg) they keep in small tables
keyed by the mode's class, read with ``for_mode``.
"""

from __future__ import annotations

from tdbg.game.modes.base import GameMode
from tdbg.game.modes.cubeful_money import CubefulMoney
from tdbg.game.modes.cubeless_money import CubelessMoney
from tdbg.game.modes.dmp import DMP
from tdbg.game.modes.matchplay import MatchPlay

MODES = {cls.name: cls for cls in (DMP, CubelessMoney, CubefulMoney)}
GAME_MODES = tuple(MODES) + ("match",)


def mode_class(name: str) -> type[GameMode]:
    """The class of the mode called ``name`` (its class attributes, e.g. ``is_match``,
    without building it); ValueError for an unknown name."""
    if name == MatchPlay.name:
        return MatchPlay
    if name not in MODES:
        raise ValueError(f"unknown game mode {name!r}; choose one of {', '.join(GAME_MODES)}")
    return MODES[name]


def game_mode(
    name: str, jacoby: bool = True, match_length: int = 0, met: str | None = None
) -> GameMode:
    """The mode called ``name``; for match play ``match_length`` (1-25; 0: a spread of
    scores for training) and ``met``, a MET file (default: the shipped Kazaross-XG2)."""
    if name == "match":
        return MatchPlay(length=match_length, met=met)
    if name not in MODES:
        raise ValueError(f"unknown game mode {name!r}; choose one of {', '.join(GAME_MODES)}")
    return MODES[name](jacoby)


def for_mode(table: dict, mode):
    """``table``'s entry for ``mode`` (an instance or a class), the table keyed by mode
    classes: the entry of its own class, else of the nearest class it derives from, as a
    method would be inherited (so a table states only where modes differ)."""
    cls = mode if isinstance(mode, type) else type(mode)
    for c in cls.__mro__:
        if c in table:
            return table[c]
    raise KeyError(f"no entry for {cls.__name__}")
