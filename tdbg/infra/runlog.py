"""A training run's CSV log (and, if asked, the same numbers for TensorBoard)."""
from __future__ import annotations

import csv
import os

from tdbg.infra.errors import InputError


class CsvLog:
    """A run's CSV log, flushed after every row.  ``append``: the run continues the one
    that wrote the file (a resume of the same checkpoint); otherwise the file is started
    afresh.  Nothing is opened before the first row, so a run that fails early leaves an
    old file as it was (fileio.check_outputs decides whether it may be replaced)."""

    def __init__(self, path: str, fields: list[str], append: bool = False, tensorboard: str | None = None):
        self.path = path
        self.fields = fields
        self.append = append
        self.fh = self.writer = None
        self.tb = open_tensorboard(tensorboard) if tensorboard else None

    def _open(self) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        new = not self.append or not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        self.fh = open(self.path, "w" if new else "a", newline="")
        self.writer = csv.DictWriter(self.fh, fieldnames=self.fields, extrasaction="ignore")
        if new:
            self.writer.writeheader()

    def write(self, row: dict) -> None:
        if self.fh is None:
            self._open()
        self.writer.writerow({k: _fmt(row.get(k, "")) for k in self.fields})
        self.fh.flush()
        if self.tb is not None:  # the same numbers; the CSV stays the record
            step = int(row.get("total_episodes") or row.get("episodes") or 0)
            for k in self.fields:
                if isinstance(row.get(k), (int, float)) and not isinstance(row.get(k), bool):
                    self.tb.add_scalar(k, row[k], step)
            self.tb.flush()

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
        if self.tb is not None:
            self.tb.close()


def require_tensorboard():
    """torch's SummaryWriter; InputError when the tensorboard package is missing."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise InputError("--tensorboard needs the tensorboard package (pip install tensorboard); "
                         "without the flag the CSV log has the same numbers") from None
    return SummaryWriter


def open_tensorboard(folder: str):
    return require_tensorboard()(folder)


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return v
