"""A training run's CSV log (and, if asked, the same numbers for TensorBoard), and the one
way a row is added to a CSV file: whole, in one write, or not at all."""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import os

from tdbg.infra.errors import InputError


def append_line(path: str, text: str, start_afresh: bool = False) -> int:
    """Add ``text`` (whole lines) to the file at ``path`` in one write of an O_APPEND file
    (``start_afresh``: the file emptied first), so no reader, nor another process appending
    rows, ever sees part of a line; a write that fails or stops short (a full disk) is taken
    back (a file it created goes with it) and raised as an OSError naming ``path``.  The
    file's size before the text."""
    data = text.encode("utf-8")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | (os.O_TRUNC if start_afresh else 0)
    try:
        fd, created = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o666), True
    except FileExistsError:
        fd, created = os.open(path, flags, 0o666), False
    try:
        size = os.fstat(fd).st_size
        try:
            if os.write(fd, data) != len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as exc:
            os.ftruncate(fd, size)  # no torn row
            if (
                created
            ):  # nor an empty file this write made: the same command, run again, was refused for it
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)
            raise OSError(exc.errno, exc.strerror, path) from None
    finally:
        os.close(fd)
    return size


def truncate(path: str, size: int) -> None:
    """Take back what was added to ``path`` after it had ``size`` bytes."""
    with open(path, "r+b") as fh:
        fh.truncate(size)


class CsvLog:
    """A run's CSV log, a whole row at a time (append_line).  ``append``: the run continues
    the one that wrote the file (a resume of the same checkpoint; ``check_continues`` says
    whether the file is that run's); otherwise the file is started afresh.  Nothing is
    opened before the first row, so a run that fails early leaves an old file as it was
    (fileio.check_outputs decides whether it may be replaced)."""

    def __init__(
        self, path: str, fields: list[str], append: bool = False, tensorboard: str | None = None
    ):
        self.path = path
        self.fields = fields
        self.append = append
        self.started = False
        self.before: int | None = None  # the file's size before the last row written
        self.tb = None
        self.open_tensorboard(tensorboard)

    def open_tensorboard(self, folder: str | None) -> None:
        """The same numbers for TensorBoard, in ``folder`` (None: none)."""
        if folder:
            self.tb = open_tensorboard(folder)

    def _text(self, rows: list[dict], header: bool) -> str:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=self.fields, extrasaction="ignore")
        if header:
            writer.writeheader()
        writer.writerows({k: _fmt(r.get(k, "")) for k in self.fields} for r in rows)
        return buf.getvalue()

    def check_continues(self, last: dict, continued: bool = False) -> str | None:
        """InputError unless the log this run appends to is its own: the header is this
        run's fields and the last whole row has the values in ``last`` (what the checkpoint
        holds: its episodes...).  One row beyond them, after a row that has them, is a row
        whose save never finished (the run was killed during it): it is taken back, and
        the line returned says so.  A missing or empty log is started afresh, unless the run
        ``continued`` an unfinished stage: that stage's log holds its rows so far, and a new
        one would hold only the rows from here, without a word."""
        if not (self.append and os.path.isfile(self.path) and os.path.getsize(self.path)):
            self._check_there(last, continued)
            return None
        fix = (
            "give another --log for the rows from here, or resume from the checkpoint that wrote it"
        )
        try:
            with open(self.path, "rb") as fh:
                lines = fh.read().decode("utf-8").splitlines(keepends=True)
            rows = list(csv.reader(lines))
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise InputError(
                f"{self.path}: cannot read the log this run appends to ({exc}); {fix}"
            ) from None
        if len(rows) != len(lines):
            raise InputError(f"{self.path} is not a log of one row a line; {fix}")
        if rows[0] != self.fields:
            raise InputError(
                f"{self.path} is not this run's log (its columns are not this run's: "
                f"{','.join(rows[0])[:80]}); {fix}"
            )
        if not lines[-1].endswith("\n"):
            raise InputError(f"{self.path}: its last row is cut short; {fix}")

        def mismatch(row: list[str]) -> str | None:
            got = dict(
                zip(rows[0], row, strict=False)
            )  # a hand-edited row may be short: a mismatch
            for key, want in last.items():
                if key in self.fields and got.get(key) != str(want):
                    return f"{key} {got[key]}" if key in got else "no rows"
            return None

        found = mismatch(rows[-1]) if len(rows) > 1 else "no rows"
        if found is None:
            return None
        episodes = last.get("total_episodes")
        if (
            len(rows) > 2
            and mismatch(rows[-2]) is None
            and episodes is not None
            and int(dict(zip(rows[0], rows[-1], strict=False)).get("total_episodes") or 0)
            > episodes
        ):
            truncate(self.path, sum(len(ln.encode("utf-8")) for ln in lines[:-1]))
            return f"{self.path}: its last row was never saved (a save cut short); taken back"
        want = "; ".join(f"{k} {v}" for k, v in last.items() if k in self.fields)
        raise InputError(
            f"{self.path} is not this checkpoint's log (its last row has {found}, the checkpoint "
            f"{want}); {fix}"
        )

    def _check_there(self, last: dict, continued: bool) -> None:
        """InputError where the log of an unfinished stage this run continues (``continued``,
        appended to) is missing or empty: it held the stage's rows so far."""
        if self.append and continued:
            what = "empty" if os.path.isfile(self.path) else "not there"
            raise InputError(
                f"{self.path}: the log of the stage this run continues is {what} (its rows to "
                f"{last.get('total_episodes')} episodes); give another --log for the rows "
                f"from here, or put the stage's log back"
            )

    def write(self, row: dict) -> None:
        fresh = not self.started and (
            not self.append or not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        )
        before = append_line(self.path, self._text([row], header=fresh), start_afresh=fresh)
        self.before = (
            None if fresh else before
        )  # None: the row started the file, which goes with it
        self.started = True
        if self.tb is not None:  # the same numbers; the CSV stays the record
            step = int(row.get("total_episodes") or row.get("episodes") or 0)
            for k in self.fields:
                if isinstance(row.get(k), (int, float)) and not isinstance(row.get(k), bool):
                    self.tb.add_scalar(k, row[k], step)
            self.tb.flush()

    def withdraw(self) -> None:
        """Take back the last row (its save failed: the log keeps to what the checkpoint holds).
        A log this row started goes whole: a header alone made the same command, run again,
        refused for a log that exists."""
        if not self.started:
            return
        if self.before is None:
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.path)
            self.started = False
        else:
            truncate(self.path, self.before)

    def close(self) -> None:
        if self.tb is not None:
            self.tb.close()


def require_tensorboard():
    """torch's SummaryWriter; InputError when the tensorboard package is missing."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise InputError(
            "--tensorboard needs the tensorboard package (pip install tensorboard); "
            "without the flag the CSV log has the same numbers"
        ) from None
    return SummaryWriter


def open_tensorboard(folder: str):
    return require_tensorboard()(folder)


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return v
