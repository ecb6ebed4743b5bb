"""Stage files: a training stage's settings as TOML, one key per flag (``num-episodes =
20000``, ``hidden = [128, 128]``, ``oneply = true``), read by ``--config`` (flags on the
command line override it) and written back from a checkpoint's record
(``tools/describe_model.py --config``, ``tdbg describe --config``), so a stage can be
kept, diffed, shared and run again.  Reading turns the file into the command-line tokens
it stands for, so every value is checked exactly as the flag's would be.
"""

from __future__ import annotations

import argparse
import os
import tomllib

from tdbg.app import cli
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import KIND_NAMES, MAX_SMALL_TEXT, check_input
from tdbg.learn.stage_settings import (
    BatchStage,
    OnlineStage,
    Prob5Stage,
    flag_names,
    stage_config,
)

# what a stage file may not set: the file itself, and help
NOT_IN_FILE = ("config", "help")
# the trainer a checkpoint's stage names -> (its command, its settings)
TRAINERS = {
    "batch": ("tdbg train batch", BatchStage),
    "prob5": ("tdbg train prob5", Prob5Stage),
    "online": ("tdbg train online", OnlineStage),
}
ALWAYS_WRITTEN = ("num_episodes", "save")


def add_config_flag(parser) -> None:
    parser.add_argument(
        "--config",
        metavar="STAGE.toml",
        default=None,
        help="read settings from a stage file (TOML, keys named as the flags: num-episodes = 20000); "
        "flags on the command line override it; `tdbg describe --config CKPT` writes one back",
    )


def _actions_by_name(parser) -> dict[str, argparse.Action]:
    out: dict[str, argparse.Action] = {}
    for action in parser._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and not flag.startswith("--no-"):
                out.setdefault(flag[2:], action)
    return out


def read_tokens(parser, path: str) -> list[str]:
    """The stage file at ``path`` as command-line tokens (checked then as the flags are):
    ``lr = 3e-4`` -> ``--lr 3e-4``, ``oneply = true`` -> ``--oneply``, ``hidden = [128, 128]``
    -> ``--hidden 128,128``.  UsageError for a file that cannot be read or a key no flag has."""
    if os.path.exists(path) and not os.path.isfile(
        path
    ):  # a FIFO's open() waited for a writer forever
        raise cli.UsageError(f"--config {path} is {KIND_NAMES['special']}, not a TOML stage file")
    try:  # (a 10 GB file was read whole; a missing one is open()'s "cannot read it" below)
        if os.path.isfile(path):
            check_input(path, "a TOML stage file", MAX_SMALL_TEXT)
    except InputError as exc:
        raise cli.UsageError(f"--config {exc}") from None
    try:
        with open(path, "rb") as fh:
            table = tomllib.load(fh)
    except OSError as exc:
        raise cli.UsageError(f"--config {path}: cannot read it ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise cli.UsageError(f"--config {path}: not a TOML stage file ({exc})") from None
    by_name = _actions_by_name(parser)
    tokens = []
    for key, value in table.items():
        name = key.replace("_", "-")
        action = by_name.get(name)
        if action is None or action.dest in NOT_IN_FILE:
            raise cli.UsageError(
                f"--config {path}: {key!r} is not a setting of {parser.prog} (keys are its flags "
                f"without the dashes: num-episodes, lr ...)"
            )
        tokens += _tokens(f"--{name}", action, value, path)
    return tokens


def _tokens(flag: str, action: argparse.Action, value, path: str) -> list[str]:
    switch = action.nargs == 0
    if switch:
        if not isinstance(value, bool):
            raise cli.UsageError(
                f"--config {path}: {flag[2:]} is a switch: true or false, got {value!r}"
            )
        if isinstance(action, argparse.BooleanOptionalAction):
            return [flag if value else "--no-" + flag[2:]]
        return [flag] if value else []
    if isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return [flag, ",".join(map(str, value))]  # hidden sizes
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return [flag, str(value)]
    raise cli.UsageError(f"--config {path}: {flag[2:]} takes a number or text, got {value!r}")


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, (int, float)):
        return repr(value)
    return _toml_string(str(value))


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string: quotes and backslashes escaped, control characters
    as \\uXXXX (TOML allows no others raw)."""
    escaped = "".join(
        "\\" + ch
        if ch in '"\\'
        else f"\\u{ord(ch):04x}"
        if ord(ch) < 0x20 or ord(ch) == 0x7F
        else ch
        for ch in text
    )
    return f'"{escaped}"'


def trainer_of(stage: dict, output_mode: str) -> str:
    """Which trainer ran a checkpoint's stage: batch, prob5 or online."""
    if stage.get("settings", {}).get("trainer") == "online":
        return "online"
    return "prob5" if output_mode == "prob5" else "batch"


def write_text(config: dict, trainer: str) -> str:
    """The stage file of a stage that recorded ``config`` (its settings by field name): the
    settings away from the trainer's defaults (and always the length and the checkpoint), so
    that ``tdbg train TRAINER --config FILE`` runs the same stage again."""
    command, stage_class = TRAINERS[trainer]
    defaults = stage_config(stage_class())
    names = flag_names(stage_class)
    lines = [f"# {command} --config THIS_FILE  (flags given on the command line override these)"]
    for key, value in config.items():
        if (
            key not in names
            or value is None
            or (value == defaults.get(key) and key not in ALWAYS_WRITTEN)
        ):
            continue
        lines.append(f"{names[key]} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"
