"""Our agent as GNU Backgammon's external player, over a local TCP socket.

We listen on 127.0.0.1, start ``gnubg -t -q -r`` with a generated command script
on stdin (gnubg = seat 0, us = seat 1, money session, Jacoby, no beavers), and
gnubg connects.  At each of our decisions gnubg sends a FIBS board string; we
answer with a move, ``roll``/``double`` or ``take``/``drop``.  gnubg makes its own
checker plays and native cube decisions.  Points per game come from gnubg's own
result lines ("X wins a gammon and 4 points."), read through a pseudo-terminal so
they arrive as each game ends.

Every board string is checked against our engine: the position must be one that
gnubg can legally reach from the last position we know (some roll, some legal
move), or the start of the next game; the dice and the cube must agree.  A
disagreement stops the run with both positions printed.  Finished games are
handed to ``on_game`` as they end, so a crash later loses nothing already played.
Reading what gnubg says (board strings, result lines, its .mat record): gnubg_protocol.py.
Protocol notes: ../shared/reference/gnubg-external-player.md.
"""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.cubeful_money import CubefulMoney
from tdbg.gnubg.gnubg_binary import GnubgError, preflight
from tdbg.gnubg.gnubg_protocol import (
    GNUBG_NAME,
    MATCH_LINE,
    OUR_NAME,
    RESIGN_ACCEPTED,
    RESULT_LINE,
    ProtocolError,
    Question,
    _keys,
    gnubg_replies,
    opening_positions,
    parse_board_string,
)
from tdbg.gnubg.gnubg_rules import gnubg_plays, session_rules
from tdbg.infra.workers import end_group, own_group_dies_with_us
from tdbg.play.match import GameRecord
from tdbg.play.evaluator import Evaluator
from tdbg.play.matfile import mat_length
from tdbg.play.matches import MatchRecord, Score
from tdbg.play.model_fit import check_agent

LEVELS = {
    "gnubg-ext": [
        "set player 0 chequerplay evaluation plies 0",
        "set player 0 cubedecision evaluation plies 0",
    ],
    # 1-ply, full width: no pruning nets, every legal move scored at 1 ply
    "gnubg-ext-full": [
        "set player 0 chequerplay evaluation plies 1",
        "set player 0 cubedecision evaluation plies 1",
        "set player 0 chequerplay evaluation prune off",
        "set player 0 cubedecision evaluation prune off",
        "set player 0 movefilter 1 0 -1",
    ],
}


MAX_QUESTION = 4096  # bytes of one question from gnubg (its board strings are under 256)
MAX_OUTPUT_LINE = 65536  # bytes of one line of gnubg's terminal output we keep


@dataclass(frozen=True)
class GnubgOpponent:
    """The gnubg binary as our opponent: how it plays (a key of LEVELS), which binary,
    ``gnubg`` (None: gnubg_binary.preflight's default), and how long we wait for it,
    ``gnubg_timeout`` (seconds): named as the scripts' settings (--gnubg, --gnubg-timeout)
    that give them."""

    level: str = "gnubg-ext"
    gnubg: str | None = None
    gnubg_timeout: float = 60.0


@dataclass
class _Game:
    index: int
    cube: int = 1
    owner: int = CUBE_CENTERED
    expected: set = field(default_factory=set)
    last_board: np.ndarray | None = None
    our_after: np.ndarray | None = None
    plies: int = 0
    doubles: list = field(default_factory=lambda: [0, 0])  # by us, by gnubg
    takes: list = field(default_factory=lambda: [0, 0])
    drops: list = field(default_factory=lambda: [0, 0])
    our_record: float | None = None  # points from our side, as we saw the game end
    pending_double: bool = False  # we doubled and have not yet seen gnubg's answer
    away: tuple = (0, 0)  # match play: points we and gnubg need before this game
    crawford: bool = False  # match play: this is the Crawford game


def _feed(stdin, script: bytes) -> None:
    """Write gnubg's whole script and close its stdin; a gnubg that died stops it quietly
    (the session reports the lost connection)."""
    try:
        stdin.write(script)
        stdin.close()
    except OSError:  # BrokenPipeError included
        pass


