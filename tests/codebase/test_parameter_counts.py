"""Settings travel whole (frozen dataclasses: learn/stage_settings.py, rollout.RolloutSettings, search.Search,
gnubg_analysis.GnubgAnalysis, ...), so no function in tdbg/ takes more than
MAX_PARAMETERS parameters: positional, keyword-only, *args and **kwargs each count one;
self and cls do not."""

from __future__ import annotations

import ast
import os

from helpers import ROOT

PACKAGE = os.path.join(ROOT, "tdbg")
MAX_PARAMETERS = 7
LONG_SIGNATURES = {  # "file:qualified name" -> why it may take more, for now
    # the reference engine's recursive move search: its state per level of the recursion
    "tdbg/game/backgammon_engine.py:_search": "recursive search state"
}


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    names = names[1:] if names[:1] in (["self"], ["cls"]) else names
    return len(names) + (a.vararg is not None) + (a.kwarg is not None)


def signatures() -> dict[str, int]:
    """ "file:qualified name" -> parameter count of every function and method in tdbg/
    (nested ones too: ``outer.inner``, ``Class.method``)."""
    out = {}

    def visit(node, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    out[f"{path}:{name}"] = parameter_count(child)
                visit(child, path, name + ".")
            else:
                visit(child, path, prefix)

    for folder, _, names in os.walk(PACKAGE):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as fh:
                    visit(
                        ast.parse(fh.read()), os.path.relpath(path, ROOT).replace(os.sep, "/"), ""
                    )
    return out


def test_no_function_takes_more_than_seven_parameters():
    found = [
        f"{where} takes {n}"
        for where, n in sorted(signatures().items())
        if n > MAX_PARAMETERS and where not in LONG_SIGNATURES
    ]
    assert found == []


def test_every_exception_is_still_needed():
    """An exception that no longer exists, or has come under the limit, leaves the list."""
    counts = signatures()
    stale = [where for where in LONG_SIGNATURES if counts.get(where, 0) <= MAX_PARAMETERS]
    assert stale == []


def test_the_count():
    """Positional-only, positional, keyword-only, *args and **kwargs count; self and cls do not."""
    tree = ast.parse(
        "class C:\n    def m(self, a, b=1, *args, c, **kw): pass\n"
        "    @classmethod\n    def k(cls, a): pass\n"
        "def f(a, /, b, *, c): pass\n"
    )
    method, classmethod_ = tree.body[0].body
    assert parameter_count(method) == 5
    assert parameter_count(classmethod_) == 1
    assert parameter_count(tree.body[1]) == 3
