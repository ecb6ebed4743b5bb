"""tools/gnubg_player.py: a checkpoint served as GNU Backgammon's external player.

Without the binary: the seat-0 board strings read as the asked player sees them, bad input,
the `Error:` reply to a game the model does not play, and a clean stop on Ctrl-C or SIGTERM
that frees the port.  With the binary (`make gnubg`): gnubg plays money games against the
released cubeful model in either seat and a short match against the released match model,
and gnubg's own record of those games (its .mat export, replayed by our engine) shows every
move of ours legal and every pass forced (gnubg plays a move it cannot read as no move)."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from helpers import ROOT, assert_one_line_error, run
from tdbg.game import backgammon_engine as be
from tdbg.gnubg.gnubg_binary import installed_binaries
from tdbg.gnubg.gnubg_protocol import ProtocolError, as_player_one, parse_board_string
from tdbg.play.matfile import read_mat

TOOL = "tools/gnubg_player.py"
CUBEFUL = "best_models/cubeful_256x3_from_1ply.pt"  # the released cubeful money model
MATCH = "best_models/match_512x2x256_hold2.pt"  # the released match model
# the protocol notes' seat-0 question (gnubg-external-player.md, section 9): seat 1 opened 53
# (8/3 6/3), seat 0 ("extzero", our seat) is to play 55 from the starting position
SEAT0 = (
    "board:extzero:root:0:0:0:0:-2:0:2:0:0:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:5:5:5:5:1:1:1:0:1:"
    "-1:0:25:0:0:0:0:0:0:0:1"
)
# seat 0 doubles (2 -> 4) and asks seat 1: written from seat 1's side already
TAKE_SEAT1 = (
    "board:extbot:gnubg:0:0:0:0:3:1:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-2:-1:0:-1:0:0:0:0:2:0:1:1:1:-1:"
    "0:25:11:12:0:0:0:0:0:1"
)
OPENING_SEAT1 = (
    "board:gnubg:td:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:2:1:2:1:1:1:1:0:1:"
    "-1:0:25:0:0:0:0:0:0:0:1"
)


def test_a_seat0_question_reads_as_that_player_sees_it():
    q = parse_board_string(as_player_one(SEAT0))
    assert q.kind == "move" and q.dice == (5, 5) and q.cube == 1 and q.length == 0
    assert (q.board[1] == be.initial_board()[1]).all()  # we have not moved yet
    theirs = np.zeros(25, dtype=int)
    theirs[[2, 5, 7, 12, 23]] = [2, 4, 2, 5, 2]  # their 3, 6, 8, 13 and 24 points
    assert q.board[0].tolist() == theirs.tolist()
    assert as_player_one(TAKE_SEAT1) == TAKE_SEAT1 and as_player_one(OPENING_SEAT1) == OPENING_SEAT1
    # the mirror is its own inverse: seat 1's question written for seat 0 and back
    f = OPENING_SEAT1.split(":")
    f[32] = "-1"
    mirrored = as_player_one(":".join(f))
    g = mirrored.split(":")
    g[32] = "-1"
    assert as_player_one(":".join(g)).split(":")[6:32] == OPENING_SEAT1.split(":")[6:32]


@pytest.mark.parametrize(
    "args, words",
    [
        (["best_models/missing.pt", "--port", "31999"], "no such checkpoint"),
        (
            ["best_models/dmp_256x3.pt", "--port", "31999"],
            "serves the models that make cube decisions",
        ),
        ([CUBEFUL], "--port"),
        ([CUBEFUL, "--port", "0"], "at least 1"),
        ([CUBEFUL, "--port", "70000"], "65,535"),
        ([CUBEFUL, "--port", "x"], "whole number"),
        ([CUBEFUL, "--port", "31999", "--oneply-k", "8"], "--oneply-k needs --oneply"),
    ],
)
def test_bad_input_is_one_error_line(args, words):
    assert_one_line_error(run(TOOL, *args), words)


def test_a_port_in_use_is_one_error_line():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert_one_line_error(run(TOOL, CUBEFUL, "--port", port), "cannot listen")


def _ask(port: int, line: str) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=300) as c:
        c.sendall(line.encode() + b"\n\x00")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = c.recv(4096)
            assert chunk, "the player closed the connection without answering"
            buf += chunk
    return buf.decode().strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(model: str, port: int, sigint_ignored: bool = False) -> subprocess.Popen:
    """``sigint_ignored``: started as a shell's background job is, with SIGINT ignored (Python
    then installs no KeyboardInterrupt handler of its own)."""
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    proc = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, TOOL), model, "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ignore,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    line = proc.stdout.readline()  # printed once the port is open
    assert (
        line.startswith(f"serving {model}") and f"set player 0 external localhost:{port}" in line
    ), (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc


def _stop(proc: subprocess.Popen, sig=signal.SIGINT) -> tuple[int, str, str]:
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()  # a hang fails the test, and leaves nothing running
        proc.communicate()
        raise
    return proc.returncode, out, err


@pytest.mark.parametrize(
    "sig, sigint_ignored", [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)]
)
def test_it_answers_until_stopped_then_frees_the_port(sig, sigint_ignored):
    port = _free_port()
    proc = _start(CUBEFUL, port, sigint_ignored)
    try:
        match7 = OPENING_SEAT1.split(":")
        match7[3] = "7"  # a 7-point match: the money model plays it by its money rules
        for line in (
            OPENING_SEAT1,
            SEAT0,
            ":".join(match7),
        ):  # 21 from the start as seat 1; 55 as seat 0
            q = parse_board_string(as_player_one(line))
            reply = _ask(port, line)
            assert reply in {
                be.format_move(q.board, m) for m, _ in be.legal_moves(q.board, *q.dice)
            }, reply
    finally:
        rc, out, err = _stop(proc, sig)
    name = signal.Signals(sig).name  # the shell's code for a process the signal ended
    assert rc == 128 + sig and out.strip().endswith(f"stopped ({name}); port released"), (
        rc,
        out,
        err,
    )
    assert "Traceback" not in err
    with socket.socket() as again:  # the port is free at once
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))


def test_a_game_the_model_does_not_play_gets_an_error_reply():
    # a match model asked about a money game: gnubg prints the `Error:` reply; the player goes on
    port = _free_port()
    proc = _start("best_models/match_256x2_outcomes.pt", port)
    try:
        reply = _ask(port, OPENING_SEAT1)
        assert reply.startswith("Error: this player is a match model"), reply
        match7 = OPENING_SEAT1.split(":")
        match7[3] = "7"
        assert "/" in _ask(port, ":".join(match7))  # a 7-point match it plays
    finally:
        rc, out, err = _stop(proc)
    assert rc == 130 and "warning: this player is a match model" in err


# ---- with the real binary -------------------------------------------------------------------

BINARIES = installed_binaries()
needs_gnubg = pytest.mark.skipif(
    not BINARIES and not os.environ.get("CI"),
    reason="GNU Backgammon binary not installed (make gnubg)",
)


def _script(port: int, ours: int, mat: str, games: int = 3, match: int = 0) -> str:
    """gnubg's commands, as a person would type them (docs/gnubg_player.md), with gnubg 0-ply
    in the other seat and the session exported at the end."""
    other = 1 - ours
    names = {ours: "td", other: "gnubg"}
    lines = [
        "set sound enable off",
        f"set defaultnames {names[0]} {names[1]}",
        f"set player {other} name gnubg",
        f"set player {other} gnubg",
        f"set player {other} chequerplay evaluation plies 0",
        f"set player {other} cubedecision evaluation plies 0",
        f"set player {ours} name td",
        f"set player {ours} external localhost:{port}",
        "set jacoby on",
        "set beavers 0",
        "set display off",
        "set seed 11",
    ]
    if match:
        lines += ["set automatic game on", f"new match {match}"]
    else:
        lines += ["set automatic game off", "new session"] + ["new game"] * (games - 1)
    return "\n".join(lines + ["show score", f"export match mat {mat}"]) + "\n"


def _check_our_moves(mat: str, results: int) -> int:
    """Replay gnubg's record (our engine refuses an illegal move); every empty move of ours must
    be a forced pass.  Returns how many moves of ours were checked."""
    games = read_mat(mat)
    assert len(games) == results > 0
    checked = 0
    for g in games:
        ours = g["names"].index("td")
        for seat, dice, event, before, after in g["turns"]:
            if seat != ours or event != "move":
                continue
            checked += 1
            if (before == after).all():
                assert [m for m, _ in be.legal_moves(before, *dice)] == [()], (
                    dice,
                    be.position_id(before),
                )
    return checked


@needs_gnubg
@pytest.mark.parametrize(
    "model, ours, match",
    [(CUBEFUL, 0, 0), (CUBEFUL, 1, 0), (MATCH, 0, 3)],
    ids=["cubeful-seat0-money", "cubeful-seat1-money", "match-seat0-3pt"],
)
def test_gnubg_plays_the_served_model(tmp_path, model, ours, match):
    port = _free_port()
    mat = tmp_path / "games.mat"
    proc = _start(model, port)
    try:
        g = subprocess.run(
            [BINARIES[0], "-t", "-q", "-r"],
            input=_script(port, ours, str(mat), match=match),
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        rc, out, err = _stop(proc)
    assert rc == 130, err
    results = [ln for ln in g.stdout.splitlines() if " wins a" in ln and " point" in ln]
    assert "warning" not in err and "Error" not in g.stdout, (err, g.stdout[-2000:])
    assert "gnubg connected" in err  # it was our player that gnubg asked, not a human seat
    if match:
        assert any("has won the match" in ln for ln in g.stdout.splitlines()), g.stdout[-2000:]
    else:
        assert len(results) == 3, g.stdout[-2000:]
    assert _check_our_moves(str(mat), len(results)) >= 5


# ---- questions gnubg could not ask, floods, the player's own screen ---------------------------


def _edited(line: str, **fields) -> str:
    f = line.split(":")
    for k, v in fields.items():
        f[int(k[1:])] = str(v)
    return ":".join(f)


def _finished() -> str:
    """Seat 1 (the asked player) has borne off all 15: the game is over."""
    f = OPENING_SEAT1.split(":")
    for k in range(6, 32):
        if int(f[k]) > 0:
            f[k] = "0"
    f[45] = "15"
    return ":".join(f)


IMPOSSIBLE = {  # each outside gnubg's own limits (MAXSCORE 64, MAX_CUBE 4096) or against the rules
    "match cube 3": _edited(OPENING_SEAT1, f3=7, f37=3),
    "match cube 2**70": _edited(OPENING_SEAT1, f3=7, f37=2**70),
    "money cube 8192": _edited(OPENING_SEAT1, f37=8192),
    "score at the match length": _edited(OPENING_SEAT1, f3=7, f5=7),
    "negative score": _edited(OPENING_SEAT1, f3=7, f4=-1),
    "negative money score": _edited(OPENING_SEAT1, f5=-3),
    "match length -1": _edited(OPENING_SEAT1, f3=-1),
    "match length 65": _edited(OPENING_SEAT1, f3=65),
    "turn 0": _edited(OPENING_SEAT1, f32=0),
    "doubled flag 2": _edited(OPENING_SEAT1, f40=2),
    "both may-double flags 0": _edited(OPENING_SEAT1, f38=0, f39=0),
    "Crawford game in money": _edited(OPENING_SEAT1, f52=0),
    "Crawford game with no side 1 away": _edited(OPENING_SEAT1, f3=7, f4=2, f5=3, f52=0),
    "dice 7": _edited(OPENING_SEAT1, f33=7, f35=7),
    "a field too many": OPENING_SEAT1 + ":0",
    "constants changed": _edited(OPENING_SEAT1, f44=24),
    "finished game": _finished(),
    "Crawford game with cube 2": _edited(OPENING_SEAT1, f3=7, f4=6, f5=3, f52=0, f37=2),
    "take in the Crawford game": _edited(
        OPENING_SEAT1, f3=7, f4=6, f5=3, f52=0, f40=1, f33=0, f34=0
    ),
    "post-Crawford with no side 1 away": _edited(OPENING_SEAT1, f3=7, f4=2, f5=3, f51=1),
    "other side's dice 9-9": _edited(OPENING_SEAT1, f35=9, f36=9),
    "money score 2**70": _edited(OPENING_SEAT1, f5=2**70),
    # gnubg writes seat 0's bar as minus its count, seat 1's as its count: the counts add up to
    # 15 if only their sizes are read
    "our bar count negative": _edited(OPENING_SEAT1, f30=1, f31=-1),
    "gnubg's bar count positive": _edited(OPENING_SEAT1, f7=-1, f6=1),
    "a seat-0 question with the other bar count negative": _edited(SEAT0, f30=1, f31=-1),
    # a cube question where the side on turn may not double (play.c asks only when eval.c's
    # GetDPEq lets it double and the cube is below gnubg's last; else gnubg rolls for it)
    "cube question when the other side owns the cube": _edited(
        OPENING_SEAT1, f33=0, f34=0, f35=0, f36=0, f38=0
    ),
    "cube question in the Crawford game": _edited(
        OPENING_SEAT1, f3=7, f4=6, f5=3, f52=0, f33=0, f34=0, f35=0, f36=0
    ),
    "cube question at gnubg's last cube": _edited(
        OPENING_SEAT1, f37=4096, f39=0, f33=0, f34=0, f35=0, f36=0
    ),
    "cube question with a dead cube": _edited(
        OPENING_SEAT1, f3=7, f5=5, f37=2, f39=0, f33=0, f34=0, f35=0, f36=0
    ),
    "cube question at 1-away after the Crawford game": _edited(
        OPENING_SEAT1, f3=7, f4=3, f5=6, f51=1, f33=0, f34=0, f35=0, f36=0
    ),
    "a double by the side that does not own the cube": _edited(TAKE_SEAT1, f39=0),
    "a fullwidth digit": _edited(OPENING_SEAT1, f37="\uff12"),
    "an underscore in a number": _edited(OPENING_SEAT1, f37="1_0"),
    # gnubg's FIBS board leaves the bar-count, can-move and forced-move fields 0
    "field 47 filled": _edited(OPENING_SEAT1, f47=3),
    "field 50 negative": _edited(OPENING_SEAT1, f50=-1),
    # a cube above 1 without an owner comes only from a money session's automatic doubles
    "a centred cube of 2 in a match": _edited(OPENING_SEAT1, f3=7, f37=2),
    # drawboard.c's FIBSBoard writes the roll twice: fields 35-36 are always fields 33-34
    "fields 35-36 not the roll repeated": _edited(OPENING_SEAT1, f35=5, f36=2),
    "a cube question with dice in fields 35-36": _edited(OPENING_SEAT1, f33=0, f34=0),
    # play.c makes a game the Crawford game only while the other side is more than 1 away
    "Crawford game with both sides 1 away": _edited(OPENING_SEAT1, f3=25, f4=24, f5=24, f52=0),
    "Crawford game of a 1-point match": _edited(OPENING_SEAT1, f3=1, f52=0),
    # play.c's CommandDouble refuses a double of a dead cube ("The cube is dead"): the doubler
    # (field 5 of a take question) at 5 of 7 with the cube at 2, or 1 away after the Crawford game
    "a double of a dead cube": _edited(TAKE_SEAT1, f3=7, f4=0, f5=5, f37=2, f38=0),
    "a double by the side 1 away after the Crawford game": _edited(
        TAKE_SEAT1, f3=7, f4=3, f5=6, f51=1
    ),
    # a point holds at most a side's 15 checkers (2**70 reached the engine as an OverflowError)
    "a bar count beyond a machine word": _edited(OPENING_SEAT1, f6=-(2**70)),
    "a point count of 16": _edited(OPENING_SEAT1, f7=16, f30=0, f45=0),
}


@pytest.mark.parametrize("case", sorted(IMPOSSIBLE))
def test_a_question_gnubg_could_not_ask_is_refused(case):
    with pytest.raises(ProtocolError):
        parse_board_string(as_player_one(IMPOSSIBLE[case]))


def test_a_centred_cube_above_1_is_read_in_a_money_session():
    """gnubg's automatic doubles (money only) turn the cube with no owner: a question it asks."""
    question = parse_board_string(as_player_one(_edited(OPENING_SEAT1, f37=2)))
    assert question.cube == 2 and question.kind == "move"


