#!/usr/bin/env python3
"""Play a game of backgammon against a trained net in the terminal (``tdbg play``):
docs/terminal_play.md.

  python play_terminal.py best_models/cubeful_256x3_from_1ply.pt --seed 1
  python play_terminal.py best_models/match_256x2.pt --match-length 5 --ply 1
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app.terminal_game import main

if __name__ == "__main__":
    main()
