"""No function of the package or of tools/ is longer than MAX_LINES lines, so that each can be
read whole on one screen.  A function's length is what ``ast`` gives, ``end_lineno - lineno +
1``: from its ``def`` line to its last line, its docstring and comments included, its
decorators not; a function nested in another counts on its own and within the outer one."""

from __future__ import annotations

import ast
import glob
import os

from helpers import ROOT

MAX_LINES = 60

# Functions allowed over the limit, as (file, qualified name): none.  A function that truly
# cannot be split without harm (a hot loop a call would slow) may be named here, with why; a test
# below fails while it names a function that no longer needs the exception.
ALLOWED: set[tuple[str, str]] = set()


def function_lengths(source: str) -> dict[str, int]:
    """Qualified name ('Class.method', 'outer.inner') -> length in lines, of every function of
    ``source``."""
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    out[name] = child.end_lineno - child.lineno + 1
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def long_functions() -> dict[tuple[str, str], int]:
    """(file relative to the root, qualified name) -> length, of every function over MAX_LINES."""
    files = glob.glob(os.path.join(ROOT, "tdbg", "**", "*.py"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "tools", "**", "*.py"), recursive=True)
    out = {}
    for path in sorted(files):
        with open(path) as fh:
            lengths = function_lengths(fh.read())
        rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
        out.update({(rel, name): n for name, n in lengths.items() if n > MAX_LINES})
    return out


def test_the_counter_measures_from_the_def_line_to_the_last():
    # written by hand: f is 4 lines (def, docstring, two statements), g nested in C.m 2 lines,
    # C.m 5 lines; a decorator's line is not the function's
    sample = (
        "@decorated\n"
        "def f(x):\n"
        '    """doc"""\n'
        "    y = x\n"
        "    return y\n"
        "class C:\n"
        "    def m(self):\n"
        "        if self:\n"
        "            def g():\n"
        "                return 1\n"
        "        return 2\n"
    )
    assert function_lengths(sample) == {"f": 4, "C.m": 5, "C.m.g": 2}


def test_no_function_is_longer_than_the_limit():
    long = {key: n for key, n in long_functions().items() if key not in ALLOWED}
    assert not long, "over %d lines (split them): %s" % (
        MAX_LINES,
        ", ".join(f"{path}: {name} ({n} lines)" for (path, name), n in sorted(long.items())),
    )


def test_the_exceptions_are_still_needed():
    # an exception for a function that was shortened, renamed or removed is taken out of ALLOWED
    stale = ALLOWED - set(long_functions())
    assert not stale, f"no longer over {MAX_LINES} lines: remove from ALLOWED: {sorted(stale)}"
