#!/usr/bin/env bash
# The paired check of growth by fresh units: s1 widened and deepened to [256,256,256] as s2 was,
# with --growth fresh (random incoming, zero outgoing weights) in place of Net2Net copies, then
# s2/s2b's schedule in one stage: 2.5M episodes at Adam 1e-4 -> 2e-5, bf16 collection, 200
# episodes a round.  Its end is measured on s2b's dice (10,000 games against gnubg-nn, seed 1001)
# at the same lineage episodes (2.8M), and compared pair by pair with s2b's
# (tools/compare_results.py).  s2 itself ran its first 423,400 episodes with float32 collection
# (bf16 landed mid-stage) and s2b continued its LR line; this stage runs the same plan at once, so at
# any point it has seen as many episodes at the same learning rate as the s2/s2b line had.
# An earlier pair on the same footing: its snapshot at round 4,617 (923,400 episodes, --save-every
# 4617) against s2b's at round 2,500 (423,400 + 500,000 episodes), both measured on seed 1001.
#
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/strength experiments/retraining/strength_growth_check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
R=experiments/retraining/run_stage.sh
D=${D:-experiments/retraining/strength}
W=${WORKERS:-1}
mkdir -p "$D/eval"
G="$D/g2_256x3_fresh.pt"
$R train_batch.py "$G" "$D/s1_128x2.pt" --expand 256,256 --expand-depth-size 256 --growth fresh \
   --num-episodes 2500000 --lr 1e-4 --end-lr 2e-5 --collect-precision bf16 --seed 332 --workers "$W" --quiet \
   --episodes-per-round 200 --parallel-games 100 --save-every 4617 --eval-every 1000 --eval-opponent gnubg-nn \
   --eval-games 1000
point() {  # 10,000 duplicate games against gnubg-nn on seed 1001
  local out="$D/eval/$(basename "$1" .pt)_vs_gnubg-nn_seed1001"
  [ -f "$out.json" ] || $PY play_models.py --model1 "$1" --gnubg-nn --games 10000 --seed 1001 --workers "$W" \
     --quiet --csv "$out.csv" --json "$out.json"
}
point "${G%.pt}_r004617.pt"
point "$D/s2b_256x3_r002500.pt"
$PY tools/compare_results.py "$D/eval/g2_256x3_fresh_r004617_vs_gnubg-nn_seed1001.csv" \
   "$D/eval/s2b_256x3_r002500_vs_gnubg-nn_seed1001.csv"
point "$G"
$PY tools/compare_results.py "$D/eval/g2_256x3_fresh_vs_gnubg-nn_seed1001.csv" \
   "$D/eval/s2b_256x3_vs_gnubg-nn_seed1001.csv"
