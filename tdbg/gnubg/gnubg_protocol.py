"""What gnubg says over the external-player socket and on its terminal, read into our terms.

FIBS board strings become Questions (our view: row 1 = us), gnubg's result and match
lines are matched by regular expressions, and the positions gnubg may legally send next
are enumerated so that gnubg_external.GnubgSession can check every board it receives.
gnubg's own .mat export is read back as per-turn records (its dice are only there).
Protocol notes: ../shared/reference/gnubg-external-player.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tdbg.game import backgammon_engine as be, movegen
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.gnubg.gnubg_binary import GnubgError
from tdbg.play.match import GameRecord
from tdbg.play.matfile import read_mat

# a player's name as gnubg holds it (MAX_NAME_LEN 32, with the NUL) and a game's points (at
# most 3 x 4,096): bounded, as an unbounded name backtracked over every start of a long line
# (a 64 KiB line of letters on gnubg's terminal stalled the run for minutes) and an unbounded
# count of 5,000 digits was beyond int()
NAME = r"([\w-]{1,31})"
RESULT_LINE = re.compile(
    NAME + r" wins an? (single game|gammon|backgammon) and ([0-9]{1,9}) points?\."
)
MATCH_LINE = re.compile(NAME + r" has won the match\.")
# gnubg offers to resign (our seat auto-accepts a backgammon offer): the game ends without a last move
RESIGN_ACCEPTED = re.compile(NAME + r" accepts and wins an? (single game|gammon|backgammon)\.")
OUR_NAME, GNUBG_NAME = "td", "gnubg"


class ProtocolError(GnubgError):
    """gnubg said something we cannot reconcile with our engine's state."""


# gnubg's own limits on what a board string can hold (its MAXSCORE and MAX_CUBE)
MAX_MATCH_LENGTH = 64
MAX_CUBE = 4096
FIELDS = 53
CONSTANTS = {
    41: 1,
    42: -1,
    43: 0,
    44: 25,
}  # colour, direction, home and bar: gnubg always sends these
# the bar counts, can-move and forced-move fields: gnubg's FIBS board leaves them 0 (its bar
# counts are in fields 6 and 31)
UNFILLED = (47, 48, 49, 50)
MAX_SCORE = 2**31 - 1  # a money session's score is one of gnubg's ints
NUMBER = re.compile(
    r"-?[0-9]+"
)  # a field as gnubg writes it (int() also reads "\uff12", "1_0", " 2")


def _numbers(fields: list[str], line: str) -> list[int]:
    """The fields as gnubg's whole numbers; ProtocolError for anything else."""
    if not all(NUMBER.fullmatch(x) for x in fields):
        raise ProtocolError(f"non-numeric field in board string: {line[:120]!r}")
    return [int(x) for x in fields]


FLAGS = {
    38: "player 1's may-double flag",
    39: "player 0's may-double flag",
    40: "the doubled flag",
    51: "the post-Crawford flag",
    52: "the non-Crawford flag",
}


