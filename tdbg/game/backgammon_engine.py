"""Pure-Python backgammon rules: the readable reference engine.

Board convention (GNU Backgammon's, so gnubg-nn and gnubg interoperate with no
translation): a board is two rows of 25 ints.  Row 1 is the side on roll, row 0
its opponent.  In each row, index 0..23 is that side's own point 1..24 (index 0
is its ace point) and index 24 is its bar.  Borne-off checkers are 15 minus the
row's sum.  A point of the mover at index i is the opponent's index 23 - i.

A move is a tuple of steps ``(from_point, to_point)`` in the mover's own 1-based
numbering, with 25 for the bar and 0 for off, e.g. ``((8, 5), (6, 5))``.
The empty tuple is the pass when no checker can move.

The C engine (``c_engine``) implements the same rules for speed; this module is
the reference the tests hold both of them to, alongside gnubg-nn.
"""

from __future__ import annotations

import base64
import re

import numpy as np

NUM_CHECKERS = 15
BAR = 24  # index of the bar in a row
MAX_MOVES_PER_ROLL = 4096  # upper bound on distinct results of one roll (real max is 3060)

_INITIAL_ROW = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


# --------------------------------------------------------------------------- validation


def check_board(board) -> np.ndarray:
    """Return ``board`` as a fresh (2, 25) int array, or raise ValueError saying what is wrong."""
    try:
        arr = np.asarray(board)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"board is not a 2x25 array of checker counts: {exc}") from None
    if arr.shape != (2, 25):
        raise ValueError(f"board must have shape (2, 25), got {arr.shape}")
    if arr.dtype.kind not in "iub":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            pass
        else:
            raise ValueError(f"board must hold whole checker counts, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if (arr < 0).any():
        side, idx = (int(v) for v in np.argwhere(arr < 0)[0])
        raise ValueError(
            f"board has a negative checker count ({arr[side, idx]}) in row {side} index {idx}"
        )
    for side in (0, 1):
        total = int(arr[side].sum())
        if total > NUM_CHECKERS:
            raise ValueError(
                f"board row {side} has {total} checkers; a side has at most {NUM_CHECKERS}"
            )
    both = (arr[1, :24] > 0) & (arr[0, 23::-1] > 0)
    if both.any():
        i = int(np.argmax(both))
        raise ValueError(
            f"both sides have checkers on the same point "
            f"(mover's point {i + 1} = opponent's point {24 - i})"
        )
    return arr


def check_dice(die1, die2) -> tuple[int, int]:
    out = []
    for d in (die1, die2):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= int(d) <= 6:
            raise ValueError(f"dice must be whole numbers from 1 to 6, got ({die1!r}, {die2!r})")
        out.append(int(d))
    return out[0], out[1]


def check_batch(boards, dice) -> tuple[np.ndarray, np.ndarray]:
    """Shape and type checks for a batch: boards (N, 2, 25), dice (N, 2) whole numbers 1..6.

    Checker counts are left to the engines' per-board checks; this catches what a
    reshape or an int8 cast would otherwise hide."""
    b = np.asarray(boards)
    if b.ndim == 2:
        b = b[None]
    if b.ndim != 3 or b.shape[1:] != (2, 25):
        raise ValueError(f"boards must have shape (N, 2, 25), got {np.asarray(boards).shape}")
    if b.dtype.kind not in "iu":
        if b.dtype.kind != "f" or not np.all(b == np.round(b)):
            raise ValueError(f"boards must hold whole checker counts, got dtype {b.dtype}")
    if b.size and np.abs(b).max() > NUM_CHECKERS:
        bad = int(np.argmax(np.abs(b.reshape(len(b), -1)).max(axis=1) > NUM_CHECKERS))
        try:
            check_board(b[bad])
        except ValueError as exc:
            raise ValueError(f"input {bad}: {exc}") from None
    d = np.asarray(dice)
    if d.ndim == 1:
        d = d[None]
    if d.dtype.kind == "f" and np.all(d == np.round(d)):
        d = d.astype(np.int64)
    if d.dtype.kind not in "iu" or d.ndim != 2 or d.shape[1] != 2:
        raise ValueError("dice must be (N, 2) whole numbers from 1 to 6")
    if len(d) != len(b):
        raise ValueError(f"{len(b)} boards but {len(d)} dice pairs")
    if d.size and (d.min() < 1 or d.max() > 6):
        bad = int(np.argmax(((d < 1) | (d > 6)).any(axis=1)))
        raise ValueError(
            f"input {bad}: dice must be whole numbers from 1 to 6, got {tuple(d[bad].tolist())}"
        )
    return b, d


# --------------------------------------------------------------------------- basics


def initial_board() -> np.ndarray:
    """The starting position as a (2, 25) int array."""
    return np.array([_INITIAL_ROW, _INITIAL_ROW], dtype=np.int64)


def swap(board) -> np.ndarray:
    """The same position seen by the other side (rows exchanged)."""
    arr = np.asarray(board)
    return arr[::-1].copy()


def borne_off(board) -> tuple[int, int]:
    """Checkers borne off by (row 0, row 1)."""
    arr = np.asarray(board)
    return NUM_CHECKERS - int(arr[0].sum()), NUM_CHECKERS - int(arr[1].sum())


def game_result(board) -> int:
    """0 while the game goes on; otherwise the points won, signed from row 1's side.

    +1/+2/+3 when row 1 has borne off all its checkers (single, gammon,
    backgammon); -1/-2/-3 when row 0 has.  Backgammon: the loser has not borne
    off and still has a checker on the bar or in the winner's home board.
    """
    arr = np.asarray(board)
    for winner, sign in ((1, 1), (0, -1)):
        if arr[winner].sum() == 0:
            loser = arr[1 - winner]
            if loser.sum() < NUM_CHECKERS:
                return sign
            # the winner's home board (its points 1..6) is the loser's indices 18..23
            if loser[18:25].sum() > 0:
                return 3 * sign
            return 2 * sign
    return 0


def game_results(boards) -> np.ndarray:
    """Vectorised :func:`game_result` for (N, 2, 25) boards."""
    b = np.asarray(boards).reshape(-1, 2, 25).astype(np.int64)
    sums = b.sum(axis=2)
    out = np.zeros(len(b), dtype=np.int64)
    for winner, sign in ((1, 1), (0, -1)):
        won = sums[:, winner] == 0
        loser = b[:, 1 - winner]
        gammon = sums[:, 1 - winner] == NUM_CHECKERS
        backgammon = gammon & (loser[:, 18:25].sum(axis=1) > 0)
        k = 1 + gammon.astype(np.int64) + backgammon.astype(np.int64)
        out = np.where(won & (out == 0), sign * k, out)
    return out


def no_contact(boards) -> np.ndarray:
    """Per (N, 2, 25) board: True when no checker can meet an opponent's again (a race, a
    bear-off or a finished game): each side's rearmost checker (the bar counts as its
    index 24) has passed the other's, i.e. the two rearmost indices sum to less than 23."""
    b = np.asarray(boards).reshape(-1, 2, 25) > 0
    # index of each row's rearmost checker, -1 for an empty row
    rear = np.where(b.any(axis=2), 24 - np.argmax(b[:, :, ::-1], axis=2), -1)
    return rear[:, 0] + rear[:, 1] < 23


def apply_move(board, move) -> np.ndarray:
    """The board after playing ``move``'s steps in order (mover stays in row 1).

    No legality check beyond what a step needs: use legal_moves to validate."""
    arr = np.array(board, dtype=np.int64)
    for src, dst in move:
        if not (1 <= src <= 25 and 0 <= dst < src) or arr[1, src - 1] == 0:
            raise ValueError(f"step {src}/{dst} cannot be played in position {position_id(board)}")
        arr[1, src - 1] -= 1
        if dst:
            arr[1, dst - 1] += 1
            opp = 24 - dst
            if arr[0, opp] == 1:
                arr[0, opp] = 0
                arr[0, BAR] += 1
    return arr


# --------------------------------------------------------------------------- move generation


def _step(me: list, opp: list, src: int, die: int):
    """Play one checker from index ``src`` (24 = bar) by ``die`` pips.

    Returns (me, opp, dst) as new lists with dst = -1 for off, or None if illegal.
    """
    if me[src] == 0:
        return None
    dst = src - die
    if dst < 0:
        # bearing off: all checkers home (indices 0..5) and exact, or from the highest point
        if any(me[6:25]):
            return None
        if dst < -1 and any(me[src + 1 : 6]):
            return None
        me2 = me[:]
        me2[src] -= 1
        return me2, opp, -1
    opp_idx = 23 - dst
    if opp[opp_idx] >= 2:
        return None
    me2 = me[:]
    me2[src] -= 1
    me2[dst] += 1
    if opp[opp_idx] == 1:
        opp2 = opp[:]
        opp2[opp_idx] = 0
        opp2[BAR] += 1
        return me2, opp2, dst
    return me2, opp, dst


def _search(me, opp, dice, steps, used, found, doubles, max_src=23):
    """Depth-first over the dice in order; record every position where play stops.

    With doubles only non-increasing sources are tried (``max_src``): any set of
    equal steps can be played in that order, so no result is lost and most
    duplicate paths are never walked.
    """
    if not dice:
        found.append((steps, me, opp, used))
        return
    die = dice[0]
    if me[BAR]:
        sources = (BAR,)
    else:
        top = max_src if doubles else 23
        sources = [i for i in range(top, -1, -1) if me[i]]
    moved = False
    for src in sources:
        res = _step(me, opp, src, die)
        if res is None:
            continue
        moved = True
        me2, opp2, dst = res
        _search(
            me2, opp2, dice[1:], steps + ((src + 1, dst + 1),), used + (die,), found, doubles, src
        )
    if not moved:
        found.append((steps, me, opp, used))


def legal_moves(board, die1, die2) -> list[tuple[tuple, np.ndarray]]:
    """All legal plays of (die1, die2) as (move, resulting board) pairs.

    The resulting board is still seen from the mover's side (row 1 = the side
    that just moved); call :func:`swap` to hand the turn over.  Each resulting
    board is listed once.  When no checker can move the single entry is
    ``((), board)``.
    """
    arr = check_board(board)
    d1, d2 = check_dice(die1, die2)
    me, opp = arr[1].tolist(), arr[0].tolist()
    orders = [(d1,) * 4] if d1 == d2 else [(max(d1, d2), min(d1, d2)), (min(d1, d2), max(d1, d2))]
    found: list = []
    for order in orders:
        _search(me, opp, order, (), (), found, d1 == d2)
    most = max(len(steps) for steps, _, _, _ in found)
    plays = [f for f in found if len(f[0]) == most]
    if most == 1 and d1 != d2:
        # only one die can be played: the larger one if it can be
        big = max(d1, d2)
        with_big = [f for f in plays if f[3][0] == big]
        if with_big:
            plays = with_big
    seen = {}
    for steps, me2, opp2, _ in plays:
        key = (tuple(me2), tuple(opp2))
        if key not in seen:
            seen[key] = steps
    return [(steps, np.array([opp2, me2], dtype=np.int64)) for (me2, opp2), steps in seen.items()]


# --------------------------------------------------------------------------- position ID


def position_key_bytes(boards) -> np.ndarray:
    """gnubg's 80-bit position key of each board, as (N, 10) uint8, vectorised.

    For row 0 then row 1, each of the 25 counts is written as that many 1 bits
    followed by a 0, least significant bit of each byte first.
    """
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 50)
    zeros = np.cumsum(b + 1, axis=1) - 1  # bit index of each slot's closing 0
    bits = np.arange(80)[None, :] < zeros[:, -1:]  # nothing after the last slot
    rows = np.repeat(np.arange(len(b)), 50)
    bits[rows, zeros.ravel()] = False
    return np.packbits(bits, axis=1, bitorder="little")


