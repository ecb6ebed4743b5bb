"""cli.run_main: once a program leaves with 130 after Ctrl-C (the terminal game's own exit, or a
KeyboardInterrupt run_main turns into one line), a second Ctrl-C during the rest of the exit
is ignored: at shutdown Python puts back SIGINT's default action for the handlers it
installed, and a press then would kill the process (-2) instead of letting it end with 130."""

import os
import signal
import sys

import pytest

from tdbg.app import cli
from tdbg.infra import stop_signals


@pytest.mark.parametrize(
    "body, code",
    [(lambda: sys.exit(130), 130), (lambda: (_ for _ in ()).throw(KeyboardInterrupt()), 130)],
)
def test_after_a_ctrl_c_exit_sigint_is_ignored_for_the_rest_of_the_exit(body, code):
    before = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as ended:
            cli.run_main(body)
        assert ended.value.code == code
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_other_exits_leave_sigint_as_it_was():
    before = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit):
            cli.run_main(lambda: sys.exit(0))
        assert signal.getsignal(signal.SIGINT) is before
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize(
    "body, code",
    [
        (lambda: sys.exit(143), 143),
        (lambda: (_ for _ in ()).throw(stop_signals.Terminated()), 143),
        (lambda: sys.exit(130), 130),
        (lambda: (_ for _ in ()).throw(KeyboardInterrupt()), 130),
    ],
)
def test_after_a_signal_exit_both_signals_are_ignored_for_the_rest_of_the_exit(body, code):
    """After SIGTERM's 143 as after Ctrl-C's 130, neither signal may cut the exit short: only
    SIGINT was ignored, so a SIGTERM after Ctrl-C (or a Ctrl-C after SIGTERM) printed a second
    line and changed the code, or, in the interpreter's teardown, killed it (-15, no line)."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(SystemExit) as ended:
            cli.run_main(body)
        assert ended.value.code == code
        for s in before:
            assert signal.getsignal(s) is signal.SIG_IGN, s
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def test_a_signal_taken_leaves_both_ignored_past_its_block():
    """The handler that took a stop signal (raise_on_signals') ignores further ones from then
    on, and its block's end does not put back the handler from before it."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(stop_signals.Terminated):
            with stop_signals.raise_on_signals():
                signal.raise_signal(signal.SIGTERM)
        for s in before:
            assert signal.getsignal(s) is signal.SIG_IGN, s
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def test_a_progress_bar_left_open_is_closed_before_the_error_line(capfd):
    """A Ctrl-C in a worker pool's shutdown (play_models, the games done) skipped the close of
    the progress bar after it: the error line was glued to the bar's end, and the bar drew
    itself again below the error line when it was closed at exit."""
    from tqdm import tqdm

    bars = []

    def body():
        bars.append(tqdm(total=4, file=sys.stderr, mininterval=0))
        bars[0].update(4)
        raise KeyboardInterrupt()

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(SystemExit) as ended:
            cli.run_main(body)
        bars[0].close()  # as the interpreter's exit closes it: nothing more may be drawn
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    assert ended.value.code == 130
    err = capfd.readouterr().err
    line = f"{os.path.basename(sys.argv[0])}: error: {stop_signals.interrupted_message(signal.SIGINT)}\n"
    assert err.endswith("\n" + line), repr(err)
