"""Jellyfish .mat files, as GNU Backgammon imports them (``import mat FILE``).

``write_mat`` turns recorded games (match.GameRecord with ``turns``) into the
layout gnubg's own exporter uses: a money session (`` 0 point match``) for money
games, a 1-point match per file for DMP.  Seat 0 (left column) is agent A.
``read_mat`` replays a file with our engine and yields every position, so a
written file can be checked move by move.  Format notes: ../shared/reference/mat-format.md.
"""

from __future__ import annotations

import datetime
import re
from itertools import groupby
from typing import Any

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.modes import DMP, GameMode, MatchPlay, for_mode
from tdbg.infra.fileio import write_atomic

LEFT_WIDTH = 27  # gnubg pads the left column to 27 characters plus one space
# the match length a file of the mode's games names: a money session, a DMP game as a 1-point match
MAT_LENGTH = {GameMode: lambda mode: 0, DMP: lambda mode: 1, MatchPlay: lambda mode: mode.length}


def mat_length(mode) -> int:
    """The match length .mat files of ``mode``'s games name (0: a money session)."""
    return for_mode(MAT_LENGTH, mode)(mode)


def _move_text(board, after, dice) -> str:
    """gnubg-style move text: one from/to pair per checker step, 25 = bar, 0 = off, * = hit."""
    move = be.move_for_result(board, dice[0], dice[1], after)
    if move is None:
        raise ValueError(
            f"recorded move is not legal: {be.position_id(board)} {dice} -> {be.position_id(after)}"
        )
    parts = [f"{src}/{dst}{'*' if hit else ''}" for src, dst, hit in be.hit_steps(board, move)]
    # repeated steps as "13/9(2)", which gnubg reads, to keep rows short
    runs = [(p, len(list(same))) for p, same in groupby(parts)]
    return " ".join(p if n == 1 else f"{p}({n})" for p, n in runs)


def game_actions(record) -> list[tuple[int, str]]:
    """(seat, text) for each action of a recorded game, in order."""
    actions = []
    cube = 1
    for seat, dice, event, before, after in record.turns:
        if event == "move":
            d1, d2 = sorted(dice, reverse=True)
            text = f"{d1}{d2}: {_move_text(before, after, dice)}".rstrip()
            actions.append((seat, text))
        elif event == "double":
            cube *= 2
            actions.append((seat, f" Doubles => {cube}"))
        elif event in ("take", "drop"):
            actions.append((seat, " Takes" if event == "take" else " Drops"))
    return actions


def _rows(actions, first_seat: int, right_wins: str = "") -> list[str]:
    """The numbered rows; ``right_wins`` ("Wins N points" of the right-hand player) goes into
    the last row's right column where that row has none (the left-hand player dropped)."""
    slots = [""] * first_seat + [text for _, text in actions]
    if right_wins and len(slots) % 2:
        slots.append(right_wins)
    rows = []
    for k in range(0, len(slots), 2):
        left = slots[k]
        right = slots[k + 1] if k + 1 < len(slots) else ""
        # at least two spaces between the columns: gnubg splits a row without a second
        # dice colon at the first double space
        gap = " " if len(left) < LEFT_WIDTH else "  "
        rows.append(f"{k // 2 + 1:>3}) {left:<{LEFT_WIDTH}}{gap}{right}".rstrip())
    return rows


def format_game(record, number: int, names: tuple[str, str], scores=(0, 0)) -> str:
    if not record.turns:
        raise ValueError("game was not recorded (play with record=True)")
    actions = game_actions(record)
    first_seat = actions[0][0]
    lines = [
        f" Game {number}",
        f" {names[0]} : {scores[0]}".ljust(32) + f"{names[1]} : {scores[1]}",
    ]
    if record.result < 0:
        lines += _rows(actions, first_seat)
        return "\n".join(lines) + "\n"
    winner = 0 if record.points > 0 else 1
    pts = int(abs(record.points))
    wins = f"Wins {pts} {'point' if pts == 1 else 'points'}"
    # the right-hand player's win after the left-hand player's last action (a drop) sits in the
    # right column of that same row, as gnubg's own exporter writes it: on a line of its own
    # gnubg 1.08.003 reads it as a further cube action (a phantom "Beavers => 4" and a 4-point
    # win), so the game it analyses is not the game played
    last_left = (first_seat + len(actions)) % 2 == 1
    if winner == 1 and last_left:
        lines += _rows(actions, first_seat, wins)
    else:
        lines += _rows(actions, first_seat)
        lines.append(" " * (6 if winner == 0 else 34) + wins)
    return "\n".join(lines) + "\n"


def _clean_name(name: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.+-]", "_", name)[:31]
    return name.replace("Game", "G_me") or "player"