class GnubgSession:
    """One gnubg process playing ``n_games`` against ``agent`` (seat 1)."""

    def __init__(
        self,
        agent: Evaluator,
        opponent: GnubgOpponent = GnubgOpponent(),
        mode: GameMode | None = None,
        seed: int = 0,
        first_index: int = 0,
        mat_path: str | None = None,
        match_mat_paths: list[str] | None = None,
    ):
        """``opponent``: the gnubg it runs (a GnubgOpponent, e.g. a series' GnubgSide, whole).
        ``mode``: a money mode (default cubeful money with Jacoby); its points score our
        record of each game, and the agent decides through the policy interface (agents.py).
        ``seed``: gnubg's dice; ``first_index``: the index of the first game's record.
        ``mat_path``: gnubg exports the session's record there at the end (a money session;
        in match play only the last match).  ``match_mat_paths``: match play, gnubg exports
        each match's record to the next path as soon as the match ends."""
        mode = mode or CubefulMoney()
        if opponent.level not in LEVELS:
            raise ValueError(f"unknown gnubg level {opponent.level!r}; choose {', '.join(LEVELS)}")
        if not gnubg_plays(mode):
            raise ValueError(
                f"games against the gnubg binary are money games or matches, not {mode.name}"
            )
        check_agent(mode, agent)
        self.agent, self.level, self.mode = agent, opponent.level, mode
        self.seed, self.timeout, self.first_index = seed, opponent.gnubg_timeout, first_index
        self.info = preflight(opponent.gnubg, quiet=True, timeout=opponent.gnubg_timeout)
        self.mat_path = (
            mat_path  # where gnubg exports the session's record (with its dice), if given
        )
        if match_mat_paths is not None and not self.plays_matches:
            raise ValueError("match_mat_paths: only match play exports one record per match")
        if any(any(c.isspace() for c in p) for p in match_mat_paths or ()):
            raise ValueError("gnubg's export command takes a path without blanks")
        self.match_mat_paths = match_mat_paths
        self._openings = opening_positions()
        self.matches: list[MatchRecord] = []  # match play: finished matches, in order
        self._match: MatchRecord | None = None
        self._match_winners: list[str] = []  # match play: who gnubg says won each match
        self._accepted = False  # the game about to be scored ended by an accepted resignation

    @property
    def plays_matches(self) -> bool:
        """Whether gnubg plays whole matches, one game after another (else a money session)."""
        return mat_length(self.mode) > 0

    def _script(self, port: int, n_games: int) -> str:
        # 1.08 renames both seats to the default names at `new session` (1.07 keeps them): set both
        match = self.plays_matches
        lines = [
            "set sound enable off",
            f"set defaultnames {GNUBG_NAME} {OUR_NAME}",
            f"set player 0 name {GNUBG_NAME}",
            "set player 0 gnubg",
            *LEVELS[self.level],
            f"set player 1 name {OUR_NAME}",
            f"set player 1 external 127.0.0.1:{port}",
            *session_rules(self.mode),
            "set display off",
            f"set seed {self.seed}",
        ]
        if match:  # n_games counts matches
            for k in range(n_games):
                lines.append(f"new match {mat_length(self.mode)}")
                if self.match_mat_paths:
                    lines.append(f"export match mat {self.match_mat_paths[k]}")
        else:
            lines.append("new session")
            lines += ["new game"] * (n_games - 1)
        lines.append("show score")
        if self.mat_path:
            lines.append(f"export match mat {self.mat_path}")
        return "\n".join(lines) + "\n"

    # ----------------------------------------------------------------- running

    def play(self, n_games: int, on_game=None) -> list[GameRecord]:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        port = srv.getsockname()[1]
        master, slave = pty.openpty()  # a terminal: gnubg flushes each result line at once
        proc = subprocess.Popen(
            [self.info["binary"], "-t", "-q", "-r"],
            stdin=subprocess.PIPE,
            stdout=slave,
            stderr=slave,
            close_fds=True,
            preexec_fn=own_group_dies_with_us(),  # its group ends with it (end_group)
        )
        os.close(slave)
        results: list = []
        lines: list = []
        reader = threading.Thread(
            target=self._read_output, args=(master, results, lines), daemon=True
        )
        reader.start()
        records: list[GameRecord] = []
        # gnubg reads its script as it plays: written in one go, a long one (thousands of games)
        # fills the pipe while gnubg waits on our first move, so a thread feeds it
        feeder = threading.Thread(
            target=_feed, args=(proc.stdin, self._script(port, n_games).encode()), daemon=True
        )
        feeder.start()
        finished = False
        try:
            conn = self._accept(srv, proc, lines)
            conn.settimeout(self.timeout)
            self._serve(conn, n_games, results, records, on_game, proc, lines)
            finished = True
        finally:
            srv.close()
            # after the games gnubg ends its script by itself (its record exported); on an error or
            # Ctrl-C it is ended at once: SIGTERM, then SIGKILL after a second
            end_group(proc, grace=1.0, wait=self.timeout if finished else 0.0)
            reader.join(timeout=5)
            os.close(master) if _fd_open(master) else None
        if self.plays_matches:
            ours = [OUR_NAME if m.winner == 0 else GNUBG_NAME for m in self.matches]
            if ours != self._match_winners[: len(ours)]:
                raise ProtocolError(
                    f"our record of the match winners ({', '.join(ours)}) differs from gnubg's "
                    f"({', '.join(self._match_winners)})"
                )
        return records

    def _accept(self, srv: socket.socket, proc: subprocess.Popen, lines: list) -> socket.socket:
        """gnubg's connection to ``srv``; GnubgError when gnubg exits before it connects (it
        was waited for to the end of --gnubg-timeout, then named as not connecting) or when
        it does not connect within the timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            srv.settimeout(min(0.5, max(deadline - time.monotonic(), 0.001)))
            try:
                return srv.accept()[0]
            except socket.timeout:
                pass
            if proc.poll() is not None:
                said = f": {lines[-1]}" if lines else ""
                raise GnubgError(f"gnubg exited (code {proc.returncode}) before it connected{said}")
            if time.monotonic() >= deadline:
                raise GnubgError(f"gnubg did not connect within {self.timeout:g} s")

    def _read_output(self, fd: int, results: list, lines: list) -> None:
        buf = b""
        while True:
            try:
                r, _, _ = select.select([fd], [], [], 1.0)
                if not r:
                    continue
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            *done, buf = buf.split(b"\n")
            if len(buf) > MAX_OUTPUT_LINE:  # no line of gnubg's is this long: keep its start
                done, buf = [*done, buf[:MAX_OUTPUT_LINE]], b""
            for raw in done:
                self.read_line(raw.decode(errors="replace").strip(), results, lines)

    def read_line(self, text: str, results: list, lines: list) -> None:
        """One line of gnubg's output: a game's result (name, kind, points, whether it
        ended by an accepted resignation, announced on the line before), a match's winner."""
        lines.append(text)
        m = RESULT_LINE.search(text)
        if m:
            results.append((m.group(1), m.group(2), int(m.group(3)), self._accepted))
            self._accepted = False
        self._accepted = self._accepted or bool(RESIGN_ACCEPTED.search(text))
        m = MATCH_LINE.search(text)
        if m:
            self._match_winners.append(m.group(1))

    def units_done(self, records) -> int:
        """What a series of this mode counts, finished so far: matches, or the games ``records``."""
        return len(self.matches) if self.plays_matches else len(records)

    def _serve(self, conn, n_games, results, records, on_game, proc, out_lines) -> None:
        buf = b""
        game = self._new_game(self.first_index)
        # the stall clock runs from gnubg's last question, not its last byte: a gnubg that sends
        # only NULs or blank lines asks nothing, and was never timed (the run hung)
        asked = time.monotonic()
        while self.units_done(records) < n_games:
            if time.monotonic() - asked > self.timeout:
                raise GnubgError(
                    f"no question from gnubg for {self.timeout:.0f} s (stalled: it sent only NUL "
                    f"bytes or blank lines) in game {game.index}"
                )
            try:
                chunk = conn.recv(4096)
            except socket.timeout:
                raise GnubgError(
                    f"no message from gnubg for {self.timeout:.0f} s (stalled) in game {game.index}"
                ) from None
            except (ConnectionResetError, BrokenPipeError):
                chunk = b""  # a killed gnubg may reset the connection instead of closing it
            if not chunk:
                self._wait_results(results, len(records) + 1, 5.0)
                game = self._close_finished(game, results, records, on_game, require=False)
                if self.units_done(records) >= n_games:
                    return
                code = proc.poll()
                tail = " | ".join(out_lines[-3:])
                raise GnubgError(
                    f"gnubg closed the connection during game {game.index}"
                    f"{f' (exit code {code})' if code is not None else ''}: {tail}"
                )
            buf += chunk.replace(b"\x00", b"")
            if b"\n" not in buf and len(buf) > MAX_QUESTION:
                # gnubg writes a board into 256 bytes: a longer line is no question, and
                # collecting it without a bound (rescanning it at each read) hung the run
                raise ProtocolError(
                    f"gnubg sent {len(buf):,} bytes without a newline in game {game.index} "
                    f"(its questions are under 256): {bytes(buf[:80])!r}"
                )
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                if not raw.strip():
                    continue
                asked = time.monotonic()
                q = parse_board_string(raw.decode(errors="replace"))
                game = self._check(q, game, results, records, on_game)
                try:
                    conn.sendall((self._answer(q, game) + "\n").encode())
                except (ConnectionResetError, BrokenPipeError):
                    pass  # gnubg is gone; the next recv reports it with the game number

    # ----------------------------------------------------------------- state checks

    def _wait_results(self, results, count, seconds) -> None:
        end = time.time() + seconds
        while len(results) < count and time.time() < end:
            time.sleep(0.01)

    def _close_finished(self, game, results, records, on_game, require=True):
        """Record the game gnubg has just scored; returns the next game's state."""
        self._wait_results(results, len(records) + 1, 10.0 if require else 0.5)
        if len(results) <= len(records):
            if require:
                raise ProtocolError(
                    f"game {game.index}: a new game started but gnubg reported no result"
                )
            return game
        name, kind, points, resigned = results[len(records)]
        if name not in (OUR_NAME, GNUBG_NAME):
            raise ProtocolError(
                f"game {game.index}: gnubg scored it for {name!r}, neither {OUR_NAME!r} nor {GNUBG_NAME!r}"
            )
        ours = points if name == OUR_NAME else -points
        if game.pending_double:  # gnubg answered our double by dropping
            game.drops[1] += 1
            game.pending_double = False
            game.our_record = float(game.cube)
        # gnubg resigned (our seat accepts its backgammon offers): the game ended on neither our move
        # nor a drop, yet gnubg scores it for us.  With `set display off` gnubg does not print the
        # acceptance, so this is how it shows; its scoring is then the only record.
        resigned = resigned or (game.our_record is None and name == OUR_NAME)
        if resigned and game.our_record is None:
            game.our_record = float(ours)
        if game.our_record is None:
            game.our_record = self._our_view_of_gnubg_win(game)
        result = (
            0 if game.drops != [0, 0] else {"single game": 1, "gammon": 2, "backgammon": 3}[kind]
        )
        rec = GameRecord(
            game.index,
            1,
            float(ours),
            result,
            game.cube,
            game.plies,
            tuple(game.doubles),
            tuple(game.takes),
            tuple(game.drops),
        )
        rec.our_record = game.our_record
        rec.resigned = resigned
        records.append(rec)
        if (
            self.plays_matches
        ):  # first, so that on_game sees the match it may have ended in self.matches
            self._score_game(game, rec)
        if on_game:
            on_game(rec)
        return self._new_game(game.index + 1)

    # ----------------------------------------------------------------- match play

    def _new_game(self, index: int) -> _Game:
        game = _Game(index)
        game.expected = set(self._openings)
        if self.plays_matches:
            if self._match is None:  # a match begins (we are side 0 of the score, gnubg side 1)
                self._match = MatchRecord(
                    self.first_index + len(self.matches), -1, mat_length(self.mode)
                )
                self._score = Score(mat_length(self.mode))
            game.away, game.crawford = tuple(self._score.away), self._score.crawford
        return game

    def _score_game(self, game: _Game, rec: GameRecord) -> None:
        """Our record of the match: the game's points up to what its winner needs, the
        Crawford game when a player first reaches 1-away, the match's end."""
        m = self._match
        assert m is not None  # _new_game began the match this game belongs to
        winner = 0 if rec.points > 0 else 1
        won = self._score.game_won(winner, int(abs(rec.points)))
        m.games.append(
            (won if winner == 0 else -won, rec.result, rec.cube, game.crawford, *game.away)
        )
        for key in ("doubles", "takes", "drops"):
            setattr(
                m,
                key,
                tuple(a + b for a, b in zip(getattr(m, key), getattr(rec, key), strict=True)),
            )
        if self._score.over:
            m.winner = winner
            self.matches.append(m)
            self._match = None

    def _state(self, game: _Game, owner: int) -> np.ndarray:
        """The cube state our agent sees (mover's view), from our record of the game."""
        return agent_state(self.mode, owner, game.cube, game.crawford, game.away)

    def _our_view_of_gnubg_win(self, game) -> float:
        """Points (negative) gnubg scores when its last move ends the game, from our last position."""
        mine = game.our_after if game.our_after is not None else game.last_board
        if mine is None:
            return float("nan")
        # our checkers do not move after our last turn: the final position is that one with
        # gnubg's row emptied, and game_result scores it (from our side, so negative)
        final = np.stack([np.zeros(25, dtype=np.int64), mine[1]])
        return float(self.mode.points(be.game_result(final), game.owner)) * game.cube

    def _check(self, q: Question, game, results, records, on_game):
        key = be.position_keys(q.board[None])[0]
        if q.kind == "take":
            # gnubg doubles before rolling: the position is the one our last move left
            ok = (
                game.our_after is not None
                and key == be.position_keys(game.our_after[None])[0]
                and game.our_record is None
            )
        else:
            ok = key in game.expected
        if not ok and q.kind != "take" and key in self._openings:
            # the previous game ended (gnubg's last move or a drop) and a new one began
            game = self._close_finished(game, results, records, on_game)
            ok = True
        if not ok:
            want = be.position_id(game.our_after) if game.our_after is not None else "the start"
            raise ProtocolError(
                f"game {game.index}: gnubg sent position {be.position_id(q.board)} ({q.kind} question), which our "
                f"engine cannot reach from {want}\n  gnubg: {q.raw}\n  ours:  last position {want}, "
                f"{len(game.expected)} legal continuations"
            )
        if game.pending_double and q.kind == "move":  # our double was taken
            game.pending_double = False
            game.takes[1] += 1
            game.cube *= 2
            game.owner = CUBE_THEIRS
        if q.cube != game.cube:
            raise ProtocolError(
                f"game {game.index}: gnubg says the cube is {q.cube}, we have {game.cube}\n  {q.raw}"
            )
        if q.kind != "take" and self.mode.cubeful and q.owner != game.owner:
            raise ProtocolError(
                f"game {game.index}: cube owner differs (gnubg {q.owner}, ours {game.owner})\n  {q.raw}"
            )
        if self.plays_matches:
            ours = (
                mat_length(self.mode),
                tuple(mat_length(self.mode) - a for a in game.away),
                game.crawford,
            )
            if (q.length, q.scores, q.crawford) != ours:
                raise ProtocolError(
                    f"game {game.index}: gnubg has the match at length {q.length}, score "
                    f"{q.scores[0]}-{q.scores[1]} (ours first), Crawford {q.crawford}; we have "
                    f"{ours[0]}, {ours[1][0]}-{ours[1][1]}, Crawford {ours[2]}\n  {q.raw}"
                )
        game.last_board = q.board
        return game

    # ----------------------------------------------------------------- answers

    def _answer(self, q: Question, game) -> str:
        b = q.board
        try:
            text, after = answer(self.agent, self.mode, q, self._state(game, game.owner))
        except ProtocolError as exc:
            raise ProtocolError(f"game {game.index}: {exc}") from None
        if q.kind == "cube":
            double = text == "double"
            if double:
                game.doubles[0] += 1
            # after our cube action the same position comes back as a move question
            # (or, if gnubg drops, the next game starts)
            game.expected = _keys(b)
            game.pending_double = double
        elif q.kind == "take":
            game.doubles[1] += 1
            if text == "take":
                game.takes[0] += 1
                game.cube *= 2
                game.owner = CUBE_MINE
                game.our_after = b
                game.expected = gnubg_replies(b)
            else:
                game.drops[0] += 1
                game.our_record = -float(game.cube)
                game.expected = set()
        else:
            assert after is not None  # answer gives a move question the position the move leaves
            game.plies += 1
            game.our_after = after
            result = be.game_result(after)
            if result:
                game.our_record = float(self.mode.points(result, game.owner)) * game.cube
                game.expected = set()
            else:
                game.expected = gnubg_replies(after)
        return text


