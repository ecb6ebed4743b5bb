"""The turns of a terminal game (terminal_game): the human's (cube, roll, typed play, hint,
resign) and the net's (its cube decision, its play printed in the usual notation).

``session`` is terminal_game.Session: the net, the prompts (``ask``, ``say``), the board's
drawing and the cube state and points as the net's game mode reads them.  A turn returns
the game's Outcome when the game ends in it, else None with ``game`` moved on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdbg.app.terminal_moves import EXAMPLES, legal_plays, parse_play, play_leading_to
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import DiceStream
from tdbg.play.analysis import format_cube, format_moves

HUMAN, NET = 0, 1
HINT_LINES = 10  # plays a move hint lists
RESULTS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
RESIGN_LEVELS = {"": 1, "single": 1, "s": 1, "gammon": 2, "g": 2, "backgammon": 3, "b": 3}
HELP = (
    f"Type a move in the usual notation, {EXAMPLES} (the * of a hit is optional).\n"
    "Commands: hint (the net's ranking of your plays, or its cube analysis before the roll), board, "
    "resign [single|gammon|backgammon], quit; before the roll, with a cube: roll (or Enter), double."
)


class Quit(Exception):
    """The human typed quit."""


@dataclass
class Game:
    """One game: the board with the human in row 1, the dice, the cube and the plies played."""

    board: np.ndarray
    dice: DiceStream
    crawford: bool = False
    cube: int = 1
    owner: int | None = None  # HUMAN, NET or None (centred)
    turn: int = 0


@dataclass(frozen=True)
class Outcome:
    winner: int
    points: int  # the winner's, cube included (match play: before the match caps them)
    how: str


def _ask(session, prompt: str) -> str:
    return session.ask(prompt).strip().lower()


def _value(c: dict, v: float) -> str:
    return f"{v:.4f}" if c["units"] == "MWC" else f"{v:+.3f}"


def _after_play(session, game: Game, mover: int, after) -> Outcome | None:
    """The game after ``mover``'s play (``after``: the mover in row 1): its end, or the board
    kept from the human's side."""
    result = be.game_result(after)
    if result > 0:
        return Outcome(mover, session.points(game, mover, result), RESULTS[result])
    game.board = np.asarray(after) if mover == HUMAN else be.swap(after)
    return None


def _command(session, game: Game, cmd: str, mover: int, play_on=None) -> Outcome | None:
    """The commands every prompt takes: help, board, quit, and at the human's own prompts
    resign (``play_on()``: the net's value of the human's position, played on, in its units)."""
    word, _, rest = cmd.partition(" ")
    if word in ("help", "?"):
        session.say(HELP)
    elif word == "board":
        session.show(game, mover)
    elif word in ("quit", "q", "exit"):
        raise Quit
    elif word == "resign" and play_on is not None:
        level = RESIGN_LEVELS.get(rest.strip())
        if level is None:
            session.say("Resign single, gammon or backgammon (resign alone: a single game).")
            return None
        if not session.accepts_resignation(game, level, play_on()):
            session.say(
                f"You offer to resign {RESULTS[level]}; {session.net.name} declines: it expects more by "
                "playing on."
            )
            return None
        session.say(f"You resign {RESULTS[level]}; {session.net.name} accepts.")
        return Outcome(NET, session.points(game, NET, level), "as you resign")
    else:
        session.say(f"Unknown command {cmd!r}; type help for the commands and the move notation.")
    return None


# --------------------------------------------------------------------------- the human


def human_turn(session, game: Game) -> Outcome | None:
    """Cube (when the human may double), roll, then the play the human types."""
    session.show(game, HUMAN)
    if session.may_double(game, HUMAN):
        outcome = _before_roll(session, game)
        if outcome is not None:
            return outcome
    dice = session.roll(game)
    session.say(f"You roll {dice[0]}-{dice[1]}.")
    plays = legal_plays(game.board, dice)
    if len(plays) == 1:
        play = plays[0]
        session.say(f"Your only play: {play.text}." if play.steps else "You cannot move.")
    else:
        play = _ask_play(session, game, dice, plays)
        if isinstance(play, Outcome):
            return play
    return _after_play(session, game, HUMAN, play.after)


