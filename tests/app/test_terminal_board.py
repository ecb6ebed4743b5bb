"""The terminal board (tdbg/app/terminal_board.py) drawn for positions set up by hand: each
point's column shows the checkers put there, a tall stack its count, the bar and the side
lines the counts worked out by hand."""

import re

import numpy as np

from tdbg.app import terminal_board as tb
from tdbg.game import backgammon_engine as be


def board_of(human: dict, net: dict) -> np.ndarray:
    """Row 1 the human's, row 0 the net's, each ``{point in its own numbering: checkers}``
    (25: the bar)."""
    board = np.zeros((2, 25), dtype=np.int8)
    for row, side in ((1, human), (0, net)):
        for point, n in side.items():
            board[row][point - 1] = n
    return board


def read_points(text: str) -> dict:
    """Each point (the human's numbering) read back from the picture: (mark, checkers), the
    column found under the point's label in the header (13-24) or the footer (12-1)."""
    lines = text.split("\n")
    out = {}
    for edge, half in ((lines[0], lines[1:6]), (lines[12], lines[11:6:-1])):
        for label in re.finditer(r"\d+", edge):
            col = label.end() - 1  # a cell's mark stands under its label's last digit
            cells = [line[col - 1 : col + 1].strip() for line in half]
            marks = [c for c in cells if c]
            if not marks:
                out[int(label.group())] = ("", 0)
            elif marks[-1].isdigit():  # a stack taller than the rows: its count on the last
                out[int(label.group())] = (marks[0], int(marks[-1]))
            else:
                out[int(label.group())] = (marks[0], len(marks))
    return out


# X (the human): 2 on 24, 6 on 13, 3 on 6, 1 on the bar, so 3 borne off;
# O (the net, its own numbering): 4 on its 6, 3 on its 8, 2 on its 3, 2 on the bar, 4 off
HUMAN = {24: 2, 13: 6, 6: 3, 25: 1}
NET = {6: 4, 8: 3, 3: 2, 25: 2}


def test_every_point_shows_the_checkers_set_up_on_it():
    text = tb.draw(board_of(HUMAN, NET), ("alice", "net.pt"), "cube 1", "score 0-0")
    # the net's point p is the human's 25 - p
    expected = {p: ("", 0) for p in range(1, 25)}
    expected.update({p: ("X", n) for p, n in HUMAN.items() if p != 25})
    expected.update({25 - p: ("O", n) for p, n in NET.items() if p != 25})
    assert read_points(text) == expected


def test_a_stack_taller_than_five_shows_its_count_on_its_fifth_row():
    lines = tb.draw(board_of(HUMAN, NET), ("alice", "net"), "", "").split("\n")
    col = lines[0].index("13") + 1
    assert [line[col] for line in lines[1:5]] == ["X"] * 4 and lines[5][col] == "6"


def test_the_bar_holds_each_sides_checkers_from_the_middle_out():
    lines = tb.draw(board_of(HUMAN, NET), ("alice", "net"), "", "").split("\n")
    bar = lines[6].index("BAR") + 1  # the middle line names the bar's column
    # X's one checker next to the middle in the upper half, O's two next to it in the lower
    assert [line[bar] for line in lines[1:6]] == [" ", " ", " ", " ", "X"]
    assert [line[bar] for line in lines[7:12]] == ["O", "O", " ", " ", " "]


def test_the_side_lines_give_pips_bar_and_borne_off_by_hand():
    text = tb.draw(board_of(HUMAN, NET), ("alice", "net.pt"), "cube 2, X owns", "score 3-1", "X")
    lines = text.split("\n")
    # X: 2 x 24 + 6 x 13 + 3 x 6 + 1 x 25 (the bar) = 169; O: 4 x 6 + 3 x 8 + 2 x 3 + 2 x 25 = 104
    assert lines[1].endswith("   O: net.pt")
    assert lines[2].endswith("   pips 104  bar 2  off 4")
    assert lines[5].endswith("   score 3-1") and lines[6].endswith("   cube 2, X owns")
    assert lines[7].endswith("   X")
    assert lines[10].endswith("   pips 169  bar 1  off 3")
    assert lines[11].endswith("   X: alice")
    assert len(lines) == 13


def test_pips_of_the_starting_position_are_167():
    """The well-known 167 a side: 2 x 24 + 5 x 13 + 3 x 8 + 5 x 6."""
    start = be.initial_board()
    assert tb.pips(start[0]) == tb.pips(start[1]) == 167


def test_an_empty_side_line_is_left_out():
    """No score, cube or roll line given: those rows end at the board's edge."""
    lines = tb.draw(board_of(HUMAN, NET), ("a", "b"), "", "").split("\n")
    assert [lines[i][-1] for i in (5, 6, 7)] == ["|", "|", "|"]
