"""Every module of the package has tests at its own layer: a test file under tests/<layer>/
imports it (tdbg.play.summary is tested by a file of tests/play/), so that a module is not
reached only through the scripts' tests, where a failure says little about where it lies."""

from __future__ import annotations

import ast
import glob
import os

from helpers import ROOT

# Modules no test of their own layer imports yet, reached only through other layers' tests
# or the scripts' tests.  Take a module out when a test of its layer is written for it; a test
# below fails while this names a module that has one.
NOT_YET_TESTED_AT_THEIR_LAYER = {
    "tdbg.app.cube_curve_plot",
    "tdbg.app.eval_curve_plot",
    "tdbg.app.training_plot",
    "tdbg.app.backend_flags",
    "tdbg.app.eval_command",
    "tdbg.app.eval_report",
    "tdbg.app.eval_settings",
    "tdbg.app.scripts.gnubg_eval",
    "tdbg.app.scripts.play_models",
    "tdbg.app.scripts.train_batch",
    "tdbg.app.scripts.train_online",
    "tdbg.app.scripts.train_prob5",
    "tdbg.app.stage_file",
    "tdbg.app.stage_flags",
    "tdbg.app.tdbg_command",
    "tdbg.app.terminal_board",
}


def modules() -> dict[str, str]:
    """Dotted name -> layer of every module of the package (not its packages' __init__)."""
    out = {}
    for path in glob.glob(os.path.join(ROOT, "tdbg", "**", "*.py"), recursive=True):
        parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
        if parts[-1] != "__init__":
            out[".".join(parts)] = parts[1]
    return out


def imported_names(source: str) -> set[str]:
    """Every module (and module.name) an import of ``source`` names, inside functions too:
    ``from tdbg.play import summary`` names tdbg.play and tdbg.play.summary."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def modules_tested_at_their_layer() -> set[str]:
    """The modules that a test file of their own layer imports."""
    mods, imported = modules(), {}
    for layer in set(mods.values()):
        imported[layer] = set()
        for path in glob.glob(
            os.path.join(ROOT, "tests", layer, "**", "test_*.py"), recursive=True
        ):
            with open(path) as fh:
                imported[layer] |= imported_names(fh.read())
    return {m for m, layer in mods.items() if m in imported[layer]}


def test_the_reader_sees_each_form_of_import():
    sample = (
        "import tdbg.infra.stats\n"
        "from tdbg.play import summary, units as u\n"
        "def f():\n"
        "    from tdbg.game.modes.dmp import DMP\n"
        "from . import local\n"
    )
    assert imported_names(sample) == {
        "tdbg.infra.stats",
        "tdbg.play",
        "tdbg.play.summary",
        "tdbg.play.units",
        "tdbg.game.modes.dmp",
        "tdbg.game.modes.dmp.DMP",
    }


def test_every_module_has_a_test_file_at_its_own_layer():
    missing = set(modules()) - modules_tested_at_their_layer() - NOT_YET_TESTED_AT_THEIR_LAYER
    assert not missing, f"no test file of its own layer (tests/<layer>/) imports: {sorted(missing)}"


def test_the_exceptions_are_still_needed():
    stale = NOT_YET_TESTED_AT_THEIR_LAYER - (set(modules()) - modules_tested_at_their_layer())
    assert not stale, (
        f"tested at their layer now: remove from NOT_YET_TESTED_AT_THEIR_LAYER: {sorted(stale)}"
    )