def _before_roll(session, game: Game) -> Outcome | None:
    while True:
        cmd = _ask(session, "Roll or double? (roll, double, hint, board, resign, quit) [roll]: ")
        if cmd in ("", "r", "roll"):
            return None
        if cmd in ("d", "double", "redouble"):
            return _human_doubles(session, game)
        if cmd == "hint":
            session.say(
                format_cube(
                    session.net.cube(game.board, session.state(game, HUMAN)), session.net.plies
                )
            )
            continue
        outcome = _command(
            session,
            game,
            cmd,
            HUMAN,
            lambda: session.net.cube(game.board, session.state(game, HUMAN))["proper"],
        )
        if outcome is not None:
            return outcome


def _human_doubles(session, game: Game) -> Outcome | None:
    c = session.net.cube(game.board, session.state(game, HUMAN))  # the net answers as the taker
    name = session.net.name
    reason = f"(for {name}: take {_value(c, c['taker_take'])}, pass {_value(c, c['taker_pass'])})"
    if not c["take"]:
        session.say(f"You double to {2 * game.cube}; {name} passes {reason}.")
        return Outcome(HUMAN, game.cube, f"as {name} passes")
    game.cube, game.owner = 2 * game.cube, NET
    session.say(f"You double to {game.cube}; {name} takes {reason}.")
    return None


def _ask_play(session, game: Game, dice, plays):
    """The legal play the human types (re-asked after an illegal one), or an Outcome (resign)."""
    while True:
        text = _ask(session, f"Your move ({dice[0]}-{dice[1]}): ")
        word = text.partition(" ")[0]
        if word == "hint":
            ranked = session.net.hint(game.board, dice, session.state(game, HUMAN))
            more = (
                f"\n  ({len(ranked)} legal plays; the best {HINT_LINES} shown)"
                if len(ranked) > HINT_LINES
                else ""
            )
            session.say(
                format_moves(ranked[:HINT_LINES], session.net.output_mode, session.net.plies) + more
            )
            continue
        if not text:
            session.say(f"Type your move, {EXAMPLES}; help for the commands.")
            continue
        if word in ("roll", "r", "double", "d", "take", "pass"):
            session.say(
                f"You have rolled {dice[0]}-{dice[1]}: type your move (the cube is turned before the roll)."
            )
            continue
        if word in ("help", "?", "board", "quit", "q", "exit", "resign"):
            outcome = _command(
                session,
                game,
                text,
                HUMAN,
                lambda: session.net.hint(game.board, dice, session.state(game, HUMAN))[0]["value"],
            )
            if outcome is not None:
                return outcome
            continue
        try:
            return parse_play(text, game.board, dice, plays)
        except ValueError as exc:
            session.say(
                f"Illegal move: {exc}.  Type hint for the legal plays ranked, help for the notation."
            )


# --------------------------------------------------------------------------- the net


def net_turn(session, game: Game) -> Outcome | None:
    """The net's cube decision (when it may double), its roll and its play, printed."""
    board = be.swap(game.board)
    if session.may_double(game, NET):
        c = session.net.cube(board, session.state(game, NET))
        if c["action"].startswith(("double", "redouble")):
            outcome = _net_doubles(session, game, c)
            if outcome is not None:
                return outcome
    dice = session.roll(game)
    after = session.net.move(board, dice, session.state(game, NET))
    play = play_leading_to(legal_plays(board, dice), after)
    done = f"plays {play.text}" if play.steps else "cannot move"
    session.say(f"{session.net.name} rolls {dice[0]}-{dice[1]} and {done}.")
    return _after_play(session, game, NET, after)


def _net_doubles(session, game: Game, c: dict) -> Outcome | None:
    name = session.net.name
    verb = "redoubles" if game.owner == NET else "doubles"
    session.show(game, NET)
    session.say(
        f"{name} {verb} to {2 * game.cube}.  Its cube analysis: no double {_value(c, c['no_double'])}, "
        f"double/take {_value(c, c['double_take'])}, double/pass {_value(c, c['double_pass'])}."
    )
    while True:
        cmd = _ask(session, "Take or pass? (take, pass, hint, board, quit): ")
        if cmd in ("t", "take"):
            game.cube, game.owner = 2 * game.cube, HUMAN
            session.say(f"You take; the cube is at {game.cube}, yours.")
            return None
        if cmd in ("p", "pass", "drop"):
            return Outcome(NET, game.cube, "as you pass")
        if cmd == "hint":
            session.say(format_cube(c, session.net.plies))
        elif cmd.startswith("resign"):
            session.say("To give up the game here, pass.")
        else:
            _command(session, game, cmd, NET)