def agent_state(
    mode: GameMode, owner: int, cube: int, crawford: bool = False, away: tuple = (0, 0)
) -> np.ndarray:
    """The cube state our agent sees as the mover: the cube's owner (money), or in match play the
    packed match state (matchplay.py) from the cube, the Crawford flag and the points each
    side needs (ours first)."""
    return mode.mover_state(owner, cube, crawford, away)


def answer(agent, mode: GameMode, q: Question, state: np.ndarray) -> tuple[str, np.ndarray | None]:
    """Our reply to one of gnubg's questions, decided by ``agent`` in ``mode`` with the cube
    state ``state`` (agent_state, our view): ("roll" or "double", None) to a cube question,
    ("take" or "drop", None) to gnubg's double, else the move in gnubg's notation and the
    position it leaves.  ProtocolError if the agent's move is not legal (a bug, not gnubg's)."""
    b = q.board
    if q.kind == "cube":
        return ("double" if agent.double_decisions(b[None], state)[0] else "roll"), None
    if q.kind == "take":
        # the doubler is on turn: decide from its view
        return (
            "take"
            if agent.take_decisions(be.swap(b)[None], mode.for_opponent(state))[0]
            else "drop"
        ), None
    after = agent.choose_moves(b[None], np.array([q.dice]), state)[0]
    move = be.move_for_result(b, q.dice[0], q.dice[1], after)
    if move is None:
        raise ProtocolError(f"our agent chose an illegal move in {be.position_id(b)}")
    return be.format_move(b, move), after


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