def check_fields(v: list[int], line: str) -> None:
    """ProtocolError unless the numbers of a board string (fields 3 to 52) are within gnubg's
    own limits and agree with one another: a question gnubg itself could ask.  The checker
    fields are checked as a position (parse_board_string)."""
    val = lambda i: v[i - 3]  # noqa: E731  (field index as in the reference table)
    shown = line[:120]

    def refuse(what: str):
        raise ProtocolError(f"{what} in {shown!r}")

    length, scores, cube, turn, dice = (
        val(3),
        (val(4), val(5)),
        val(37),
        val(32),
        (val(33), val(34)),
    )
    if not 0 <= length <= MAX_MATCH_LENGTH:
        refuse(f"match length {length} is not 0 (money) or 1 to {MAX_MATCH_LENGTH} (gnubg's limit)")
    if min(scores) < 0 or max(scores) > MAX_SCORE or (length and max(scores) >= length):
        refuse(
            f"score {scores[0]}-{scores[1]} is not a score of "
            + (f"a {length}-point match in play" if length else "a money session")
        )
    for i, what in FLAGS.items():
        if val(i) not in (0, 1):
            refuse(f"{what} is {val(i)}, not 0 or 1")
    if turn not in (1, -1):
        refuse(f"turn {turn} is not 1 or -1")
    if any(val(i) != c for i, c in CONSTANTS.items()):
        refuse("fields 41 to 44 are not gnubg's 1:-1:0:25")
    if any(val(i) for i in UNFILLED):
        refuse("fields 47 to 50 are not 0 (gnubg leaves them unfilled)")
    _check_cube(val, length, cube, refuse)
    if dice != (0, 0) and (val(40) or not all(1 <= d <= 6 for d in dice)):
        refuse(
            f"dice {dice[0]}-{dice[1]} are not a roll"
            + (" (a take question has none)" if val(40) else "")
        )
    if (val(35), val(36)) != dice:
        # drawboard.c's FIBSBoard writes the roll twice (FIBS's other side's dice)
        refuse(f"fields 35-36 ({val(35)}-{val(36)}) do not repeat the dice {dice[0]}-{dice[1]}")
    crawford, post = val(52) == 0, val(51) == 1
    _check_crawford(length, scores, crawford, post, refuse)
    if crawford and (cube != 1 or val(40)):
        refuse("the Crawford game has no doubling (cube 1, never turned)")
    _check_doubling(val, length, cube, crawford, post, refuse)
    # a point, a bar or a borne-off count holds at most a side's 15 checkers (a count beyond
    # what a machine word holds reached the engine as an OverflowError)
    if any(abs(val(i)) > 15 for i in range(6, 32)) or not all(0 <= val(i) <= 15 for i in (45, 46)):
        refuse("a checker count beyond 15 (a side has 15 checkers)")
    if max(val(45), val(46)) >= 15:
        refuse("the game is over (15 checkers borne off): there is no decision to make")


def _check_crawford(length: int, scores: tuple, crawford: bool, post: bool, refuse) -> None:
    """The Crawford and post-Crawford flags only where play.c sets them: in a match, one at a
    time, with a side 1 away; the Crawford game only while the other side is further (it
    follows the game that first brought a side 1 away; a 1-point match has none)."""
    if not length and (crawford or post):
        refuse("a money session has no Crawford game")
    if crawford and post:
        refuse("a game cannot be the Crawford game and after it")
    if crawford and min(scores) == length - 1:
        refuse(f"the Crawford game at {scores[0]}-{scores[1]} of {length} (both sides 1 away)")
    if (crawford or post) and length - 1 not in scores:
        refuse(
            f"the {'Crawford game' if crawford else 'game after the Crawford game'} at {scores[0]}-{scores[1]} "
            f"of {length} (no side is 1 away)"
        )


def _check_cube(val, length: int, cube: int, refuse) -> None:
    """The cube's value within gnubg's limits, and its owner one the value allows."""
    if cube < 1 or cube > MAX_CUBE or cube & (cube - 1):
        refuse(f"cube {cube} is not a power of 2 from 1 to {MAX_CUBE} (gnubg's limit)")
    if val(38) == val(39) == 0:
        refuse("both may-double flags are 0 (one side owns the cube)")
    if length and cube > 1 and val(38) == val(39) == 1:
        refuse(
            f"a centred cube of {cube} in a match (only a money session's automatic doubles "
            "turn the cube without an owner)"
        )
    if val(40) and cube * 2 > MAX_CUBE:
        refuse(f"a double of cube {cube} is beyond gnubg's {MAX_CUBE}")


