#!/usr/bin/env bash
# Money legs on top of the DMP leg (run dmp_leg.sh first).  Rerun to continue.
#  cubeless: DMP trunk + fresh equity head (--warm-start-equity), warm-up 20 rounds
#  cubeful:  196 -> 200 inputs (--warm-start-cubeful), warm-up 20 rounds, then 1-ply refinement
#  prob5:    from scratch, then 1-ply refinement
# (the slow 1-ply refinements come last)
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
D=experiments/retraining/money
mkdir -p $D
DMP=${DMP:-experiments/retraining/dmp/dmp_s2_256x2.pt}
COMMON="--workers 2 --seed 1 --quiet --episodes-per-round 200 --parallel-games 100"
if [ "${1:-all}" != 1ply ]; then
$R train_batch.py $D/cubeless_256x2.pt - --warm-start-equity $DMP --num-episodes 200000 \
   --lr 5e-4 --end-lr 1e-4 --warmup-cycles 20 --eval-every 250 --eval-opponent gnubg-nn --eval-games 1000 $COMMON
$R train_batch.py $D/cubeful_256x2.pt - --warm-start-cubeful $D/cubeless_256x2.pt --num-episodes 200000 \
   --lr 2e-4 --end-lr 5e-5 --warmup-cycles 20 --eval-every 250 --eval-opponent gnubg-nn --eval-games 1000 $COMMON
$R train_prob5.py $D/prob5_128x2.pt - --hidden 128,128 --num-episodes 300000 --lr 1e-3 --end-lr 2e-4 \
   --eval-every 250 --eval-opponent gnubg-nn --eval-games 1000 $COMMON
fi
[ "${1:-all}" = 0ply ] && exit 0   # "0ply": sampled-target stages only
$R train_batch.py $D/cubeful_256x2_1ply.pt $D/cubeful_256x2.pt --oneply --num-episodes 10000 \
   --lr 5e-5 --end-lr 1e-5 --eval-every 100 --eval-opponent gnubg-nn --eval-games 1000 \
   --workers 2 --seed 1 --quiet --episodes-per-round 40 --parallel-games 20
$R train_prob5.py $D/prob5_128x2_1ply.pt $D/prob5_128x2.pt --oneply --num-episodes 10000 --lr 1.5e-4 \
   --end-lr 3e-5 --eval-every 100 --eval-opponent gnubg-nn --eval-games 1000 \
   --workers 2 --seed 1 --quiet --episodes-per-round 40 --parallel-games 20
