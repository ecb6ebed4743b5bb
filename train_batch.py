#!/usr/bin/env python3
"""Batch TD(0) self-play training: rounds of games, then one epoch of minibatch training.

The documented chain (each stage warm-starts from the previous one):

  python train_batch.py --hidden 128,128 --num-episodes 20000 --save models/dmp.pt
  python train_batch.py --warm-start-equity models/dmp.pt --num-episodes 20000 --save models/cubeless.pt
  python train_batch.py --warm-start-cubeful models/cubeless.pt --warmup-cycles 20 --num-episodes 20000 --save models/cubeful.pt
  python train_batch.py --resume models/cubeful.pt --oneply --num-episodes 5000 --save models/cubeful_1ply.pt
"""

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli
from tdbg.app.scripts.train_batch import build_parser, main  # noqa: F401 - the script's parser and main, as before

if __name__ == "__main__":
    cli.run_main(main)
