"""What every command-line script shares: one-line errors with exit code 2 (Ctrl-C: 130,
SIGTERM: 143), limits on numbers, atomic result files (the output policy itself is fileio's;
run logs are runlog's)."""

from __future__ import annotations

import argparse
import contextlib
import csv
import errno
import io
import math
import os
import re
import signal
import sys
import warnings
from typing import NoReturn

from tdbg.infra import run_outputs, stop_signals, threads
from tdbg.infra.errors import InputError, RunError
from tdbg.infra.fileio import (
    KIND_NAMES,
    OutputError,
    check_input,
    file_kind,
    ragged_row,
    repeated_column,
)
from tdbg.infra.threads import cores
from tdbg.infra.workers import MAX_WORKERS_PER_CORE, WorkerError
from tdbg.net.model import parse_hidden


class UsageError(InputError):
    """Bad input found by a script itself: reported as one line, exit code 2."""


def checked(build):
    """``build()``, with a ValueError (bad settings, a malformed input file) as a UsageError."""
    try:
        return build()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows "(default: X)" once: not when the help already says its default, nor for
    off-by-default switches and unset options."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (
            "default" in text
            or action.default is None
            or action.default is False
            or action.default is argparse.SUPPRESS
        ):
            return text
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse with defaults shown in --help and errors as a single line."""

    # text options that may be empty ('' is the value meant, not a path or a name left out)
    EMPTY_ALLOWED = frozenset({"title"})

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        # a flag declared type=int or type=float reads ASCII digits only, as the parsers below do:
        # Python's int() and float() also read 1_000 and other scripts' digits (--ply ١, --lr 1_0)
        self.register("type", int, whole_number)
        self.register("type", float, number)

    def error(self, message):  # noqa: D401 - argparse hook
        fail(message, self.prog)

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, then a check that every text given can be written as UTF-8: a path or
        name with a byte that is not (it reaches Python as a lone surrogate) would otherwise
        be found only when a result file or a line naming it is written, after the work."""
        parsed, rest = super().parse_known_args(args, namespace)
        for key, value in vars(parsed).items():
            for text in value if isinstance(value, (list, tuple)) else [value]:
                if text == "" and key not in self.EMPTY_ALLOWED and self._given(key):
                    # ('' was taken as the flag not given: --config '' trained from the defaults,
                    # --gnubg '' used the default binary)
                    self.error(
                        f"{self._name_of(key)} '': an empty value names nothing (no file, no "
                        f"setting); give one, or leave the flag out"
                    )
                if isinstance(text, str) and not _utf8(text):
                    # worded as the output policy words it (fileio.check_name), the bytes shown as given
                    self.error(
                        f"argument {self._name_of(key)}: {_shown(text)}: the name is not UTF-8 text "
                        f"(result files and messages name it); choose a name of UTF-8 characters"
                    )
        return parsed, rest

    def _given(self, dest: str) -> bool:
        """Whether ``dest`` is an argument of this parser (a default of '' is no value given)."""
        return any(a.dest == dest and a.default != "" for a in self._actions)

    def _name_of(self, dest: str) -> str:
        """An argument as argparse's own errors name it: a flag by its flags, a positional by its
        name (not as a flag: "argument --checkpoint" for CHECKPOINT)."""
        for action in self._actions:
            if action.dest == dest:
                return argparse._get_action_name(action) or dest
        return dest


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _shown(text: str) -> str:
    """``text`` printable: a byte that is not UTF-8 as ``\\xff``, as the command line gave it."""
    try:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no byte stands for
        return text.encode("utf-8", "backslashreplace").decode()


FAILED = 2  # exit code of every failure reported as one error line: bad input or one met part-way
INTERRUPTED = 130  # exit code after Ctrl-C (128 + SIGINT), as a shell reports it


