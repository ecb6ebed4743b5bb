#!/usr/bin/env bash
# Money play from the live lineage's DMP release (best_models/dmp_256x3_live.pt, which is
# live/x1r_256x3_exact1ply.pt): strength_money_e1.sh's five legs, the same schedule and seeds,
# into their own folder.
#
#   n1  cubeless money, 3,000,000 episodes at Adam 5e-5 -> 5e-6 (a fresh equity head on the trunk)
#   n2  exact 1-ply cubeless from n1, 200,000 episodes at 1.5e-5 -> 5e-6
#   n3  cubeful from n1 under the Jacoby rule, n4 the same without it, 2,000,000 episodes each
#   n5  exact 1-ply cubeful from the better of n3 and n4, 200,000 episodes at 1e-5 -> 5e-6
# Each ends with 10,000 games on the selection seed 1001 (cubeless against gnubg-nn, cubeful
# against gnubg-nn-cubeful).  Every step resumes or skips itself: rerun to continue.  From a
# frozen worktree, with one thread a process:
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/live_money \
#     DMP=/work/main/experiments/retraining/live/x1r_256x3_exact1ply.pt experiments/retraining/live_money.sh
# LEGS picks legs as in strength_money_e1.sh (e.g. LEGS="n3 n4" on a second core once n1 is done).
set -euo pipefail
cd "$(dirname "$0")/../.."
export DMP=${DMP:-experiments/retraining/live/x1r_256x3_exact1ply.pt}
export D=${D:-experiments/retraining/live_money}
exec experiments/retraining/strength_money_e1.sh
