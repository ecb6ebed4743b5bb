#!/usr/bin/env bash
# DMP leg, from scratch, 2 self-play workers (the 2-core budget).  Rerun to continue.
#  1. [128,128] sampled TD(0), small rounds (fresh targets), Adam 1e-3 -> 3e-4
#  2. Net2Net to [256,256], Adam 5e-4 -> 1e-4
#  3. exact 1-ply refinement, Adam 1e-4 -> 3e-5
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
D=experiments/retraining/dmp
mkdir -p $D
EVAL="--eval-opponent gnubg-nn --eval-games 1000 --workers 2 --seed 1 --quiet"
if [ "${1:-all}" != 1ply ]; then
$R train_batch.py $D/dmp_s1_128x2.pt - --hidden 128,128 --num-episodes 400000 --episodes-per-round 200 \
   --parallel-games 100 --lr 1e-3 --end-lr 3e-4 --eval-every 250 $EVAL
$R train_batch.py $D/dmp_s2_256x2.pt $D/dmp_s1_128x2.pt --expand 256,256 --num-episodes 600000 \
   --episodes-per-round 200 --parallel-games 100 --lr 5e-4 --end-lr 1e-4 --eval-every 250 $EVAL
fi
[ "${1:-all}" = 0ply ] && exit 0   # "0ply": sampled-target stages only
$R train_batch.py $D/dmp_s3_256x2_1ply.pt $D/dmp_s2_256x2.pt --oneply --num-episodes 20000 \
   --episodes-per-round 40 --parallel-games 20 --lr 1e-4 --end-lr 3e-5 --eval-every 100 $EVAL
