#!/usr/bin/env python3
"""Print what a checkpoint is: architecture, unit health (dead, distinct and active hidden
units on the net's own self-play positions), parameters, encoder, output and game mode,
its move filter if it has one, episodes trained, lineage and md5; or, with --config, its
last stage as a stage file that runs it again.

    python tools/describe_model.py models/dmp.pt [--json]
    python tools/describe_model.py --config models/dmp.pt > models/dmp_stage.toml
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import hashlib
import importlib
import os

from tdbg.app import cli, stage_file
from tdbg.app.stage_flags import check_recorded
from tdbg.infra import fileio
from tdbg.game.modes import game_mode
from tdbg.infra import threads
from tdbg.infra.errors import InputError
from tdbg.learn.stage_settings import check_record_agrees, check_started
from tdbg.net.health import HEALTH_GAMES, HEALTH_SEED, measure_health
from tdbg.net.model import CheckpointError, load_checkpoint, move_filter_of, read_checkpoint
from tdbg.net.twins import TWIN_COSINE
from tdbg.play.players import checkpoint_mode_name


def shape(net) -> str:
    return f"{net.n_inputs} -> [{','.join(map(str, net.hidden))}] -> {net.n_outputs}"


def describe(path: str) -> dict:
    try:
        data = read_checkpoint(path)  # the md5 printed is of the bytes described
        model, meta, trainer_state = load_checkpoint(path, data=data)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    md5 = hashlib.md5(data).hexdigest()
    threads.use()
    health = measure_health(model, game_mode(meta["game_mode"]))
    stage = (trainer_state or {}).get("stage") or {}
    filt = move_filter_of(model)
    return {
        "file": path,
        "md5": md5,
        "architecture": shape(model),
        "hidden": model.hidden,
        # units per hidden layer once twins (incoming weights and bias at cosine > 0.95) count as one
        "distinct_units": list(health.distinct),
        # dead units (never positive) and the mean fraction of positions a unit fires on, per hidden layer,
        # over the pre-roll positions of HEALTH_GAMES greedy self-play games of the net (seed HEALTH_SEED)
        "unit_health": {**health.as_dict(), "games": HEALTH_GAMES, "seed": HEALTH_SEED},
        "activation": model.activation,
        "parameters": model.num_parameters(),
        "encoder": meta.get("encoder"),
        "output_mode": model.output_mode,
        "game_mode": meta["game_mode"],
        # the 1-ply move filter (train_batch.py --oneply-filter): its shape and the after-states it was fitted to
        "move_filter": None
        if filt is None
        else {
            "architecture": shape(filt),
            "parameters": filt.num_parameters(),
            "samples": int(getattr(filt, "samples", 0)),
        },
        "episodes": meta.get("episodes", 0),
        "lineage": meta.get("lineage", []),
        "unfinished_stage": (
            stage
            if stage
            and stage.get("episodes_done", 0) < stage.get("settings", {}).get("num_episodes", 0)
            else None
        ),
    }


def _trainer_parser(trainer: str):
    """The parser of the script that runs ``trainer``'s stages (batch, prob5 or online):
    its flags judge the values a stage file would give them."""
    return importlib.import_module(f"tdbg.app.scripts.train_{trainer}").build_parser()


def _why_none(meta: dict) -> str:
    """Why a checkpoint holds no stage to print, as its lineage tells: the last entry is a
    tool's (repair_twins, average_checkpoints, cubeless_as_cubeful keep no stage: "trained
    before they were recorded" was said of a file repaired a minute ago), there is no lineage,
    or the stage was trained before its settings were recorded."""
    lineage = meta.get("lineage") or []
    if not lineage:
        return " and no lineage of what made it"
    last = lineage[-1]
    if not isinstance(last.get("stage"), dict):
        words = str(last.get("command", "")).split()
        tool = os.path.basename(words[0])[:60] if words else "a tool"
        return (
            f": its last lineage entry is a run of {tool if tool.isprintable() else repr(tool)}, "
            f"which keeps none (--config the checkpoint it started from)"
        )
    return " (trained before they were recorded); its lineage names the command that trained it"


def stage_file_of(path: str) -> str:
    """The stage file of the checkpoint's last stage (stage_file.write_text); UsageError when
    its checkpoint recorded no settings (a tool's output, or a stage trained before they were
    recorded: _why_none says which)."""
    try:
        model, meta, trainer_state = load_checkpoint(path)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    stage = (trainer_state or {}).get("stage")
    if not isinstance(stage, dict) or not isinstance(stage.get("config"), dict):
        raise cli.UsageError(f"{path}: its checkpoint records no stage settings{_why_none(meta)}")
    config = stage["config"]  # what made the network, as it was recorded: the file makes it again
    if isinstance(stage.get("settings"), dict) and "num_episodes" in stage["settings"]:
        # the stage's length as its compared settings give it (they win where a stage ended
        # early rewrote only them, as when it continues): the config's printed another stage
        config = {**config, "num_episodes": stage["settings"]["num_episodes"]}
    trainer = stage_file.trainer_of(stage, model.output_mode)
    default_hidden = stage_file.TRAINERS[trainer][1]().model.hidden
    try:
        mode = game_mode(checkpoint_mode_name(model, meta))
        check_started(config, model, mode, path, default_hidden)
        check_recorded(stage, _trainer_parser(trainer), path)
        check_record_agrees(stage, stage_file.TRAINERS[trainer][1], path)
    except (InputError, ValueError) as exc:
        raise cli.UsageError(str(exc)) from None
    return stage_file.write_text(config, trainer)


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--config",
        action="store_true",
        help="print the checkpoint's last stage as a stage file instead (TOML: the settings it recorded; "
        "`tdbg train ... --config FILE` runs the stage again)",
    )
    args = p.parse_args()
    if args.config:
        print(stage_file_of(args.checkpoint), end="")
        return
    d = describe(args.checkpoint)
    if args.json:
        print(fileio.json_text(d, indent=2))
        return
    print_description(d)


def print_description(d: dict) -> None:
    """``describe``'s figures as text, one labelled line each, then the lineage."""
    print(f"file          {d['file']}")
    print(f"md5           {d['md5']}")
    print(f"architecture  {d['architecture']} ({d['activation']} hidden units)")
    hidden = ",".join(map(str, d["hidden"]))
    print(
        f"distinct      [{','.join(map(str, d['distinct_units']))}] of [{hidden}] hidden units "
        f"(twins, at cosine > {TWIN_COSINE}, counted once)"
    )
    h = d["unit_health"]
    print(
        f"dead          [{','.join(map(str, h['dead']))}] of [{hidden}] hidden units never positive on "
        f"{h['positions']:,} positions of {h['games']} greedy self-play games"
    )
    print(
        f"active        [{','.join(f'{a:.2f}' for a in h['active'])}] mean fraction of those positions a unit "
        f"fires on"
    )
    print(f"parameters    {d['parameters']:,}")
    print(f"encoder       {d['encoder']}")
    print(f"output mode   {d['output_mode']}")
    print(f"game mode     {d['game_mode']}")
    f = d["move_filter"]
    print(
        "move filter   "
        + (
            "none"
            if f is None
            else f"{f['architecture']}, {f['parameters']:,} parameters, "
            f"fitted to {f['samples']:,} after-states"
        )
    )
    print(f"episodes      {d['episodes']:,}")
    if d["unfinished_stage"]:
        st = d["unfinished_stage"]
        print(
            f"in progress   {st['episodes_done']:,} of {st['settings']['num_episodes']:,} episodes "
            f"(continue it with --resume {d['file']} --save {d['file']})"
        )
    print_lineage(d["lineage"])


def print_lineage(lineage: list) -> None:
    """Each stage that made the checkpoint: its date, commit, episodes and command, and each
    start and restart of it."""
    print("lineage")
    for i, e in enumerate(lineage, 1):
        print(
            f"  {i}. {e.get('date', '?')}  commit {e.get('commit', '?')}  {e.get('episodes', 0):,} episodes"
        )
        print(f"     {e.get('command', '?')}")
        for sg in e.get("segments", []):  # each start and restart of the stage
            print(
                f"     from episode {sg.get('from_episode', 0):,}: {sg.get('date', '?')}  commit "
                f"{sg.get('commit', '?')}  {sg.get('cpu', '?')}"
                + (f"  collect kernel {sg['collect_kernel']}" if "collect_kernel" in sg else "")
            )


if __name__ == "__main__":
    cli.run_main(main)
