"""Reading and writing the position formats people paste: GNU Backgammon's Position ID
and Match ID, and eXtreme Gammon's XGID.

Everything is turned into one ``GameState``: the board with the side on roll in row 1
(the project's convention, see backgammon_engine), the dice (or None), the cube value
and its owner from the on-roll side's view (encoding.CUBE_CENTERED/MINE/THEIRS), and
the match context (money when ``match_length`` is 0).

Formats (checked against gnubg's own reading of the same strings in the tests):

* Position ID: 14 base64 characters of gnubg's 80-bit key; the board is seen from
  the player on roll (backgammon_engine.position_id).
* Match ID (gnubg matchid.c): 12 base64 characters of 9 bytes, bit fields written
  least significant bit first: cube log2 (4 bits), cube owner (2: player 0, 1, or 3
  centred), player on roll (1), Crawford (1), game state (3: 1 = playing), player to
  decide (1), double offered (1), resignation (2), die 1 (3), die 2 (3), match length
  (15), score of player 0 (15), score of player 1 (15).
* XGID (gnubg set.c SetXGID): ``XGID=<26 chars>:<cube log2>:<owner>:<turn>:<dice>:
  <score bottom>:<score top>:<rules>:<match length>:<max cube>``.  Character 0 is the
  top player's bar, 1..24 the bottom player's points 1..24, 25 the bottom player's bar;
  upper case A..P = 1..16 bottom checkers, lower case the top player's, '-' empty.
  Owner 1 / -1 / 0 = bottom / top / centred; turn 1 = bottom on roll; dice ``00`` =
  before rolling, ``D`` = a double offered, else the two dice.  gnubg player 1 = bottom.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS

# (name, first bit, width) of the Match ID's fields
_MATCH_FIELDS = (
    ("cube_log2", 0, 4),
    ("owner", 4, 2),
    ("on_roll", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
)
_GNUBG_CENTRED = 3
MAX_CUBE_LOG2 = 12  # a 4-bit field could hold 15; nobody plays a 4096 cube


@dataclass
class GameState:
    board: np.ndarray  # (2, 25), row 1 = the side on roll
    dice: tuple | None = None  # (d1, d2) rolled, or None before the roll
    cube: int = 1
    owner: int = CUBE_CENTERED  # from the on-roll side's view
    doubled: bool = False  # a double has been offered and awaits an answer
    match_length: int = 0  # 0 = money
    score: tuple = (0, 0)  # (side on roll, opponent)
    crawford: bool = False
    jacoby: bool = True  # money only
    on_roll_player: int = 1  # gnubg's player number of the side on roll (IDs round-trip)


def parse_position(text: str) -> GameState:
    """A GameState from ``PositionID``, ``PositionID:MatchID`` (also gnubg's ``GNUbg ID``
    form) or an XGID; ValueError saying what is wrong."""
    text = text.strip()
    if text.upper().startswith("XGID=") or text.count(":") >= 8:
        return parse_xgid(text)
    if text.lower().startswith("gnubg id:"):
        text = text[9:].strip()
    pid, _, mid = text.partition(":")
    board = _board(be.board_from_position_id, pid.strip())
    if not mid.strip():
        return GameState(board)
    state = parse_match_id(mid.strip())
    state.board = board
    return state


def _board(reader, text) -> np.ndarray:
    board = reader(text)
    for side, who in ((1, "the side on roll"), (0, "the opponent")):
        if board[side].sum() == 0:
            raise ValueError(f"{who} has no checkers left: the game is over")
    return board


# --------------------------------------------------------------------------- Match ID

MAX_MATCH_LENGTH = 25  # the match equity table's size (met.MAX_AWAY)


def check_context(s: GameState, where: str) -> GameState:
    """ValueError for a match context no game can reach, whichever ID it came from: a
    match over MAX_MATCH_LENGTH points, a score in a money game, a double pending with
    the dice already rolled (a double comes before the roll), a Crawford game without
    exactly one side 1 point away, or a cube turned in the Crawford game."""
    length, score = s.match_length, tuple(int(x) for x in s.score)
    if length > MAX_MATCH_LENGTH:
        raise ValueError(
            f"{where}: a {length}-point match; match lengths are 1 to {MAX_MATCH_LENGTH} points "
            f"(the match equity table's size)"
        )
    if not length and any(score):
        raise ValueError(f"{where}: a money game has no score (got {score[0]}-{score[1]})")
    if s.doubled and s.dice:
        raise ValueError(
            f"{where}: a double is pending but the dice {s.dice[0]}-{s.dice[1]} are rolled "
            f"(a double comes before the roll)"
        )
    if s.crawford:
        away = [length - x for x in score]
        if away.count(1) != 1:
            raise ValueError(
                f"{where}: the Crawford game needs exactly one side 1 point away "
                f"(score {score[0]}-{score[1]} in a {length}-point match)"
            )
        if s.cube != 1 or s.doubled:
            raise ValueError(
                f"{where}: the cube is not turned in the Crawford game (cube {s.cube}"
                f"{', a double pending' if s.doubled else ''})"
            )
    if (
        s.owner != CUBE_CENTERED and s.cube == 1
    ):  # (a cube above 1 may be centred: automatic doubles)
        raise ValueError(
            f"{where}: an owned cube at 1: a side owns the cube once it took a double (2 or more)"
        )
    if s.doubled and s.owner == CUBE_THEIRS:
        raise ValueError(
            f"{where}: a double is pending from the side on roll, but the cube is its opponent's"
        )
    return s


def _match_bits(mid: str) -> dict:
    if not isinstance(mid, str) or not re.fullmatch(r"[A-Za-z0-9+/]{12}", mid):
        raise ValueError(f"a Match ID is 12 base64 characters, got {mid!r}")
    value = int.from_bytes(base64.b64decode(mid), "little")
    return {name: (value >> start) & ((1 << width) - 1) for name, start, width in _MATCH_FIELDS}


def parse_match_id(mid: str) -> GameState:
    """The match context of a gnubg Match ID (the board comes from the Position ID)."""
    f = _match_bits(mid)
    if f["game_state"] != 1:
        raise ValueError(f"Match ID {mid} is not a game in progress (game state {f['game_state']})")
    if f["cube_log2"] > MAX_CUBE_LOG2:
        raise ValueError(f"Match ID {mid}: cube 2^{f['cube_log2']} is out of range")
    if f["owner"] == 2:
        raise ValueError(f"Match ID {mid}: cube owner field is 2 (only 0, 1 or 3 = centred exist)")
    dice = (f["die1"], f["die2"])
    if dice != (0, 0) and not all(1 <= d <= 6 for d in dice):
        raise ValueError(f"Match ID {mid}: dice {dice[0]}-{dice[1]} out of range")
    length, scores = f["match_length"], (f["score0"], f["score1"])
    if length and max(scores) >= length:
        raise ValueError(
            f"Match ID {mid}: score {scores[0]}-{scores[1]} is not below the match length {length}"
        )
    if not length and f["crawford"]:
        raise ValueError(f"Match ID {mid}: a money game has no Crawford game")
    if f["resigned"]:
        raise ValueError(f"Match ID {mid}: a resignation is pending; give the position before it")
    me = f["on_roll"]
    if f["turn"] != me ^ f["doubled"]:
        raise ValueError(
            f"Match ID {mid}: player {f['turn']} is to act, but player {me} is on roll and "
            f"{'a double is' if f['doubled'] else 'no double is'} pending"
        )
    owner = (
        CUBE_CENTERED
        if f["owner"] == _GNUBG_CENTRED
        else CUBE_MINE
        if f["owner"] == me
        else CUBE_THEIRS
    )
    return check_context(
        GameState(
            np.zeros((2, 25), dtype=np.int64),
            dice if dice != (0, 0) else None,
            1 << f["cube_log2"],
            owner,
            bool(f["doubled"]),
            length,
            (scores[me], scores[1 - me]),
            bool(f["crawford"]),
            on_roll_player=me,
        ),
        f"Match ID {mid}",
    )


def match_id(state: GameState) -> str:
    """gnubg's Match ID of ``state`` (game in progress, no resignation pending)."""
    me = state.on_roll_player
    owner = {CUBE_CENTERED: _GNUBG_CENTRED, CUBE_MINE: me, CUBE_THEIRS: 1 - me}[state.owner]
    scores = (state.score[0], state.score[1]) if me == 0 else (state.score[1], state.score[0])
    d1, d2 = sorted(state.dice or (0, 0), reverse=True)  # gnubg writes the higher die first
    values = {
        "cube_log2": int(state.cube).bit_length() - 1,
        "owner": owner,
        "on_roll": me,
        "crawford": int(state.crawford),
        "game_state": 1,
        "turn": me ^ int(state.doubled),
        "doubled": int(state.doubled),
        "resigned": 0,
        "die1": d1,
        "die2": d2,
        "match_length": state.match_length,
        "score0": scores[0],
        "score1": scores[1],
    }
    bits = 0
    for name, start, width in _MATCH_FIELDS:
        bits |= (int(values[name]) & ((1 << width) - 1)) << start
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def gnubg_id(state: GameState) -> str:
    """``PositionID:MatchID``, the form gnubg's ``set gnubgid`` reads."""
    return f"{be.position_id(state.board)}:{match_id(state)}"


