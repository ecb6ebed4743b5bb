#!/usr/bin/env bash
# The live lineage's next DMP step (live_lineage.sh ran d1-d3, then x1 from d3): its last two 0-ply
# phases on [256,256,256] each added about +0.6 points against gnubg-nn, unresolved at 10,000
# games, and the exact 1-ply phase after them +1.8.  So:
#
#   d4  a fourth phase from d3, the LR restarted (Adam 5e-5 -> 5e-6, d1-d3's settings, seed 589),
#       1,000,000 episodes, then 10,000 games against gnubg-nn on the selection seed 1001 and the
#       paired difference against d3 ($D/eval/d4_minus_d3.json)
#   x3  only when d4 beats d3 there, resolved (the paired CI above 0): exact 1-ply targets from d4 as x1 had them (Adam 1e-4 -> 5e-6,
#       500,000 episodes), scored on seed 1001 and paired against x1r, the DMP release
#
# Every step resumes or skips itself (run_stage.sh): rerun to continue.  From a frozen worktree,
# with one thread a process:
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/live experiments/retraining/live_d4.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
PY=${PY:-.venv/bin/python}
D=${D:-experiments/retraining/live}
stage_eval() {
  local pt=$1 out="$D/eval/$(basename "$1" .pt)_vs_gnubg-nn_seed1001"
  [ -f "$out.json" ] && return 0
  $PY play_models.py --model1 "$pt" --gnubg-nn --games 10000 --seed 1001 --workers 1 \
     --quiet --csv "$out.csv" --json "$out.json"
}
paired() {  # a, b: a's point minus b's, paired over the shared duplicate pairs
  local out="$D/eval/${1%%_256x3*}_minus_${2%%_256x3*}.json"
  [ -f "$out" ] || $PY tools/compare_results.py "$D/eval/$1_vs_gnubg-nn_seed1001.csv" \
     "$D/eval/$2_vs_gnubg-nn_seed1001.csv" --json "$out"
}
COMMON="--workers 1 --quiet --episodes-per-round 200 --parallel-games 100 --health-every 50
        --eval-every 500 --eval-opponent gnubg-nn --eval-games 1000"
$R train_batch.py "$D/d4_256x3.pt" "$D/d3_256x3.pt" --num-episodes 1000000 --lr 5e-5 --end-lr 5e-6 \
   --seed 589 --save-every 2500 $COMMON
stage_eval "$D/d4_256x3.pt"
paired d4_256x3 d3_256x3
gain=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["ci_low"] > 0)' "$D/eval/d4_minus_d3.json")
if [ "$gain" != True ]; then
  echo "d4 does not beat d3 on seed 1001, resolved ($D/eval/d4_minus_d3.json): no x3" >&2
  exit 0
fi
$R train_batch.py "$D/x3_256x3_exact1ply.pt" "$D/d4_256x3.pt" --oneply --num-episodes 500000 --lr 1e-4 \
   --end-lr 5e-6 --seed 590 --workers 1 --quiet --episodes-per-round 1000 --parallel-games 100 \
   --health-every 10 --save-every 100 --eval-every 50 --eval-opponent gnubg-nn --eval-games 1000
stage_eval "$D/x3_256x3_exact1ply.pt"
paired x3_256x3_exact1ply x1r_256x3_exact1ply
