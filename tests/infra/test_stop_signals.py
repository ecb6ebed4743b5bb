"""tdbg.infra.stop_signals: what SIGTERM and SIGINT do from a program's first line (end at
once, one line, the shell's exit code) and around its work (an exception where the work is,
the old handlers back afterwards)."""

import os
import signal
import subprocess
import sys
import threading

import pytest

from helpers import HANG_GUARD, ROOT
from tdbg.infra import stop_signals
from tdbg.infra.stop_signals import StopSignalHandler, Terminated, raise_on_signals


def test_the_exit_code_is_the_shells_128_plus_the_signal():
    assert stop_signals.exit_code(signal.SIGINT) == 128 + 2
    assert stop_signals.exit_code(signal.SIGTERM) == 128 + 15


@pytest.mark.parametrize("signum, words", [(signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")])
def test_a_program_ends_at_once_with_one_line(signum, words):
    # the signal lands after exit_on_signals, as it would during a script's imports
    code = (
        "import os, signal, sys\n"
        "from tdbg.infra.stop_signals import exit_on_signals\n"
        "exit_on_signals()\n"
        f"os.kill(os.getpid(), {int(signum)})\n"
        "print('went on after the signal', flush=True)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert proc.returncode == 128 + int(signum)
    assert proc.stdout == ""
    assert proc.stderr == (
        f"-c: error: interrupted ({words}); nothing was written after the interrupt\n"
    )


def test_a_module_that_is_not_the_program_leaves_the_handlers_alone():
    before = {s: signal.getsignal(s) for s in stop_signals.STOP_SIGNALS}
    stop_signals.exit_on_signals("tdbg.app.scripts.train_batch")
    assert {s: signal.getsignal(s) for s in stop_signals.STOP_SIGNALS} == before


@pytest.mark.parametrize(
    "signum, raised", [(signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)]
)
def test_around_the_work_a_signal_raises_where_the_work_is(signum, raised):
    """The signal raises where the work is; from then on both are ignored (the program is
    on its way out as the first one said), past the block's end too."""
    before = {s: signal.getsignal(s) for s in stop_signals.STOP_SIGNALS}
    try:
        with pytest.raises(raised) as err:
            with raise_on_signals():
                os.kill(os.getpid(), signum)
                for _ in range(10**9):  # the handler runs at the next bytecode; never reached
                    pass
        assert isinstance(err.value, KeyboardInterrupt)  # undone the same way for both
        assert (type(err.value) is Terminated) == (signum == signal.SIGTERM)
        assert all(signal.getsignal(s) is signal.SIG_IGN for s in stop_signals.STOP_SIGNALS)
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def test_a_block_no_signal_reached_puts_the_handlers_back():
    before = {s: signal.getsignal(s) for s in stop_signals.STOP_SIGNALS}
    with raise_on_signals():
        pass
    assert {s: signal.getsignal(s) for s in stop_signals.STOP_SIGNALS} == before


def test_a_handler_is_set_only_from_the_main_thread():
    seen = []
    before = signal.getsignal(signal.SIGTERM)

    def in_thread():
        with StopSignalHandler(lambda *a: seen.append(a)):
            seen.append(signal.getsignal(signal.SIGTERM))

    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    assert seen == [before]


def test_after_the_first_ctrl_c_further_ones_cannot_cut_the_exit_short():
    # a program on its way out after Ctrl-C (exit 130) must not be killed by a second press:
    # Python puts back SIGINT's default action at shutdown for handlers it installed, an ignored
    # signal stays ignored; here the second press arrives after the call and the exit goes on
    code = (
        "import os, signal, sys\n"
        "from tdbg.infra import stop_signals\n"
        "stop_signals.exit_on_signals('__main__')\n"
        "stop_signals.ignore_further_interrupts()\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "print('still exiting', flush=True)\n"
        "sys.exit(130)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert (out.returncode, out.stdout, out.stderr) == (130, "still exiting\n", "")