# --------------------------------------------------------------------------- XGID


def _xg_count(ch: str) -> tuple[int, int]:
    """(bottom checkers, top checkers) of one XGID position character."""
    if ch == "-":
        return 0, 0
    if "A" <= ch <= "P":
        return ord(ch) - 64, 0
    if "a" <= ch <= "p":
        return 0, ord(ch) - 96
    raise ValueError(f"{ch!r} is not an XGID checker character (A-P, a-p or -)")


def _xgid_board(pos: str) -> np.ndarray:
    """The board of an XGID's 26 position characters, the bottom player in row 1 (as the
    XGID has it; ``parse_xgid`` turns it to the side on roll); a ValueError for checkers on
    the wrong bar, a board that does not add up, or a side with none left (the game over)."""
    board = np.zeros((2, 25), dtype=np.int64)  # row 1 = bottom player
    for i, ch in enumerate(pos):
        bottom, top = _xg_count(ch)
        if i == 0 and bottom or i == 25 and top:
            raise ValueError(
                f"XGID character {i} is a bar: only the {'top' if i == 0 else 'bottom'} player's checkers go there"
            )
        if bottom:
            board[1, 24 if i == 25 else i - 1] = bottom
        if top:
            board[0, 24 if i == 0 else 24 - i] = top
    board = be.check_board(board)
    for side, who in ((1, "bottom"), (0, "top")):
        if board[side].sum() == 0:
            raise ValueError(f"XGID: the {who} player has no checkers left: the game is over")
    return board


