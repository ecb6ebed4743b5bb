"""Moves as a backgammon player types and reads them, matched against the engine's own list.

A play is written in the usual notation, points numbered from the mover's side: ``8/5 6/5``,
``bar/22``, ``6/off``, ``13/7(2)`` for two checkers moved alike, ``24/18/13`` for one checker
moved by both dice, ``*`` after a point that hits (optional when typing).  ``legal_plays``
lists every legal play of a roll as the move generator the players use (movegen) finds them,
each with its text in GNU Backgammon's notation; ``parse_play`` reads what a person typed and
returns the one legal play it describes, or says in a ValueError why there is none.

Reading does not replay steps die by die: a typed play says which checkers go from where to
where, and that fixes the mover's checkers after the play.  Where two legal plays leave the
mover's checkers alike and differ only in what they hit on the way (``24/18*/13`` or
``24/13`` with a 6-5), the stars and the points named on the way choose between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from tdbg.game import movegen
from tdbg.play.analysis import gnubg_move_text

BAR, OFF = 25, 0
_WORD = re.compile(r"^(bar|\d{1,2})((?:/(?:off|\d{1,2})\*?)+)(?:\((\d)\))?$")
EXAMPLES = "e.g. 8/5 6/5, 13/7(2), 24/18/13, bar/22, 6/off"


@dataclass(frozen=True)
class TypedMove:
    """One legal play of a roll as the terminal game types and reads it: its steps (the
    engine's: (from, to), 25 the bar, 0 off), the board after it (mover still in row 1) and
    its text in the usual notation."""

    steps: tuple
    after: np.ndarray
    text: str


def legal_plays(board, dice, engine: str = "auto") -> list[TypedMove]:
    """Every legal play of ``dice`` on ``board`` (row 1 on roll), as the players' move
    generator lists them; one entry with no steps and the text "" when no checker can move."""
    legal = movegen.legal_moves_fn(engine)(np.asarray(board), int(dice[0]), int(dice[1]))
    return [
        TypedMove(tuple(steps), np.asarray(after, dtype=np.int64), gnubg_move_text(board, steps))
        for steps, after in legal
    ]


def play_leading_to(plays: list[TypedMove], after) -> TypedMove:
    """The play among ``plays`` that leaves ``after`` (mover in row 1); ValueError if none does."""
    for play in plays:
        if np.array_equal(play.after, after):
            return play
    raise ValueError("no legal play leads to that position")


def hit_points(before, after) -> frozenset:
    """The mover's points where an opponent's blot was hit between two boards (row 1 moving)."""
    before, after = np.asarray(before), np.asarray(after)
    return frozenset(24 - j for j in range(24) if before[0][j] == 1 and after[0][j] == 0)


def _point(text: str, first: bool) -> int:
    if text == "bar":
        if not first:
            raise ValueError("a checker moves from the bar, never to it")
        return BAR
    if text == "off":
        return OFF
    p = int(text)
    if not 1 <= p <= 24:
        raise ValueError(f"point {p} is not on the board (points are 1 to 24, bar and off)")
    return p


def read_words(text: str) -> list[tuple[list[int], set, int]]:
    """The checker moves ``text`` names: (points from source to destination, starred points,
    times) per word; ValueError for text that is not a move."""
    words = text.lower().replace(",", " ").split()
    if not words:
        raise ValueError(f"type a move, {EXAMPLES}")
    out = []
    for word in words:
        m = _WORD.match(word)
        if not m:
            raise ValueError(f"cannot read {word!r} as a move ({EXAMPLES})")
        pieces = (m.group(1) + m.group(2)).split("/")
        points = [_point(p.rstrip("*"), i == 0) for i, p in enumerate(pieces)]
        if OFF in points[:-1]:
            raise ValueError(f"{word!r}: a checker borne off goes no further")
        if any(b >= a for a, b in pairwise(points) if b != OFF):
            raise ValueError(
                f"{word!r} moves backwards: checkers move from higher points to lower ones"
            )
        starred = {p for p, piece in zip(points, pieces, strict=True) if piece.endswith("*")}
        times = int(m.group(3) or 1)
        if not 1 <= times <= 4:
            raise ValueError(f"{word!r}: a roll moves at most four checkers")
        out.append((points, starred, times))
    return out


def _check_stops(points: list[int], board, dice) -> None:
    """ValueError unless each point named on the way (``24/18/13``'s 18) is where the checker
    stops after whole dice of the roll, on a point the opponent does not hold: only the first
    and last points decide the play, so ``24/20/13`` was taken as 24/13 with 6-5."""
    d1, d2 = int(dice[0]), int(dice[1])
    for a, b in zip(points[:-2], points[1:-1], strict=True):  # each hop that ends on the way
        hop = a - b
        if d1 == d2:
            dice_used = hop // d1 if hop % d1 == 0 and hop // d1 <= 4 else 0
            stops = [a - d1 * k for k in range(1, dice_used + 1)]
        else:
            dice_used = 1 if hop in (d1, d2) else 0
            stops = [b]
        if not dice_used:
            raise ValueError(
                f"{a if a != BAR else 'bar'}/{b} is no move of {d1}-{d2}: a point named on the way "
                f"is where a die of the roll takes the checker"
            )
        for stop in stops:
            if board[0][24 - stop] >= 2:
                raise ValueError(f"the checker cannot stop on your {stop} point: tdbg holds it")


def parse_play(text: str, board, dice, plays: list[TypedMove]) -> TypedMove:
    """The legal play (one of ``plays``, the roll's list) that ``text`` describes; ValueError
    saying why when it describes none or more than one."""
    board = np.asarray(board)
    mine = board[1].tolist()
    wanted = set()
    for points, starred, times in read_words(text):
        _check_stops(points, board, dice)
        src, dst = points[0], points[-1]
        # a point named on the way or starred, where the opponent had a blot: the play hits there
        wanted |= {p for p in points[1:-1] if board[0][24 - p] == 1} | starred
        mine[src - 1] -= times
        if dst != OFF:
            mine[dst - 1] += times
    no_blot = sorted(p for p in wanted if p == OFF or board[0][24 - p] != 1)
    if no_blot:  # (refused as "13/7* could be 13/7; type the one you mean": no reason at all)
        where = "off the board" if no_blot[0] == OFF else f"on your {no_blot[0]} point"
        raise ValueError(f"{text.strip()}: tdbg has no blot {where} to hit")
    short = [i + 1 for i, n in enumerate(mine) if n < 0]
    if short:  # checked once every word is counted: 18/13 24/18 is as good as 24/18 18/13
        where = "on the bar" if short[-1] == BAR else f"on your {short[-1]} point"
        raise ValueError(f"{text.strip()}: you do not have that many checkers {where}")
    same = [p for p in plays if p.after[1].tolist() == mine]
    if not same:
        raise ValueError(f"{text.strip()} is not a legal play of {dice[0]}-{dice[1]}")
    exact = [p for p in same if hit_points(board, p.after) == wanted]
    if len(exact) == 1:
        return exact[0]
    # stars are optional: the play that hits where asked and nowhere else it need not
    covering = [p for p in same if wanted <= hit_points(board, p.after)]
    fewest = min((len(hit_points(board, p.after)) for p in covering), default=None)
    chosen = [p for p in covering if len(hit_points(board, p.after)) == fewest]
    if len(chosen) == 1:
        return chosen[0]
    raise ValueError(
        f"{text.strip()} could be {' or '.join(p.text for p in same)}; type the one you mean"
    )