def position_keys(boards) -> np.ndarray:
    """gnubg-nn's 20-letter position keys (as in ``gnubg_nn.moves``), vectorised: (N,) bytes."""
    raw = position_key_bytes(boards)
    letters = np.empty((len(raw), 20), dtype=np.uint8)
    letters[:, 0::2] = 65 + (raw >> 4)
    letters[:, 1::2] = 65 + (raw & 15)
    return letters.view("S20").ravel()


def position_id(board) -> str:
    """GNU Backgammon Position ID (14 base64 characters) of ``board``."""
    arr = check_board(board)
    return base64.b64encode(position_key_bytes(arr)[0].tobytes()).decode("ascii")[:14]


def board_from_position_id(pid: str) -> np.ndarray:
    """Inverse of :func:`position_id`; raises ValueError on a malformed ID."""
    if not isinstance(pid, str) or not re.fullmatch(r"[A-Za-z0-9+/]{14}", pid):
        raise ValueError(f"a Position ID is 14 base64 characters, got {pid!r}")
    data = base64.b64decode(pid + "==")
    board = np.zeros((2, 25), dtype=np.int64)
    side, idx = 0, 0
    for i in range(80):
        bit = (data[i // 8] >> (i % 8)) & 1
        if bit:
            if side > 1:
                raise ValueError(f"Position ID {pid} has more than 50 fields")
            board[side, idx] += 1
        else:
            idx += 1
            if idx == 25:
                side, idx = side + 1, 0
    return check_board(board)


# --------------------------------------------------------------------------- move text


def _point_name(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def hit_steps(board, move) -> list[tuple[int, int, bool]]:
    """``move``'s steps as (from, to, hit) in played order: a step hits when it lands on a
    point where the opponent has exactly one checker at that moment."""
    opp = np.asarray(board)[0].tolist()
    out = []
    for src, dst in move:
        hit = 1 <= dst <= 24 and opp[24 - dst] == 1
        if hit:
            opp[24 - dst] = 0
        out.append((src, dst, hit))
    return out


def move_for_result(board, die1, die2, after):
    """The legal move of this roll that leads to ``after`` (mover still in row 1), or None."""
    for move, result in legal_moves(board, die1, die2):
        if np.array_equal(result, after):
            return move
    return None


def format_move(board, move) -> str:
    """Usual notation of ``move`` played on ``board``: ``8/5(2) 6/5``, ``bar/22``, ``6/off``,
    ``13/7*``.  Steps are listed highest point first; the pass is ``""``."""
    parts = sorted(hit_steps(board, move), key=lambda s: (-s[0], -s[1]))
    out = []
    i = 0
    while i < len(parts):
        j = i
        while j < len(parts) and parts[j] == parts[i]:
            j += 1
        src, dst, hit = parts[i]
        text = f"{_point_name(src)}/{_point_name(dst)}{'*' if hit else ''}"
        out.append(text + (f"({j - i})" if j - i > 1 else ""))
        i = j
    return " ".join(out)


_TOKEN = re.compile(r"^((?:bar|\d{1,2})(?:/(?:off|\d{1,2})\*?)+)(?:\((\d)\))?$")


def _parse_point(text: str, is_source: bool) -> int:
    if text == "bar":
        return 25
    if text == "off":
        return 0
    p = int(text)
    if not (1 <= p <= 24):
        raise ValueError(f"point {p} is not between 1 and 24")
    if not is_source and p == 25:
        raise ValueError("a checker cannot move to the bar")
    return p


def parse_move(board, die1, die2, text: str) -> tuple[tuple, np.ndarray]:
    """The legal (move, resulting board) that ``text`` describes for this roll.

    Accepts the usual forms: ``8/5 6/5``, ``8/5(2)``, ``24/18*/13``, ``bar/22``,
    ``6/off``; a checker moved by both dice may be written in one piece
    (``24/13``).  ``""`` or ``pass`` is the pass.  Raises ValueError when the text
    is malformed, not legal for the roll, or ambiguous.
    """
    arr = check_board(board)
    moves = legal_moves(arr, die1, die2)
    words = text.lower().replace(",", " ").split()
    if words in ([], ["pass"]):
        if moves[0][0] == ():
            return moves[0]
        raise ValueError(f"{text!r}: passing is not legal when a checker can move")
    me = arr[1].tolist()
    starred = set()
    for word in words:
        m = _TOKEN.match(word)
        if not m:
            raise ValueError(
                f"cannot read move {word!r} (expected e.g. 13/7*, bar/22, 6/off, 8/5(2))"
            )
        pieces = m.group(1).split("/")
        points = [_parse_point(p.rstrip("*"), i == 0) for i, p in enumerate(pieces)]
        starred |= {p for p, piece in zip(points, pieces, strict=True) if piece.endswith("*")}
        for _ in range(int(m.group(2) or 1)):
            src, dst = points[0], points[-1]
            if src <= dst and dst != 0:
                raise ValueError(f"{word!r} moves backwards")
            me[src - 1] -= 1
            if dst:
                me[dst - 1] += 1
    matches = [mv for mv in moves if mv[1][1].tolist() == me]
    if len(matches) > 1:  # same checkers moved, hitting on different points
        matches = [mv for mv in matches if _hit_points(arr, mv[1]) == starred] or matches
    if not matches:
        raise ValueError(
            f"{text!r} is not a legal play of {die1}-{die2} in position {position_id(arr)}"
        )
    if len(matches) > 1:
        raise ValueError(f"{text!r} is ambiguous for {die1}-{die2}; mark the hits with *")
    return matches[0]


def _hit_points(before: np.ndarray, after: np.ndarray) -> set:
    """Mover's points where a blot was hit between two boards."""
    return {24 - i for i in range(24) if before[0][i] == 1 and after[0][i] == 0}