def _check_doubling(val, length: int, cube: int, crawford: bool, post: bool, refuse) -> None:
    """A double comes only from a side that may turn the cube (centred or its own), and a
    cube question (no dice, no double pending) is one gnubg asks only when the side on turn
    may double now (play.c: the cube in use, below MAX_CUBE, and eval.c's GetDPEq): the
    cube centred or its own, not the Crawford game, and in a match a cube that is not dead
    for it and not post-Crawford at 1-away; otherwise gnubg rolls for it."""
    if val(40) and val(39) == 0:
        refuse("a double by the side that does not own the cube")
    # play.c's CommandDouble: no double of a dead cube in a match (the doubler's score and the
    # cube reach the match length; a side 1 away after the Crawford game is one such); field
    # 5 is the doubler's score in a take question as in a cube question (parse_board_string)
    if val(40) and length and val(5) + cube >= length:
        refuse(f"a double of a dead cube ({cube} at {val(5)} of {length} for the doubler)")
    if val(40) or (val(33), val(34)) != (0, 0):
        return  # a take or a move question
    ours = val(5)  # a cube question's scores are the asker's then ours (parse_board_string)
    why = (
        "the other side owns the cube"
        if val(38) == 0
        else "the Crawford game"
        if crawford
        else f"cube {cube} is gnubg's last"
        if cube * 2 > MAX_CUBE
        else f"the cube is dead at {ours} of {length}"
        if length and ours + cube >= length
        else "the side on turn is 1-away after the Crawford game"
        if length and post and ours == length - 1
        else None
    )
    if why:
        refuse(f"a cube question where no double is possible ({why})")


@dataclass
class Question:
    kind: str  # "move", "cube" or "take"
    board: np.ndarray  # our view: row 1 = us, row 0 = gnubg
    dice: tuple  # (0, 0) for cube and take questions
    cube: int  # cube value (before a pending double)
    owner: int  # cube owner from our view
    raw: str = ""
    length: int = 0  # match length (0: a money session)
    scores: tuple = (0, 0)  # points we and gnubg have in the match
    crawford: bool = False  # this game is the Crawford game


def _check_bar_signs(f: list[str], line: str) -> None:
    """gnubg writes seat 0's bar (field 6) as minus its count and seat 1's (field 31) as its
    count (drawboard.c's FIBS board); a bar with the other sign is no question gnubg asks, and
    reading its size alone would take it for a legal one."""
    seat0_bar, seat1_bar = _numbers([f[6], f[31]], line)
    if seat0_bar > 0 or seat1_bar < 0:
        raise ProtocolError(f"a bar count with the wrong sign (fields 6 and 31) in {line[:120]!r}")


def parse_board_string(line: str) -> Question:
    """A FIBS board string from gnubg, with us as player 1 (positive checkers)."""
    f = line.strip().split(":")
    if len(f) != FIELDS or f[0] != "board":
        raise ProtocolError(
            f"cannot parse board string from gnubg (not {FIELDS} fields from 'board'): "
            f"{line[:120]!r}"
        )
    v = _numbers(f[3:53], line)
    check_fields(v, line)
    _check_bar_signs(f, line)
    val = lambda i: v[i - 3]  # noqa: E731  (field index as in the reference table)
    board = np.zeros((2, 25), dtype=np.int64)
    for k in range(1, 25):
        n = val(6 + k)
        if n > 0:
            board[1, k - 1] = n
        elif n < 0:
            board[0, 24 - k] = -n
    board[1, 24] = abs(val(31))
    board[0, 24] = abs(val(6))
    try:
        be.check_board(board)
    except ValueError as exc:
        raise ProtocolError(
            f"board string gives an impossible position ({exc}): {line[:120]!r}"
        ) from None
    if board[1].sum() + val(45) != 15 or board[0].sum() + val(46) != 15:
        raise ProtocolError(f"checker counts do not add up to 15 in {line[:120]!r}")
    doubled = val(40) == 1
    dice = (val(33), val(34))
    owner = CUBE_THEIRS if val(38) == 0 else CUBE_MINE if val(39) == 0 else CUBE_CENTERED
    if doubled:
        kind = "take"
    elif dice == (0, 0):
        kind = "cube"
    else:
        kind = "move"
        if not all(1 <= d <= 6 for d in dice):
            raise ProtocolError(f"dice {dice} out of range in {line[:120]!r}")
    # names and scores are gnubg's then ours, except in a take question (ours first)
    scores = (val(4), val(5)) if doubled else (val(5), val(4))
    return Question(kind, board, dice, val(37), owner, line.strip(), val(3), scores, val(52) == 0)


