"""What a run holds on its outputs while it runs (fileio.check_outputs takes them; the
scripts' cli.run_main ends them):

* a lock on each output, so a second run on the same output is refused by name instead of
  mixing its rows and files with the first's: ``flock`` on a file named by a hash of the
  output's real path, in a folder of the user's under the system's temporary folder (not
  beside the output, whose folder may not exist yet: nothing is made before the checks
  pass).  The kernel drops the lock when the process ends, however it ends: a lock file
  left by ``kill -9`` blocks nothing, and the next run on that output takes it over and
  removes it when done;
* the old files an ``--overwrite`` run replaces without writing over them (an earlier
  run's .mat games in a folder, an earlier stage's snapshots), removed when the run
  starts writing (``claim``, at the first atomic write or at the end of a run that wrote
  nothing), so old and new files are never mixed and a run refused at a check loses
  nothing;
* stale temporary files of its outputs (``.tmp-NAME-XXXXXXXX.ext``, what a run killed
  during an atomic write leaves), removed once the lock is held: no other run writes them.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import hashlib
import os
import tempfile


class LockedError(Exception):
    """Another run holds an output; the message names it (fileio turns it into an OutputError)."""


def lock_path(real: str) -> str:
    """The lock file of the output at real path ``real``."""
    folder = os.path.join(tempfile.gettempdir(), f"tdbg-locks-{os.getuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.path.join(folder, hashlib.sha256(os.fsencode(real)).hexdigest()[:32] + ".lock")


TEMP_TAIL = (
    8  # the random characters mkstemp puts between a temporary name's prefix and its extension
)
_NAME_MAX = 255


def temp_prefix(path: str) -> str:
    """The start of the name of ``path``'s temporary files (fileio.atomic_write):
    ``.tmp-NAME-``, then mkstemp's characters and the extension; NAME is cut short where
    the whole would be longer than a file name can be."""
    name, ext = os.path.basename(path), os.path.splitext(path)[1]
    room = _NAME_MAX - len(".tmp--") - TEMP_TAIL - len(os.fsencode(ext))
    while len(os.fsencode(name)) > room and name:
        name = name[:-1]
    return ".tmp-" + name + "-"


def remove_stale_temps(paths: list[str]) -> None:
    """Remove the temporary files of ``paths`` (one look at each folder): left by a run
    killed during a save, and written by no one else while this run holds the outputs."""
    by_folder: dict[str, dict[str, str]] = {}
    for path in paths:
        folder = os.path.dirname(os.path.abspath(path))
        by_folder.setdefault(folder, {})[temp_prefix(path)] = os.path.splitext(path)[1]
    for folder, prefixes in by_folder.items():
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            if not entry.startswith(".tmp-"):
                continue
            for ext in set(prefixes.values()):
                head = entry[: len(entry) - len(ext) - TEMP_TAIL]
                if entry.endswith(ext) and prefixes.get(head) == ext:
                    remove(os.path.join(folder, entry))
                    break


class _State:
    """This process's run: its locks {real path: (fd, lock file)}, the old files to remove
    at its first write [(path, identity)], and the process that owns them (a forked
    worker inherits the state, and must neither remove nor release anything)."""

    def __init__(self) -> None:
        self.locks: dict[str, tuple[int, str]] = {}
        self.pending: list[tuple[str, tuple[int, int, int]]] = []
        self.pid = os.getpid()
        self.labels: dict[str, str] = {}  # real path -> how messages name the output
        self.own: set[str] = set()  # real paths of the outputs a run also reads (its own)
        self.inputs: dict[str, str] = {}  # real path -> how messages name a file the run read


_state = _State()


def _identity(file: str | int) -> tuple[int, int, int] | None:
    """(device, inode, modification time) of a path or an open file descriptor, None when
    there is no such file: an old file is removed only if it is still the one checked, a
    lock file only if it is still the one locked."""
    try:
        st = os.stat(file)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns


def read_input(path: str, label: str) -> None:
    """The run reads the file at ``path`` (a stage file, a match equity table, a result file):
    no output of the run may be it (ValueError, naming the output, where one already is),
    and fileio.check_outputs refuses an output named later that is (inputs)."""
    real = os.path.realpath(path)
    if real in _state.labels and real not in _state.own:
        raise ValueError(f"{label}: the same file as {_state.labels[real]}, an output of this run")
    _state.inputs.setdefault(real, label)


def inputs() -> dict[str, str]:
    """{real path: label} of the files this run has read so far (read_input)."""
    return dict(_state.inputs)


def read_by_the_run(path: str) -> None:
    """The output at ``path`` is one the run also reads (its own: a continued checkpoint, its
    log): read_input lets it be read."""
    _state.own.add(os.path.realpath(path))


def hold(path: str, label: str) -> None:
    """Lock ``path`` for this run (LockedError when another run holds it), then remove its
    stale temporary files.  Taking a lock this run holds already does nothing."""
    real = os.path.realpath(path)
    _state.labels.setdefault(real, label)
    if real in _state.locks:
        return
    where = lock_path(real)
    while True:
        fd = os.open(where, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                raise
            raise LockedError(
                f"{label} is being written by another run{_holder(where)}; wait for it to end, "
                f"or choose another path"
            ) from None
        # the lock file may have been removed (its run ended) between open and flock: lock the one there now
        if _identity(fd) == _identity(where):
            break
        os.close(fd)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode() + os.fsencode(real) + b"\n")
    _state.locks[real] = (fd, where)
    remove_stale_temps([real])


def _holder(where: str) -> str:
    try:
        with open(where, "rb") as fh:
            pid = int(fh.readline())
        return f" (process {pid})"
    except (OSError, ValueError):
        return ""


def remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def replace_at_start(paths: list[str]) -> None:
    """Old files this run replaces without writing over them: removed at ``claim``, each
    only if it is still the file that was checked."""
    _state.pending += [(p, ident) for p in paths if (ident := _identity(p)) is not None]


def claim() -> None:
    """The run starts writing: remove the old files it replaces (once)."""
    if os.getpid() != _state.pid:
        return
    pending, _state.pending = _state.pending, []
    for path, ident in pending:
        if _identity(path) == ident:
            remove(path)


def end() -> None:
    """The run is over: release its locks and remove their files; forget what was pending."""
    global _state
    if os.getpid() == _state.pid:
        for fd, where in _state.locks.values():
            if _identity(where) == _identity(fd):  # still ours: no later run took it over
                remove(where)
            os.close(fd)
    _state = _State()


@contextlib.contextmanager
def run():
    """A script's whole run: at a normal end the old files it replaces go even where it
    wrote nothing (claim); at any end its locks are released (end)."""
    try:
        yield
        claim()
    finally:
        end()


atexit.register(end)  # a run through the library, not a script: its locks go when the process ends
