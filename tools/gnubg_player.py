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

from tdbg.infra.stop_signals import exit_on_signals  # first: a signal during the imports ends in one line
exit_on_signals(__name__)

import os
import socket
import sys
import threading

from tdbg.app import cli
from tdbg.game.modes import game_mode, mode_class
from tdbg.gnubg.gnubg_external import agent_state, answer
from tdbg.gnubg.gnubg_protocol import ProtocolError, as_player_one, parse_board_string
from tdbg.infra.stop_signals import StopSignalHandler
from tdbg.net.search import Search
from tdbg.play.players import Player, build_agent, checkpoint_game_mode

SERVED = ("cubeful-money", "match")


class Stop(Exception):
    """SIGTERM or SIGINT: stop serving."""


class GnubgPlayer:
    """The model's answers to gnubg's questions, one agent per kind of game asked for, each
    looking as deep as ``search`` says."""

    def __init__(self, model: str, jacoby: bool = True, search: Search = Search()):
        kind = checkpoint_game_mode(model)
        if kind not in SERVED:
            raise cli.UsageError(f"{model} is a {kind or 'DMP'} model; gnubg_player.py serves the models that make "
                                 f"cube decisions: cubeful money (money games with the cube) and match play")
        self.model, self.kind, self.jacoby = model, kind, jacoby
        self.player = Player(model, search)
        self._agents = {}
        self._lock = threading.Lock()
        self.default_length = mode_class(kind).length_of(None)   # 0: money games; a match model's 7
        self.agent_for(self.default_length)   # load (and check) the checkpoint now

    def agent_for(self, length: int):
        """(agent, mode) for a money game (length 0) or a match of ``length`` points."""
        if length == 0 and self.default_length:
            raise ProtocolError("this player is a match model: start a match in gnubg (new match 7), "
                                "not a money session")
        if length not in self._agents:
            mode = game_mode("match", match_length=length) if length else game_mode("cubeful-money", self.jacoby)
            self._agents[length] = (build_agent(self.player, mode), mode)
        return self._agents[length]

    def reply(self, line: str) -> str:
        """The answer to one board string from gnubg (either seat)."""
        q = parse_board_string(as_player_one(line))
        if q.length > 25:
            raise ProtocolError(f"a {q.length}-point match is longer than the match tables (25 points)")
        with self._lock:
            agent, mode = self.agent_for(q.length)
            away = (q.length - q.scores[0], q.length - q.scores[1]) if q.length else (0, 0)
            text, _ = answer(agent, mode, q, agent_state(mode, q.owner, q.cube, q.crawford, away))
        return text


def serve_connection(conn: socket.socket, player: Player, log) -> None:
    """Answer one gnubg connection until gnubg closes it.  A question we cannot answer gets a
    reply starting `Error: ` (gnubg prints it and waits; nothing else would keep it from
    crashing or stalling silently) and one line on our stderr."""
    buf = b""
    with conn:
        while True:
            try:
                chunk = conn.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk.replace(b"\x00", b"")
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                line = raw.decode(errors="replace").strip()
                if not line:
                    continue
                try:
                    text = player.reply(line)
                except ProtocolError as exc:
                    msg = " ".join(str(exc).split())
                    log(f"warning: {msg}")
                    text = f"Error: {msg}"
                try:
                    conn.sendall((text + "\n").encode())
                except OSError:
                    return


def serve(player: Player, sock: socket.socket, log, stop: threading.Event) -> None:
    """Accept gnubg's connections (one per external seat) until ``stop`` is set."""
    sock.settimeout(0.2)
    while not stop.is_set():
        try:
            conn, addr = sock.accept()
        except socket.timeout:
            continue
        except OSError:
            return
        conn.settimeout(None)
        log(f"gnubg connected from {addr[0]}:{addr[1]}")

        def run(c=conn, a=addr):
            serve_connection(c, player, log)
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
    sock.listen(4)
    return sock


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="checkpoint (.pt) of a cubeful money or a match model")
    p.add_argument("--port", type=cli.count_arg(65535, "(TCP ports are 1 to 65,535)"), required=True,
                   help="TCP port gnubg connects to (`set player N external localhost:PORT`)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (0.0.0.0: reachable from other machines too)")
    p.add_argument("--jacoby", action=cli.argparse.BooleanOptionalAction, default=True,
                   help="money games under the Jacoby rule; must match gnubg's `set jacoby`")
    p.add_argument("--oneply", action="store_true", help="look one ply ahead (slower, stronger)")
    p.add_argument("--oneply-k", type=cli.positive_int, default=None,
                   help="with --oneply: look ahead from the model's K best moves only (default: all)")
    return p


def main() -> None:
    args = build_parser().parse_args()
    if args.oneply_k is not None and not args.oneply:
        raise cli.UsageError("--oneply-k needs --oneply")
    player = GnubgPlayer(args.model, args.jacoby, Search(args.oneply, oneply_k=args.oneply_k))
    sock = listen(args.host, args.port)
    prog = os.path.basename(sys.argv[0])

    def log(text: str) -> None:
        print(f"{prog}: {text}", file=sys.stderr, flush=True)

    def on_term(signum, frame):
        raise Stop()
    stop = threading.Event()
    shown = "localhost" if args.host in ("127.0.0.1", "0.0.0.0") else args.host
    try:
        with StopSignalHandler(on_term):   # SIGINT by hand too (stop_signals says why)
            print(f"serving {args.model} ({player.kind}) on {args.host}:{args.port}; in gnubg: "
                  f"set player 0 external {shown}:{args.port}   (Ctrl-C stops)", flush=True)
            serve(player, sock, log, stop)
    except (KeyboardInterrupt, Stop):
        pass
    finally:
        stop.set()
        sock.close()
    print("stopped; port released", flush=True)
    sys.stderr.flush()
    # exit at once: the connection threads' native state (torch's, from agents built in them)
    # can abort the interpreter's shutdown ("terminate called without an active exception",
    # SIGABRT) after everything is done; nothing is left to write
    os._exit(0)


if __name__ == "__main__":
    cli.run_main(main)
