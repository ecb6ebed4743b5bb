#!/usr/bin/env bash
# Issue 34's paired strength check of bf16 collection: the same start (the strength lineage's s2 at
# 423,400 episodes, [256,256,256]), the same 300,000 episodes, seed and LR line, collected once in
# float32 and once in bf16; then each against gnubg-nn playing DMP over 10,000 duplicate games on the
# same dice (seed 2001), and bf16 minus fp32 paired (compare_results.py).  Rerun to continue.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
PY=${PY:-.venv/bin/python}
D=${D:-experiments/retraining/bf16_check}
START=${START:-experiments/retraining/strength/s2_256x3.pt}
mkdir -p "$D"
FLAGS="--num-episodes 300000 --lr 8.65e-5 --end-lr 7.6e-5 --seed 3400 --workers 1 --quiet
       --episodes-per-round 200 --parallel-games 100 --eval-every 0"
for p in fp32 bf16; do
  $R train_batch.py "$D/$p.pt" "$START" --collect-precision $p $FLAGS
  [ -f "$D/${p}_vs_gnubg-nn_seed2001.json" ] || $PY play_models.py --model1 "$D/$p.pt" --gnubg-nn --games 10000 \
     --seed 2001 --workers 1 --quiet --csv "$D/${p}_vs_gnubg-nn_seed2001.csv" --json "$D/${p}_vs_gnubg-nn_seed2001.json"
done
$PY tools/compare_results.py "$D/bf16_vs_gnubg-nn_seed2001.csv" "$D/fp32_vs_gnubg-nn_seed2001.csv" \
   --json "$D/bf16_minus_fp32.json" --overwrite
