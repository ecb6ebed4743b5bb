"""The ``tdbg`` console command: one name on the PATH, a subcommand for each script and tool
(``tdbg train batch``, ``tdbg h2h``, ``tdbg eval gnubg``, ``tdbg describe`` ...).  Each
subcommand runs its script's ``main`` exactly as the script's ``__main__`` block does
(cli.run_main: the same flags, error lines and exit codes); its usage and error lines name
the subcommand typed.  The tools are installed as ``tdbg.tools`` (pyproject.toml maps the
repository's tools/ folder there); in a checkout that is not installed they are found as
``tools``.

This module imports nothing heavy at its top (cli, the scripts and torch load when a
subcommand runs), so that ``tdbg --help`` and a bad subcommand answer at once and whatever
the scripts set up first (their signal handling) comes first here too.
"""

from __future__ import annotations

import importlib
import sys

from tdbg.infra.stop_signals import exit_on_signals

# subcommand (its words) -> module whose main() it runs; "tools." modules are tdbg.tools' when installed
COMMANDS = {
    ("train", "batch"): "tdbg.app.scripts.train_batch",
    ("train", "online"): "tdbg.app.scripts.train_online",
    ("train", "prob5"): "tdbg.app.scripts.train_prob5",
    ("h2h",): "tdbg.app.scripts.play_models",
    ("eval", "gnubg"): "tdbg.app.scripts.gnubg_eval",
    ("play",): "tdbg.app.terminal_game",
    ("describe",): "tools.describe_model",
    ("analyse",): "tools.analyse",
    ("rollout",): "tools.rollout",
    ("serve-gnubg",): "tools.gnubg_player",
    ("average",): "tools.average_checkpoints",
    ("compare",): "tools.compare_results",
    ("cubeless-as-cubeful",): "tools.cubeless_as_cubeful",
    ("dice-file",): "tools.dice_file",
    ("export",): "tools.export_weights",
    ("plot", "curve"): "tools.plot_eval_curve",
    ("plot", "training"): "tools.plot_training",
    ("repair-twins",): "tools.repair_twins",
    ("results-tables",): "tools.results_tables",
    ("take-points",): "tools.take_points",
}
# what each does, for `tdbg --help`
SUMMARIES = {
    "tdbg.app.scripts.train_batch": "batch TD(0) self-play training (train_batch.py)",
    "tdbg.app.scripts.train_online": "online TD(lambda) training (train_online.py)",
    "tdbg.app.scripts.train_prob5": "five-output model training (train_prob5.py)",
    "tdbg.app.scripts.play_models": "head to head: two players on duplicate dice (play_models.py)",
    "tdbg.app.scripts.gnubg_eval": "error rates from GNU Backgammon's analysis (gnubg_eval.py)",
    "tdbg.app.terminal_game": "play a game against a net in the terminal",
    "tools.describe_model": "what a checkpoint is; --config: its stage as a stage file",
    "tools.analyse": "one position's moves, ranked",
    "tools.rollout": "a position played out",
    "tools.gnubg_player": "serve a net to GNU Backgammon as an external player",
    "tools.average_checkpoints": "average the weights of checkpoints",
    "tools.compare_results": "paired difference of two result files on the same dice",
    "tools.cubeless_as_cubeful": "a cubeless net as a cubeful one",
    "tools.dice_file": "a dice file for reproducible games",
    "tools.export_weights": "weights for the C inference programs",
    "tools.plot_eval_curve": "strength curves of a chain of checkpoints",
    "tools.plot_training": "a training log as a PNG",
    "tools.repair_twins": "fold twin hidden units into one",
    "tools.results_tables": "rewrite the result tables from the result files",
    "tools.take_points": "take points of a cubeful net",
}


def usage() -> str:
    lines = ["usage: tdbg COMMAND [ARGS...]   (tdbg COMMAND --help: its flags)", "", "commands:"]
    for words, module in COMMANDS.items():
        lines.append(f"  {' '.join(words):<22}{SUMMARIES[module]}")
    return "\n".join(lines)


def find(argv: list[str]) -> tuple[tuple[str, ...], str] | None:
    """(the subcommand's words, its module) that ``argv`` starts with, or None."""
    for words, module in COMMANDS.items():
        if tuple(argv[: len(words)]) == words:
            return words, module
    return None


def load(module: str):
    """The module a subcommand runs: a tool from tdbg.tools where installed, else tools."""
    if module.startswith("tools."):
        try:
            return importlib.import_module("tdbg." + module)
        except ModuleNotFoundError as exc:
            if exc.name not in ("tdbg.tools", "tdbg." + module):
                raise
    return importlib.import_module(module)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    found = find(argv)
    words, module = found or ((), "")
    prog, rest = "tdbg " + " ".join(words), argv[len(words) :]
    if found is not None:  # the usage and error lines name the subcommand typed, from here on:
        # a signal or a thread count refused while the rest loads too ("tdbg analyse: error:")
        sys.argv = [prog, *rest]
    exit_on_signals()  # as every script's first line: a signal while the rest loads ends in one line
    cli = importlib.import_module("tdbg.app.cli")
    if not argv or argv[0] in ("-h", "--help"):
        sys.argv = ["tdbg"]
        cli.run_main(
            lambda: print(usage())
        )  # (| head: the same handling as every command's output)
        return
    if found is None:
        group = [w for w in COMMANDS if w[0] == argv[0] and len(w) > 1]
        what = (
            f"'{argv[0]}' needs one of: {', '.join(w[1] for w in group)}"
            if group
            else f"no command '{argv[0]}' (tdbg --help lists them)"
        )
        cli.fail(what, "tdbg", code=cli.FAILED)
        return  # (fail exits; cli is imported late, so the checker cannot tell)
    if words == ("play",):
        _play(module, prog, rest)
        return
    cli.run_main(load(module).main)


def _play(module: str, prog: str, rest: list[str]) -> None:
    """``tdbg play``: the terminal game's ``main(argv)`` (tdbg.app.terminal_game), when this
    installation has it."""
    cli = importlib.import_module("tdbg.app.cli")
    try:
        game = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        cli.fail("this installation has no terminal game (tdbg.app.terminal_game is missing)", prog)
    code = game.main(rest)  # its main has the scripts' error handling (cli.run_main) itself
    if code:  # (a main that returns its exit code)
        sys.exit(code)
