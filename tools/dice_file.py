#!/usr/bin/env python3
"""Write the dice of play_models.py's games as a text file for c_inference/tdbg_play.

Line g holds game g's rolls in order, two digits each ("31 64 22 ..."), drawn from
dice.DiceStream exactly as match.play_games draws them: game g uses the stream of
pair g // 2 (duplicate, the default) or of g itself (--no-duplicate), so the two games
of a pair get the same line.  The first roll is the opening roll (never a double).
Who moves first is not in the file: as in match.play_games, model A moves first in
the even games and model B in the odd ones.

    python tools/dice_file.py --games 1000 --seed 21 dice.txt
    c_inference/tdbg_play a.bin b.bin --dice dice.txt
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli
from tdbg.infra.fileio import Output, atomic_write, check_outputs
from tdbg.game.dice import DiceStream
from tdbg.game.turns import MAX_PLIES

MAX_GAMES = 1_000_000  # about 3 kB per game with the default rolls


def dice_lines(games: int, seed: int, rolls: int, duplicate: bool = True):
    """Game g's line for g in 0..games-1 (without the newline)."""
    line = None
    for g in range(games):
        if line is None or not duplicate or g % 2 == 0:
            stream = DiceStream(seed, g // 2 if duplicate else g)
            line = " ".join(
                f"{int(d[0])}{int(d[1])}" for d in (stream.roll(i) for i in range(rolls))
            )
        yield line


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("output", help="dice file (text, written atomically)")
    p.add_argument(
        "--games", type=cli.count_arg(MAX_GAMES, "games"), default=1000, help="games (lines)"
    )
    p.add_argument("--seed", type=cli.seed_arg, default=0, help="play_models.py's --seed")
    p.add_argument(
        "--rolls",
        type=cli.count_arg(MAX_PLIES, "rolls per game (match.MAX_PLIES)"),
        default=600,
        help="rolls per game; tdbg_play stops with an error if a game needs more",
    )
    p.add_argument("--no-duplicate", action="store_true", help="every game its own dice (no pairs)")
    p.add_argument("--overwrite", action="store_true", help="allow replacing an existing text file")
    args = p.parse_args()
    check_outputs([Output("output", args.output, "text")], args.overwrite)
    with atomic_write(args.output, "w") as fh:
        for line in dice_lines(args.games, args.seed, args.rolls, not args.no_duplicate):
            fh.write(line + "\n")


if __name__ == "__main__":
    cli.run_main(main)
