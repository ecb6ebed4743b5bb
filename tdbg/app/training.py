"""What the training scripts share: their parsers, made from the stage settings
(learn.stage_settings, through tdbg.app.settings_flags), the settings built from the parsed flags,
and the end of a run (the summary, its exit code)."""

from __future__ import annotations

import signal
import sys

from tdbg.app import backend_flags, cli, settings_flags, stage_file, stage_flags
from tdbg.infra import fileio, stop_signals
from tdbg.learn.stage_settings import BatchStage, OnlineStage


def batch_parser(description: str, stage_class=BatchStage) -> cli.Parser:
    """train_batch.py's flags (and, with ``stage_class`` Prob5Stage, train_prob5.py's): the
    stage's fields, then where the self-play workers run."""
    p = cli.Parser(description=description)
    stage_file.add_config_flag(p)
    settings_flags.add_arguments(p, stage_class, skip=("where",))
    backend_flags.add_backend_args(p, "self-play")
    return p


def online_parser(description: str) -> cli.Parser:
    """train_online.py's flags: the online stage's fields."""
    p = cli.Parser(description=description)
    stage_file.add_config_flag(p)
    settings_flags.add_arguments(p, OnlineStage)
    return p


def stage_settings(stage_class, parser, argv: list[str] | None = None):
    """(the stage's settings, the parsed namespace) from the command line (default
    sys.argv), its --config stage file and, for a stage that continues an unfinished one,
    the settings that stage recorded (stage_flags)."""
    return stage_flags.parse(parser, stage_class, argv)


def finish(summary: dict, json_path: str | None = None) -> None:
    """The run's summary: to ``json_path`` when given, and as the last line of output;
    exit code 128 + the signal's number when one stopped the run (130 Ctrl-C, 143 SIGTERM),
    a further signal then ignored: the run has saved and says so."""
    if summary["interrupted"]:
        stop_signals.ignore_further_interrupts()
    if json_path:
        fileio.write_json(json_path, summary)
    print(fileio.json_text(summary))
    if summary["interrupted"]:
        sys.exit(
            stop_signals.exit_code(getattr(signal.Signals, summary["interrupted"], signal.SIGINT))
        )
