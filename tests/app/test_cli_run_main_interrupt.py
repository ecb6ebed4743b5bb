"""cli.run_main: once a program leaves with 130 after Ctrl-C (the terminal game's own exit, or a
KeyboardInterrupt run_main turns into one line), a second Ctrl-C during the rest of the exit
is ignored: at shutdown Python puts back SIGINT's default action for the handlers it
installed, and a press then would kill the process (-2) instead of letting it end with 130."""

import signal
import sys

import pytest

from tdbg.app import cli


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
