#!/usr/bin/env python3
"""PureTD's DMP net as a checkpoint of ours, to play it in play_models.py (head to head, or
against gnubg-nn): the same weights, its 196 inputs put in our order
(experiments/benchmarks/vs_puretd.py's converter, checked there against PureTD's documented
input layout).

    git clone https://github.com/alexstrehl/backgammon-ai-engine /tmp/puretd
    git -C /tmp/puretd show 3a3c70d:best_models/td_batch_relu_256_256_256_1ply_vi_final.pt > p.pt
    python experiments/head_to_head/puretd_net.py p.pt models/puretd_256x3.pt

The checkpoint's lineage names the source file and its md5.  Prints the output path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys

from tdbg.app import cli
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import Output, check_outputs
from tdbg.net.model import new_metadata, save_checkpoint

BENCH = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "vs_puretd.py")


def converter():
    """vs_puretd.puretd_checkpoint (a benchmark script, so loaded from its path)."""
    spec = importlib.util.spec_from_file_location("vs_puretd", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.puretd_checkpoint


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("puretd", help="a PureTD DMP checkpoint (hidden_sizes / state_dict)")
    p.add_argument("output", help="the checkpoint of ours to write")
    p.add_argument(
        "--overwrite", action="store_true", help="allow replacing an existing checkpoint"
    )
    args = p.parse_args()
    check_outputs(
        [Output("output", args.output, "checkpoint")], args.overwrite, {"puretd": args.puretd}
    )
    try:
        with open(args.puretd, "rb") as fh:
            data = fh.read()
        md5 = hashlib.md5(data).hexdigest()  # of the bytes converted, not a second read
        model = converter()(args.puretd, data)
    except (OSError, InputError) as exc:
        raise cli.UsageError(f"{args.puretd}: {exc}") from None
    except Exception as exc:  # torch.load's own errors on a file that is no checkpoint at all
        raise cli.UsageError(f"{args.puretd}: not a PureTD checkpoint ({exc})") from None
    meta = new_metadata(model, "dmp")
    meta["lineage"] = [
        {
            "command": " ".join(["experiments/head_to_head/puretd_net.py"] + sys.argv[1:]),
            "converted_from": {"path": args.puretd, "md5": md5},
            "episodes": 0,
        }
    ]
    save_checkpoint(args.output, model, meta)
    print(args.output)


if __name__ == "__main__":
    cli.run_main(main)