def as_player_one(line: str) -> str:
    """A board string asked of either seat, rewritten as if the asked player sat in seat 1
    (gnubg writes every board from seat 1's side): parse_board_string reads the result as it
    reads our questions in a session we drive (us = seat 1).  The asked player is the one on
    turn, or in a take question the one the doubler faces; for seat 0 the points are mirrored
    (point k <-> 25 - k, signs swapped), the bars, the borne-off counts, the may-double flags,
    the names and the scores exchanged, and the turn negated."""
    f = line.strip().split(":")
    if len(f) != FIELDS or f[0] != "board":
        raise ProtocolError(
            f"cannot parse board string from gnubg (not {FIELDS} fields from 'board'): "
            f"{line[:120]!r}"
        )
    turn, doubled = _numbers([f[32]], line)[0], _numbers([f[40]], line)[0] == 1
    _check_bar_signs(f, line)  # before the rewrite below, which keeps only their sizes
    cells = _numbers(f[6:32], line)
    if (-turn if doubled else turn) > 0:
        return line.strip()
    g = list(f)
    g[1], g[2], g[4], g[5] = f[2], f[1], f[5], f[4]
    for j in range(1, 25):
        g[6 + j] = str(-cells[25 - j])
    g[31], g[6] = str(abs(cells[0])), str(-abs(cells[25]))
    g[32] = str(-turn)
    g[38], g[39] = f[39], f[38]
    g[45], g[46] = f[46], f[45]
    return ":".join(g)


def _keys(boards) -> set:
    return set(be.position_keys(np.asarray(boards).reshape(-1, 2, 25)).tolist())


def gnubg_replies(our_after: np.ndarray) -> set:
    """Keys (our view, us on roll) of every position gnubg can reach by one legal play
    from the position after our move, over all 21 rolls."""
    theirs = be.swap(our_after)
    out, _, _ = movegen.make_expander().expand(
        np.repeat(theirs[None], 21, axis=0), ALL_ROLLS, encode=False
    )
    return _keys(out[:, ::-1])


def opening_positions() -> set:
    """Our first question of a game: the start (we open) or any gnubg opening play."""
    start = be.initial_board()
    rolls = np.array([r for r in ALL_ROLLS if r[0] != r[1]])
    out, _, _ = movegen.make_expander().expand(
        np.repeat(start[None], len(rolls), axis=0), rolls, encode=False
    )
    return _keys(out[:, ::-1]) | _keys(start)


def turns_from_mat(path: str, records: list[GameRecord]) -> list[list]:
    """Each played game's per-turn record (GameRecord.turns, agent A = our seat) from the
    .mat file gnubg exported: the only record of gnubg's own dice.  Raises ProtocolError
    when the file and the games we played disagree (count, our number of moves, cube)."""
    try:
        games = read_mat(path)
    except (OSError, ValueError) as exc:
        raise ProtocolError(f"cannot read gnubg's record {path}: {exc}") from None
    if len(games) != len(records):
        raise ProtocolError(
            f"gnubg's record {path} has {len(games)} games, we played {len(records)}"
        )
    out = []
    for rec, game in zip(records, games, strict=True):
        # seat 1 is us (agent A = mover 0), seat 0 is gnubg (mover 1)
        turns = [
            (1 - seat, dice, event, before, after)
            for seat, dice, event, before, after in game["turns"]
        ]
        ours = sum(1 for t in turns if t[0] == 0 and t[2] == "move")
        if ours != rec.plies or game["cube"] != rec.cube:
            raise ProtocolError(
                f"game {rec.index}: gnubg's record ({ours} of our moves, cube {game['cube']}) "
                f"disagrees with ours ({rec.plies} moves, cube {rec.cube})"
            )
        out.append(turns)
    return out
