#!/usr/bin/env bash
# Match play on top of the cubeful money leg (run money_legs.sh first).  Rerun to continue.
#  s1:  200 -> 208 inputs, MWC head (--warm-start-match), a spread of scores, 0-ply, greedy cube.
#       (The recorded run was stopped by hand at 223,200 of these 400,000 episodes, LR then
#       about 6.6e-5, when tools/take_points.py showed too many drops; s2 began on its weights.)
#  s2:  --cube-explore 0.1 (exploratory doubles and takes), 150k
#  s3:  --cube-explore 0.15, 300k, lower LR
#  s5:  from s3, --cube-start 0.3 (games that start with the cube turned at their score), 150k
#  s6:  from s3, converted to the mwc-outcomes head (--match-head), --cube-start 0.3, 300k
#  s7:  s6 continued at a lower LR, 400k
#  s8:  s7 with more exploratory doubles and takes (--cube-explore 0.3), 200k
#  (from here on a dead cube is never doubled: matchplay.MatchPlay.dead_cube)
#  s9:  s7 with greedy cube play (no exploratory doubles), --cube-start 0.3, 300k
#  s10: s9's settings with lambda-return targets (--td-lambda 0.7)
#  s11: s10 continued at a lower LR, 300k
# Each stage writes its CSV log (CPU-hours, cube actions, a 500-game quick evaluation at
# 1-away each against gnubg-nn) beside its checkpoint.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
D=experiments/retraining/match
mkdir -p $D
CUBEFUL=${CUBEFUL:-experiments/retraining/money/cubeful_256x2_1ply.pt}
COMMON="--game-mode match --workers 1 --quiet --episodes-per-round 200 --parallel-games 100 \
  --eval-every 250 --eval-opponent gnubg-nn --eval-games 500"
$R train_batch.py $D/match_256x2.pt - --warm-start-match $CUBEFUL --num-episodes 400000 \
   --lr 1e-4 --end-lr 3e-5 --seed 1 $COMMON
$R train_batch.py $D/match_256x2_ce.pt $D/match_256x2.pt --new-stage --cube-explore 0.1 --num-episodes 150000 \
   --lr 5e-5 --end-lr 2e-5 --seed 2 $COMMON
$R train_batch.py $D/match_256x2_ce2.pt $D/match_256x2_ce.pt --cube-explore 0.15 --num-episodes 300000 \
   --lr 4e-5 --end-lr 1.5e-5 --seed 3 $COMMON
# s4 (not released: no gain over s3, see README): exploratory doubles and takes at 0.4
$R train_batch.py $D/match_256x2_ce3.pt $D/match_256x2_ce2.pt --cube-explore 0.4 --num-episodes 250000 \
   --lr 3e-5 --end-lr 1e-5 --seed 4 $COMMON
# s5: a third of the games start with the cube already turned (--cube-start 0.3), so the
# positions after a take are learned at every score (cube_bias.py found them off at lopsided ones)
$R train_batch.py $D/match_256x2_cs.pt $D/match_256x2_ce2.pt --cube-start 0.3 --cube-explore 0.15 \
   --num-episodes 150000 --lr 4e-5 --end-lr 1.5e-5 --seed 5 $COMMON
# s6: the mwc-outcomes head (outcome chances read out through the payoff inputs), converted
# from s3's mwc head (its logit becomes P(win)); LR back up to 1e-4 with a warmup for the new head
$R train_batch.py $D/match_256x2_oc.pt - --warm-start-match $D/match_256x2_ce2.pt --match-head mwc-outcomes \
   --cube-start 0.3 --cube-explore 0.15 --num-episodes 300000 --lr 1e-4 --end-lr 3e-5 --warmup-cycles 20 --seed 7 $COMMON
$R train_batch.py $D/match_256x2_oc2.pt $D/match_256x2_oc.pt --cube-start 0.3 --cube-explore 0.15 \
   --num-episodes 400000 --lr 5e-5 --end-lr 1.5e-5 --seed 8 $COMMON
$R train_batch.py $D/match_256x2_oc3.pt $D/match_256x2_oc2.pt --cube-start 0.3 --cube-explore 0.3 \
   --num-episodes 200000 --lr 3e-5 --end-lr 1e-5 --seed 9 $COMMON
# s9, s10: greedy cube play (exploratory doubles filled half the positions with dead cubes);
# the same seed, so the two differ only in their targets (TD(0) against lambda-returns)
$R train_batch.py $D/match_256x2_live.pt $D/match_256x2_oc2.pt --new-stage --cube-start 0.3 --num-episodes 300000 \
   --lr 5e-5 --end-lr 1.5e-5 --seed 10 --save-every 100 $COMMON
$R train_batch.py $D/match_256x2_lam.pt $D/match_256x2_oc2.pt --new-stage --cube-start 0.3 --td-lambda 0.7 \
   --num-episodes 300000 --lr 5e-5 --end-lr 1.5e-5 --seed 10 --save-every 100 $COMMON
$R train_batch.py $D/match_256x2_lam2.pt $D/match_256x2_lam.pt --new-stage --cube-start 0.3 --td-lambda 0.7 \
   --num-episodes 300000 --lr 4e-5 --end-lr 1.5e-5 --seed 11 --save-every 100 $COMMON
