"""Every file a script writes goes through here: atomic writes with the usual
permissions, and the one output policy all scripts share.

The policy (``check_outputs``, called by each script before any work starts):

* an existing file is replaced only with ``--overwrite``, or when it is the run's own
  (the checkpoint a run resumes and saves again, and that run's log);
* a file of another kind (a checkpoint, exported weights, a PNG, JSON, text) is never
  replaced, not even with ``--overwrite``: a checkpoint is only ever replaced by a
  checkpoint save;
* the folder must exist or be creatable, and be writable; a path under a regular
  file, a folder given as a file, or one path given for two outputs is refused, and so is
  a name that is not UTF-8 text or too long for the file system (with the temporary name
  written beside it);
* a folder of games given with ``--overwrite`` loses its old games when the run starts
  writing (run_outputs.claim): old and new games are never mixed;
* the run holds a lock on each output until it ends: a second run on the same output is
  refused (run_outputs).

Readers of a file written by ``atomic_write`` see the old file or the whole new one; its
temporary file, ``.tmp-NAME-XXXXXXXX.ext`` beside it, is removed on any error, and one left
by a killed run is removed by the next run on that output.
"""

from __future__ import annotations

import codecs
import contextlib
import fnmatch
import io
import json
import math
import os
import tempfile
import zipfile

from tdbg.infra import run_outputs
from tdbg.infra.errors import InputError


class OutputError(Exception):
    """An output this run may not write; the message says why, in one line."""


# what a file holds, from its first bytes; "text" covers CSV logs, result CSVs and .mat games
KIND_NAMES = {
    "checkpoint": "a checkpoint",
    "weights": "an exported weights file",
    "png": "a PNG image",
    "json": "a JSON file",
    "text": "a text file",
    "other": "a file of unknown kind",
    "special": "not a regular file (a folder, a FIFO, a socket or a device)",
}


# torch.save's legacy (non-zip) format opens with this pickled magic number
_TORCH_LEGACY = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19."


def _is_torch_zip(source) -> bool:
    """A zip (a path, or a file object over the bytes) with torch.save's record
    (".../data.pkl"); any other zip is of unknown kind."""
    try:
        with zipfile.ZipFile(source) as zf:
            return any(n == "data.pkl" or n.endswith("/data.pkl") for n in zf.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return False


def _head_kind(head: bytes) -> str:
    """The kind a file's first 64 bytes say, "zip" for a zip (what it holds decides)."""
    if not head:
        return "empty"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if head.startswith(_TORCH_LEGACY):
        return "checkpoint"
    if head.startswith(b"TDBGNET1"):
        return "weights"
    if head.startswith(b"\x89PNG"):
        return "png"
    if b"\0" in head:
        return "other"
    try:  # the 64 bytes may end inside a character: decode them as the start of a text
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return "other"
    return "json" if text.lstrip()[:1] in ("{", "[") else "text"


def file_kind(path: str) -> str:
    """checkpoint, weights, png, json, text, other, or empty.  Only what is recognised
    for sure gets a kind: any other zip or pickle, a binary (ELF, gzip, ...) or bytes
    that are not UTF-8 text are "other", which no output ever replaces.  A path that is not
    a regular file is "special", and is not opened (a FIFO's open waits for a writer)."""
    if os.path.exists(path) and not os.path.isfile(path):
        return "special"
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return "other"
    kind = _head_kind(head)
    if kind == "zip":
        return "checkpoint" if _is_torch_zip(path) else "other"
    return kind


def content_kind(data: bytes) -> str:
    """file_kind of a file whose bytes, read whole, are ``data``: the kind judged from the very
    bytes a reader goes on to use, so a file replaced meanwhile cannot pass as another."""
    kind = _head_kind(data[:64])
    if kind == "zip":
        return "checkpoint" if _is_torch_zip(io.BytesIO(data)) else "other"
    return kind


# the most bytes a text input read whole may have: a stage file or a match equity table is a
# few kB, a result file of play_models' most games (10 million rows) under 1 GB
MAX_SMALL_TEXT = 16 * 2**20
MAX_TEXT = 4 * 2**30


def check_input(path: str, what: str, max_bytes: int | None = None) -> None:
    """InputError unless ``path`` is a regular file (links followed) that can be opened:
    before any read of a file a user named, as a FIFO would block the read forever and a
    folder or device is no file of ours.  With ``max_bytes`` (a text file, read whole), also
    unless it has at most that many bytes and starts as text does: a 10 GB file (`truncate
    -s 10G`) was read whole into memory, a MemoryError traceback or minutes of swapping."""
    if not os.path.exists(path):
        raise InputError(f"cannot read {path}: no such file (expected {what})")
    if not os.path.isfile(path):
        raise InputError(f"{path} is {KIND_NAMES['special']}, not {what}")
    try:  # (a --met or --config named as the --log or --csv of the same run was replaced by it)
        run_outputs.read_input(path, f"{path} ({what})")
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if max_bytes is None:
        return
    size = os.path.getsize(path)
    if size > max_bytes:
        raise InputError(f"{path} has {size:,} bytes, more than {what} can (at most {max_bytes:,})")
    kind = file_kind(path)
    if kind not in ("text", "json", "empty"):
        raise InputError(f"{path} is {KIND_NAMES.get(kind, KIND_NAMES['other'])}, not {what}")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _missing_folders(folder: str) -> list[str]:
    """The folders, outermost first, that making ``folder`` would create."""
    missing = []
    while not os.path.lexists(folder) and os.path.dirname(folder) != folder:
        missing.append(folder)
        folder = os.path.dirname(folder)
    return missing[::-1]


def _remove_empty(folders: list[str]) -> None:
    """Remove ``folders`` (outermost first), innermost first, while they are empty: a failed
    write leaves no folder it made (a full disk left an empty --save-games folder)."""
    for folder in reversed(folders):
        try:
            os.rmdir(folder)
        except OSError:
            return


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "w"):
    """Open a temporary file beside ``path``; on success flush, fsync and rename it over
    ``path`` (mode 0666 less the umask, as open() would give); on any error remove it and
    leave ``path`` untouched.  A ``path`` that is a symbolic link is written through: its
    target is replaced and the link stays (renamed over, the link became a file of its own and
    the file it named was never updated)."""
    if os.path.islink(path):
        path = os.path.realpath(path)
    run_outputs.claim()  # the run's first write: the old files it replaces go now
    folder = os.path.dirname(os.path.abspath(path))
    tmp, made = None, _missing_folders(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=run_outputs.temp_prefix(path), suffix=os.path.splitext(path)[1], dir=folder
        )
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
        _remove_empty(made)
        if (
            isinstance(exc, OSError)
            and exc.errno
            and (
                exc.filename in (None, folder)
                or os.path.basename(os.fsdecode(exc.filename)).startswith(".tmp-")
            )
        ):  # e.g. ENOSPC: the file asked for, not the temporary
            raise OSError(exc.errno, exc.strerror, path) from None
        raise


