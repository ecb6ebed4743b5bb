"""The installed package (pyproject.toml, `make setup`'s `pip install -e .`): one `tdbg`
command whose subcommands run the scripts and tools exactly as `python script.py` does,
nothing generic on the PATH or in site-packages, the pins exact."""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tomllib

import pytest

from helpers import ROOT, run
from tdbg.app import tdbg_command

PROJECT = tomllib.load(open(os.path.join(ROOT, "pyproject.toml"), "rb"))
# (play_terminal.py is `tdbg play`: the terminal game, whose main lives in tdbg.app.terminal_game)
SCRIPTS = sorted(
    f[:-3]
    for f in os.listdir(ROOT)
    if f.endswith(".py") and f not in ("setup.py", "play_terminal.py")
)
TOOLS = sorted(
    f[:-3]
    for f in os.listdir(os.path.join(ROOT, "tools"))
    if f.endswith(".py") and f != "__init__.py"
)


def test_every_script_and_tool_is_a_subcommand():
    modules = set(tdbg_command.COMMANDS.values())
    assert {f"tdbg.app.scripts.{name}" for name in SCRIPTS} | {
        f"tools.{name}" for name in TOOLS
    } == modules - {"tdbg.app.terminal_game"}
    assert tdbg_command.COMMANDS[("play",)] == "tdbg.app.terminal_game"
    assert set(tdbg_command.SUMMARIES) == modules


def test_one_command_and_nothing_generic_installed():
    assert PROJECT["project"]["scripts"] == {"tdbg": "tdbg.app.tdbg_command:main"}
    assert "py-modules" not in PROJECT["tool"]["setuptools"]
    found = {
        os.path.relpath(folder, ROOT).replace(os.sep, ".")
        for folder, _, files in os.walk(os.path.join(ROOT, "tdbg"))
        if "__init__.py" in files
    }
    assert set(PROJECT["tool"]["setuptools"]["packages"]) == found | {"tdbg.tools", "tdbg.data"}
    bin_dir = os.path.dirname(sys.executable)
    assert shutil.which("tdbg", path=bin_dir), "make setup installs the package and its command"
    for generic in ("train_batch", "play_models", "gnubg_eval", "tdbg-rollout"):
        assert not shutil.which(generic, path=bin_dir), generic
    # from another folder (the checkout not on sys.path): no top-level module of ours is importable
    probe = (
        "import importlib.util as u; print([n for n in ('tools', 'commands', 'train_batch', 'play_models', "
        "'gnubg_eval') if u.find_spec(n)], u.find_spec('tdbg.tools.rollout') is not None)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd="/", check=True
    ).stdout
    assert out.split() == ["[]", "True"]


def test_pins_come_from_requirements():
    """The package's dependencies are requirements.txt itself: torch stays at 2.13.0 exactly."""
    assert PROJECT["tool"]["setuptools"]["dynamic"]["dependencies"] == {
        "file": ["requirements.txt"]
    }
    assert "torch==2.13.0" in open(os.path.join(ROOT, "requirements.txt")).read().split()


def _tdbg(argv):
    """``tdbg argv`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                tdbg_command.main(argv)
            except SystemExit as exc:
                code = exc.code or 0
    finally:
        sys.argv = saved
    return code, out.getvalue(), err.getvalue()


def _script_path(module: str) -> str:
    name = module.split(".")[-1]
    return f"{name}.py" if module.startswith("tdbg.app.scripts.") else f"tools/{name}.py"


@pytest.mark.parametrize(
    "words, module",
    [(w, m) for w, m in tdbg_command.COMMANDS.items() if m != "tdbg.app.terminal_game"],
)
def test_a_subcommand_is_its_script(words, module):
    """`tdbg WORDS --help` prints the script's help after the usage lines (they name what was
    typed), and a bad flag gives the script's error line and exit code."""
    code, out, _ = _tdbg([*words, "--help"])
    script = run(_script_path(module), "--help")
    assert code == script.returncode == 0
    assert out.startswith(f"usage: tdbg {' '.join(words)} ")
    assert out.split("\n\n", 1)[1] == script.stdout.split("\n\n", 1)[1]
    code, _, err = _tdbg([*words, "--no-such-flag"])
    script = run(_script_path(module), "--no-such-flag")
    assert code == script.returncode == 2
    assert (
        err.splitlines()[-1].split(": error: ")[1]
        == script.stderr.splitlines()[-1].split(": error: ")[1]
    )
    assert err.splitlines()[-1].startswith(f"tdbg {' '.join(words)}: error: ")


def test_unknown_and_incomplete_commands_are_one_line():
    code, _, err = _tdbg(["frob"])
    assert code == 2 and err.strip() == "tdbg: error: no command 'frob' (tdbg --help lists them)"
    code, _, err = _tdbg(["train"])
    assert code == 2 and err.strip() == "tdbg: error: 'train' needs one of: batch, online, prob5"
    code, out, _ = _tdbg([])
    assert code == 0 and "train batch" in out and "serve-gnubg" in out


def test_play_without_the_terminal_game_says_so(monkeypatch):
    """Until tdbg.app.terminal_game exists, `tdbg play` says what is missing (exit 2)."""
    import importlib.util

    if importlib.util.find_spec("tdbg.app.terminal_game") is not None:
        pytest.skip("this tree has the terminal game")
    code, _, err = _tdbg(["play", "x.pt"])
    assert code == 2 and "no terminal game" in err and err.startswith("tdbg play: error:")


def test_the_installed_command_runs_from_elsewhere():
    exe = shutil.which("tdbg", path=os.path.dirname(sys.executable))
    proc = subprocess.run(
        [exe, "describe", "--config", os.path.join(ROOT, "best_models", "dmp_128x2.pt")],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert proc.returncode == 2 and proc.stderr.startswith("tdbg describe: error: ")


def test_play_runs_the_terminal_games_main_with_its_arguments(monkeypatch):
    """`tdbg play ARGS` calls tdbg.app.terminal_game.main(ARGS); an exit code it returns is the command's."""
    import types

    seen = []
    fake = types.ModuleType("tdbg.app.terminal_game")
    fake.main = lambda argv=None: seen.append(list(argv)) or (3 if "--fail" in argv else None)
    monkeypatch.setitem(sys.modules, "tdbg.app.terminal_game", fake)
    assert _tdbg(["play", "net.pt", "--seed", "1"])[0] == 0
    assert _tdbg(["play", "net.pt", "--fail"])[0] == 3
    assert seen == [["net.pt", "--seed", "1"], ["net.pt", "--fail"]]
