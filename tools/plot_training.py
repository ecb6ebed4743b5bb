#!/usr/bin/env python3
"""Turn a training CSV log (train_batch.py, train_online.py, train_prob5.py) into a PNG.

Panels: the loss (smoothed, raw values faint behind), episodes/s, the learning rate
(only when it changes; a constant one is named in the title) or else the gammon
rate, and the periodic evaluation result with its 95% CI against episodes, in the game
mode's unit (win rate in % for DMP, mEq/game for money, match-winning chances in % for match).  The
title names the run from the checkpoint beside the log (model, game mode, hidden
sizes), when there is one.

    python tools/plot_training.py models/dmp.csv [-o models/dmp.png] [--title TEXT]
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import os

from tdbg.app import cli, training_plot
from tdbg.infra.fileio import Output, check_outputs


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv", help="training log")
    p.add_argument("-o", "--output", help="PNG path (default: the CSV's name with .png)")
    p.add_argument(
        "--title", default=None, help="default: the run, from the checkpoint beside the log"
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="allow replacing an existing PNG (the default one "
        "beside the log is replaced without it: it is this tool's own output)",
    )
    args = p.parse_args()
    rows = training_plot.read_log(args.csv)
    out = args.output or os.path.splitext(args.csv)[0] + ".png"
    check_outputs(
        [Output("--output" if args.output else "output", out, "png", own=not args.output)],
        args.overwrite,
        {"the log": args.csv},
    )
    info = training_plot.run_info(args.csv)
    training_plot.plot(rows, out, args.title or training_plot.run_title(args.csv, info), info)
    print(out)


if __name__ == "__main__":
    cli.run_main(main)