def _check_xgid_fields(turn, owner, cube_log2, s_bottom, s_top, rules, length) -> None:
    """A ValueError naming the first of an XGID's turn, cube owner, cube, score and rules
    fields that is out of range (the rules field's meanings differ between match and money)."""
    if turn not in (1, -1):
        raise ValueError(f"XGID turn must be 1 (bottom) or -1 (top), got {turn}")
    if owner not in (1, 0, -1):
        raise ValueError(f"XGID cube owner must be 1, 0 or -1, got {owner}")
    if not 0 <= cube_log2 <= MAX_CUBE_LOG2:
        raise ValueError(f"XGID cube 2^{cube_log2} is out of range")
    if length < 0 or s_bottom < 0 or s_top < 0 or (length and max(s_bottom, s_top) >= length):
        raise ValueError(f"XGID score {s_bottom}-{s_top} does not fit a match to {length}")
    if rules not in ((0, 1) if length else (0, 1, 2, 3)):
        raise ValueError(
            f"XGID rules field {rules} is not valid for a {'match' if length else 'money game'}"
        )


def _xgid_dice(dice: str) -> tuple[bool, tuple[int, int] | None]:
    """(whether the cube was just offered, the dice rolled or None) of an XGID's dice field:
    "D" (a double offered), "00" (not yet rolled) or two dice 1-6."""
    doubled, rolled = dice == "D", None  # (gnubg's SetXGID refuses "d": it was taken as a double)
    if not doubled:
        if not re.fullmatch(r"[0-6]{2}", dice) or (dice != "00" and "0" in dice):
            raise ValueError(f"XGID dice must be 00, D or two dice 1-6, got {dice!r}")
        if dice != "00":
            rolled = (int(dice[0]), int(dice[1]))
    return doubled, rolled


