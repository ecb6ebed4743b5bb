"""``tdbg play`` through a pseudo-terminal, as a person plays it: typed moves, an illegal move
and its re-prompt, a hint, a double, a whole game to its end; and bad input refused in one
line.  The test reads the board's Position ID and the dice off the screen and checks every
position it sees against the reference engine (backgammon_engine): the human's typed play and
the net's printed play, replayed by hand, must give the next position shown."""

import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time

import numpy as np
import pytest

from helpers import HANG_GUARD, ROOT, assert_one_line_error, run
from tdbg.game import backgammon_engine as be

CUBEFUL = os.path.join(ROOT, "best_models", "cubeful_256x3_from_1ply.pt")
DMP = os.path.join(ROOT, "best_models", "dmp_128x2.pt")
MATCH = os.path.join(ROOT, "best_models", "match_256x2.pt")
PROMPT = re.compile(r"(Your move \((\d)-(\d)\): |Roll or double\? .*?: |Take or pass\? .*?: )")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _own_terminal() -> None:
    """In the child: a session of its own with the pseudo-terminal as its controlling terminal,
    so that Ctrl-C typed there reaches it as SIGINT, as in a shell."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """The game in a child process on a pseudo-terminal: ``expect`` what it prints, ``send``
    lines as typed."""

    def __init__(self, *args):
        self.master, slave = pty.openpty()
        env = dict(os.environ, OMP_NUM_THREADS="1", TERM="dumb", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "play_terminal.py"), *map(str, args)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            close_fds=True,
            preexec_fn=_own_terminal,
        )
        os.close(slave)
        self.text, self.seen = "", 0

    def _read(self, deadline: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.time()))
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not data:
            return False
        self.text += ANSI.sub("", data.decode("utf-8", "replace").replace("\r\n", "\n"))
        return True

    def expect(self, pattern) -> re.Match:
        """The first match of ``pattern`` in what was printed since the last one."""
        deadline = time.time() + HANG_GUARD
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        while True:
            m = rx.search(self.text, self.seen)
            if m:
                self.seen = m.end()
                return m
            if not self._read(deadline):
                raise AssertionError(
                    f"never printed {rx.pattern!r}; the screen ends:\n{self.text[-3000:]}"
                )

    def since(self, start: int) -> str:
        return self.text[start : self.seen]

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self) -> int:
        deadline = time.time() + HANG_GUARD
        while self._read(deadline):
            pass
        code = self.proc.wait(timeout=HANG_GUARD)
        os.close(self.master)
        return code


def first_play(board, d1, d2) -> tuple[str, np.ndarray]:
    """The reference engine's first legal play, in its own notation (format_move)."""
    move, after = be.legal_moves(board, d1, d2)[0]
    return be.format_move(board, move), after


EVENTS = re.compile(
    r"(?P<new>Game \d+\. You roll)"
    r"|Position ID: (?P<pid>\S+)[\s\S]*?(?P<who>You are|tdbg is) on roll"
    r"|You roll (?P<d1>\d)-(?P<d2>\d)\.\n(?P<forced>Your only play: .*|You cannot move)\."
    r"|tdbg rolls (?P<n1>\d)-(?P<n2>\d) and (?:plays (?P<play>.+?)|cannot move)\.\n"
)


class Replay:
    """Every position the game shows, replayed by the reference engine: the human's plays
    (typed, or forced: then the only legal one) and the net's printed plays from the position
    it moved in must give the next position shown.  Boards: the human in row 1."""

    def __init__(self):
        self.shown = None  # the last board shown
        self.expected = None  # the board the next one shown must be
        self.checked = 0

    def human_played(self, after) -> None:
        self.expected = np.asarray(after)

    def read(self, screen: str) -> None:
        for m in EVENTS.finditer(screen):
            if m.group("new"):
                self.expected = be.initial_board()
            elif m.group("pid"):
                board = be.board_from_position_id(m.group("pid"))
                board = board if m.group("who") == "You are" else be.swap(board)
                if self.expected is not None:
                    assert np.array_equal(board, self.expected), (
                        be.position_id(board),
                        be.position_id(self.expected),
                    )
                    self.checked += 1
                self.shown, self.expected = board, None
            elif m.group("forced"):
                legal = be.legal_moves(self.shown, int(m.group("d1")), int(m.group("d2")))
                assert len(legal) == 1, m.group(0)
                self.expected = legal[0][1]
            else:
                # the position the net moved in: after the human's play (shown again when it doubled)
                before_net = be.swap(self.shown if self.expected is None else self.expected)
                _, after = be.parse_move(
                    before_net, int(m.group("n1")), int(m.group("n2")), m.group("play") or ""
                )
                self.expected = be.swap(after)


