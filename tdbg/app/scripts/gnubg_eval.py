"""Error rates of our model from GNU Backgammon's own analysis.

Plays games with the model (self-play, or against an opponent), writes them as
.mat files, has the gnubg binary import and analyse them (chequer and cube
analysis at --ply), and reports the model's error rate in mEMG per decision and
the Snowie-style error rate, with bootstrap 95% CIs over games, and gnubg's verbal
rating of the overall rate as the binary itself gives it (its errorrating()).

  python gnubg_eval.py --model models/cubeful.pt --games 200 --ply 0 --json out.json
  python gnubg_eval.py --model best_models/match_256x2_outcomes.pt --match-length 7 --games 100

Match play: --games counts matches, each written as one .mat file of its length, so
gnubg judges every decision at its score by its own match equity table.

  python gnubg_eval.py --from-mat DIR [--player td]

rates one player's decisions in .mat files already played, e.g. the matches
play_models.py --save-games DIR kept against gnubg-ext (gnubg's own record of them;
our side is named "td"): where the model loses against the binary itself.  With --luck
gnubg also judges the dice, and the player's match-win rate (money: points per game) is
reported as played and with the luck taken out (gnubg's luck-adjusted result).

Definitions (as gnubg's `show statistics`): chequer rate = 1000 x chequer error (EMG)
/ unforced moves; overall rate = 1000 x (chequer + cube error) / (unforced moves +
close or actual cube decisions); Snowie rate = 1000 x total error / all moves of
both players.  gnubg's rating (Awful! ... Supernatural) is its verdict on the overall
rate, the same per-decision error its `show statistics` rates a player by.  In DMP
files (1-point matches) gnubg states errors in match winning chances instead of EMG.
"""

from __future__ import annotations

from tdbg.app import cli, eval_command, settings_flags
from tdbg.app.eval_settings import EvalSettings


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    settings_flags.add_arguments(p, EvalSettings)
    return p


def main() -> None:
    eval_command.run(settings_flags.build(EvalSettings, build_parser().parse_args()))
