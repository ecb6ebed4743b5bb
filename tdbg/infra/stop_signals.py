"""The two signals that ask a run to stop, SIGTERM and SIGINT (Ctrl-C), and what a program
does with them from its first line to its exit.

* ``exit_on_signals`` (a script's first line): end at once, one line, exit code 128 + the
  signal's number (130 for Ctrl-C, 143 for SIGTERM), as a shell reports a process the
  signal ended.  At once, because the signal then lands during the imports (torch's take a
  second or more), where an exception leaves a module half imported and ends in a traceback
  of some other error; nothing has been written yet.
* ``raise_on_signals`` (cli.run_main, around the work): SIGINT raises KeyboardInterrupt and
  SIGTERM raises ``Terminated`` (a KeyboardInterrupt), so the work is undone the same way for
  both and the script says which signal stopped it.
* ``StopSignalHandler``: one handler for both for the length of a ``with`` block (a training
  run stops only between steps), the old handlers back after it however it ends, unless a
  stop signal was taken in it.

A program that has finished (its output written, ``atexit`` reached) ignores both for the rest
of its exit, as Python's teardown would otherwise meet them with the default actions.

Once a stop signal has been taken, the program is on its way out with that signal's code and
line, and further SIGINTs and SIGTERMs are ignored (``ignore_further_interrupts``): a second
one would otherwise print a second line and change the code, or, in the interpreter's
teardown, where Python has put back the default actions, end the process with no line.

SIGINT is handled by hand, not left to Python's KeyboardInterrupt: a process started with
SIGINT ignored (a shell's background job) gets no KeyboardInterrupt from Python, and would go
on after Ctrl-C or ``kill -INT``."""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading

from tdbg.infra.errors import InputError
from tdbg.infra.thread_env import requested

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
SIGNAL_WORDS: dict[int, str] = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}


def exit_code(signum: int) -> int:
    """The exit code of a run a signal stopped: 128 + its number (130 SIGINT, 143 SIGTERM)."""
    return 128 + int(signum)


def interrupted_message(signum: int) -> str:
    """What the one line of a program stopped by a signal says."""
    return (
        f"interrupted ({SIGNAL_WORDS.get(signum, signal.Signals(signum).name)}); nothing was written after "
        f"the interrupt"
    )


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: raised where the work is, like Ctrl-C's KeyboardInterrupt."""

    signum = signal.SIGTERM


def _prog() -> str:
    """The program's name as its error lines give it (cli.fail): the script's, or the tdbg
    command's words."""
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"


def _exit_now(signum, frame):
    try:
        os.write(
            2,
            f"{_prog()}: error: {interrupted_message(signum)}\n".encode(
                "utf-8", "backslashreplace"
            ),
        )
    finally:
        os._exit(exit_code(signum))


def _raise(signum, frame):
    ignore_further_interrupts()  # the first signal says how the program ends
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def ignore_further_interrupts() -> None:
    """Once a stop signal has been taken and the program is on its way out (exit code 130 or
    143, its line printed), further Ctrl-Cs and SIGTERMs are ignored.  At shutdown Python puts
    back the default action of every signal it handled, so a second signal during a slow exit
    (torch's teardown on a busy machine) would kill the process (-2 or -15, no line) instead of
    letting it end as it said it would; an ignored signal is left ignored."""
    if threading.current_thread() is threading.main_thread():
        for s in STOP_SIGNALS:
            signal.signal(s, signal.SIG_IGN)


def exit_on_signals(name: str = "__main__") -> None:
    """SIGINT and SIGTERM end the process at once with one line (module notes).  ``name``:
    the calling module's ``__name__``; only the program itself takes the signals, not a
    module imported by a test, nor the copy of the main script a worker process imports."""
    if name == "__main__" and "--multiprocessing-fork" not in sys.argv:
        fill_closed_descriptors()
        for s in STOP_SIGNALS:
            signal.signal(s, _exit_now)
        # the last moment a handler of ours can run: past it, Python puts back the default
        # actions while it tears the modules down (torch, matplotlib: a few tenths of a second),
        # and a signal then killed a program that had finished (-15, no line); ignored, the
        # program ends as it had finished
        atexit.register(ignore_further_interrupts)
        _check_thread_env()


def fill_closed_descriptors() -> None:
    """Standard input, output or error closed when the program started (``>&-``): /dev/null
    takes its descriptor, so that no file the program opens gets it (a checkpoint opened as
    descriptor 1 would receive what is printed)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
            except OSError:
                return


def _check_thread_env() -> None:
    """A thread count in the environment that the run would refuse later is refused now, in
    one line, before torch loads: OpenMP reads OMP_NUM_THREADS then, and warns on its own
    about a value it cannot parse."""
    try:
        requested(None)
    except InputError as exc:  # named as every error line names its program (it read "error: ...")
        if sys.stderr is not None:  # (None: closed when the program started)
            sys.stderr.write(f"{_prog()}: error: {exc}\n")
        sys.exit(2)


class StopSignalHandler:
    """``handler(signum, frame)`` for SIGTERM and SIGINT inside the ``with`` block."""

    def __init__(self, handler):
        self.handler = handler

    def __enter__(self):
        # only the main thread may set handlers; in another, the block runs under the main thread's
        main = threading.current_thread() is threading.main_thread()
        self._old = {s: signal.signal(s, self.handler) for s in STOP_SIGNALS} if main else {}
        return self

    def __exit__(self, *exc):
        for s, old in self._old.items():
            # a handler that took a stop signal left both ignored (ignore_further_interrupts):
            # they stay ignored, the old handler (exit_on_signals') would end the exit early
            if signal.getsignal(s) == self.handler:
                signal.signal(s, old)


def raise_on_signals() -> StopSignalHandler:
    """For a ``with`` block: SIGINT raises KeyboardInterrupt, SIGTERM raises Terminated
    (module notes)."""
    return StopSignalHandler(_raise)
