"""The two signals that ask a run to stop, SIGTERM and SIGINT (Ctrl-C), given one handler
for the length of a ``with`` block, and their old handlers back after it however it ends.

SIGINT is handled by hand too, not left to Python's KeyboardInterrupt: a process started
with SIGINT ignored (a shell's background job) gets no KeyboardInterrupt from Python, and
would go on after Ctrl-C or ``kill -INT``."""
from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopSignalHandler:
    """``handler(signum, frame)`` for SIGTERM and SIGINT inside the ``with`` block."""

    def __init__(self, handler):
        self.handler = handler

    def __enter__(self):
        self._old = {s: signal.signal(s, self.handler) for s in STOP_SIGNALS}
        return self

    def __exit__(self, *exc):
        for s, old in self._old.items():
            signal.signal(s, old)