def test_a_human_types_moves_an_illegal_one_asks_a_hint_and_doubles():
    t = Terminal(CUBEFUL, "--seed", "1")
    # the opening: who moves first follows from the two dice shown
    m = t.expect(r"You roll (\d), tdbg rolls (\d): (you move|tdbg moves) first")
    assert (int(m.group(1)) > int(m.group(2))) == (m.group(3) == "you move")
    prompt = t.expect(PROMPT)
    if prompt.group(0).startswith("Roll or double"):
        # the human may double: the net answers as the taker, with its values
        t.send("double")
        answer = t.expect(
            r"You double to 2; tdbg (takes|passes) \(for tdbg: take [-+.\d]+, pass [-+.\d]+\)"
        )
        assert answer.group(1) == "takes"  # no one passes a double after one opening move
        prompt = t.expect(PROMPT)
    replay = Replay()
    replay.read(t.since(0))
    board = replay.shown
    d1, d2 = int(prompt.group(2)), int(prompt.group(3))
    # an illegal move: bearing off with checkers outside the home board; the prompt comes again
    t.send("6/off")
    t.expect(rf"Illegal move: 6/off is not a legal play of {d1}-{d2}\..*\n")
    t.expect(rf"Your move \({d1}-{d2}\): ")
    # a hint: the net's ranking, the best first, each a legal play of this roll
    t.send("hint")
    start = t.seen
    t.expect(rf"Your move \({d1}-{d2}\): ")
    ranked = re.findall(r"\n +\d+\. 0-ply  (.+?)\s+Eq\.: ([-+.\d]+)", t.since(start))
    legal = be.legal_moves(board, d1, d2)
    assert len(ranked) == min(10, len(legal))
    values = [float(v) for _, v in ranked]
    assert values == sorted(values, reverse=True)
    for text, _ in ranked:
        be.parse_move(board, d1, d2, text)  # ValueError for a play that is not legal
    # the net's best play, typed
    best = ranked[0][0]
    t.send(best)
    replay.human_played(be.parse_move(board, d1, d2, best)[1])
    start = t.seen
    t.expect(PROMPT)
    screen = t.since(start)
    replay.read(screen)
    assert replay.checked == 2  # the position before the human's play, and after the net's reply
    assert ("Cube: 2 (tdbg's)" if "You double" in t.text else "Cube: 1 (centred)") in screen
    t.send("quit")
    t.expect(r"Quit\.  Score \(cubeful-money\): you 0, tdbg 0")
    assert t.finish() == 0


def _play_to_the_end(t: Terminal) -> str:
    """The scripted human: Enter to roll, takes every double, types the reference engine's
    first legal play; every position shown replayed (Replay).  The line that ends the game."""
    replay = Replay()
    while True:
        start = t.seen
        m = t.expect(re.compile(PROMPT.pattern + r"|(You win|tdbg wins) .*\n"))
        replay.read(t.since(start))
        if m.group(0).startswith(("You win", "tdbg wins")):
            assert replay.checked > 10
            return m.group(0).strip()
        if m.group(0).startswith("Roll or double"):
            t.send("")
        elif m.group(0).startswith("Take or pass"):
            # the net's cube analysis as the doubler, asked for, then the take
            t.send("hint")
            t.expect(r"Cube analysis \(\d-ply, .*\)\n[\s\S]*?Proper cube action: .*\n")
            t.expect(PROMPT)
            t.send("take")
            t.expect(r"You take; the cube is at (\d+), yours\.")
        else:
            text, after = first_play(replay.shown, int(m.group(2)), int(m.group(3)))
            t.send(text)
            replay.human_played(after)


def test_a_whole_money_game_to_its_end():
    """At 1-ply; in this seed's game the net doubles (after its 6-6) and the human takes."""
    t = Terminal(CUBEFUL, "--seed", "4", "--ply", "1")
    last = _play_to_the_end(t)
    assert re.search(
        r"tdbg doubles to 2\.  Its cube analysis: no double [-+.\d]+, double/take [-+.\d]+, "
        r"double/pass \+1\.000\.",
        t.text,
    )
    m = re.match(
        r"(You win|tdbg wins) (.+): (\d+) points?\.  Score \(cubeful-money\): you (\d+), tdbg (\d+)",
        last,
    )
    assert m, last
    points = int(m.group(3))
    assert (int(m.group(4)), int(m.group(5))) == (
        (points, 0) if m.group(1) == "You win" else (0, points)
    )
    assert t.finish() == 0


def test_a_whole_match_to_its_end():
    t = Terminal(MATCH, "--seed", "5", "--match-length", "1")
    _play_to_the_end(t)
    t.expect(r"(You win|tdbg wins) the match\.")
    assert t.finish() == 0


