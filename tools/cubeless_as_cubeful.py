#!/usr/bin/env python3
"""Make a cubeless money checkpoint play cubeful money with its own cubeless equity.

The result is the starting point of --warm-start-cubeful before any training: the
four cube inputs get zero weights, so every cube state has the parent's equity, and
td_agent's cube rule (double when min(2 x take value, 1) > no-double value) doubles
whenever that equity is positive and takes below 0.5.  It is the baseline a trained
cubeful model must beat.

    python tools/cubeless_as_cubeful.py models/cubeless.pt models/cubeless_as_cubeful.pt
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli
from tdbg.net import net_growth
from tdbg.infra.fileio import Output, check_outputs
from tdbg.net.model import (
    CheckpointError,
    input_layout,
    lineage_entry,
    load_checkpoint,
    save_checkpoint,
)
from tdbg.game.heads import EquityHead, output_head
from tdbg.game.modes import MODES
from tdbg.game.modes.cubeful_money import CubefulMoney
from tdbg.game.modes.cubeless_money import CubelessMoney


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("parent", help="cubeless money checkpoint (equity output, 196 inputs)")
    p.add_argument("output", help="cubeful money checkpoint to write")
    p.add_argument(
        "--overwrite", action="store_true", help="allow replacing an existing checkpoint at output"
    )
    args = p.parse_args()
    check_outputs(
        [Output("output", args.output, "checkpoint")], args.overwrite, {"parent": args.parent}
    )
    try:
        model, meta, _ = load_checkpoint(args.parent)
        if MODES.get(meta["game_mode"]) is not CubelessMoney:
            raise ValueError(f"{args.parent} is a {meta['game_mode']} model, not cubeless money")
        if type(output_head(model.output_mode)) is not EquityHead:  # (warm_start_cubeful's own
            # words name train_batch's flag, which this tool has not)
            raise ValueError(
                f"{args.parent} has a {model.output_mode} output, not the equity a cubeless "
                f"money model plays with; train_batch.py --warm-start-equity makes one from it"
            )
        cubeful = net_growth.warm_start_cubeful(model)
    except (CheckpointError, ValueError) as exc:
        raise cli.UsageError(str(exc)) from None
    meta = {
        **meta,
        # (a model that reads the board features keeps them after the cube inputs: 220, where
        # a fixed 200 wrote a checkpoint that no reader could load)
        "n_inputs": cubeful.n_inputs,
        "encoder": input_layout(CubefulMoney, cubeful.n_inputs),
        "game_mode": CubefulMoney.name,
        "lineage": list(meta.get("lineage", []))
        + [lineage_entry(0, {"stage": "cubeless_as_cubeful"})],
    }
    save_checkpoint(args.output, cubeful, meta)
    print(args.output)


if __name__ == "__main__":
    cli.run_main(main)
