"""The package's layers (tdbg/__init__.py states the order): every import of every module,
inside functions too, read from the source.

* a module imports only from its own layer or the layers before it; learn and gnubg
  never import each other; the scripts may import any layer, the library no script;
* no import circle between modules;
* an import inside a function is only for an optional dependency (OPTIONAL).
"""

from __future__ import annotations

import ast
import os
import subprocess

import pytest

import tdbg
from helpers import ROOT

PACKAGE = os.path.join(ROOT, "tdbg")
SCRIPTS = ("train_batch", "train_online", "train_prob5", "play_models", "gnubg_eval")
# may be missing, or are slow to load and needed by one path: imported where they are used
OPTIONAL = (
    "ray",
    "gnubg_nn",
    "torch.utils.tensorboard",
    "tensorboard",
    "tdbg.game.c_engine",
    "tdbg.game._bgcore",
    "tdbg.infra.ray_backend",
)


def module_files() -> dict[str, str]:
    """Dotted name -> file of every module of the package, and of the scripts."""
    out = {name: os.path.join(ROOT, name + ".py") for name in SCRIPTS}
    for folder, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                parts = os.path.relpath(os.path.join(folder, f), ROOT)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                out[".".join(parts)] = os.path.join(folder, f)
    return out


def imports(path: str, names: set[str]) -> list[tuple[str, bool, int]]:
    """(imported module, inside a function, line) for each import of ``path``; ``from
    package import module`` counts as an import of the module when it is one."""
    tree = ast.parse(open(path).read())
    out = []

    def visit(node, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, ast.Import):
                out.extend((a.name, in_function, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                for a in child.names:
                    full = f"{child.module}.{a.name}"
                    out.append((full if full in names else child.module, in_function, child.lineno))
            visit(child, inner)

    visit(tree, False)
    return sorted(set(out), key=lambda t: t[2])


def rank(module: str) -> int | None:
    """The layer's place in tdbg.LAYERS (learn and gnubg share one), None outside the package."""
    parts = module.split(".")
    if parts[0] != "tdbg" or len(parts) < 2 or parts[1] not in tdbg.LAYERS:
        return None
    layer = parts[1]
    for pair in tdbg.SIDE_BY_SIDE:
        if layer in pair:
            layer = pair[0]
    return tdbg.LAYERS.index(layer)


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "tdbg" and len(parts) > 1 else None


def is_optional(module: str) -> bool:
    return any(module == o or module.startswith(o + ".") for o in OPTIONAL)


def problems(files: dict[str, str]) -> list[str]:
    names = set(files)
    found, graph = [], {}
    for mod, path in files.items():
        graph[mod] = set()
        for target, in_function, line in imports(path, names):
            where = f"{os.path.relpath(path, ROOT)}:{line} imports {target}"
            if in_function and not is_optional(target):
                found.append(f"{where} inside a function (only optional dependencies may be)")
            if target in SCRIPTS and mod not in SCRIPTS:
                found.append(f"{where}: the library imports a script")
            if target.startswith("tdbg.") and target in names:
                graph[mod].add(target)
            mine, theirs = rank(mod), rank(target)
            if mine is None or theirs is None:
                continue
            if theirs > mine:
                found.append(f"{where}: {layer(target)} is above {layer(mod)}")
            elif theirs == mine and layer(mod) != layer(target):
                found.append(f"{where}: {layer(mod)} and {layer(target)} never import each other")
    found += [f"import circle: {' -> '.join(c)}" for c in circles(graph)]
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (depth-first search)."""
    state, stack, out = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                out.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return out


def test_layers_hold():
    files = module_files()
    assert len(files) > 60
    assert problems(files) == []


def test_c_engine_is_inside_the_layers(tmp_path):
    """The C move generator's Python side is a game module the check reads (it may import
    only infra and game); c_engine/ holds the C sources and their build script, which
    import nothing of ours, so no import runs from a folder outside the order into tdbg."""
    files = module_files()
    assert files["tdbg.game.c_engine"] == os.path.join(PACKAGE, "game", "c_engine.py")
    folder = os.path.join(ROOT, "c_engine")
    assert not os.path.exists(os.path.join(folder, "__init__.py"))
    scripts = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".py")]
    assert scripts
    for path in scripts:
        ours = [
            t for t, _, _ in imports(path, set(files)) if t.split(".")[0] in ("tdbg", "c_engine")
        ]
        assert ours == [], (path, ours)
    bad = tmp_path / "c_engine.py"
    bad.write_text(open(files["tdbg.game.c_engine"]).read() + "from tdbg.net import model\n")
    found = problems({**files, "tdbg.game.c_engine": str(bad)})
    assert any("net is above game" in p for p in found), found


def test_nothing_patches_sys_path():
    """The package is installed (make setup: pip install -e .), so no script, tool or
    experiment puts the repository on sys.path by hand.  The one insert left is the test
    helper that runs a script in-process: it does what `python script.py` does itself."""
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "train_batch.py" in files
    found = [
        f
        for f in files
        if f != "tests/helpers.py"
        and f != "tests/codebase/test_layers.py"
        and (
            "sys.path.insert" in open(os.path.join(ROOT, f)).read()
            or "sys.path.append" in open(os.path.join(ROOT, f)).read()
        )
    ]
    assert found == []


def test_top_level_stays_small():
    top = [f for f in os.listdir(ROOT) if f.endswith(".py")]
    assert len(top) <= 20, sorted(top)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from tdbg.app import cli\n", "app is above game"),
        ("def f():\n    from tdbg.game import encoding\n", "inside a function"),
        ("from tdbg.gnubg import gnubg_binary\n", None),
    ],
)
def test_layer_check_can_fail(tmp_path, source, expected):
    """The check itself: an upward import, a function-level import and a circle are found."""
    files = module_files()
    bad = tmp_path / "probe.py"
    bad.write_text(source)
    files["tdbg.game.probe"] = str(bad)
    found = problems(files)
    if expected:
        assert any(expected in p for p in found), found
    else:
        assert any("gnubg is above game" in p for p in found), found


def test_circle_is_found(tmp_path):
    files = module_files()
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from tdbg.play import b_probe\n")
    b.write_text("from tdbg.play import a_probe\n")
    files["tdbg.play.a_probe"], files["tdbg.play.b_probe"] = str(a), str(b)
    assert any(
        p.startswith("import circle: tdbg.play.a_probe -> tdbg.play.b_probe")
        for p in problems(files)
    )


def test_learn_and_gnubg_stay_apart(tmp_path):
    files = module_files()
    bad = tmp_path / "probe.py"
    bad.write_text("from tdbg.gnubg import gnubg_binary\n")
    files["tdbg.learn.probe"] = str(bad)
    assert any("learn and gnubg never import each other" in p for p in problems(files))


NAMESPACE_NAMES = ("args", "namespace", "ns")  # what a parsed command line is called


def namespace_uses(path: str) -> list[str]:
    """Where a module imports argparse or reads a parsed command line: ``getattr(args, ...)``,
    ``vars(args)`` or ``args.x`` (a name of NAMESPACE_NAMES)."""
    found = []
    for node in ast.walk(ast.parse(open(path).read())):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "argparse" for a in node.names
        ):
            found.append(f"{line}: imports argparse")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "argparse":
            found.append(f"{line}: imports from argparse")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "vars")
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in NAMESPACE_NAMES
        ):
            found.append(f"{line}: {node.func.id}({node.args[0].id}, ...)")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in NAMESPACE_NAMES
        ):
            found.append(f"{line}: {node.value.id}.{node.attr}")
    return found


def settings_problems(files: dict[str, str]) -> list[str]:
    """Below tdbg.app the library takes settings dataclasses, never a parsed command line."""
    return [
        f"{os.path.relpath(path, ROOT)}:{use}"
        for mod, path in sorted(files.items())
        if mod.startswith("tdbg.") and layer(mod) != "app"
        for use in namespace_uses(path)
    ]


def test_no_command_line_below_app():
    assert settings_problems(module_files()) == []


@pytest.mark.parametrize(
    "source",
    [
        "import argparse\n",
        "from argparse import Namespace\n",
        "def f(args):\n    return getattr(args, 'lr', 0.1)\n",
        "def f(args):\n    return args.lr\n",
        "def f(ns):\n    return vars(ns)\n",
    ],
)
def test_command_line_check_can_fail(tmp_path, source):
    bad = tmp_path / "probe.py"
    bad.write_text(source)
    assert settings_problems({"tdbg.learn.probe": str(bad)}), source
    assert not settings_problems({"tdbg.app.probe": str(bad)})
