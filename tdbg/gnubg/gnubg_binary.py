"""Finding and checking the real GNU Backgammon binary.

Which binary: ``--gnubg PATH``, else $GNUBG_BINARY, else the 1.08.003 build of `make gnubg`
(.gnubg/1.08.003/bin/gnubg, the seed's opponent), else gnubg on PATH or Debian 12's
/usr/games/gnubg (1.07.001).  The preflight prints gnubg's version and the md5 of the
weights file that binary loads (its data folder, as its own `show engine` reports it),
and refuses versions this project has not checked its protocol and file formats against.
Version differences: ../shared/reference/gnubg-external-player.md and README "gnubg".
"""

from __future__ import annotations

import hashlib
import os
import re
import select
import shutil
import subprocess
import time
from typing import TypeGuard

from tdbg.infra.workers import end_group, own_group_dies_with_us

SUPPORTED_VERSIONS = ("1.07.001", "1.08.003")
SEED_VERSION = "1.08.003"  # the seed's opponent; `make gnubg` builds it here
ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)  # the repository
LOCAL_BUILD = os.path.join(ROOT, ".gnubg", SEED_VERSION, "bin", "gnubg")
DEBIAN_BINARY = "/usr/games/gnubg"  # Debian 12's package: 1.07.001
# weights files whose provenance is documented in ../shared/reference/gnubg-analysis.md
KNOWN_WEIGHTS = {
    "5a671589fe7d47d1be4c9a0d2d363697": "gnubg.wd v1.00 (Debian 12, gnubg 1.07.001)",
    "14184acc9c60ef67be0fad88548fd51a": "gnubg.wd v1.01 (gnubg 1.08.x, the seed's)",
}
SEED_WEIGHTS_MD5 = "14184acc9c60ef67be0fad88548fd51a"
_cache: dict = {}


class GnubgError(Exception):
    """The gnubg binary is missing, unsupported, or failed at run time."""


def _runnable(path: str | None) -> TypeGuard[str]:
    return path is not None and path != "" and os.path.isfile(path) and os.access(path, os.X_OK)


def find_gnubg(path: str | None = None) -> str:
    """The gnubg binary: ``path``, else $GNUBG_BINARY, else `make gnubg`'s 1.08.003 build,
    else gnubg on PATH or /usr/games/gnubg."""
    path = path or os.environ.get("GNUBG_BINARY")
    if path:
        if _runnable(path):
            return path
        raise GnubgError(f"{path}: no gnubg binary there")
    for c in (LOCAL_BUILD, shutil.which("gnubg"), DEBIAN_BINARY):
        if _runnable(c):
            return c
    raise GnubgError("GNU Backgammon binary not found; build gnubg 1.08.003 with `make gnubg`")


def installed_binaries() -> list[str]:
    """Every distinct supported gnubg on this machine (the 1.08.003 build first), for tests
    that hold both versions to the same behaviour."""
    out, seen = [], set()
    for c in (LOCAL_BUILD, shutil.which("gnubg"), DEBIAN_BINARY):
        if _runnable(c) and os.path.realpath(c) not in seen:
            seen.add(os.path.realpath(c))
            try:
                preflight(c, quiet=True)
            except GnubgError:
                continue
            out.append(c)
    return out


def _no_answer(binary: str, exc: subprocess.TimeoutExpired) -> GnubgError:
    return GnubgError(
        f"{binary}: no answer within {exc.timeout:g} s (--gnubg-timeout where the script has it)"
    )


MAX_ANSWER = 1 << 20  # bytes of gnubg's output to one of our short questions (its are < 4 KiB)