def write_atomic(path: str, text: str) -> None:
    """Write a whole text file atomically (see atomic_write); an existing file only
    where the run's check_outputs cleared it."""
    check_cleared(path)
    with atomic_write(path) as fh:
        fh.write(text)


NULL_REASONS = {
    "nan": "not a number: undefined here (e.g. a spread or a ratio of too few samples)",
    "inf": "infinite (e.g. a ratio over zero)",
    "-inf": "minus infinity (e.g. a ratio over zero)",
}


def _strict(obj, where: str, nulls: dict):
    if type(obj).__module__ == "numpy":  # numpy scalars and arrays as Python numbers and lists
        obj = obj.tolist()
    if isinstance(obj, float) and not math.isfinite(obj):
        nulls[where] = NULL_REASONS["nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")]
        return None
    if isinstance(obj, dict):
        return {k: _strict(v, f"{where}.{k}" if where else str(k), nulls) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_strict(v, f"{where}[{i}]", nulls) for i, v in enumerate(obj)]
    return obj


def json_text(obj, **kwargs) -> str:
    """Strict JSON (what every reader accepts): a NaN or an infinity becomes null, and a
    top-level dict gains "nulls", {where: why}, for each one."""
    nulls: dict = {}
    obj = _strict(obj, "", nulls)
    if nulls and isinstance(obj, dict):
        obj = {**obj, "nulls": {**obj.get("nulls", {}), **nulls}}
    return json.dumps(obj, allow_nan=False, **kwargs)


