#!/usr/bin/env python3
"""Head-to-head evaluation of two players with duplicate dice and bootstrap 95% CIs.

A player is a checkpoint (.pt) or one of: random, pubeval, gnubg-nn, gnubg-nn-1ply,
gnubg-nn-cubeful.

  python play_models.py --model1 models/dmp.pt --gnubg-nn --games 2000 --workers 2
  python play_models.py --model1 models/cubeful.pt --model2 models/cubeful.pt --game-mode cubeful-money \\
      --games 100 --save-games selfplay_games
"""

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli
from tdbg.app.scripts.play_models import build_parser, main  # noqa: F401 - the script's parser and main, as before

if __name__ == "__main__":
    cli.run_main(main)
