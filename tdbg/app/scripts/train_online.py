"""Online TD(lambda) self-play training, Tesauro's original algorithm: one game at a
time, eligibility traces on the weights, an SGD update after every move.

  python train_online.py --hidden 80 --lambda 0.7 --lr 0.1 --num-episodes 20000 --save models/online.pt
"""

from __future__ import annotations

from tdbg.app import cli, training
from tdbg.learn.online_td import OnlineLearner
from tdbg.learn.stage_settings import OnlineStage
from tdbg.learn.training_loop import run_stage


def build_parser() -> cli.Parser:
    return training.online_parser(__doc__.split("\n\n")[0])


def main() -> None:
    stage, _ = training.stage_settings(OnlineStage, build_parser())
    training.finish(run_stage(stage, OnlineLearner))
