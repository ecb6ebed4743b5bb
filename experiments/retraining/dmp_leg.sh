#!/usr/bin/env bash
# DMP leg, from scratch, 2 self-play workers (the 2-core budget).  Rerun to continue.
#  1. [128,128] sampled TD(0), small rounds (fresh targets), Adam 1e-3 -> 3e-4
#  2. Net2Net to [256,256], Adam 5e-4 -> 1e-4
#  3. exact 1-ply refinement, Adam 1e-4 -> 3e-5
#  4. long 0-ply polish of the refined net, Adam 2e-4 -> 3e-5 (4M episodes), evaluated against
#     gnubg-nn playing DMP (P(win)); "s4" runs only this stage.  Stopped at 1,418,200 episodes:
#     it got worse (README.md), so a plain run stops after stage 3 and only "s4" continues it
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
D=experiments/retraining/dmp
mkdir -p $D
EVAL="--eval-opponent gnubg-nn --eval-games 1000 --workers 2 --seed 1 --quiet"
if [ "${1:-all}" != 1ply ] && [ "${1:-all}" != s4 ]; then
$R train_batch.py $D/dmp_s1_128x2.pt - --hidden 128,128 --num-episodes 400000 --episodes-per-round 200 \
   --parallel-games 100 --lr 1e-3 --end-lr 3e-4 --eval-every 250 $EVAL
$R train_batch.py $D/dmp_s2_256x2.pt $D/dmp_s1_128x2.pt --expand 256,256 --num-episodes 600000 \
   --episodes-per-round 200 --parallel-games 100 --lr 5e-4 --end-lr 1e-4 --eval-every 250 $EVAL
fi
[ "${1:-all}" = 0ply ] && exit 0   # "0ply": sampled-target stages only
[ "${1:-all}" != s4 ] && $R train_batch.py $D/dmp_s3_256x2_1ply.pt $D/dmp_s2_256x2.pt --oneply --num-episodes 20000 \
   --episodes-per-round 40 --parallel-games 20 --lr 1e-4 --end-lr 3e-5 --eval-every 100 $EVAL
[ "${1:-all}" != s4 ] && exit 0
$R train_batch.py $D/dmp_s4_256x2.pt $D/dmp_s3_256x2_1ply.pt --num-episodes 4000000 \
   --episodes-per-round 200 --parallel-games 100 --lr 2e-4 --end-lr 3e-5 --eval-every 500 $EVAL
