"""The ``tdbg`` command (tdbg/app/tdbg_command.py): the words typed pick the subcommand, whose
module's ``main`` runs with the rest of the line and a program name that is the words typed
(stand-in modules here: tests/codebase/test_install.py holds each real one to its script)."""

import signal
import sys
import types

import pytest

from tdbg.app import tdbg_command


@pytest.fixture(autouse=True)
def signals_kept():
    """``main`` sets the signal handling of a script's first line: not this process's."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    argv = sys.argv
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)
    sys.argv = argv


def stand_in(monkeypatch, module: str, seen: list, fail: str | None = None):
    """Module ``module`` replaced by one whose main records its argv (and raises a
    UsageError ``fail`` when given)."""
    from tdbg.app import cli

    def main():
        seen.append((module, list(sys.argv)))
        if fail:
            raise cli.UsageError(fail)

    fake = types.ModuleType(module)
    fake.main = main
    monkeypatch.setitem(sys.modules, module, fake)


def run(argv) -> int:
    try:
        tdbg_command.main(argv)
    except SystemExit as exc:
        return exc.code or 0
    return 0


@pytest.mark.parametrize(
    "argv, words",
    [
        (["train", "batch", "--lr", "1"], ("train", "batch")),
        (["train", "online"], ("train", "online")),
        (["h2h", "--games", "2"], ("h2h",)),
        (["eval", "gnubg"], ("eval", "gnubg")),
        (["plot", "curve", "a.csv"], ("plot", "curve")),
    ],
)
def test_the_words_typed_find_the_subcommand(argv, words):
    assert tdbg_command.find(argv) == (words, tdbg_command.COMMANDS[words])


@pytest.mark.parametrize("argv", [["train"], ["train", "--lr"], ["trainbatch"], ["batch", "train"]])
def test_words_of_no_subcommand_find_none(argv):
    assert tdbg_command.find(argv) is None


@pytest.mark.parametrize(
    "words, module",
    [
        (["train", "batch"], "tdbg.app.scripts.train_batch"),
        (["train", "online"], "tdbg.app.scripts.train_online"),
        (["train", "prob5"], "tdbg.app.scripts.train_prob5"),
        (["h2h"], "tdbg.app.scripts.play_models"),
        (["eval", "gnubg"], "tdbg.app.scripts.gnubg_eval"),
    ],
)
def test_each_script_subcommand_runs_its_scripts_main(monkeypatch, words, module):
    seen = []
    for other in set(tdbg_command.COMMANDS.values()) - {"tdbg.app.terminal_game"}:
        if other.startswith("tdbg.app.scripts."):
            stand_in(monkeypatch, other, seen)
    assert run([*words, "--seed", "3", "x"]) == 0
    prog = "tdbg " + " ".join(words)
    assert seen == [(module, [prog, "--seed", "3", "x"])]


def test_a_scripts_error_names_the_subcommand_typed(monkeypatch, capsys):
    seen = []
    stand_in(monkeypatch, "tdbg.app.scripts.play_models", seen, fail="--games: too many")
    assert run(["h2h", "--games", "9"]) == 2
    assert capsys.readouterr().err == "tdbg h2h: error: --games: too many\n"


def test_an_error_before_the_subcommand_starts_names_it_too(monkeypatch, capsys):
    """A thread count refused while the rest loads (as a signal then): its line read
    "tdbg: error:", where every later one names the subcommand typed."""
    monkeypatch.setenv("TDBG_THREADS", "abc")
    assert run(["analyse", "x"]) == 2
    assert capsys.readouterr().err.startswith("tdbg analyse: error: TDBG_THREADS='abc'")


def test_the_usage_lists_every_subcommand_with_what_it_does(capsys):
    assert run(["--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        "usage: tdbg COMMAND [ARGS...]   (tdbg COMMAND --help: its flags)",
        "",
        "commands:",
    ]
    listed = lines[3:]
    assert len(listed) == len(tdbg_command.COMMANDS)
    assert "  train batch           batch TD(0) self-play training (train_batch.py)" in listed
    assert (
        "  h2h                   head to head: two players on duplicate dice (play_models.py)"
        in listed
    )


def test_a_tool_is_loaded_from_the_installed_package_or_the_checkout():
    tool = tdbg_command.load("tools.describe_model")
    assert tool.__name__ in ("tdbg.tools.describe_model", "tools.describe_model")
    assert tool.__file__.endswith("describe_model.py") and callable(tool.main)
