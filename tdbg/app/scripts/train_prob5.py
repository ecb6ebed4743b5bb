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

from tdbg.app import backend_flags, cli, training
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.stage_settings import Prob5Stage
from tdbg.learn.training_loop import run_stage


def build_parser() -> cli.Parser:
    p = training.batch_parser(__doc__.split("\n\n")[0], Prob5Stage)
    p.add_argument(
        "--mse", dest="loss", action="store_const", const="mse", help="same as --loss mse"
    )
    return p


def main() -> None:
    stage, args = training.stage_settings(Prob5Stage, build_parser())
    if stage.model.warm_start_equity or stage.model.warm_start_cubeful:
        raise cli.UsageError(
            "train_prob5.py starts from scratch or --resume; warm starts make equity models"
        )
    backend_flags.start(args)
    training.finish(run_stage(stage, BatchLearner, output_mode="prob5"), stage.run.json)
