"""A training script's flags resolved into its stage settings: the command line first, then
a stage file (``--config stage.toml``), then, for a stage that continues an unfinished one,
the settings that stage's checkpoint recorded, then the defaults.

A stage continues when ``--resume X`` names a checkpoint whose stage is unfinished (and
no ``--new-stage``), or when ``--save X`` already holds one (the same command run again
after ``--stop-at`` or a signal): then every setting the command does not give is the
recorded one, so ``--resume X --save X`` alone carries on, and a setting given that differs
from the record is refused by name (run_control.plan_stage).  ``--overwrite`` never
replaces an unfinished stage unless ``--new-stage`` says to.
"""

from __future__ import annotations

import argparse
import os
import sys

from tdbg.app import cli, settings_flags, stage_file
from tdbg.infra.errors import InputError
from tdbg.learn.run_control import resumes_itself, unfinished_stage
from tdbg.learn.stage_settings import (
    RECORDED_SOURCES,
    RUN_ONLY,
    STAGE_START,
    check_record_agrees,
    is_path_text,
)
from tdbg.net.model import CheckpointError, load_checkpoint

_UNSET = object()
# a checkpoint's stage settings (learner.settings) named otherwise than the field they record
RECORDED_NAMES = {"lambda": "lam"}
SOURCES = RECORDED_SOURCES


def given_on_command_line(parser, argv: list[str]) -> set[str]:
    """The dests of the flags ``argv`` gives (abbreviated or not): a second parse into a
    namespace whose every dest holds a marker argparse leaves where a flag is absent."""
    probe = argparse.Namespace(
        **{a.dest: _UNSET for a in parser._actions if a.dest != argparse.SUPPRESS}
    )
    parser.parse_args(argv, probe)
    return {k for k, v in vars(probe).items() if v is not _UNSET}


def _continued_stage(args) -> tuple[str, dict | None] | None:
    """(the checkpoint this run continues, its unfinished stage or None when it has none):
    an unfinished stage already at ``--save`` (InputError where --overwrite or the sources
    say it must not be continued), else ``--resume``'s; None with --new-stage or neither."""
    if args.new_stage:
        return None
    save = args.save
    if save and os.path.isfile(save) and not resumes_itself(args.resume, save):
        stage = _unfinished(save)
        if stage is not None:
            _check_continues(args, save, stage)
            return save, stage
    if args.resume:
        return args.resume, _unfinished(args.resume)
    return None


def _check_continues(args, save: str, stage: dict) -> None:
    """InputError unless this command, run again with ``save`` holding ``stage`` unfinished,
    may continue it: not with --overwrite, and only from the source that began it."""
    where = unfinished_stage(stage["episodes_done"], stage["settings"]["num_episodes"])
    if args.overwrite:
        raise InputError(
            f"--save {save} holds {where}, which this command would continue; drop --overwrite to "
            f"continue it, or add --new-stage to replace it with a new stage"
        )
    recorded = stage.get("config")
    if recorded is None:  # a stage recorded before its config was: its settings are still compared
        return
    if _same_stage(args.resume, stage):  # (--resume X --save Y run again: Y holds X's stage
        # further on, which its record says began as X's did, not from X)
        return
    for name in SOURCES:
        mine, theirs = getattr(args, name, None), _recorded_source(recorded, name, save)
        if (mine and os.path.realpath(mine)) != (theirs and os.path.realpath(theirs)):
            started = f"with --{name.replace('_', '-')} {theirs}" if theirs else "from scratch"
            raise InputError(
                f"--save {save} holds {where}, started {started}, not as this command starts; add "
                f"--new-stage --overwrite to replace it, or choose another --save"
            )


def _same_stage(resume: str | None, stage: dict) -> bool:
    """Whether the checkpoint ``resume`` holds ``stage`` unfinished (the same stage id)."""
    theirs = _unfinished(resume) if resume and os.path.isfile(resume) else None
    return bool(theirs and stage.get("id") and theirs.get("id") == stage.get("id"))


def _made_the_stages_network(continued, args) -> bool:
    """Whether --hidden, as given, is the one that made the network of the unfinished stage
    this run continues: the stage began from scratch with it, so its network is that one
    as the stage's growth (--expand, --expand-depth-size) made it, which the run builds as
    the stage did.  Compared with the network instead, the same command refused to continue
    a grown stage ("--hidden 8 differs from the checkpoint's 8,8")."""
    recorded = (continued[1] or {}).get("config") if continued else None
    if not isinstance(recorded, dict) or any(recorded.get(name) for name in SOURCES):
        return False
    hidden = recorded.get("hidden")
    return isinstance(hidden, list) and list(args.hidden) == hidden


def _recorded_source(recorded: dict, name: str, path: str) -> str | None:
    """The checkpoint a continued stage records as having begun it (--resume, a warm start),
    or None; InputError where the record is no path (a damaged or crafted file: a number
    there was a TypeError traceback); the file it names need not be there still."""
    value = recorded.get(name)
    if is_path_text(value):
        return value
    raise InputError(
        f"{path}: its unfinished stage records --{name.replace('_', '-')} {value!r:.40}, which "
        f"is no path (text without a NUL)"
    )