def fail(message: str, prog: str | None = None, code: int = FAILED) -> NoReturn:
    """One ``prog: error: message`` line on stderr (a message of several lines is joined
    into one), then exit with ``code``."""
    prog = prog or os.path.basename(sys.argv[0])
    message = "; ".join(ln.strip() for ln in str(message).splitlines() if ln.strip())
    # the line says how the program ends: a Ctrl-C or SIGTERM after it (a gnubg that gave up,
    # then `kill`) added a second, "interrupted", line, or in the interpreter's teardown met
    # the default action (exit -15, no line of its own)
    stop_signals.ignore_further_interrupts()
    _close_progress_bars()
    print(f"{prog}: error: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def _close_progress_bars() -> None:
    """Close every progress bar still drawn, before the error line: a bar an exception left
    open (a Ctrl-C in a worker pool's shutdown skips the close after it) had the error line
    glued to its end, and then drew itself again below it when it was closed at exit."""
    tqdm_module = sys.modules.get("tqdm")  # (no bar if tqdm was never imported)
    for bar in list(getattr(getattr(tqdm_module, "tqdm", None), "_instances", None) or ()):
        with contextlib.suppress(Exception):
            bar.close()


def _stdout_closed() -> None:
    """stdout's reader went away (``| head -1``): later writes, and the flush at exit,
    go nowhere instead of raising again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


class _WatchedStdout:
    """sys.stdout as it was, keeping the error of a write or flush that failed (``> /dev/full``,
    a full disk under a redirect, a reader that went away), so that it can be told from an
    error of another file."""

    def __init__(self, stream):
        self.stream, self.error = stream, None

    def write(self, text):
        try:
            return self.stream.write(text)
        except OSError as exc:
            self.error = exc
            raise

    def flush(self):
        try:
            return self.stream.flush()
        except OSError as exc:
            self.error = exc
            raise

    def __getattr__(self, name):
        return getattr(self.stream, name)


READER_GONE = (
    128 + signal.SIGPIPE
)  # exit code when stdout's reader went away: what a shell reports for `yes | head`


def _stdout_failed(error: OSError) -> None:
    """stdout could not be written: quietly, exit code READER_GONE, when its reader went away
    (``| head``: command-line tools end without a word); otherwise one error line."""
    _stdout_closed()
    if isinstance(error, BrokenPipeError):
        sys.exit(READER_GONE)
    fail(f"cannot write standard output ({error.strerror or error})")


def _show_unencodable_escaped() -> None:
    """A character the terminal's encoding lacks (PYTHONIOENCODING=ascii, a non-ASCII path) is
    shown as \\xe9, not a traceback."""
    for stream in (sys.stdout, sys.stderr):
        # a stream replaced by a caller (a test's capture) may have no reconfigure
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


class _ClosedStream:
    """Standard output closed when the program started (``>&-``: Python's sys.stdout is None):
    a write fails as a write to a closed descriptor does, and is reported as any failed write
    of standard output is (print() to None was an AttributeError traceback)."""

    def write(self, text):
        raise OSError(errno.EBADF, "it is closed")

    def flush(self):
        pass

    def fileno(self):
        raise io.UnsupportedOperation("standard output is closed")


def _closed_standard_streams() -> None:
    """A standard stream closed when the program started: stdin reads as empty (the terminal
    game's input() raised "lost sys.stdin"), stdout fails when written, stderr goes nowhere.
    Their descriptors are taken by /dev/null (stop_signals.fill_closed_descriptors), so no file
    the run opens gets descriptor 1 and receives what is printed."""
    stop_signals.fill_closed_descriptors()
    if sys.stdin is None:
        sys.stdin = open(os.devnull)  # noqa: SIM115 - for the whole run
    if sys.stdout is None:
        sys.stdout = _ClosedStream()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the whole run


def run_main(main) -> None:
    """Call ``main()``, turning every failure it reports into one ``prog: error: ...`` line
    and exit code 2: bad input (the library's InputError, a script's UsageError), an
    OutputError, a run that failed part-way (a RunError, a lost worker: the message says
    what was kept), a failed write (a full disk) and an unwritable stdout (``> /dev/full``).
    A reader of stdout that went away (``| head -1``) ends the run quietly.  Ctrl-C is one
    line and exit code 130, SIGTERM one line and 143, as a shell reports a process the signal
    ended (stop_signals: before this, from the script's first line, they end it at once).
    Warnings (torch's) printed before an error line are held back: the error line is the
    whole story.  The run's hold on its outputs (locks, old files it replaces) ends with it,
    however it ends.  Every script starts on one torch thread (or TDBG_THREADS,
    OMP_NUM_THREADS: threads.py); one that learns how big its work is chooses again."""
    held: list = []
    _closed_standard_streams()
    _show_unencodable_escaped()
    watched = sys.stdout = _WatchedStdout(sys.stdout)
    try:
        with (
            stop_signals.raise_on_signals(),
            warnings.catch_warnings(record=True) as held,
            run_outputs.run(),
        ):
            threads.use()
            main()
            sys.stdout.flush()
        # the work is done and written: a Ctrl-C or SIGTERM in the interpreter's teardown met
        # its default action (exit -15 or -2, no line) after the whole output
        stop_signals.ignore_further_interrupts()
    except (InputError, OutputError, RunError, WorkerError) as exc:
        fail(str(exc))
    except SystemExit as exc:  # a script's own exit (--help, --check's verdict, the terminal
        # game's 130 after Ctrl-C, a stopped training run's 130 or 143): what it printed must be
        # written, and a second Ctrl-C or SIGTERM must not cut the exit short (outside the with
        # block, whose end puts the handlers back)
        if exc.code in (INTERRUPTED, stop_signals.exit_code(signal.SIGTERM)):
            stop_signals.ignore_further_interrupts()
        try:  # (argparse's help swallows a failed write: the watch has kept it)
            sys.stdout.flush()
        except OSError:
            pass
        if watched.error is not None:
            _stdout_failed(watched.error)
        raise
    except KeyboardInterrupt as exc:  # Ctrl-C, or stop_signals.Terminated for SIGTERM
        signum = getattr(exc, "signum", signal.SIGINT)
        stop_signals.ignore_further_interrupts()
        fail(stop_signals.interrupted_message(signum), code=stop_signals.exit_code(signum))
    except OSError as exc:
        if watched.error is not None:  # e.g. > /dev/full, | head: the output cannot be written
            _stdout_failed(watched.error)
        if isinstance(exc, BrokenPipeError) and exc.filename is None:  # a pipe to another process
            fail(f"a pipe to another process closed ({exc.strerror or exc})")
        if exc.filename is None:
            raise
        fail(f"{exc.filename}: {exc.strerror}")
    finally:
        if sys.stdout is watched:
            sys.stdout = watched.stream
    for w in held:  # no error: the warnings are shown as they would have been
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def whole_number(text: str) -> int:
    """A whole number in ASCII digits: int() also reads 1_000 (as --hidden and result files do
    not) and other scripts' digits (١٢, １２, and ² is a ValueError)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text.strip(), flags=re.ASCII):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(text)


_FLOAT = re.compile(
    r"\s*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)\s*",
    flags=re.ASCII | re.IGNORECASE,
)


def number(text: str) -> float:
    """A number as float() reads it, in ASCII digits only: float() also reads 1_0 (10) and
    other scripts' digits (٠.٥)."""
    if not _FLOAT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    return float(text)


def _int_at_least(low: int, words: str):
    def parse(text: str) -> int:
        value = whole_number(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"{words}, got {value}")
        return value

    return parse


positive_int = _int_at_least(1, "must be at least 1")
non_negative_int = _int_at_least(0, "must not be negative")


def _number(check, words: str, base=number):
    """A parser of a number: ``base(text)`` (number, or a parser below), then ``check(value)``;
    an error ``words, got TEXT`` when the check fails."""

    def parse(text: str) -> float:
        try:
            value = base(text)
        except ValueError:  # (number's own error says the same)
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not check(value):
            raise argparse.ArgumentTypeError(f"{words}, got {text}")
        return value

    return parse


MAX_LR = 100.0

finite_float = _number(math.isfinite, "must be a finite number")
positive_float = _number(lambda v: v > 0 and math.isfinite(v), "must be a positive finite number")
probability_arg = _number(
    lambda v: 0.0 <= v <= 1.0, "must be between 0 and 1"
)  # a probability: 0 to 1
non_negative_float = _number(lambda v: v >= 0, "must not be negative", finite_float)
momentum_arg = _number(lambda v: v < 1, "must be in [0, 1)", non_negative_float)
# a learning rate: positive, finite and at most MAX_LR (larger ones overflow the optimizer)
learning_rate = _number(lambda v: v <= MAX_LR, f"at most {MAX_LR:g}", positive_float)


def _bounded_int(low: int, high: int, what: str):
    base = _int_at_least(low, f"must be at least {low}")

    def parse(text: str) -> int:
        value = base(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"at most {high:,} {what}, got {value:,}")
        return value

    return parse


# --threads: the limit of threads.requested, which also applies it to TDBG_THREADS and OMP_NUM_THREADS
threads_arg = _bounded_int(1, threads.MAX_THREADS, "threads")

# a time limit: positive, finite, and within what poll() and socket timeouts take (milliseconds
# in a signed 32-bit number: about 24.8 days)
MAX_TIMEOUT = 1_000_000.0
timeout_arg = _number(
    lambda v: v <= MAX_TIMEOUT,
    f"at most {MAX_TIMEOUT:,.0f} seconds (about 11.5 days)",
    positive_float,
)

# a random seed: numpy's generators take 0 .. 2**32 - 1
seed_arg = _bounded_int(0, 2**32 - 1, "(seeds are 0 to 4,294,967,295)")


def hidden_text(text: str) -> str:
    """A --hidden given as text ("512,512,256"): checked as the network will read it
    (model.parse_hidden), kept as written."""
    try:
        parse_hidden(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def workers_arg(text: str) -> int:
    """--workers: 1 .. MAX_WORKERS_PER_CORE x the cores this process may use."""
    high = MAX_WORKERS_PER_CORE * cores()
    return _bounded_int(1, high, f"workers ({MAX_WORKERS_PER_CORE} per core, {cores()} cores)")(
        text
    )


def match_length_arg(text: str) -> int:
    """--match-length: 1 .. 25 points (the match equity table's size)."""
    return _bounded_int(1, 25, "points (match lengths are 1 to 25)")(text)


def dice_arg(text: str) -> tuple[int, int]:
    """--dice: a roll as two digits 1-6 (52)."""
    if len(text) != 2 or not all(c in "123456" for c in text):
        raise argparse.ArgumentTypeError(f"dice are two digits 1-6 such as 52, got {text!r}")
    return int(text[0]), int(text[1])


def count_arg(high: int, what: str):
    """A count from 1 to ``high`` (a limit that keeps the run within memory)."""
    return _bounded_int(1, high, what)


def read_log(
    path: str, column: str, what: str = "a training log", numbers: tuple[str, ...] = ()
) -> list[dict]:
    """The rows of a CSV log that has ``column``; UsageError (one line) for anything else,
    e.g. a checkpoint given where its log was meant.  Every row must have the header's
    fields, and each column of ``numbers`` the reader uses must hold, where it is not blank,
    a finite number as the trainers write one (float() also reads "nan", "inf", "1_0" and
    other scripts' digits, and a NUL byte or a word would be passed over as no value)."""
    check_input(path, what)
    if file_kind(path) not in ("text", "empty"):
        raise UsageError(
            f"{path} is {KIND_NAMES[file_kind(path)]}, not {what} (a CSV file such as the one "
            f"written next to the checkpoint)"
        )
    try:
        # utf-8-sig: a file saved from a spreadsheet starts with a byte-order mark
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            twice = repeated_column(reader.fieldnames)
            rows = list(reader)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, csv.Error):
        raise UsageError(f"{path} is not {what} (not a CSV text file)") from None
    if not rows or column not in rows[0]:
        # before the repeated-column check: rows with no header line read as one
        raise UsageError(f"{path} is not {what} (no rows or no {column!r} column)")
    if twice:  # csv keeps the last of them: which one was meant cannot be told
        raise UsageError(f"{path} is not {what} (its header has the column {twice!r} twice)")
    for line, row in enumerate(rows, 2):
        ragged = ragged_row(row)
        if ragged:
            raise UsageError(
                f"{path}: line {line} is not a row of {what} (it has {ragged} fields than the header)"
            )
        for key in numbers:
            text = row.get(key)
            if text not in (None, "") and not _log_number(text):
                raise UsageError(f"{path}: line {line} is not a row of {what} ({key} {text!r})")
    return rows


def _log_number(text: str) -> bool:
    """Whether a log's field is a finite number in ASCII digits (as the trainers write)."""
    return (
        _FLOAT.fullmatch(text) is not None and text == text.strip() and math.isfinite(float(text))
    )
