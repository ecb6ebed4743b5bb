#!/usr/bin/env python3
"""Repair a checkpoint's hidden units: fold its twin units (incoming weights and bias
pointing the same way, cosine > 0.95) into one each and make the freed units fresh
(tdbg/net/twins.py), then revive its dead units (never positive on the net's own
self-play positions): fresh incoming weights at a new layer's scale, zero outgoing
weights (tdbg/net/health.py).  The function is kept up to the twins' departure from exact
proportionality (revival keeps it exactly); this prints how far, measured on every legal
play of the decisions of greedy self-play games of the original model, and the unit
health before and after.

    python tools/repair_twins.py best_models/dmp_256x3.pt -o repaired.pt
    python tools/repair_twins.py best_models/dmp_256x3_1ply.pt -o revived.pt --no-twins

The result keeps the input's metadata, with a lineage entry naming the input and its md5,
and no trainer state (a new stage starts from it).  Prints a summary, or JSON with --json.
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import hashlib

import torch

from tdbg.app import cli
from tdbg.infra import fileio, threads
from tdbg.infra.fileio import Output, check_outputs
from tdbg.net.health import health_positions, played_inputs, revive_dead, unit_health
from tdbg.net.model import (
    CheckpointError,
    lineage_entry,
    load_checkpoint,
    read_checkpoint,
    save_checkpoint,
)
from tdbg.net.twins import TWIN_COSINE, distinct_units, repair_twins


def real_positions(model, game_mode_name: str, games: int, seed: int):
    """(scorer, decisions' boards, their dice, their cube states (None without a cube), encoded
    positions): the decisions of ``games`` greedy self-play games of ``model``, and every
    position reached by a legal play from them (each with its side on roll, the cube
    centred), encoded for the network (at most FIT_ROWS of them)."""
    import numpy as np
    import torch
    from tdbg.game.modes import game_mode
    from tdbg.net.scoring import Scorer, greedy_game_decisions

    scorer = Scorer(model.eval(), game_mode(game_mode_name), engine="c")
    rng = np.random.default_rng(seed)
    boards, dice, owner = greedy_game_decisions(scorer, games, rng, with_states=True)
    after, _, _, _ = scorer.score(boards, dice, owner)
    states = np.concatenate([boards, after[:, ::-1]])
    states = states[rng.permutation(len(states))[:FIT_ROWS]]
    centred = (
        None
        if owner is None
        else scorer.mode.initial_states(len(states), np.random.default_rng(seed))
    )
    cube_action = None if owner is None else np.zeros(len(states))
    return (
        scorer,
        boards,
        dice,
        owner,
        torch.from_numpy(scorer.encode_states(states, centred, cube_action)),
    )


FIT_ROWS = 50_000  # positions the folds are fitted on


def output_change(before, repaired, boards, dice, owner=None) -> dict:
    """How the repair moved the outputs: over every candidate of the decisions (``before``
    scores the original model), the largest and mean change of the value the mover
    maximises, and the share of decisions with a choice whose chosen play changed."""
    import numpy as np
    from tdbg.net.scoring import Scorer, segment_argmax

    after = Scorer(repaired.eval(), before.mode, engine="c")
    _, offsets, _, old = before.score(boards, dice, owner)
    _, _, _, new = after.score(boards, dice, owner)
    diff = np.abs(np.asarray(new, dtype=np.float64) - np.asarray(old, dtype=np.float64))
    choice = np.diff(offsets) > 1
    old_rows, _ = segment_argmax(old, offsets)
    new_rows, _ = segment_argmax(new, offsets)
    return {
        "decisions": int(len(dice)),
        "candidates": int(len(old)),
        "max_abs_change": float(diff.max()),
        "mean_abs_change": float(diff.mean()),
        "decisions_with_a_choice": int(choice.sum()),
        "choices_changed": int((old_rows != new_rows)[choice].sum()),
    }


def _args():
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("-o", "--output", required=True, help="the repaired checkpoint")
    p.add_argument(
        "--seed",
        type=cli.seed_arg,
        default=0,
        help="seed of the fresh units' weights and of the measuring games' dice",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=TWIN_COSINE,
        help="cosine above which two units are twins (default: %(default)s)",
    )
    p.add_argument(
        "--games",
        type=cli.positive_int,
        default=200,
        help="greedy self-play games whose decisions measure the change (default: %(default)s)",
    )
    p.add_argument(
        "--no-twins",
        action="store_true",
        help="leave twin units as they are (revive dead units only)",
    )
    p.add_argument(
        "--no-revive", action="store_true", help="leave dead units as they are (fold twins only)"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--overwrite", action="store_true", help="allow replacing an existing checkpoint"
    )
    args = p.parse_args()
    if not 0.0 < args.threshold < 1.0:
        raise cli.UsageError(f"--threshold must be between 0 and 1, got {args.threshold}")
    if args.no_twins and args.no_revive:
        raise cli.UsageError("--no-twins and --no-revive together leave nothing to repair")
    return args


def _print_report(report: dict, args, health_before, health_after) -> None:
    change = report["output_change"]
    print(
        f"distinct units per layer: {report['distinct_before']} -> {report['distinct_after']} "
        f"(cosine > {args.threshold}; units freed {report['freed']})"
    )
    print(f"dead units revived per layer: {report['revived']}")
    print(f"unit health before: {health_before.text()}")
    print(f"unit health after:  {health_after.text()}")
    print(
        f"output change on {change['candidates']:,} plays of {change['decisions']:,} decisions "
        f"({change['games']} greedy games, seed {change['seed']}): max {change['max_abs_change']:.2e}, "
        f"mean {change['mean_abs_change']:.2e}; chosen play changed in {change['choices_changed']} of "
        f"{change['decisions_with_a_choice']:,} decisions with a choice"
    )
    print(args.output)


def _read(path: str):
    """(model, metadata, md5 of the bytes read) of the checkpoint at ``path``; a UsageError
    where it does not load.  The md5 is of the very bytes repaired, for the lineage."""
    try:
        data = read_checkpoint(path)
        model, meta, _ = load_checkpoint(path, data=data)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    return model, meta, hashlib.md5(data).hexdigest()


def _fold_twins(model, args, inputs):
    """(net, report) with each set of twin units folded into one and the rest freed; with
    --no-twins the net as it is, its report saying so in the same fields."""
    if args.no_twins:
        return model, {
            "distinct_before": distinct_units(model, args.threshold),
            "distinct_after": distinct_units(model, args.threshold),
            "freed": [0] * len(model.hidden),
            "threshold": args.threshold,
        }
    return repair_twins(model, seed=args.seed, threshold=args.threshold, inputs=inputs)


def _repaired_meta(meta: dict, source: str, md5: str, report: dict) -> dict:
    """``meta`` with the repair appended to the lineage: the checkpoint it started from, and
    the units it folded, freed and revived."""
    kept = ("distinct_before", "distinct_after", "freed", "revived")
    entry = {"repaired_twins": f"{source} (md5 {md5})", **{k: report[k] for k in kept}}
    return {**meta, "lineage": list(meta.get("lineage", [])) + [lineage_entry(0, entry)]}


def main() -> None:
    args = _args()
    check_outputs(
        [Output("--output", args.output, "checkpoint")],
        args.overwrite,
        {"checkpoint": args.checkpoint},
    )
    model, meta, md5 = _read(args.checkpoint)
    threads.use()  # scoring a few positions at a time: the library's default (one)
    scorer, boards, dice, owner, inputs = real_positions(
        model, meta["game_mode"], args.games, args.seed
    )
    sample = health_positions(model, scorer.mode)  # the positions unit health is measured on
    health_before = unit_health(model, sample)
    repaired, report = _fold_twins(model, args, inputs)
    revived = [0] * len(model.hidden)
    if not args.no_revive:
        # dead on the sample and on every play of the measuring games: the outputs those games see stay
        repaired, revived = revive_dead(
            repaired,
            torch.cat([sample, played_inputs(scorer, boards, dice, owner)]),
            seed=args.seed,
        )
    health_after = unit_health(repaired, sample)
    report.update(
        revived=revived, health_before=health_before.as_dict(), health_after=health_after.as_dict()
    )
    report["output_change"] = {
        "games": args.games,
        "seed": args.seed,
        "fit_rows": len(inputs),
        **output_change(scorer, repaired, boards, dice, owner),
    }
    save_checkpoint(args.output, repaired, _repaired_meta(meta, args.checkpoint, md5, report))
    report = {"input": args.checkpoint, "md5": md5, "output": args.output, **report}
    if args.json:
        print(fileio.json_text(report, indent=2))
        return
    _print_report(report, args, health_before, health_after)


if __name__ == "__main__":
    cli.run_main(main)
