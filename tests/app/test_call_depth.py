"""How far a reader follows the first player of a head-to-head series: from the entry point
(play_models.py's run, settings already parsed) to that player's first move choice.

A call is on the player's path when one of its arguments is the player: its name, its
Player value, its agent, or a value holding one of them (the settings, the series, a
worker's job).  The modules of those calls, in order, with consecutive calls in one module
counted once, are the modules a reader opens; a module that comes back after control left
it is entered again.  The design keeps that path to at most 10 modules, none entered more
than twice: a player's journey reads in a few files, each once or twice.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter

from tdbg.app import play_command
from tdbg.app.play_settings import PlaySettings

FIRST = "random"  # the first player: a built-in opponent, no checkpoint to load
MAX_MODULES, MAX_ENTRIES = 10, 2


def holds_player(value, depth: int = 0) -> bool:
    """Whether ``value`` is the first player (name, Player, agent) or holds it one or two levels down."""
    if isinstance(value, str):
        return value == FIRST
    if getattr(value, "name", None) == FIRST or getattr(value, "model1", None) == FIRST:
        return True
    if depth >= 2:
        return False
    if isinstance(value, dict):
        return any(holds_player(v, depth + 1) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(holds_player(v, depth + 1) for v in value[:4])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(
            holds_player(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)
        )
    return False


class FirstMove(Exception):
    """Raised inside the first player's first choose_moves: the path ends there."""


def modules_on_path(entry) -> list[str]:
    """The tdbg modules of the calls on the first player's path, in order, from ``entry()``
    to the first player's first choose_moves (consecutive calls in one module once)."""
    path: list[str] = []

    def profile(frame, event, arg):
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("tdbg."):
            return
        code = frame.f_code
        args = [
            frame.f_locals.get(n)
            for n in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        ]
        if not any(holds_player(a) for a in args):
            return
        if not path or path[-1] != module:
            path.append(module)
        if code.co_name == "choose_moves":
            raise FirstMove

    sys.setprofile(profile)
    try:
        entry()
    except FirstMove:
        pass
    else:
        raise AssertionError("the first player never chose a move")
    finally:
        sys.setprofile(None)
    return path


def test_the_path_ends_at_the_first_players_move():
    settings = PlaySettings(model1=FIRST, model2="pubeval", games=2, seed=1, quiet=True)
    path = modules_on_path(lambda: play_command.run(settings))
    assert path[0] == "tdbg.app.play_command" or "tdbg.app.play_command" in path[:3]
    assert path[-1] == "tdbg.play.agents"  # RandomAgent.choose_moves


def test_the_first_players_path_is_short():
    settings = PlaySettings(model1=FIRST, model2="pubeval", games=2, seed=1, quiet=True)
    path = modules_on_path(lambda: play_command.run(settings))
    entries = Counter(path)
    assert len(entries) <= MAX_MODULES, path
    assert max(entries.values()) <= MAX_ENTRIES, path
