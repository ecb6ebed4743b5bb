"""Batch after-state generation with a choice of engine.

The one primitive self-play, 1-ply targets and agents share: for many (board,
dice) inputs, every legal resulting board and its network inputs, with offsets
saying which rows belong to which input.  ``engine="c"`` uses the C engine,
``"python"`` the reference engine (slow, always available), ``"auto"`` the C
engine when it is built and otherwise the Python one with a one-line warning.
"""

from __future__ import annotations

import sys

import numpy as np

from tdbg.game import backgammon_engine, encoding

ENGINES = ("auto", "c", "python")
_warned = False


def c_available() -> bool:
    try:
        from tdbg.game import c_engine  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_engine(engine: str = "auto") -> str:
    """'c' or 'python' for a requested engine name; ValueError for an unknown one."""
    global _warned
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "python":
        return "python"
    if c_available():
        return "c"
    if engine == "c":
        raise ImportError("the C engine is not built; run `make setup`")
    if not _warned:
        print(
            "warning: C engine not built (run `make setup`); using the slow Python engine",
            file=sys.stderr,
        )
        _warned = True
    return "python"


def legal_moves_fn(engine: str = "auto"):
    """The ``legal_moves(board, die1, die2)`` function of the chosen engine."""
    if resolve_engine(engine) == "c":
        from tdbg.game import c_engine

        return c_engine.legal_moves
    return backgammon_engine.legal_moves


class PythonExpander:
    """Same interface as :class:`tdbg.game.c_engine.Expander`, built on the reference engine."""

    def __init__(self, width: int = encoding.NUM_FEATURES, on_roll_row: int = 0):
        self.width = width
        self.on_roll_row = on_roll_row

    def expand(self, boards, dice, encode: bool = True):
        b, d = backgammon_engine.check_batch(boards, dice)
        results: list[np.ndarray] = []
        offsets = [0]
        for i, (board, (d1, d2)) in enumerate(zip(b, d, strict=True)):
            try:
                moves = backgammon_engine.legal_moves(board, int(d1), int(d2))
            except ValueError as exc:
                raise ValueError(f"input {i}: {exc}") from None
            results.extend(nb for _, nb in moves)
            offsets.append(len(results))
        out_b = np.array(results, dtype=np.int8).reshape(-1, 2, 25)
        feats = None
        if encode:
            feats = np.zeros((len(out_b), self.width), dtype=np.float32)
            seen = out_b if self.on_roll_row == 1 else out_b[:, ::-1]
            feats[:, : encoding.NUM_FEATURES] = encoding.encode_batch(seen)
        return out_b, feats, np.array(offsets, dtype=np.int32)


def make_expander(engine: str = "auto", width: int = encoding.NUM_FEATURES, on_roll_row: int = 0):
    """An expander (``.expand(boards, dice, encode=True) -> (boards, features, offsets)``)."""
    if resolve_engine(engine) == "c":
        from tdbg.game import c_engine

        return c_engine.Expander(width=width, on_roll_row=on_roll_row)
    return PythonExpander(width=width, on_roll_row=on_roll_row)


def encode_on_roll(boards, engine: str = "auto") -> np.ndarray:
    """(N, 196) inputs of boards whose row 1 is on roll (pre-roll positions)."""
    if resolve_engine(engine) == "c":
        from tdbg.game import c_engine

        return c_engine.encode_batch(boards, on_roll_row=1)
    return encoding.encode_batch(boards)
