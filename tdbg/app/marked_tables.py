"""Markdown tables kept between marker comments of a text file, made from data, never typed.

A table named NAME lives between the lines ``<!-- results_tables: NAME begin -->`` and
``<!-- results_tables: NAME end -->``.  ``remade`` makes every table and says which differ
from the files' text; ``write_texts`` then rewrites those files, each atomically, so that a
table that cannot be made leaves every file as it was.
"""

from __future__ import annotations

import os
from typing import Callable

from tdbg.infra import fileio


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def markers(name: str) -> tuple[str, str]:
    return f"<!-- results_tables: {name} begin -->", f"<!-- results_tables: {name} end -->"


def render(text: str, name: str, table: str, where: str = "the text") -> str:
    """``text`` (of the file ``where``) with what stands between ``name``'s markers replaced
    by ``table``.  Each marker must stand once: with a second pair only the first section was
    made and checked, and a stale copy of the table below it passed ``--check``."""
    begin, end = markers(name)
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise ValueError(f"{where}: no '{begin}' ... '{end}' markers")
    twice = [m for m in (begin, end) if text.count(m) > 1]
    if twice:
        raise ValueError(
            f"{where}: '{twice[0]}' stands more than once (one table, one pair of markers)"
        )
    return text[: i + len(begin)] + "\n" + table + "\n" + text[j:]


def remade(
    tables: dict[str, Callable[[], str]], targets: dict[str, str]
) -> tuple[list[str], dict[str, str]]:
    """(the names of the tables whose text differs, in ``tables``' order; every file's text
    with its tables remade); ``targets``: each table's file."""
    changed, texts = [], {}
    for name, make in tables.items():  # every table made before any file is written
        path = targets[name]
        if path not in texts:
            with open(path) as fh:
                texts[path] = fh.read()
        new = render(texts[path], name, make(), path)
        if new != texts[path]:
            texts[path] = new
            changed.append(name)
    return changed, texts


def write_texts(texts: dict[str, str], paths: list[str], root: str) -> None:
    """Each of ``paths`` rewritten atomically with its text; a failed write says, in its
    message, which files (relative to ``root``) were rewritten before it."""
    written: list[str] = []
    for path in paths:
        try:
            with fileio.atomic_write(path) as fh:
                fh.write(texts[path])
        except OSError as exc:
            kept = (
                f"{', '.join(os.path.relpath(w, root) for w in written)} already rewritten"
                if written
                else "nothing was rewritten"
            )
            raise OSError(exc.errno, f"{exc.strerror}; {kept}", exc.filename) from None
        written.append(path)
