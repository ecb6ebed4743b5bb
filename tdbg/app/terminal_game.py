"""``tdbg play CHECKPOINT``: a game against a trained net in the terminal.

The human plays X from the bottom of a gnubg-like board (terminal_board), types moves in
the usual notation (terminal_moves: ``8/5 6/5``, ``bar/22``, ``6/off``, ``13/7(2)``), asks
for a ``hint`` (the net's ranking of every legal play, or its cube analysis before the
roll), doubles, takes or passes with a cubeful or match net, resigns or quits.  The net's
plays are printed in the same notation.  The dice come from a seed (``--seed``: the same
seed, the same dice); a money or DMP net plays ``--games`` games, a match net one match of
``--match-length`` points with the Crawford rule.

Everything the net decides goes through ``net_player``, the one adapter onto the players'
interface (tdbg.play); the rest is the game's bookkeeping, read from the net's game mode
(cube rule, points, match state) and the players' move generator.
"""

from __future__ import annotations

import secrets
import signal
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tdbg.app import cli, settings_flags
from tdbg.app.terminal_board import HUMAN as HUMAN_MARK, draw
from tdbg.app.terminal_turns import HUMAN, NET, Game, Outcome, Quit, human_turn, net_turn
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import DiceStream
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.heads import output_head
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.matchplay import DEFAULT_MATCH_LENGTH
from tdbg.infra.settings_fields import derived, option
from tdbg.play import analysis
from tdbg.play.matches import Score, match_length


@dataclass(frozen=True)
class TerminalSettings:
    checkpoint: str = derived(None, "the net to play (a .pt checkpoint)")
    ply: int = option(
        0,
        "how far the net looks ahead (0 or 1 ply) for its plays, its cube and the hints",
        type=int,
        choices=(0, 1),
    )
    seed: int | None = option(
        None,
        "seed of the dice: the same seed, the same dice (default: a fresh one, printed "
        "at the start)",
        type="seed_arg",
    )
    games: int = option(1, "games to play with a money or DMP net", type="positive_int")
    match_length: int | None = option(
        None, "a match net: points of the match (1-25; default 7)", type="match_length_arg"
    )


# --------------------------------------------------------------------------- the net


@dataclass(frozen=True)
class Net:
    """What the game asks of the net: boards have the net's side on roll in row 1, ``state``
    is the mode's cube state from the net's (or, for ``cube``, the doubler's) view."""

    name: str
    mode: GameMode
    output_mode: str
    plies: int
    cube_capable: bool
    move: Callable  # (board, dice, state) -> board after its play
    hint: Callable  # (board, dice, state) -> every legal play ranked (analysis.rank_moves)
    cube: (
        Callable  # (board, state) -> the cube decision of the side on roll (analysis.cube_decision)
    )


def net_player(path: str, plies: int, match_length: int) -> Net:
    """The one adapter onto the players' interface (tdbg.play): the checkpoint's agent in its
    own game mode (a match net in ``match_length``-point matches), at ``plies``."""
    agent = analysis.load_agent(path, plies, match_length)
    return Net(
        name="tdbg",
        mode=agent.mode,
        output_mode=agent.model.output_mode,
        plies=plies,
        cube_capable=bool(agent.cube_capable),
        move=lambda b, dice, s: agent.choose_moves(b[None], np.array([dice]), np.array([s]))[0],
        hint=lambda b, dice, s: analysis.rank_moves(agent, b, dice, s),
        cube=lambda b, s: analysis.cube_decision(agent, b, s),
    )


# --------------------------------------------------------------------------- one game


