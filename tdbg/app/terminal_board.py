"""A text board in the manner of GNU Backgammon's, drawn from the human player's side.

The human's checkers are X and move from point 24 down to point 1 (home board bottom
right); the net's are O.  Points 13-24 run along the top, 12-1 along the bottom; a stack
taller than five shows its count on its fifth row.  Checkers on the bar sit in the BAR
column (X's in the upper half, where they come in, O's in the lower); beside the board
stand each side's pips, checkers on the bar and borne off, the cube and the score.

Boards are gnubg's two rows of 25 (index 24 the bar); here row 1 is always the human's
and row 0 the net's, whoever is on roll.
"""

from __future__ import annotations

import numpy as np

from tdbg.game import backgammon_engine as be

ROWS = 5  # checker rows per half of the board
HUMAN, NET = "X", "O"
TOP, BOTTOM = list(range(13, 25)), list(range(12, 0, -1))


def pips(row) -> int:
    """The pip count of one side's row (its own numbering; the bar is 25 pips away)."""
    return int(sum((i + 1) * int(n) for i, n in enumerate(row)))


def _cell(count: int, symbol: str, row: int) -> str:
    """What a point's column shows on ``row`` (0: the edge of the board) of its stack."""
    if count > ROWS and row == ROWS - 1:
        return f"{count:>2} "
    return f" {symbol} " if count > row else "   "


def _point_cell(board, point: int, row: int) -> str:
    mine, theirs = int(board[1][point - 1]), int(board[0][24 - point])
    return _cell(mine, HUMAN, row) if mine else _cell(theirs, NET, row)


def _half(board, points, bar_count: int, bar_symbol: str, from_edge) -> list[str]:
    """The five lines of one half, the line at the board's edge first."""
    lines = []
    for row in from_edge:
        left = "".join(_point_cell(board, p, row) for p in points[:6])
        right = "".join(_point_cell(board, p, row) for p in points[6:])
        bar = _cell(bar_count, bar_symbol, ROWS - 1 - row)  # bar checkers stack from the middle out
        lines.append(f" |{left}|{bar}|{right}|")
    return lines


def draw(
    board, names: tuple[str, str], cube_line: str, score_line: str, on_roll_line: str = ""
) -> str:
    """The board ``board`` (row 1 the human's) with the side information: ``names`` (human,
    net), the cube's line, the score's, and who is on roll."""
    board = np.asarray(board)
    off_net, off_human = be.borne_off(board)
    header = (
        " +"
        + "".join(f"{p:>2}-" for p in TOP[:6])
        + "-----"
        + "".join(f"{p:>2}-" for p in TOP[6:])
        + "+"
    )
    footer = (
        " +"
        + "".join(f"{p:->2}-" for p in BOTTOM[:6])
        + "-----"
        + "".join(f"{p:->2}-" for p in BOTTOM[6:])
        + "+"
    )
    top = _half(board, TOP, int(board[1][24]), HUMAN, range(ROWS))
    bottom = _half(board, BOTTOM, int(board[0][24]), NET, range(ROWS - 1, -1, -1))
    middle = " |" + " " * 18 + "|BAR|" + " " * 18 + "|"
    side_net = [
        f"{NET}: {names[1]}",
        f"   pips {pips(board[0])}  bar {int(board[0][24])}  off {off_net}",
    ]
    side_human = [
        f"   pips {pips(board[1])}  bar {int(board[1][24])}  off {off_human}",
        f"{HUMAN}: {names[0]}",
    ]
    side = {
        1: side_net[0],
        2: side_net[1],
        6: cube_line,
        5: score_line,
        7: on_roll_line,
        10: side_human[0],
        11: side_human[1],
    }
    lines = [header] + top + [middle] + bottom + [footer]
    return "\n".join(
        f"{ln}   {side[i]}".rstrip() if side.get(i) else ln for i, ln in enumerate(lines)
    )