def test_questions_gnubg_can_ask_are_read():
    """The limits themselves: a 64-point match score 63-0, cube 4096 in money, the Crawford
    game at 6-3 of 7, post-Crawford at 6-5; cube questions where a double is possible: money
    with the cube centred, ours at 2 with 4 to go of 7, the trailer after the Crawford game;
    gnubg's double from a centred cube."""
    no_dice = {"f33": 0, "f34": 0, "f35": 0, "f36": 0}
    for line in (
        _edited(OPENING_SEAT1, f3=64, f5=63),
        _edited(OPENING_SEAT1, f37=4096),
        _edited(OPENING_SEAT1, f3=7, f4=6, f5=3, f52=0),
        _edited(OPENING_SEAT1, f3=7, f4=6, f5=5, f51=1),
        _edited(OPENING_SEAT1, **no_dice),
        _edited(OPENING_SEAT1, f3=7, f5=3, f37=2, f39=0, **no_dice),
        _edited(OPENING_SEAT1, f3=7, f4=6, f5=3, f51=1, **no_dice),
        TAKE_SEAT1,
        _edited(TAKE_SEAT1, f3=7, f4=0, f5=4, f37=2, f38=0),  # a live cube: 4 + 2 < 7
    ):
        parse_board_string(as_player_one(line))


