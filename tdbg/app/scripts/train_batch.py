"""Batch TD(0) self-play training: rounds of games, then one epoch of minibatch training.

The documented chain (each stage warm-starts from the previous one):

  python train_batch.py --hidden 128,128 --num-episodes 20000 --save models/dmp.pt
  python train_batch.py --warm-start-equity models/dmp.pt --num-episodes 20000 --save models/cubeless.pt
  python train_batch.py --warm-start-cubeful models/cubeless.pt --warmup-cycles 20 --num-episodes 20000 --save models/cubeful.pt
  python train_batch.py --resume models/cubeful.pt --oneply --num-episodes 5000 --save models/cubeful_1ply.pt
"""

from __future__ import annotations

from tdbg.app import backend_flags, cli, training
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.stage_settings import BatchStage
from tdbg.learn.training_loop import run_stage


def build_parser() -> cli.Parser:
    return training.batch_parser(__doc__.split("\n\n")[0])


def main() -> None:
    stage, args = training.stage_settings(BatchStage, build_parser())
    backend_flags.start(args)
    training.finish(run_stage(stage, BatchLearner), stage.run.json)
