#!/usr/bin/env python3
"""Online TD(lambda) self-play training, Tesauro's original algorithm: one game at a
time, eligibility traces on the weights, an SGD update after every move.

  python train_online.py --hidden 80 --lambda 0.7 --lr 0.1 --num-episodes 20000 --save models/online.pt
"""
from __future__ import annotations


from tdbg.app import cli
from tdbg.infra import fileio
from tdbg.game.modes import MODES
from tdbg.game.movegen import BACKENDS
from tdbg.learn.online_td import OnlineLearner
from tdbg.learn.training_loop import run_stage
from tdbg.net.model import ACTIVATIONS
from tdbg.play.agents import REFERENCE_AGENTS
from train_batch import hidden_arg

SCALAR_MODES = tuple(name for name, cls in MODES.items() if not cls.cubeful)  # online TD plays without a cube


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game-mode", choices=SCALAR_MODES, default=None,
                   help="default: the checkpoint's mode, or dmp from scratch")
    p.add_argument("--hidden", type=hidden_arg, default="80", help="hidden layer sizes (from scratch)")
    p.add_argument("--expand", type=hidden_arg, default=None,
                   help="grow the loaded/new net to these hidden sizes (Net2Net, function-preserving; as "
                        "train_batch.py)")
    p.add_argument("--expand-depth-size", type=cli.positive_int, default=None, metavar="N",
                   help="append a hidden layer of N units, function-preserving (as train_batch.py; ReLU nets)")
    p.add_argument("--activation", choices=ACTIVATIONS, default=None,
                   help="hidden units of a new network (default relu; Tesauro used sigmoid)")
    p.add_argument("--lambda", dest="lam", type=cli.finite_float, default=0.7, help="trace decay, 0..1 (0 = TD(0))")
    p.add_argument("--lr", type=cli.learning_rate, default=0.1, help="SGD step size alpha")
    p.add_argument("--end-lr", type=cli.learning_rate, default=None,
                   help="linear anneal target per log block (default: none, a constant --lr)")
    p.add_argument("--num-episodes", type=cli.positive_int, default=10000, help="episodes in this stage")
    p.add_argument("--resume", metavar="CKPT", help="continue from a checkpoint (its unfinished stage, given the "
                   "same settings; otherwise a new stage on its weights)")
    p.add_argument("--new-stage", action="store_true",
                   help="with --resume of an unfinished stage: start a new stage on its weights instead")
    p.add_argument("--save", required=True, help="checkpoint path (written atomically every --log-every episodes)")
    p.add_argument("--overwrite", action="store_true",
                   help="allow replacing existing output files of the same kind (--save, the log)")
    p.add_argument("--seed", type=int, default=0, help="random seed (dice; weights too unless --torch-seed)")
    p.add_argument("--torch-seed", type=int, default=None, help="seed of weight initialisation and growth "
                   "(default: --seed)")
    p.add_argument("--log", help="CSV log path (default: --save with .csv)")
    p.add_argument("--tensorboard", metavar="DIR", help="also log the CSV's numbers for TensorBoard here "
                   "(needs the tensorboard package)")
    p.add_argument("--log-every", type=cli.positive_int, default=100, help="episodes per log row and save")
    p.add_argument("--eval-every", type=cli.non_negative_int, default=0, help="episodes between quick evals (0: off)")
    p.add_argument("--eval-games", type=cli.count_arg(1_000_000, "games"), default=200, help="games per quick eval")
    p.add_argument("--eval-opponent", choices=REFERENCE_AGENTS, default="pubeval", help="quick-eval opponent")
    p.add_argument("--engine", choices=BACKENDS, default="auto", help="move generator")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main() -> None:
    args = build_parser().parse_args()
    # the model-building flags train_batch shares
    args.warm_start_equity = args.warm_start_cubeful = None
    args.jacoby, args.hidden_given = True, any(a.startswith("--hidden") for a in cli.sys.argv[1:])
    summary = run_stage(args, OnlineLearner)
    print(fileio.json_text(summary))
    if summary["interrupted"]:
        cli.sys.exit(130)


if __name__ == "__main__":
    cli.run_main(main)