def test_the_server_refuses_impossible_questions_and_goes_on():
    """Over the socket: every impossible question gets gnubg's `Error:` reply (match length -1
    closed the connection unanswered; a match cube of 128 read as the Crawford flag; a finished
    game got a move), and a real question after them is answered."""
    port = _free_port()
    proc = _start(MATCH, port)
    try:
        for case in (
            "match length -1",
            "match cube 3",
            "score at the match length",
            "finished game",
        ):
            assert _ask(port, IMPOSSIBLE[case]).startswith("Error: "), case
        reply = _ask(
            port, _edited(OPENING_SEAT1, f3=7, f37=128, f38=0)
        )  # owned (a centred one is no match cube): gnubg's limit allows it; the match model's not
        assert reply.startswith("Error: ") and "cube 128" in reply, reply
        assert "/" in _ask(port, _edited(OPENING_SEAT1, f3=7))
    finally:
        rc, out, err = _stop(proc)
    assert rc == 130 and "Traceback" not in err, err


def test_floods_are_bounded():
    """A client that never sends a newline gets an `Error:` reply once its line passes
    MAX_LINE and is closed; one connection past MAX_CONNECTIONS is refused with `Error:`;
    a client after them is served."""
    from tools import gnubg_player

    port = _free_port()
    proc = _start(CUBEFUL, port)
    held = []
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=300) as c:
            c.sendall(b"x" * (gnubg_player.MAX_LINE + 10))
            buf = b""
            while chunk := c.recv(4096):
                buf += chunk
            assert buf.startswith(b"Error: a question longer"), buf
        for _ in range(gnubg_player.MAX_CONNECTIONS):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=300))
        assert "/" in _ask_on(held[-1], OPENING_SEAT1)  # all of them are served
        with socket.create_connection(("127.0.0.1", port), timeout=300) as extra:
            assert extra.recv(4096).startswith(b"Error: the player serves"), "one too many"
        for c in held:
            c.close()
        held.clear()
        deadline = time.monotonic() + 300
        while True:  # the closed ones free their slots once the player reads their end
            reply = _ask(port, OPENING_SEAT1)
            if "/" in reply or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert "/" in reply, reply
    finally:
        for c in held:
            c.close()
        _stop(proc)


