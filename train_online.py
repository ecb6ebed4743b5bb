#!/usr/bin/env python3
"""Online TD(lambda) self-play training, Tesauro's original algorithm: one game at a
time, eligibility traces on the weights, an SGD update after every move.

  python train_online.py --hidden 80 --lambda 0.7 --lr 0.1 --num-episodes 20000 --save models/online.pt
"""

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli
from tdbg.app.scripts.train_online import build_parser, main  # noqa: F401 - the script's parser and main, as before

if __name__ == "__main__":
    cli.run_main(main)
