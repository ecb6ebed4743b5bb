#!/usr/bin/env python3
"""Average the weights of checkpoints of one network (checkpoint averaging, "SWA"):
checkpoints of one run, or of branches from one run, share a basin, and their mean can
play better than any of them.

    python tools/average_checkpoints.py a.pt b.pt c.pt -o mean.pt

The inputs must have the same architecture, encoder, output head and game mode; the
result keeps the first one's metadata, with a lineage entry naming every input and its
md5, and no trainer state (a new stage starts from it).  Prints the output path.
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import hashlib

import torch

from tdbg.app import cli
from tdbg.infra.fileio import Output, check_outputs
from tdbg.net.model import (
    CheckpointError,
    lineage_entry,
    load_checkpoint,
    read_checkpoint,
    save_checkpoint,
)


def average(paths: list[str]):
    """(model with the mean weights, metadata) of the checkpoints at ``paths``."""
    loaded, digests = [], []
    for path in paths:
        try:
            data = read_checkpoint(path)  # the md5 recorded is of the bytes averaged
            loaded.append(load_checkpoint(path, data=data))
        except CheckpointError as exc:
            raise cli.UsageError(str(exc)) from None
        digests.append(hashlib.md5(data).hexdigest())
    first, meta, _ = loaded[0]

    def shape(m, md):
        return (m.n_inputs, list(m.hidden), m.output_mode, m.activation, md["game_mode"])

    for path, (m, md, _) in zip(paths[1:], loaded[1:], strict=True):
        if shape(m, md) != shape(first, meta):
            raise cli.UsageError(
                f"{path} is {shape(m, md)}, {paths[0]} is {shape(first, meta)}: only one network's "
                f"checkpoints can be averaged"
            )
    mean = {
        k: torch.stack([m.state_dict()[k].float() for m, _, _ in loaded]).mean(0).to(v.dtype)
        for k, v in first.state_dict().items()
    }
    first.load_state_dict(mean)
    meta = dict(meta)
    sources = [f"{p} (md5 {digest})" for p, digest in zip(paths, digests, strict=True)]
    # (an entry as every writer makes it: its date and commit too, which describe_model showed
    # as "?  commit ?" for an average alone)
    meta["lineage"] = list(meta.get("lineage", [])) + [lineage_entry(0, {"averaged": sources})]
    return first, meta


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", help="checkpoints of one network")
    p.add_argument("-o", "--output", required=True, help="the averaged checkpoint")
    p.add_argument(
        "--overwrite", action="store_true", help="allow replacing an existing checkpoint"
    )
    args = p.parse_args()
    if len(args.checkpoints) < 2:
        raise cli.UsageError("give at least two checkpoints to average")
    check_outputs(
        [Output("--output", args.output, "checkpoint")],
        args.overwrite,
        {f"checkpoint {k + 1}": x for k, x in enumerate(args.checkpoints)},
    )
    model, meta = average(args.checkpoints)
    save_checkpoint(args.output, model, meta)
    print(args.output)


if __name__ == "__main__":
    cli.run_main(main)
