"""Behaviour that differs between game modes lives in the modes (tdbg/game/modes/) or in
objects chosen by what a mode names (its series unit, its output head), not in code that
asks a mode what it is.  This counts such questions outside tdbg/game/modes/, read from the
source of the package, tools/ and the scripts: an ``is_match`` / ``is_money`` /
``is_cubeful`` / ``is_dmp`` attribute, a mode's (or mode class's) ``cubeful`` or ``money``
(not a settings field of that name, e.g. the --cubeful flag), a comparison with a mode's name ("match", ...) or of
a mode's ``name``, ``kind`` or ``series_unit`` (an expression naming a mode), and
``isinstance`` against a mode class."""

from __future__ import annotations

import ast
import glob
import os

from helpers import ROOT

KIND_FLAGS = {"is_match", "is_money", "is_cubeful", "is_dmp"}
MODE_FLAGS = {"cubeful", "money"}  # asked of an expression naming a mode, or a mode class (cls)
MODE_CLASSES = {"GameMode", "DMP", "CubelessMoney", "CubefulMoney", "MatchPlay"}
MODE_NAMES = {"dmp", "cubeless-money", "cubeful-money", "match"}
MAX_CHECKS = 5


def sources() -> list[str]:
    files = glob.glob(os.path.join(ROOT, "tdbg", "**", "*.py"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "tools", "**", "*.py"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "*.py"))
    modes = os.path.join(ROOT, "tdbg", "game", "modes") + os.sep
    return sorted(f for f in files if not f.startswith(modes))


def kind_checks(source: str) -> list[int]:
    """Lines of ``source`` that ask a mode what it is."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in KIND_FLAGS:
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in MODE_FLAGS:
            owner = ast.unparse(node.value)
            if "mode" in owner.lower() or owner == "cls":
                lines.append(node.lineno)
        elif isinstance(node, ast.Compare):
            if any(
                isinstance(side, ast.Constant) and side.value in MODE_NAMES
                for side in (node.left, *node.comparators)
            ):
                lines.append(node.lineno)
                continue
            for side in (node.left, *node.comparators):
                if (
                    isinstance(side, ast.Attribute)
                    and side.attr in ("name", "kind", "series_unit")
                    and "mode" in ast.unparse(side.value).lower()
                ):
                    lines.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and MODE_CLASSES & {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_counter_sees_each_form_of_the_question():
    # a hand-written sample: eight questions, and four look-alikes that ask nothing of a mode
    sample = (
        "if mode.is_match: pass\n"
        "x = self.mode.name == 'dmp'\n"
        "y = isinstance(m, MatchPlay)\n"
        "z = agent.mode.kind == 'match'\n"
        "w = 'match' != table_mode.series_unit\n"
        "a = arr.dtype.kind == 'f'\n"
        "b = q.kind == 'take'\n"
        "c = UNITS[mode.series_unit]\n"
        "if length == 0 and self.kind == 'match': pass\n"
        "if self.mode.cubeful: pass\n"
        "p = None if mode.money else 1\n"
        "if s.cubeful: pass\n"
    )
    assert kind_checks(sample) == [1, 2, 3, 4, 5, 9, 10, 11]


def test_few_places_outside_the_modes_ask_a_mode_what_it_is():
    found = {os.path.relpath(f, ROOT): kind_checks(open(f).read()) for f in sources()}
    found = {f: lines for f, lines in found.items() if lines}
    assert sum(map(len, found.values())) <= MAX_CHECKS, found
