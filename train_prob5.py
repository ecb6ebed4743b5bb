#!/usr/bin/env python3
"""Train the five-output prob5 model (P(win), P(win gammon), P(win backgammon),
P(lose gammon), P(lose backgammon)) by batch TD(0) self-play in cubeless money,
then refine it with --oneply exact backups of all five outputs.

  python train_prob5.py --hidden 128,128 --num-episodes 20000 --save models/prob5.pt
  python train_prob5.py --oneply --resume models/prob5.pt --num-episodes 2000 --lr 1.5e-4 --save models/prob5_1ply.pt

Takes train_batch.py's flags, less the warm starts; the game mode is cubeless money.
Each target is the value of the position reached seen from the mover: the
opponent's P(win) becomes our P(lose), their gammons our lost gammons.  The loss
on the five outputs is MSE (default) or cross-entropy (losses.py says exactly how,
--raw-logits included).
"""
from __future__ import annotations


from tdbg.app import backend_flags, cli
from tdbg.infra import fileio
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.training_loop import run_stage
from tdbg.net.losses import LOSSES
from train_batch import build_parser as batch_parser


def build_parser() -> cli.Parser:
    p = batch_parser()
    p.description = __doc__.split("\n\n")[0]
    p.set_defaults(game_mode="cubeless-money")
    for action in p._actions:  # what prob5 training does not take
        if action.dest == "game_mode":
            action.help = "prob5 models play cubeless money only"
        elif action.dest in ("warm_start_equity", "warm_start_cubeful", "jacoby", "keep_output_layer",
                             "cube_targets_1ply"):
            action.help = cli.argparse.SUPPRESS
    p.add_argument("--loss", choices=LOSSES, default="mse",
                   help="loss on the five outputs: squared error, or binary cross-entropy of each output "
                        "against its target probability")
    p.add_argument("--mse", dest="loss", action="store_const", const="mse", help="same as --loss mse")
    p.add_argument("--win-weight", type=cli.positive_float, default=1.0,
                   help="weight of the P(win) output's term in the loss (the other four weigh 1)")
    p.add_argument("--raw-logits", action="store_true",
                   help="with --loss cross-entropy: compute it from the head's logits in log space (exact "
                        "where a saturated sigmoid would round to 0 or 1) instead of from clamped probabilities")
    return p


def main() -> None:
    args = build_parser().parse_args()
    if args.warm_start_equity or args.warm_start_cubeful:
        raise cli.UsageError("train_prob5.py starts from scratch or --resume; warm starts make equity models")
    args.hidden_given = any(a.startswith("--hidden") for a in cli.sys.argv[1:])
    backend_flags.start(args)
    summary = run_stage(args, BatchLearner, output_mode="prob5")
    if args.json:
        fileio.write_json(args.json, summary)
    print(fileio.json_text(summary))
    if summary["interrupted"]:
        cli.sys.exit(130)


if __name__ == "__main__":
    cli.run_main(main)