def test_a_dmp_net_at_1_ply_hints_in_p_win():
    """No cube: the dice are rolled at once; the hint is the 1-ply ranking in P(win); a resignation."""
    t = Terminal(DMP, "--seed", "2", "--ply", "1")
    m = t.expect(PROMPT)
    assert m.group(0).startswith("Your move") and "Cube" not in t.text and "No cube" in t.text
    t.send("hint")
    start = t.seen
    t.expect(PROMPT)
    values = [
        float(v) for v in re.findall(r"\n +\d+\. 1-ply  .+?\s+P\(win\): ([.\d]+)", t.since(start))
    ]
    assert values and values == sorted(values, reverse=True) and all(0 < v < 1 for v in values)
    # a DMP net takes any resignation: a lost game is a lost game
    t.send("resign")
    t.expect(
        r"You resign a single game; tdbg accepts\.\ntdbg wins as you resign: 1 point\.  Score \(dmp\): you 0, tdbg 1"
    )
    assert t.finish() == 0


def test_end_of_input_ends_quietly_and_ctrl_c_with_the_score():
    t = Terminal(DMP, "--seed", "2")
    t.expect(PROMPT)
    os.write(t.master, b"\x04")  # Ctrl-D: end of input
    assert t.finish() == 0
    assert "Traceback" not in t.text and "error" not in t.text
    t = Terminal(DMP, "--seed", "2")
    t.expect(PROMPT)
    # Ctrl-C, pressed again while nothing happens: a SIGINT that lands between the prompt's
    # write and the read that follows it inside Python's input() is noted but wakes nothing
    while t.proc.poll() is None:
        os.write(t.master, b"\x03")
        try:
            t.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    assert t.finish() == 130
    assert "Traceback" not in t.text and "error" not in t.text
    assert re.search(r"Stopped \(Ctrl-C\)\.  Score \(dmp\): you 0, tdbg 0", t.text), t.text


def test_a_typed_nul_or_undecodable_byte_is_a_bad_move_and_ctrl_d_still_ends_at_once():
    """A line holding a NUL byte (Ctrl-@) is one more move that does not parse, not a line cut
    short with its rest left pending: the Ctrl-D typed next ends the game at once.  A byte
    that is not UTF-8 is a move that does not parse too, not a traceback."""
    t = Terminal(DMP, "--seed", "2")
    t.expect(PROMPT)
    os.write(t.master, b"13/7\x00 8/2\n")
    m = t.expect(PROMPT)
    assert m.group(0).startswith("Your move")
    os.write(t.master, b"\xff\xfe 8/2\n")
    m = t.expect(PROMPT)
    assert m.group(0).startswith("Your move")
    os.write(t.master, b"\x04")  # Ctrl-D, once
    assert t.finish() == 0
    assert "Traceback" not in t.text and "rror" not in t.text


@pytest.mark.parametrize(
    "args, words",
    [
        (["models/no_such_net.pt"], "no such checkpoint file"),
        ([CUBEFUL, "--ply", "3"], "invalid choice"),
        ([CUBEFUL, "--match-length", "5"], "--match-length is for match nets"),
        ([MATCH, "--games", "3"], "--games is for money and DMP nets"),
        ([CUBEFUL, "--seed", "-1"], "must be at least 0"),
    ],
)
def test_bad_input_is_one_error_line(args, words):
    assert_one_line_error(run("play_terminal.py", *args), words)


def test_a_file_that_is_no_checkpoint_is_one_error_line(tmp_path):
    bad = tmp_path / "net.pt"
    bad.write_bytes(b"not a checkpoint at all")
    assert_one_line_error(run("play_terminal.py", str(bad)), str(bad))


def test_its_lines_name_the_command_typed():
    """Run as the script, its usage and error lines say play_terminal.py (they said `tdbg
    play`, a command the user had not typed); `tdbg play` names itself as before."""
    proc = run("play_terminal.py", "--ply", "2", DMP, subprocess_=True)
    assert_one_line_error(proc, "--ply")
    assert proc.stderr.startswith("play_terminal.py: error:"), proc.stderr
    tdbg = os.path.join(os.path.dirname(sys.executable), "tdbg")
    if os.path.exists(tdbg):  # the console command (installed by make setup)
        console = subprocess.run(
            [tdbg, "play", "--ply", "2", DMP], capture_output=True, text=True, timeout=HANG_GUARD
        )
        assert_one_line_error(console, "--ply")
        assert console.stderr.startswith("tdbg play: error:"), console.stderr


def test_sigterm_at_the_prompt_is_one_line():
    """`kill PID` while the game waits at a prompt: one error line and 143, as from every
    script (SIGTERM was taken for Ctrl-C there, and ended the game silently with 130)."""
    t = Terminal(DMP, "--seed", "2")
    t.expect(PROMPT)
    # sent again until it ends: one that lands between the prompt's write and the read inside
    # input() is noted but wakes nothing (a second one is ignored once the first is taken)
    while t.proc.poll() is None:
        t.proc.send_signal(signal.SIGTERM)
        try:
            t.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    assert t.finish() == 143
    assert "Traceback" not in t.text and "error: interrupted (SIGTERM)" in t.text, t.text[-2000:]
