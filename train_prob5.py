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

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli
from tdbg.app.scripts.train_prob5 import build_parser, main  # noqa: F401 - the script's parser and main, as before

if __name__ == "__main__":
    cli.run_main(main)