def _unfinished(path: str) -> dict | None:
    """The unfinished stage of the checkpoint at ``path``, or None (a checkpoint that cannot
    be read is left to the run, which says why)."""
    try:
        _, _, trainer_state = load_checkpoint(path)
    except CheckpointError:
        return None
    stage = (trainer_state or {}).get("stage")
    if not isinstance(stage, dict) or not isinstance(stage.get("settings"), dict):
        return None
    if stage.get("episodes_done", 0) < stage["settings"].get("num_episodes", 0):
        return stage
    return None


def _recorded_values(stage: dict, dests: set[str]) -> dict:
    """The settings a continued stage takes from its record: its full config when the
    checkpoint has one, else its compared settings; never what started it nor this run's own
    (its log is the stage's: a continued stage goes on writing the log it wrote)."""
    values = dict(
        stage.get("config") or {}
    )  # the compared settings win (a stage ended early rewrites them)
    values.update({RECORDED_NAMES.get(k, k): v for k, v in stage["settings"].items()})
    return {
        k: tuple(v) if isinstance(v, list) else v
        for k, v in values.items()
        if k in dests and k not in STAGE_START and k not in RUN_ONLY and k not in ("save", "json")
    }


def _value_flags(parser) -> dict[str, argparse.Action]:
    """dest -> the flag that sets it, for checking a continued stage's record: where two flags
    share a dest, the one that takes a value (train_prob5's --loss, not its --mse shorthand,
    a store_const: a record of 'mse' checked by --mse, a switch, refused every prob5 stage)."""
    actions: dict[str, argparse.Action] = {}
    for action in parser._actions:
        if action.dest not in actions or (actions[action.dest].nargs == 0 and action.nargs != 0):
            actions[action.dest] = action
    return actions


def _check_record(stage: dict, actions: dict, path: str) -> None:
    """InputError unless every value the continued stage's record (its config and compared
    settings) holds for a flag of this script is one the flag takes: values it does not
    take over (what started the stage, settings the command gives) are carried into the
    new checkpoint or compared, so a damaged one is refused here, before any work (the
    checkpoints that began it: refused where they name no file, _recorded_source)."""
    for key, value in (stage.get("config") or {}).items():
        # (a key of no flag of this script is let be: older stages, and other scripts'
        # stages, record flags this one lacks; but no flag's value is a dict)
        if isinstance(value, dict) and key not in SOURCES:  # (those: _recorded_source)
            raise InputError(
                f"{path}: trainer_state.stage.config.{key}: is a dict {value!r:.40}, no "
                f"flag's value"
            )
    for record in (stage.get("config") or {}, stage["settings"]):
        for key, value in record.items():
            name = RECORDED_NAMES.get(key, key)
            if name in actions and actions[name].option_strings and name not in SOURCES:
                _as_the_flag_takes(
                    actions[name],
                    tuple(value) if isinstance(value, list) else value,
                    path,
                    taken=name not in STAGE_START,  # (never taken: check_started judges them)
                )


def check_recorded(stage: dict, parser, path: str) -> None:
    """InputError unless every value a stage's record holds for a flag of ``parser`` (its
    trainer's) is one the flag takes: describe_model --config prints the record as a stage
    file, which must run (it printed an --lr of -1 that --config then refused)."""
    _check_record({"settings": {}, **stage}, _value_flags(parser), path)


def _as_the_flag_takes(action: argparse.Action, value, path: str, taken: bool = True):
    """``value``, a continued stage's record of ``action``'s flag, checked as the flag checks
    what it is given: a value the flag refuses (a damaged or crafted checkpoint: an LR of
    'abc') is refused in one line, where it reached the optimizer and raised a TypeError.
    A number recorded as text is refused where the record is ``taken`` up as the flag's
    value (what started the stage never is: check_started judges it against the network)."""
    flag = action.option_strings[0] if action.option_strings else action.dest
    if action.nargs == 0:  # a switch (--oneply, --jacoby/--no-jacoby): a record of True or False
        if isinstance(value, bool):
            return value
        raise InputError(
            f"{path}: its unfinished stage records {flag} {value!r:.40}, which the flag refuses "
            f"(not true or false)"
        )
    if value is None:
        if action.default is None:  # (a flag unset where it defaults to nothing)
            return value
        raise InputError(
            f"{path}: its unfinished stage records {flag} None, which the flag refuses "
            f"(it defaults to {action.default!r})"
        )
    if isinstance(value, bool):
        raise InputError(
            f"{path}: its unfinished stage records {flag} {value!r}, which the flag refuses "
            f"(not true or false: it takes a value)"
        )
    if action.type is None and not action.choices:  # a flag that takes text (a path: --log)
        if isinstance(value, str) or action.nargs is not None:
            return value
        raise InputError(
            f"{path}: its unfinished stage records {action.option_strings[0]} {value!r}, which the "
            f"flag refuses (not text)"
        )
    text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
    try:
        if action.type is not None:
            assert callable(
                action.type
            )  # the parser's flags convert with functions, never registry names
            read = action.type(text)
            if isinstance(value, tuple) and not isinstance(read, (tuple, list)):
                # (a list where the flag takes one value, such as an lr of [0.001], read
                # "0.001" here and was a TypeError traceback later)
                raise ValueError("a list, where the flag takes one value")
            if isinstance(value, str) and not isinstance(read, str) and taken:
                # (text that reads as the flag's number, such as a --td-lambda of '0.5', passed
                # as text and was then taken as it was: a TypeError traceback at the first
                # comparison; a run records the number)
                raise ValueError(f"text, where the flag takes {type(read).__name__}")
        if action.choices is not None and value not in action.choices:
            raise ValueError(f"not one of {', '.join(map(str, action.choices))}")
    except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
        raise InputError(
            f"{path}: its unfinished stage records {action.option_strings[0]} {value!r}, which the "
            f"flag refuses ({exc})"
        ) from None
    return value