XGID_NUMBER = re.compile(r"[+-]?[0-9]+")
# the blanks gnubg's atoi skips (C's isspace): str.strip() also took a no-break or an em space,
# before which gnubg reads 0
C_SPACE = " \t\n\v\f\r"


def parse_xgid(text: str) -> GameState:
    body = text.strip()
    if body.upper().startswith("XGID="):
        body = body[5:]
    fields = body.split(":")
    if len(fields) != 10:
        raise ValueError(f"an XGID has 10 ':'-separated fields, got {len(fields)} in {text!r}")
    pos, dice = fields[0], fields[4]
    if len(pos) != 26:
        raise ValueError(f"an XGID position is 26 characters, got {len(pos)}")
    long = [x for x in fields[1:] if len(x) > 4]
    if long:  # gnubg keeps the first four characters of each ("00007" is 0 there, not 7)
        raise ValueError(f"XGID field {long[0]!r} is longer than 4 characters, as gnubg reads them")
    try:
        # ASCII digits only, as gnubg's atoi reads them: int() also takes "1_0" (gnubg: 1) and
        # other scripts' digits such as "\uff17" (gnubg: 0), which read as another position
        if not all(XGID_NUMBER.fullmatch(x.strip(C_SPACE)) for x in fields[1:4] + fields[5:]):
            raise ValueError
        cube_log2, owner, turn, s_bottom, s_top, rules, length, max_cube = (
            int(x.strip(C_SPACE)) for x in fields[1:4] + fields[5:]
        )
    except ValueError:
        raise ValueError(
            f"XGID {text!r}: cube, owner, turn, scores, rules, match length and maximum cube must be "
            f"whole numbers"
        ) from None
    if max_cube < 0:
        raise ValueError(f"XGID maximum cube field {max_cube} is negative")
    board = _xgid_board(pos)
    _check_xgid_fields(turn, owner, cube_log2, s_bottom, s_top, rules, length)
    doubled, rolled = _xgid_dice(dice)
    bottom_on_roll = turn == 1
    if not bottom_on_roll:
        board = be.swap(board)
    scores = (s_bottom, s_top) if bottom_on_roll else (s_top, s_bottom)
    mine = 1 if bottom_on_roll else -1
    owner_view = CUBE_CENTERED if owner == 0 else CUBE_MINE if owner == mine else CUBE_THEIRS
    return check_context(
        GameState(
            board,
            rolled,
            1 << cube_log2,
            owner_view,
            doubled,
            length,
            scores,
            crawford=bool(length and rules == 1),
            jacoby=bool(not length and rules in (1, 3)),
            on_roll_player=1 if bottom_on_roll else 0,
        ),
        "XGID",
    )


def xgid(state: GameState, max_cube_log2: int = 10) -> str:
    """The XGID of ``state``, the side on roll at the bottom (turn 1)."""
    b = state.board
    chars = ["-"] * 26
    for i in range(26):
        mine = b[1, 24] if i == 25 else b[1, i - 1] if 1 <= i <= 24 else 0
        theirs = b[0, 24] if i == 0 else b[0, 24 - i] if 1 <= i <= 24 else 0
        if mine:
            chars[i] = chr(64 + int(mine))
        elif theirs:
            chars[i] = chr(96 + int(theirs))
    owner = {CUBE_CENTERED: 0, CUBE_MINE: 1, CUBE_THEIRS: -1}[state.owner]
    dice = "D" if state.doubled else "00" if not state.dice else f"{state.dice[0]}{state.dice[1]}"
    rules = int(state.crawford) if state.match_length else int(state.jacoby)
    return (
        f"XGID={''.join(chars)}:{int(state.cube).bit_length() - 1}:{owner}:1:{dice}:"
        f"{state.score[0]}:{state.score[1]}:{rules}:{state.match_length}:{max_cube_log2}"
    )
