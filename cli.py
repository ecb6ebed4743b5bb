"""What every command-line script shares: one-line errors with exit code 2, atomic
result files and CSV logs."""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys

from fileio import atomic_write


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse with defaults shown in --help and errors as a single line."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.ArgumentDefaultsHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # noqa: D401 - argparse hook
        fail(message, self.prog)


def fail(message: str, prog: str | None = None) -> None:
    prog = prog or os.path.basename(sys.argv[0])
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(2)


def run_main(main) -> None:
    """Call ``main()``, turning a UsageError into one line and exit code 2."""
    try:
        main()
    except UsageError as exc:
        fail(str(exc))


def _int_at_least(low: int, words: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{words}, got {value}")
        return value
    return parse


positive_int = _int_at_least(1, "must be at least 1")
non_negative_int = _int_at_least(0, "must not be negative")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def write_atomic(path: str, text: str) -> None:
    """Write a whole text file atomically (see fileio.atomic_write)."""
    with atomic_write(path) as fh:
        fh.write(text)


def write_json(path: str, obj) -> None:
    write_atomic(path, json.dumps(obj, indent=2) + "\n")


class CsvLog:
    """Append rows to a CSV file (header written once), flushed after every row."""

    def __init__(self, path: str, fields: list[str]):
        self.path = path
        self.fields = fields
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        new = not os.path.exists(path) or os.path.getsize(path) == 0
        self.fh = open(path, "a", newline="")
        self.writer = csv.DictWriter(self.fh, fieldnames=fields, extrasaction="ignore")
        if new:
            self.writer.writeheader()
            self.fh.flush()

    def write(self, row: dict) -> None:
        self.writer.writerow({k: _fmt(row.get(k, "")) for k in self.fields})
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return v
