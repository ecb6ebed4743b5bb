#!/usr/bin/env python3
"""Serve a checkpoint as GNU Backgammon's external player, so that a person can play it (or
watch it play) in gnubg's own window: gnubg connects to this port and asks the model for every
decision of its seat, until Ctrl-C.

    python tools/gnubg_player.py best_models/cubeful_256x3.pt --port 31400
    # then, in gnubg:  set player 0 external localhost:31400   (and `new session` or `new match 7`)

A cubeful money model plays money games with the cube (in a match it plays by its money rules,
blind to the score); a match model plays matches of any length up to 25, reading the score and
the Crawford game from gnubg's questions, and refuses money games.  gnubg does not tell its
external player the Jacoby rule: --jacoby/--no-jacoby must match gnubg's `set jacoby`.  Either
seat works; each question is answered from the board gnubg sends, so undo, edited positions and
several games or gnubg processes in turn are fine.  docs/gnubg_player.md has the gnubg commands.
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import os
import signal
import socket
import sys
import threading

from tdbg.app import cli
from tdbg.game import backgammon_engine as be
from tdbg.game.modes import game_mode
from tdbg.game.modes.matchplay import DEFAULT_MATCH_LENGTH
from tdbg.gnubg.gnubg_external import agent_state, answer
from tdbg.gnubg.gnubg_protocol import ProtocolError, as_player_one, parse_board_string
from tdbg.infra.stop_signals import StopSignalHandler, ignore_further_interrupts
from tdbg.net.search import Search
from tdbg.play.matches import match_length
from tdbg.play.players import Player, checkpoint_game_mode
from tdbg.play.seating import evaluator

SERVED = ("cubeful-money", "match")
MAX_LINE = 4096  # bytes of one question (gnubg's are about 200)
# gnubg reads a reply into 256 bytes (external.c's ExternalRead, play.c's szResponse): a longer one
# leaves its tail in the socket, read as the answer to gnubg's next question
MAX_REPLY = 255  # bytes before the newline
MAX_CONNECTIONS = 64  # served at once (gnubg opens one per external seat)
BACKLOG = (
    128  # connections the system holds until they are accepted (4 dropped most of 200 at once)
)


class Stop(Exception):
    """SIGTERM or SIGINT: stop serving."""


class GnubgPlayer:
    """The model's answers to gnubg's questions, one agent per kind of game asked for, each
    looking as deep as ``search`` says."""

    def __init__(
        self, model: str, jacoby: bool = True, search: Search = Search(), show_values: bool = True
    ):
        kind = checkpoint_game_mode(model)
        if kind not in SERVED:
            raise cli.UsageError(
                f"{model} is a {kind or 'DMP'} model; gnubg_player.py serves the models that make "
                f"cube decisions: cubeful money (money games with the cube) and match play"
            )
        self.model, self.kind, self.jacoby, self.show_values = model, kind, jacoby, show_values
        self.player = Player(model, search)
        self._agents = {}
        self._lock = threading.Lock()
        # 0: money games; a match model's 7
        self.default_length = match_length(game_mode(kind, jacoby, DEFAULT_MATCH_LENGTH))
        self.agent_for(self.default_length)  # load (and check) the checkpoint now

    def agent_for(self, length: int):
        """(agent, mode) for a money game (length 0) or a match of ``length`` points."""
        if length == 0 and self.default_length:
            raise ProtocolError(
                "this player is a match model: start a match in gnubg (new match 7), "
                "not a money session"
            )
        if length not in self._agents:
            mode = (
                game_mode("match", match_length=length)
                if length
                else game_mode("cubeful-money", self.jacoby)
            )
            self._agents[length] = (evaluator(self.player, mode), mode)
        return self._agents[length]

    def reply(self, line: str) -> tuple[str, str]:
        """(the answer, a line that shows it) to one board string from gnubg (either seat)."""
        q = parse_board_string(as_player_one(line))
        if q.length > 25:
            raise ProtocolError(
                f"a {q.length}-point match is longer than the match tables (25 points)"
            )
        with self._lock:
            agent, mode = self.agent_for(q.length)
            away = (q.length - q.scores[0], q.length - q.scores[1]) if q.length else (0, 0)
            state = agent_state(mode, q.owner, q.cube, q.crawford, away)
            text, after = answer(agent, mode, q, state)
            value = self._value(agent, mode, q, state, after) if self.show_values else None
        shown = "" if value is None else f"{value:+.3f}"
        return text, decision_line(q, text, shown)

    @staticmethod
    def _value(agent, mode, q, state, after) -> float | None:
        """The model's value of the decision it made, for the net (money: equity per cube;
        match: match-winning chance): the position it leaves after a move, the cube node of
        a cube or take question.  None where the agent gives no values in this game (a money
        model playing a match by its money rules)."""
        if not hasattr(agent, "cube_action"):
            return None
        if after is None:
            board, seen = (
                (q.board, state)
                if q.kind == "cube"
                else (be.swap(q.board), mode.for_opponent(state))
            )
            value = float(agent.cube_action(board[None], seen).value[0])
            return value if q.kind == "cube" else (1 - value if q.length else -value)
        theirs = float(agent.cube_action(be.swap(after)[None], mode.for_opponent(state)).value[0])
        return 1 - theirs if q.length else -theirs


def decision_line(q, text: str, value: str) -> str:
    """One decision as the player's screen shows it: what was asked, in which position (our
    engine's position ID, gnubg's own), the answer and its value."""
    asked = {
        "move": f"move {q.dice[0]}{q.dice[1]}",
        "cube": "cube",
        "take": f"take of a double to {2 * q.cube}",
    }
    score = (
        f" at {q.scores[0]}-{q.scores[1]} of {q.length}" + (" (Crawford)" if q.crawford else "")
        if q.length
        else ""
    )
    return f"{asked[q.kind]}, position {be.position_id(q.board)}{score}: {text or '(no move)'}" + (
        f"  (value {value})" if value else ""
    )


class Log:
    """Whole lines to a stream from any thread: one write per line, under a lock (lines
    printed by connection threads at once came out interleaved).  ``failed``: where a write
    fails (stdout's reader gone, a full disk), the error is kept and ``failed`` is set, so that
    the player ends as every script does (quietly with 141, or one error line) instead of the
    connection thread dying with a traceback and gnubg's question unanswered."""

    def __init__(self, stream, prefix: str = "", failed: threading.Event | None = None):
        self.stream, self.prefix, self._lock = stream, prefix, threading.Lock()
        self.failed, self.error = failed, None

    def __call__(self, text: str) -> None:
        with self._lock:
            if self.error is not None:
                return
            try:
                self.stream.write(f"{self.prefix}{text}\n")
                self.stream.flush()
            except OSError as exc:
                if self.failed is None:
                    raise
                self.error = exc
                self.failed.set()


def _refusal(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _answer_line(player: GnubgPlayer, line: str, log, show) -> str:
    """The reply to one line: the answer, or `Error: ...` (gnubg prints it and waits; any
    other reply makes it crash or stall silently) for a question we cannot answer."""
    try:
        text, shown = player.reply(line)
    except (
        ProtocolError,
        ValueError,
    ) as exc:  # an impossible question, or one the model cannot play
        log(f"warning: {_refusal(exc)}")
        return f"Error: {_refusal(exc)}"
    except Exception as exc:  # noqa: BLE001 - a bug must not close gnubg's connection unanswered
        log(f"warning: could not answer ({type(exc).__name__}: {_refusal(exc)})")
        return f"Error: the player could not answer ({type(exc).__name__})"
    show(shown)
    return text


def serve_connection(conn: socket.socket, player: GnubgPlayer, log, show=lambda line: None) -> None:
    """Answer one gnubg connection until gnubg closes it, one line per question.  A line
    longer than MAX_LINE bytes, its newline seen yet or not (however TCP split it), gets an
    `Error:` reply and the connection is closed: the buffer stays bounded, and each byte is
    scanned for the newline once."""
    buf, scanned = bytearray(), 0
    with conn:
        while True:
            try:
                chunk = conn.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk.replace(b"\x00", b"")
            while (end := buf.find(b"\n", scanned)) >= 0:
                if end > MAX_LINE:  # however the bytes arrived: the newline in the same read too
                    break
                line = bytes(buf[:end]).decode(errors="replace").strip()
                del buf[: end + 1]
                scanned = 0
                if line and not _send(conn, _answer_line(player, line, log, show)):
                    return
            scanned = len(buf)
            if end > MAX_LINE or (end < 0 and scanned > MAX_LINE):
                log(f"warning: a line longer than {MAX_LINE:,} bytes; connection closed")
                _send(
                    conn,
                    f"Error: a question longer than {MAX_LINE:,} bytes (gnubg's are about 200)",
                )
                return


def _send(conn: socket.socket, text: str) -> bool:
    """One reply line, cut to MAX_REPLY bytes (on a character boundary) so that gnubg reads
    all of it and nothing of it is left for its next question."""
    data = text.encode()[:MAX_REPLY].decode(errors="ignore").encode()
    try:
        conn.sendall(data + b"\n")
        return True
    except OSError:
        return False


def serve(
    player: GnubgPlayer, sock: socket.socket, log, stop: threading.Event, show=lambda line: None
) -> None:
    """Accept gnubg's connections (one per external seat) until ``stop`` is set, at most
    MAX_CONNECTIONS at once: one more gets an `Error:` reply and is closed."""
    sock.settimeout(0.2)
    slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
    while not stop.is_set():
        try:
            conn, addr = sock.accept()
        except socket.timeout:
            continue
        except OSError:
            return
        conn.settimeout(None)
        if not slots.acquire(blocking=False):
            log(f"warning: {addr[0]}:{addr[1]} refused: {MAX_CONNECTIONS} connections are open")
            with conn:
                _send(
                    conn,
                    f"Error: the player serves {MAX_CONNECTIONS} connections at once; try again later",
                )
            continue
        log(f"gnubg connected from {addr[0]}:{addr[1]}")

        def run(c=conn, a=addr):
            try:
                serve_connection(c, player, log, show)
            finally:
                slots.release()
            log(f"gnubg at {a[0]}:{a[1]} closed its connection")

        threading.Thread(target=run, daemon=True).start()


def listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise cli.UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(BACKLOG)
    return sock


def _stdout_failed(error: OSError) -> None:
    """End as every script ends when standard output cannot be written: quietly with 141 when
    its reader went away (``| head``), else one error line and 2; the port is closed already.
    os._exit, as main's own end (its comment says why)."""
    if not isinstance(error, BrokenPipeError):
        sys.stderr.write(
            f"{os.path.basename(sys.argv[0])}: error: cannot write standard output "
            f"({error.strerror or error}); port released\n"
        )
        sys.stderr.flush()
        os._exit(cli.FAILED)
    sys.stderr.flush()
    os._exit(cli.READER_GONE)


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="checkpoint (.pt) of a cubeful money or a match model")
    p.add_argument(
        "--port",
        type=cli.count_arg(65535, "(TCP ports are 1 to 65,535)"),
        required=True,
        help="TCP port gnubg connects to (`set player N external localhost:PORT`)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (0.0.0.0: reachable from other machines too)",
    )
    p.add_argument(
        "--jacoby",
        action=cli.argparse.BooleanOptionalAction,
        default=True,
        help="money games under the Jacoby rule; must match gnubg's `set jacoby`",
    )
    p.add_argument("--oneply", action="store_true", help="look one ply ahead (slower, stronger)")
    p.add_argument(
        "--oneply-k",
        type=cli.positive_int,
        default=None,
        help="with --oneply: look ahead from the model's K best moves only (default: all)",
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no line per decision (what was asked, the position ID, the answer and its value)",
    )
    return p


def main() -> None:
    args = build_parser().parse_args()
    if args.oneply_k is not None and not args.oneply:
        raise cli.UsageError("--oneply-k needs --oneply")
    player = GnubgPlayer(
        args.model,
        args.jacoby,
        Search(args.oneply, oneply_k=args.oneply_k),
        show_values=not args.quiet,
    )
    sock = listen(args.host, args.port)
    stop = threading.Event()  # set by a stop signal's way out, or by a failed write of stdout
    log, say = Log(sys.stderr, f"{os.path.basename(sys.argv[0])}: "), Log(sys.stdout, failed=stop)

    def on_term(signum, frame):
        ignore_further_interrupts()  # the first signal says how the player ends
        raise Stop(signum)

    ended_by = signal.SIGINT
    shown = "localhost" if args.host in ("127.0.0.1", "0.0.0.0") else args.host
    try:
        with StopSignalHandler(on_term):  # SIGINT by hand too (stop_signals says why)
            say(
                f"serving {args.model} ({player.kind}) on {args.host}:{args.port}; in gnubg: "
                f"set player 0 external {shown}:{args.port}   (Ctrl-C stops)"
            )
            serve(player, sock, log, stop, (lambda line: None) if args.quiet else say)
    except KeyboardInterrupt:
        pass
    except Stop as exc:
        ended_by = exc.args[0]
    finally:
        stop.set()
        sock.close()
    if say.error is not None:  # stdout failed (serve ended on it): as cli.run_main ends then
        _stdout_failed(say.error)
    name = signal.Signals(ended_by).name
    say(f"stopped ({name}); port released")
    sys.stderr.flush()
    # exit at once: the connection threads' native state (torch's, from agents built in them)
    # can abort the interpreter's shutdown ("terminate called without an active exception",
    # SIGABRT) after everything is done; nothing is left to write.  The code is the shell's for
    # a process the signal ended (130, 143), as every script gives it
    os._exit(128 + ended_by)


if __name__ == "__main__":
    cli.run_main(main)