def ask(argv: list[str], stdin: bytes | None, timeout: float | None) -> tuple[str, str, int | None]:
    """(stdout, stderr, exit code) of gnubg run as ``argv`` with ``stdin``, for a short answer
    (its version, its data folder, a rating).  gnubg runs in a process group of its own, which
    is ended once gnubg exits (what it started and left behind: a helper holding its output
    made the wait last to the timeout, and outlived the run) or when the answer is cut short.
    subprocess.TimeoutExpired after ``timeout`` seconds (None: no limit); GnubgError for an
    answer longer than MAX_ANSWER (output without end was kept whole: a MemoryError).  Bytes
    that are not UTF-8 are replaced (they were a UnicodeDecodeError traceback)."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=own_group_dies_with_us(),
    )
    assert proc.stdout is not None and proc.stderr is not None  # (PIPE: never None)
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        if proc.stdin is not None:
            try:
                proc.stdin.write(stdin or b"")
                proc.stdin.close()
            except OSError:  # gnubg did not read it: its answer says why
                pass
        out, err = _collect(proc, argv, deadline, timeout)
        end_group(proc, wait=max(0.0, deadline - time.monotonic()) if deadline else 60.0)
    finally:
        end_group(proc)
        proc.stdout.close()
        proc.stderr.close()
    return out.decode(errors="replace"), err.decode(errors="replace"), proc.returncode


def _collect(proc: subprocess.Popen, argv: list[str], deadline: float | None, timeout):
    """(stdout, stderr) of ``proc`` (ask's) read to their end, or until a second after gnubg
    exited (a descendant outside its group may hold them open), within ``deadline``."""
    got = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}  # type: ignore[union-attr]
    open_fds, exited = set(got), None
    while open_fds:
        now = time.monotonic()
        if exited is None and proc.poll() is not None:
            end_group(proc)  # nothing it started keeps its output open
            exited = now
        if exited is not None and now - exited > 1.0:
            break
        if deadline is not None and now >= deadline:
            raise subprocess.TimeoutExpired(argv, timeout)
        tick = 0.2 if deadline is None else min(0.2, deadline - now)
        for fd in select.select(list(open_fds), [], [], tick)[0]:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.discard(fd)
            elif len(got[fd]) + len(chunk) > MAX_ANSWER:
                raise GnubgError(
                    f"{argv[0]}: more than {MAX_ANSWER >> 20} MiB of output to "
                    f"{' '.join(argv[1:])!r} (gnubg's answer is a few lines)"
                )
            else:
                got[fd].extend(chunk)
    return tuple(got.values())


def gnubg_version(binary: str, timeout: float | None = None) -> str:
    try:
        out = ask([binary, "--version"], None, timeout or 30)[0]
    except subprocess.TimeoutExpired as exc:
        raise _no_answer(binary, exc) from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise GnubgError(f"{binary}: cannot run it ({exc})") from None
    m = re.search(r"GNU Backgammon (\d+\.\d+\.\d+)", out)
    if not m:
        raise GnubgError(
            f"{binary}: does not look like GNU Backgammon (--version said {out[:60]!r})"
        )
    return m.group(1)


def weights_file(binary: str, timeout: float | None = None) -> str:
    """The gnubg.wd this binary loads: its data folder as `show engine` reports it."""
    try:
        out = ask([binary, "-t", "-q", "-r"], b"show engine\n", timeout or 120)[0]
    except subprocess.TimeoutExpired as exc:
        raise _no_answer(binary, exc) from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise GnubgError(f"{binary}: cannot run it ({exc})") from None
    m = re.search(r"installed in:\s*\n\s*-\s*(\S.*)", out)
    path = os.path.join(m.group(1).strip(), "gnubg.wd") if m else ""
    if not path or not os.path.isfile(path):
        missing = re.search(r"couldn't open (\S+)", out)
        # (a data folder whose gnubg.wd is missing, a folder or a device was "names no data folder")
        why = (
            missing.group(0)
            if missing
            else f"{path} is no file"
            if path
            else "show engine names no data folder"
        )
        raise GnubgError(f"{binary}: cannot find the weights it loads ({why})")
    return os.path.realpath(path)


# gnubg.wd holds gnubg's networks: 408,016 bytes (v1.01); a file far larger is none (a 10 GB
# one was read whole into memory: a MemoryError traceback)
MAX_WEIGHTS_BYTES = 64 << 20


def _weights_md5(binary: str, path: str) -> str:
    """The md5 of the weights file ``binary`` loads, read in pieces; GnubgError for a file no
    gnubg.wd can be (far larger than gnubg's networks) or one that cannot be read."""
    try:
        size = os.path.getsize(path)
        if size > MAX_WEIGHTS_BYTES:
            raise GnubgError(
                f"{binary}: the weights it loads, {path}, are {size:,} bytes: no gnubg.wd "
                f"is larger than {MAX_WEIGHTS_BYTES >> 20} MiB"
            )
        md5 = hashlib.md5()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                md5.update(block)
    except OSError as exc:
        raise GnubgError(f"{binary}: cannot read the weights it loads, {path} ({exc})") from None
    return md5.hexdigest()


def preflight(binary: str | None = None, quiet: bool = False, timeout: float | None = None) -> dict:
    """Check the binary; returns {binary, version, weights, weights_md5, weights_known}.
    ``timeout``: seconds each question to gnubg may take (a script's --gnubg-timeout;
    None: 30 s for --version, 120 s for loading its weights)."""
    b = os.path.abspath(find_gnubg(binary))
    if b not in _cache:
        version = gnubg_version(b, timeout)
        if version not in SUPPORTED_VERSIONS:
            raise GnubgError(
                f"{b} is GNU Backgammon {version}; supported versions: {', '.join(SUPPORTED_VERSIONS)}"
            )
        path = weights_file(b, timeout)
        md5 = _weights_md5(b, path)
        _cache[b] = {
            "binary": b,
            "version": version,
            "weights": path,
            "weights_md5": md5,
            "weights_known": KNOWN_WEIGHTS.get(md5, "unknown weights"),
        }
    info = dict(_cache[b])
    if not quiet:
        print(
            f"gnubg {info['version']} at {b}; weights {info['weights']} md5 {info['weights_md5']} "
            f"({info['weights_known']})"
        )
    return info


def describe(info: dict) -> str:
    """One line naming the binary and its weights, for result files."""
    return f"GNU Backgammon {info['version']} ({info['binary']}), weights md5 {info['weights_md5']}"


def available(binary: str | None = None) -> bool:
    try:
        preflight(binary, quiet=True)
        return True
    except GnubgError:
        return False