def read_line(prompt: str) -> str:
    """The line typed after ``prompt``, without its newline; EOFError at end of input.

    Not ``input()``: its line reader stops at a NUL byte typed into a terminal and leaves the
    rest of the line pending, so the first Ctrl-D after such a line did nothing.  A plain read
    of the terminal takes the line whole (the NUL is then one more character of a move that
    does not parse) and a Ctrl-D at once."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line[:-1] if line.endswith("\n") else line


class Session:
    """A money or DMP session of games, or a match, against ``net``, talking through
    ``ask`` (a prompt -> the line typed) and ``say``."""

    def __init__(self, net: Net, s: TerminalSettings, seed: int, ask=read_line, say=print):
        self.net, self.s, self.seed, self.ask, self.say = net, s, seed, ask, say
        self.match = Score(match_length(net.mode)) if match_length(net.mode) else None
        self.totals = [0, 0]
        self.games_played = 0

    # ---- the cube state and the score, as the mode reads them
    def state(self, game: Game, mover: int) -> int:
        """The mode's cube state from ``mover``'s view (match play: with the score)."""
        code = (
            CUBE_CENTERED
            if game.owner is None
            else CUBE_MINE
            if game.owner == mover
            else CUBE_THEIRS
        )
        away = (self.match.away[mover], self.match.away[1 - mover]) if self.match else (0, 0)
        return int(self.net.mode.mover_state(code, game.cube, game.crawford, away)[0])

    def may_double(self, game: Game, mover: int) -> bool:
        if not self.net.cube_capable or game.turn == 0:
            return False
        return bool(
            self.net.mode.may_double(np.array([self.state(game, mover)]), np.array([game.cube]))[0]
        )

    def score_line(self, game: Game | None = None) -> str:
        if self.match:
            (me, them), length = self.match.away, match_length(self.net.mode)
            crawford = " (Crawford game)" if game is not None and game.crawford else ""
            return (
                f"Match to {length}: you {length - me}, {self.net.name} {length - them}{crawford}"
            )
        return f"Score ({self.net.mode.name}): you {self.totals[0]:g}, {self.net.name} {self.totals[1]:g}"

    def cube_line(self, game: Game) -> str:
        if not self.net.cube_capable:
            return "No cube (the net plays without one)"
        owner = {None: "centred", HUMAN: "yours", NET: f"{self.net.name}'s"}[game.owner]
        return f"Cube: {game.cube} ({owner})"

    def show(self, game: Game, mover: int) -> None:
        on_roll = "You are on roll" if mover == HUMAN else f"{self.net.name} is on roll"
        pid = be.position_id(game.board if mover == HUMAN else be.swap(game.board))
        self.say(
            f"\n Position ID: {pid}\n"
            + draw(
                game.board,
                ("you", f"{self.net.name} ({self.s.checkpoint})"),
                self.cube_line(game),
                self.score_line(game),
                on_roll,
            )
        )

    def accepts_resignation(self, game: Game, level: int, play_on: float) -> bool:
        """Whether the net accepts the human's resignation of ``level`` (1/2/3): when the human
        would get no more by it than by playing on (``play_on``, the net's value of the
        human's position, in the net's units)."""
        return (
            resignation_value(self.net.output_mode, self.net.mode, level, self.state(game, NET))
            <= play_on + 1e-9
        )

    def roll(self, game: Game) -> tuple[int, int]:
        d = game.dice.roll(game.turn)
        return int(d[0]), int(d[1])

    def points(self, game: Game, winner: int, result: int) -> int:
        """Points of a game ``winner`` won with game_result ``result`` (1/2/3): the mode's
        (Jacoby: gammons count once the cube is turned), times the cube."""
        state = np.array([self.state(game, winner)])
        return int(self.net.mode.points(np.array([result]), state)[0]) * game.cube

    # ---- the game
    def play_game(self, index: int) -> Outcome:
        crawford = bool(self.match and self.match.crawford)
        game = Game(be.initial_board(), DiceStream(self.seed, index), crawford)
        d_you, d_net = self.roll(game)
        mover = HUMAN if d_you > d_net else NET
        self.say(
            f"\nGame {index + 1}. You roll {d_you}, {self.net.name} rolls {d_net}: "
            f"{'you move' if mover == HUMAN else self.net.name + ' moves'} first."
        )
        while True:
            outcome = (human_turn if mover == HUMAN else net_turn)(self, game)
            if outcome is not None:
                return outcome
            game.turn += 1
            mover = 1 - mover

    def finish(self, outcome: Outcome) -> None:
        who = "You win" if outcome.winner == HUMAN else f"{self.net.name} wins"
        points = outcome.points
        if self.match:
            points = self.match.game_won(outcome.winner, points)
        else:
            self.totals[outcome.winner] += points
        self.say(
            f"{who} {outcome.how}: {points} point{'s' if points != 1 else ''}.  {self.score_line()}"
        )

    def play(self) -> None:
        """Games until the session's count is played or the match is over (Quit ends it early)."""
        while (
            self.match is None
            and self.games_played < self.s.games
            or self.match
            and not self.match.over
        ):
            self.finish(self.play_game(self.games_played))
            self.games_played += 1
        if self.match:
            won = self.match.away[HUMAN] <= 0
            self.say(f"{'You win' if won else self.net.name + ' wins'} the match.")


