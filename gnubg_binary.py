"""Finding and checking the real GNU Backgammon binary.

The preflight prints gnubg's version and the md5 of the weights file it loads, and
refuses versions this project has not checked its protocol and file formats against.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess

SUPPORTED_VERSIONS = ("1.07.001", "1.08.003")
# weights files whose provenance is documented in ../shared/reference/gnubg-analysis.md
KNOWN_WEIGHTS = {
    "5a671589fe7d47d1be4c9a0d2d363697": "gnubg.wd v1.00 (Debian 12, gnubg 1.07.001)",
    "14184acc9c60ef67be0fad88548fd51a": "gnubg.wd v1.01 (gnubg 1.08.x)",
}
WEIGHT_PATHS = ("/usr/lib/gnubg/gnubg.wd", "/usr/share/gnubg/gnubg.wd")


class GnubgError(Exception):
    """The gnubg binary is missing, unsupported, or failed at run time."""


def find_gnubg(path: str | None = None) -> str:
    """The gnubg binary: ``path``, else $GNUBG_BINARY, else gnubg on PATH or /usr/games/gnubg."""
    path = path or os.environ.get("GNUBG_BINARY")
    candidates = [path] if path else [shutil.which("gnubg"), "/usr/games/gnubg"]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    if path:
        raise GnubgError(f"{path}: no gnubg binary there")
    raise GnubgError("GNU Backgammon binary not found; install it with `make gnubg` (Debian's gnubg package)")


def gnubg_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise GnubgError(f"{binary}: cannot run it ({exc})") from None
    m = re.search(r"GNU Backgammon (\d+\.\d+\.\d+)", out)
    if not m:
        raise GnubgError(f"{binary}: does not look like GNU Backgammon (--version said {out[:60]!r})")
    return m.group(1)


def weights_md5() -> tuple[str, str]:
    for p in WEIGHT_PATHS:
        if os.path.isfile(p):
            return os.path.realpath(p), hashlib.md5(open(p, "rb").read()).hexdigest()
    return "", ""


def preflight(binary: str | None = None, quiet: bool = False) -> dict:
    """Check the binary; returns {binary, version, weights, weights_md5, weights_known}."""
    b = find_gnubg(binary)
    version = gnubg_version(b)
    if version not in SUPPORTED_VERSIONS:
        raise GnubgError(f"{b} is GNU Backgammon {version}; supported versions: {', '.join(SUPPORTED_VERSIONS)}")
    path, md5 = weights_md5()
    info = {"binary": b, "version": version, "weights": path, "weights_md5": md5,
            "weights_known": KNOWN_WEIGHTS.get(md5, "unknown weights")}
    if not quiet:
        print(f"gnubg {version} at {b}; weights {path or '?'} md5 {md5 or '?'} ({info['weights_known']})")
    return info


def available() -> bool:
    try:
        preflight(quiet=True)
        return True
    except GnubgError:
        return False
