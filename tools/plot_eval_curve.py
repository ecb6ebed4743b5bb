#!/usr/bin/env python3
"""Evaluation curve of a chain of training stages: the periodic evaluation result with
its 95% CI against episodes and against cumulative CPU-hours.

    python tools/plot_eval_curve.py stage1.csv stage2.csv ... -o curve.png [--target 0.45] \
        [--old-agent-logs N] [--final-results r1.csv - r3.csv ...] [--base-logs dmp1.csv dmp2.csv] \
        [--checkpoint-results 3:357400:r.csv ...] [--continues 3:1]

Logs are given in chain order; episodes are the model's total, CPU-hours add up
across stages.  A log without a cpu_hours column (train_online.py) contributes no
CPU axis points.  ``--old-agent-logs N`` marks the first N logs' evaluations as made
against the gnubg-nn agent before it played each mode's own objective (it played
money equity in DMP games), drawn dashed.  ``--final-results`` gives, per log, a
per-game result CSV (play_models.py --csv; '-' for none) of the stage's final
checkpoint, drawn as a large marker with its 95% CI at the end of that stage;
``--checkpoint-results N:EPISODES:CSV`` places the result of a checkpoint taken inside
the N-th log's stage (after EPISODES of the stage's episodes) where the log passed that
count, drawn the same way.

Results are drawn in their game mode's unit (win rate in % for DMP, mEq/game for money,
match-winning chances in % for match play), the mode read from the result files or the checkpoint
beside the last log; ``--unit`` names it where neither says.  ``--continues N:K`` draws a branch:
log N starts from log K's end (its CPU-hours count from there).
``--capped`` draws the cubeful results of ``--final-results`` capped at +-128 points a game, as
the cubeful summaries and selections read them.  Each final's value is written beside it
(above its CI bar, or below it where another label or bar is in the way), and the PNG carries what it shows (axis labels,
series, finals and their labels) as JSON in its text chunk ``tdbg:curve``, so a test can check a
committed plot against its data.
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli, eval_curve_plot


def main() -> None:
    eval_curve_plot.main(__doc__.split("\n\n")[0])


if __name__ == "__main__":
    cli.run_main(main)