def resignation_value(output_mode: str, mode, level: int, winner_state: int) -> float:
    """The loser's value, in the units of a net with ``output_mode``, of a game given up at
    ``level`` (1/2/3) to the winner, whose cube state is ``winner_state``: the mode's value
    of a finished game (Jacoby, the match score and the cube included), seen by the loser."""
    head = output_head(output_mode)
    won = mode.terminal_values(head, np.array([level]), np.array([winner_state]))
    return float(head.scalar(head.flip(won))[0])


def seed_of(s: TerminalSettings) -> int:
    return s.seed if s.seed is not None else secrets.randbelow(2**32)


def run(s: TerminalSettings, ask=read_line, say=print) -> int:
    """The game(s) of ``s``; the exit code (0, or 130 after Ctrl-C at a prompt)."""
    net = load_net(s)
    seed = seed_of(s)
    session = Session(net, s, seed, ask, lambda text: say(text, flush=True))
    say(
        f"You ({HUMAN_MARK}) against {s.checkpoint} ({net.mode.name}, {net.plies}-ply); dice seed {seed}.  "
        f"Type help for the commands.",
        flush=True,
    )
    try:
        session.play()
    except Quit:
        say(f"Quit.  {session.score_line()}", flush=True)
    except EOFError:
        say("", flush=True)
    except (
        KeyboardInterrupt
    ) as exc:  # one line, as Ctrl-C gives everywhere; the score, as Quit does
        if getattr(exc, "signum", signal.SIGINT) != signal.SIGINT:
            raise  # SIGTERM (stop_signals.Terminated): one line and 143, as from every script
        say("", flush=True)
        say(f"Stopped (Ctrl-C).  {session.score_line()}", flush=True)
        return cli.INTERRUPTED
    return 0


def load_net(s: TerminalSettings) -> Net:
    """The net of ``s.checkpoint``; UsageError where the settings do not fit it."""
    net = net_player(s.checkpoint, s.ply, s.match_length or DEFAULT_MATCH_LENGTH)
    if s.match_length is not None and not match_length(net.mode):
        raise cli.UsageError(
            f"--match-length is for match nets; {s.checkpoint} is a {net.mode.name} net"
        )
    if match_length(net.mode) and s.games != 1:
        raise cli.UsageError(
            "--games is for money and DMP nets; a match net plays one match (--match-length)"
        )
    return net


def build_parser() -> cli.Parser:
    p = cli.Parser(  # named as it was called: play_terminal.py, or tdbg play (which sets argv[0])
        description="Play a game of backgammon against a trained net in the terminal.",
    )
    p.add_argument(
        "checkpoint",
        help="the net to play (a .pt checkpoint, e.g. best_models/cubeful_256x3_from_1ply.pt)",
    )
    settings_flags.add_arguments(p, TerminalSettings)
    return p


def main(argv: list[str] | None = None) -> None:
    """``tdbg play``: the flags, one line and exit code 2 for bad input, then the game."""

    def go() -> None:
        args = build_parser().parse_args(argv)
        code = run(settings_flags.build(TerminalSettings, args, checkpoint=args.checkpoint))
        if code:
            sys.exit(code)

    cli.run_main(go)
