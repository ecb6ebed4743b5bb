"""Head-to-head evaluation of two players with duplicate dice and bootstrap 95% CIs.

A player is a checkpoint (.pt) or one of: random, pubeval, gnubg-nn, gnubg-nn-1ply,
gnubg-nn-cubeful.

  python play_models.py --model1 models/dmp.pt --gnubg-nn --games 2000 --workers 2
  python play_models.py --model1 models/cubeful.pt --model2 models/cubeful.pt --game-mode cubeful-money \\
      --games 100 --save-games selfplay_games
"""

from __future__ import annotations

from tdbg.app import backend_flags, cli, play_command, settings_flags
from tdbg.app.play_settings import PlaySettings


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    settings_flags.add_arguments(p, PlaySettings, skip=("where",))
    backend_flags.add_backend_args(p, "game-playing")
    return p


def main() -> None:
    play_command.run(settings_flags.build(PlaySettings, build_parser().parse_args()))
