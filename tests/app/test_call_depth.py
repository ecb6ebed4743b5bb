"""How far a reader follows the first player of a head-to-head series: from the entry point
(play_models.py's run, settings already parsed) to that player's first move choice.

A call is on the player's path when one of its arguments is the player: its name (a built-in
opponent's, or a checkpoint's path), its Player value, the evaluator built from it, or a value
holding one of them (the settings, the series, a worker's job).  The modules of those calls,
in order, with consecutive calls in one module counted once, are the modules a reader opens; a
module that comes back after control left it is entered again.  The design keeps that path to
at most MAX_MODULES modules, none entered more than MAX_ENTRIES times, for a built-in opponent
and for a checkpoint at 0 and 1 ply.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections import Counter

import pytest

from tdbg.app import play_command
from tdbg.app.play_settings import PlaySettings
from tdbg.net import model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKPOINT = os.path.join(ROOT, "best_models", "dmp_128x2.pt")  # small: 128x2 DMP network
MAX_MODULES, MAX_ENTRIES = 10, 1

# (first player, its flags, the module whose choose_moves ends the path)
CASES = {
    "random": ("random", {}, "tdbg.play.agents"),
    "checkpoint-0ply": (CHECKPOINT, {}, "tdbg.play.td_agent"),
    "checkpoint-1ply": (CHECKPOINT, {"oneply1": True}, "tdbg.play.td_agent"),
    "gnubg-nn": ("gnubg-nn", {}, "tdbg.play.agents"),
}


def holds_player(first: str, value, depth: int = 0) -> bool:
    """Whether ``value`` is the player ``first`` (its name, its Player, its evaluator: each
    carries the name) or holds it one or two levels down."""
    if isinstance(value, str):
        return value == first
    if getattr(value, "name", None) == first or getattr(value, "model1", None) == first:
        return True
    if depth >= 2:
        return False
    if isinstance(value, dict):
        return any(holds_player(first, v, depth + 1) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(holds_player(first, v, depth + 1) for v in value[:4])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(
            holds_player(first, getattr(value, f.name, None), depth + 1)
            for f in dataclasses.fields(value)
        )
    return False


class FirstMove(Exception):
    """Raised inside the first player's first choose_moves: the path ends there."""


def modules_on_path(first: str, entry) -> list[str]:
    """The tdbg modules of the calls on ``first``'s path, in order, from ``entry()`` to its
    first choose_moves (consecutive calls in one module once)."""
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
        if not any(holds_player(first, a) for a in args):
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
        raise AssertionError(f"{first} never chose a move")
    finally:
        sys.setprofile(None)
    return path


def first_players_path(case: str) -> tuple[list[str], str]:
    """The measured path of ``case``'s first player against pubeval, and its last module."""
    first, flags, last = CASES[case]
    if first == "gnubg-nn":
        pytest.importorskip("gnubg_nn")
    settings = PlaySettings(model1=first, model2="pubeval", games=2, seed=1, quiet=True, **flags)
    return modules_on_path(first, lambda: play_command.run(settings)), last


@pytest.mark.parametrize("case", CASES)
def test_the_path_ends_at_the_first_players_move(case):
    path, last = first_players_path(case)
    assert path[0] == "tdbg.app.play_command", path
    assert path[-1] == last, path  # the first player's own choose_moves


@pytest.mark.parametrize("case", CASES)
def test_the_first_players_path_reads_in_few_modules(case):
    path, _ = first_players_path(case)
    modules = set(path)
    assert len(modules) <= MAX_MODULES, f"{len(modules)} modules: {path}"


@pytest.mark.parametrize("case", CASES)
def test_no_module_on_the_path_is_entered_twice(case):
    path, _ = first_players_path(case)
    entries = Counter(path)
    assert max(entries.values()) <= MAX_ENTRIES, f"entered {entries.most_common(3)}: {path}"


def test_the_path_is_the_same_whether_the_checkpoint_was_opened_before(monkeypatch):
    """A process opens each checkpoint once (net.model.opened_checkpoint keeps it): the path of
    a checkpoint met for the first time and of one opened before (an earlier test's) is the
    same, so the bounds above hold in any order of the tests."""
    monkeypatch.setattr(model, "_opened", {})
    fresh, _ = first_players_path("checkpoint-1ply")
    assert len(model._opened) == 1  # the first measure loaded it
    again, _ = first_players_path("checkpoint-1ply")
    assert fresh == again