def _no_constant(name: str):
    raise ValueError(f"{name} is not strict JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999: json reads it as an infinity
        raise ValueError(f"{text} is beyond a float (an infinity), not strict JSON")
    return value


def _no_repeats(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(
            f"a key repeated in one object ({sorted(k for k in keys if keys.count(k) > 1)[0]!r})"
        )
    return dict(pairs)


def strict_json_loads(text: str):
    """The value of strict JSON text, as json_text writes it: ValueError for NaN, Infinity or
    a number beyond a float such as 1e999 (Python's reader takes them), a key repeated in one object (the reader keeps the last),
    or nesting too deep to read (a RecursionError)."""
    try:
        return json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=_no_repeats
        )
    except RecursionError:
        raise ValueError("JSON nested too deep") from None


def write_json(path: str, obj) -> None:
    write_atomic(path, json_text(obj, indent=2) + "\n")


def _existing_ancestor(path: str) -> str:
    probe = os.path.abspath(path)
    while not os.path.exists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    return probe


def check_name(path: str, label: str) -> None:
    """OutputError unless ``path`` can be a name here: UTF-8 text (it is written into the
    run's records and messages), and short enough for the file system with the temporary
    name written beside it (.tmp-NAME-XXXXXXXX.ext)."""
    try:
        os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:
        shown = label.replace(path, os.fsencode(path).decode("utf-8", "backslashreplace"))
        raise OutputError(
            f"{shown}: the name is not UTF-8 text (it is written into the run's records); "
            f"choose a name of UTF-8 characters"
        ) from None
    where = _existing_ancestor(os.path.dirname(os.path.abspath(path)))
    try:
        name_max, path_max = os.pathconf(where, "PC_NAME_MAX"), os.pathconf(where, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = 255, 4096
    name = len(os.fsencode(os.path.basename(os.path.abspath(path))))
    if name > name_max:
        raise OutputError(f"{label}: the name is too long ({name} bytes; at most {name_max} here)")
    temp = run_outputs.temp_prefix(path) + "X" * run_outputs.TEMP_TAIL + os.path.splitext(path)[1]
    full = max(
        len(os.fsencode(os.path.abspath(path))),
        len(os.fsencode(os.path.join(os.path.dirname(os.path.abspath(path)), temp))),
    )
    if full >= path_max:
        raise OutputError(
            f"{label}: the path is too long ({full} bytes with the temporary name written beside "
            f"it; at most {path_max - 1} here)"
        )


def check_folder(folder: str, label: str) -> None:
    """OutputError unless ``folder`` exists or can be made, and files can be created in it."""
    folder = os.path.abspath(folder)
    probe = folder
    while not os.path.lexists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    if os.path.islink(probe) and not os.path.exists(
        probe
    ):  # it passed as a folder to make, then failed the save
        raise OutputError(
            f"{label}: cannot make folder {folder}: {probe} is a symbolic link that leads nowhere "
            f"(a loop, or a missing target)"
        )
    if not os.path.isdir(probe):
        raise OutputError(f"{label}: cannot make folder {folder}: {probe} is a file")
    try:  # really create a file: os.access says yes to root even where a write fails
        fd, tmp = tempfile.mkstemp(prefix=".tmp-probe-", dir=probe)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise OutputError(f"{label}: cannot write to {probe} ({exc.strerror})") from None


def check_file(
    path: str, kind: str, label: str, overwrite: bool = False, own: bool = False
) -> None:
    """OutputError unless this run may write a file of ``kind`` at ``path`` (see the module doc)."""
    if os.path.isdir(path):
        raise OutputError(f"{label} is a folder, not a file")
    if os.path.islink(path) and not os.path.exists(path):  # nothing is there to replace
        raise OutputError(
            f"{label} is a symbolic link that leads nowhere (to {os.readlink(path)}: a missing "
            f"target, or a loop); remove it or make its target"
        )
    if os.path.lexists(path):
        if not os.path.isfile(path):
            raise OutputError(f"{label} exists and is not a regular file")
        found = file_kind(path)
        if found not in ("empty", kind):
            raise OutputError(
                f"{label} is {KIND_NAMES[found]}; refusing to replace it with {KIND_NAMES[kind]}"
            )
        if not (overwrite or own):
            raise OutputError(
                f"{label} exists; pass --overwrite to replace it, or choose another path"
            )
    check_folder(os.path.dirname(os.path.abspath(path)), label)


def check_games_folder(
    path: str, label: str, overwrite: bool = False, files: tuple = ("*.mat",)
) -> list[str]:
    """OutputError unless ``path`` can be a folder of new files named as ``files`` (patterns);
    the old ones, which --overwrite replaces: all of them, so old and new are never mixed
    (each a text file: a file of another kind is never replaced)."""
    if os.path.lexists(path) and not os.path.isdir(path):
        raise OutputError(f"{label} is a file, not a folder")
    old = []
    if os.path.isdir(path):
        old = [
            os.path.join(path, n)
            for n in sorted(os.listdir(path))
            if any(fnmatch.fnmatch(n, f) for f in files)
        ]
        names = " / ".join(files)
        if old and not overwrite:
            raise OutputError(
                f"{label} already holds {len(old)} {names} file(s); pass --overwrite to replace "
                f"them, or choose another folder"
            )
        for p in old:
            kind = file_kind(p) if os.path.isfile(p) and not os.path.islink(p) else "other"
            if kind not in ("text", "json", "empty"):
                raise OutputError(
                    f"{label}: {os.path.basename(p)} is {KIND_NAMES[kind]}, not one of this run's "
                    f"files; refusing to replace it"
                )
    check_folder(path, label)
    return old


# what check_outputs cleared in this process (real paths of files and folders)
_cleared: set[str] = set()


def check_cleared(path: str) -> None:
    """OutputError if ``path`` exists but no check_outputs of this run cleared it (nor its
    folder): a script's result writer calls this, so a script that forgot the policy
    cannot replace a file it did not check."""
    if not os.path.lexists(path):
        return
    real = os.path.realpath(path)
    if real not in _cleared and os.path.dirname(real) not in _cleared:
        raise OutputError(
            f"{path} exists and this run did not check it against the output policy; "
            f"refusing to replace it"
        )


class Output:
    """One output of a run: the flag that names it, its path, its kind (see KIND_NAMES, or
    "folder" for a folder of games: ``files``, the patterns of the names the run writes in
    it), and whether it is the run's own file."""

    def __init__(
        self, flag: str, path: str | None, kind: str, own: bool = False, files: tuple = ("*.mat",)
    ):
        self.flag, self.path, self.kind, self.own, self.files = flag, path, kind, own, files


def label_of(flag: str, path: str) -> str:
    """How a message names an output: its flag and the path as the user gave it."""
    return f"{flag} {path}" if flag.startswith("-") else path


def check_outputs(
    outputs: list[Output], overwrite: bool = False, inputs: dict | None = None
) -> None:
    """Apply the policy to every output before any work starts, then lock them for the run
    (run_outputs.hold); ``inputs`` ({flag: path}) are files the run reads, which no output
    may name."""
    seen = {
        **run_outputs.inputs(),  # the files read so far (a --config, a --met), then the named ones
        **{os.path.realpath(p): flag for flag, p in (inputs or {}).items() if p},
    }
    replaced = []
    for out in outputs:
        if out.path == "":  # (given, but naming no file: it was taken as not given, or
            # failed only when written, after the work: "--save ''" trained, then ": No such file")
            raise OutputError(f"{out.flag} '': an empty path names no file")
        if not out.path:
            continue
        label = label_of(out.flag, out.path)
        real = os.path.realpath(out.path)
        if real in seen and not out.own:
            raise OutputError(f"{label}: the same file as {seen[real]}")
        seen[real] = out.flag
        check_name(out.path, label)
        if out.kind == "folder":
            replaced += check_games_folder(out.path, label, overwrite, out.files)
        elif os.path.basename(out.path) in ("", ".", ".."):
            # ("x/" made the folder x, and the run failed only when it wrote, after the work)
            raise OutputError(
                f"{label}: names a folder, not a file (its name ends in a slash or a dot)"
            )
        else:
            check_file(out.path, out.kind, label, overwrite, out.own)
    for out in outputs:
        if out.path:
            hold(out.path, label_of(out.flag, out.path))
            if out.own:
                run_outputs.read_by_the_run(out.path)
    run_outputs.replace_at_start(replaced)
    _cleared.update(os.path.realpath(out.path) for out in outputs if out.path)


def hold(path: str, label: str) -> None:
    """Lock ``path`` for this run (run_outputs.hold); OutputError when another run holds it."""
    try:
        run_outputs.hold(path, label)
    except run_outputs.LockedError as exc:
        raise OutputError(str(exc)) from None
    except OSError as exc:  # e.g. no lock folder can be made under the temporary folder
        # (an error about no one file, such as tempfile's "No usable temporary directory",
        # has no filename: it read "None: ...")
        what = exc.strerror or str(exc)
        if exc.filename is not None:
            what = f"{exc.filename}: {what}"
        raise OutputError(f"{label}: cannot take the run's lock on it ({what})") from None


def ragged_row(row: dict) -> str | None:
    """ "fewer" or "more" for a csv.DictReader row with fewer or more fields than its header
    (csv pads a short row with None values and keeps extras under the key None), else None."""
    if any(v is None for v in row.values()):
        return "fewer"
    return "more" if None in row else None


def repeated_column(fields) -> str | None:
    """The first column a CSV header names twice (csv.DictReader keeps the last), or None."""
    seen: set = set()
    for f in fields or ():
        if f in seen:
            return f
        seen.add(f)
    return None
