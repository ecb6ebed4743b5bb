"""Where a result came from: the code's commit, the time (UTC) and the command line, in
every checkpoint's lineage and every published summary, built one way."""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import subprocess
import sys


def git_commit(tree: str | None = None) -> str:
    """This checkout's short commit (or that of the checkout at ``tree``), "-dirty" with
    uncommitted changes to tracked files; "unknown" outside a git checkout."""
    try:
        here = tree or os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=5,
        )
        commit = out.stdout.strip() or "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def command() -> str:
    return " ".join(sys.argv)


def provenance() -> dict:
    """{"commit", "date", "command"} of this run."""
    return {"commit": git_commit(), "date": utc_now(), "command": command()}


def cpu_name() -> str:
    """The CPU's model name ("model name" of /proc/cpuinfo on Linux, else platform's guess): a
    stage's CPU-hours and speed depend on it."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def file_md5(path: str) -> str | None:
    """md5 of the file at ``path`` (hex), None where it names no file (a named agent such as
    pubeval): beside a path, the md5 says which file a number came from after the path is
    overwritten."""
    if not os.path.isfile(path):
        return None
    digest = hashlib.md5()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
