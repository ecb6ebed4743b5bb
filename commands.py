"""The console commands that `pip install -e .` makes (pyproject.toml's [project.scripts]):
each runs one script's or tool's ``main`` exactly as its ``if __name__ == "__main__"``
block does, so ``train_batch ...`` and ``python train_batch.py ...`` behave alike (the
usage lines name the command typed).  The first thing a command does is its scripts' first
line, stop_signals.exit_on_signals: a Ctrl-C or SIGTERM while the heavy modules load ends
it in one line; so this module imports nothing heavy itself."""
from __future__ import annotations

import importlib

from tdbg.infra.stop_signals import exit_on_signals


def _command(module: str):
    def command() -> None:
        exit_on_signals()
        cli = importlib.import_module("tdbg.app.cli")
        cli.run_main(importlib.import_module(module).main)
    command.__doc__ = f"run {module}.main"
    return command


train_batch = _command("train_batch")
train_online = _command("train_online")
train_prob5 = _command("train_prob5")
play_models = _command("play_models")
gnubg_eval = _command("gnubg_eval")
analyse = _command("tools.analyse")
average_checkpoints = _command("tools.average_checkpoints")
compare_results = _command("tools.compare_results")
cubeless_as_cubeful = _command("tools.cubeless_as_cubeful")
describe_model = _command("tools.describe_model")
dice_file = _command("tools.dice_file")
export_weights = _command("tools.export_weights")
gnubg_player = _command("tools.gnubg_player")
plot_eval_curve = _command("tools.plot_eval_curve")
plot_training = _command("tools.plot_training")
repair_twins = _command("tools.repair_twins")
results_tables = _command("tools.results_tables")
rollout = _command("tools.rollout")
take_points = _command("tools.take_points")