def _take_up_record(args, stage: dict, parser, stage_class, path: str, given) -> None:
    """Set in ``args`` each flag not ``given`` on the command line to the continued stage's
    record of it (checked as its flag checks a value)."""
    actions = _value_flags(parser)
    _check_record(stage, actions, path)
    check_record_agrees(stage, stage_class, path)
    itself = resumes_itself(args.resume, args.save)
    for name, value in _recorded_values(stage, set(actions)).items():
        # (continued into another checkpoint, it writes a log of its own beside that one:
        # taken up, the stage's log was refused as existing, and --overwrite then replaced
        # the rounds it held, which the checkpoint continued still has)
        if name not in given and (itself or name != "log"):
            setattr(args, name, _as_the_flag_takes(actions[name], value, path))


def parse(parser, stage_class, argv: list[str] | None = None):
    """(the stage's settings, the parsed namespace) from ``argv`` (default: the command line),
    the stage file and a continued stage's record, as the module notes say."""
    argv = sys.argv[1:] if argv is None else list(argv)
    finder = cli.Parser(
        prog=parser.prog, add_help=False
    )  # the stage file first: it may hold required flags
    finder.add_argument("--config")
    config = finder.parse_known_args(argv)[0].config
    argv = (
        stage_file.read_tokens(parser, config) if config else []
    ) + argv  # later flags win: the command line's
    args = parser.parse_args(argv)
    given = given_on_command_line(parser, argv)
    continued = _continued_stage(args)
    if continued:
        path, stage = continued
        if not resumes_itself(args.resume, args.save) and path == args.save:
            for name in SOURCES + (
                "match_head",
                "keep_output_layer",
            ):  # they began the stage; it now continues
                if hasattr(args, name):
                    setattr(args, name, False if name == "keep_output_layer" else None)
            args.resume = path
        if stage is not None:  # a finished stage (or one with no record) starts anew
            _take_up_record(args, stage, parser, stage_class, path, given)
    stage = settings_flags.build(
        stage_class,
        args,
        hidden_given="hidden" in given and not _made_the_stages_network(continued, args),
        log_continues=_log_continues(continued, args, given),
        json_continues=_json_continues(continued, args),
    )
    return stage, args


def _log_continues(continued, args, given: set[str]) -> bool:
    """Whether --log is the log the unfinished stage this run continues recorded (a --log of
    its own, appended to); InputError where the stage's recorded --log, taken up, names no
    file."""
    recorded_log = ((continued[1] or {}).get("config") or {}).get("log") if continued else None
    if (
        continued
        and continued[1] is not None
        and "log" not in given
        and isinstance(recorded_log, str)
        and resumes_itself(args.resume, args.save)
        and not os.path.isfile(recorded_log)
    ):  # the stage's own --log holds its rows so far: a record naming no file was damaged
        # (any text was taken as a new log, relative to the current folder)
        raise InputError(
            f"{continued[0]}: its unfinished stage records --log {recorded_log!r:.100}, which "
            f"names no file (the stage's log; give --log to name the log to append to)"
        )
    log_continues = bool(
        args.log
        and isinstance(recorded_log, str)  # (a damaged record's other value names no log)
        and os.path.realpath(args.log) == os.path.realpath(recorded_log)
    )
    return log_continues


def _json_continues(continued, args) -> bool:
    """Whether --json is the summary the unfinished stage this run continues recorded, which
    an earlier run of it wrote when it stopped (--stop-at, a signal): the same command
    continues the stage and rewrites it.  (It was refused as any existing file, and
    --overwrite is refused with an unfinished stage: no command could continue it.)"""
    recorded = (
        (continued[1].get("config") or {}).get("json") if continued and continued[1] else None
    )
    return bool(
        getattr(args, "json", None)
        and isinstance(recorded, str)
        and resumes_itself(args.resume, args.save)
        and os.path.realpath(args.json) == os.path.realpath(recorded)
    )