def _ask_on(c: socket.socket, line: str) -> str:
    c.sendall(line.encode() + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = c.recv(4096)
        assert chunk
        buf += chunk
    return buf.decode().strip()


def test_one_line_per_decision_on_the_players_screen():
    """Each answer shows on stdout with the position ID (the opening position's, as gnubg
    writes it: 4HPwATDgc/ABMA), the dice and the answer; --quiet shows none."""
    for quiet in (False, True):
        port = _free_port()
        proc = subprocess.Popen(
            [
                sys.executable,
                os.path.join(ROOT, TOOL),
                CUBEFUL,
                "--port",
                str(port),
                *(["--quiet"] if quiet else []),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        assert proc.stdout.readline().startswith("serving ")
        try:
            move = _ask(port, OPENING_SEAT1)
            cube = _ask(port, _edited(OPENING_SEAT1, f33=0, f34=0, f35=0, f36=0))
        finally:
            rc, out, err = _stop(proc)
        lines = out.splitlines()[:-1]  # the last: "stopped (SIGINT); port released"
        if quiet:
            assert lines == [], out
            continue
        assert len(lines) == 2, out
        assert lines[0].startswith(f"move 21, position 4HPwATDgc/ABMA: {move}  (value "), lines
        assert lines[1].startswith(f"cube, position 4HPwATDgc/ABMA: {cube}  (value "), lines


def test_log_lines_from_many_threads_stay_whole():
    """Lines written at once by connection threads come out whole, one per line."""
    from tools import gnubg_player

    class Slow:
        def __init__(self):
            self.text = []

        def write(self, s):
            for ch in s:  # a stream that gives other threads every chance to cut in
                self.text.append(ch)
                time.sleep(0)

        def flush(self):
            pass

    stream = Slow()
    log = gnubg_player.Log(stream, "p: ")
    threads = [
        threading.Thread(target=lambda k=k: [log(f"thread {k} line {i}") for i in range(50)])
        for k in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = "".join(stream.text).splitlines()
    assert sorted(lines) == sorted(f"p: thread {k} line {i}" for k in range(6) for i in range(50))


class _Stub:
    """A GnubgPlayer's reply without a model: ``reply`` answers every question with ``text``,
    or raises ProtocolError(``refusal``)."""

    def __init__(self, text="24/23 13/11", refusal=None):
        self.text, self.refusal = text, refusal

    def reply(self, line):
        if self.refusal is not None:
            raise ProtocolError(self.refusal)
        return self.text, self.text


def _serve_stub(stub, payload: bytes) -> bytes:
    """Everything serve_connection writes back for ``payload`` (then end of input)."""
    from tools import gnubg_player

    ours, theirs = socket.socketpair()
    with ours:
        ours.settimeout(300)
        server = threading.Thread(
            target=gnubg_player.serve_connection, args=(theirs, stub, lambda text: None)
        )
        server.start()
        ours.sendall(payload)
        ours.shutdown(socket.SHUT_WR)
        got = b""
        while chunk := ours.recv(4096):
            got += chunk
        server.join(timeout=300)
    return got


def test_a_question_over_the_limit_is_refused_however_it_arrives():
    """A line of MAX_LINE bytes is answered; one byte more is refused and the connection
    closed even when its newline comes in the same read (it was answered then, and refused
    only when TCP happened to split it before the newline)."""
    from tools import gnubg_player

    limit = gnubg_player.MAX_LINE
    assert _serve_stub(_Stub(), b"x" * limit + b"\n") == b"24/23 13/11\n"
    for size in (limit + 1, 8000):
        got = _serve_stub(_Stub(), b"x" * size + b"\n" + OPENING_SEAT1.encode() + b"\n")
        assert got.startswith(b"Error: a question longer") and got.count(b"\n") == 1, got


def test_every_reply_fits_gnubgs_read():
    """gnubg reads a reply into 256 bytes: an `Error:` reply quoting a question with control
    characters (each shown as 4) or long names came out at 377 bytes, and its tail would have
    been read as the answer to gnubg's next question."""
    from tools import gnubg_player

    for refusal in ("\x01" * 400, "\u00e9" * 300, "x" * 1000):
        got = _serve_stub(_Stub(refusal=refusal), OPENING_SEAT1.encode() + b"\n")
        assert got.startswith(b"Error: ") and got.endswith(b"\n") and got.count(b"\n") == 1
        assert len(got) <= gnubg_player.MAX_REPLY + 1 <= 256, len(got)
        got.decode()  # cut on a character boundary


def test_a_reader_of_stdout_that_goes_away_ends_the_player_quietly():
    """`gnubg_player.py ... | head -1`: the decision line after head left failed in the
    connection thread, a BrokenPipeError traceback, and gnubg's question went unanswered with
    the player still serving.  The player now ends as every script does when its reader goes
    away: quietly, exit code 141."""
    port = _free_port()
    proc = _start(CUBEFUL, port)  # the serving line is read
    proc.stdout.close()  # the reader goes away, as `head -1` does after its line
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=300) as c:
            c.sendall(OPENING_SEAT1.encode() + b"\n\x00")
            c.recv(4096)  # the answer, or the end of the connection: the player is ending
        rc = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    assert rc == 141 and "Traceback" not in err and "error" not in err, (rc, err)