def write_mat(path: str, records, names: tuple[str, str], match_length: int = 0) -> None:
    """Write games to one .mat file (``match_length`` 0: money session)."""
    names = (_clean_name(names[0]), _clean_name(names[1]))
    if names[0] == names[1]:
        names = (names[0][:29] + "_1", names[1][:29] + "_2")
    today = datetime.date.today().strftime("%Y.%m.%d")
    out = [f'; [EventDate "{today}"]', "", f" {match_length} point match", ""]
    scores = [0, 0]
    for number, rec in enumerate(records, 1):
        out.append(format_game(rec, number, names, tuple(scores)))
        if rec.points > 0:
            scores[0] += int(abs(rec.points))
        elif rec.points < 0:
            scores[1] += int(abs(rec.points))
    write_atomic(path, "\n".join(out) + "\n")


# --------------------------------------------------------------------------- reading

_ROLL = re.compile(r"^([1-6])([1-6]):(.*)$")


def _split_row(line: str) -> tuple[str, str]:
    """Left and right column texts, split the way gnubg does."""
    body = line.split(")", 1)[1]
    colons = [m.start() for m in re.finditer(r"[1-6][1-6]:", body)]
    if len(colons) >= 2:
        cut = colons[1]
    else:
        cut = body.find("  ", 15)
        if cut < 0:
            return body.strip(), ""
    return body[:cut].strip(), body[cut:].strip()


def read_mat(path: str):
    """Replay every game of a .mat file with our engine.

    Yields one dict per game: ``names``, ``positions`` (the board before each roll,
    side on roll in row 1, with the seat on roll), ``turns`` (every action as
    GameRecord.turns has it, seats for movers: (seat, dice, event, before, after)),
    ``cube`` and ``winner`` (seat, or None if the file does not say).  Raises
    ValueError on an illegal move."""
    games: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    names = ("", "")
    for raw in open(path):
        line = raw.rstrip("\n")
        if re.match(r"^\s*Game \d+", line):
            current = {"names": names, "actions": [], "winner": None, "first": 0}
            games.append(current)
            continue
        if current is None:
            continue
        if " : " in line and not current["actions"] and not re.match(r"^\s*\d+\)", line):
            parts = re.findall(r"(\S+) : \d+", line)
            current["names"] = tuple(parts[:2])
            continue
        m = re.match(r"^\s*\d+\)", line)
        if m:
            left, right = _split_row(line)
            if not current["actions"] and not left:
                current["first"] = 1  # the right-hand player opened
            for col, text in enumerate((left, right)):
                if text.startswith("Wins "):  # a right-hand win in the row of the left-hand drop
                    current["winner"] = col
                elif text:
                    current["actions"].append(text)
            continue
        w = re.match(r"^(\s*)Wins (\d+)", line)
        if w:
            current["winner"] = 0 if len(w.group(1)) < 20 else 1
    return [_replay(g) for g in games]


def _replay(game) -> dict:
    board = be.initial_board()
    seat, cube, positions = game["first"], 1, []
    turns: list[tuple[int, tuple[int, int] | None, str, np.ndarray, np.ndarray | None]] = []
    for text in game["actions"]:
        roll = _ROLL.match(text)
        if roll:
            d1, d2 = int(roll.group(1)), int(roll.group(2))
            positions.append((seat, board.copy()))
            move_text = roll.group(3).strip()
            if move_text:
                steps = []
                for part in move_text.split():
                    m = re.fullmatch(r"(\d+)/(\d+)\*?(?:\((\d)\))?", part)
                    if not m:
                        raise ValueError(f"cannot read move {part!r} in {text!r}")
                    steps += [(int(m.group(1)), int(m.group(2)))] * int(m.group(3) or 1)
                after = be.apply_move(board, steps)
                if not any(np.array_equal(after, nb) for _, nb in be.legal_moves(board, d1, d2)):
                    raise ValueError(f"illegal move {text!r} in position {be.position_id(board)}")
            else:
                moves = be.legal_moves(board, d1, d2)
                if len(moves) != 1:
                    raise ValueError(
                        f"roll {text!r} without a move in position {be.position_id(board)}"
                    )
                after = moves[0][1]
            turns.append((seat, (d1, d2), "move", board.copy(), after))
            if be.game_result(after):
                break
            board = be.swap(after)
            seat = 1 - seat
        elif text.startswith("Doubles"):  # the side on turn doubles; the other side answers
            cube *= 2
            turns.append((seat, None, "double", board.copy(), None))
        elif text.startswith(
            "Takes"
        ):  # boards of cube actions: the doubler's view, as match.py records them
            turns.append((1 - seat, None, "take", board.copy(), None))
        elif text.startswith("Drops"):
            cube //= 2
            turns.append((1 - seat, None, "drop", board.copy(), None))
            break
    return {
        "names": game["names"],
        "positions": positions,
        "turns": turns,
        "cube": cube,
        "winner": game["winner"],
    }
