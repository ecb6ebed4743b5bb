#!/usr/bin/env bash
# Issue 34's paired strength check of the 1-ply move filter: the same 1-ply refinement run twice
# from the same start with the same seeds, once with exact 1-ply targets and once through the
# filter (--oneply-filter 3: K=3 measured mean |target difference| 4.3e-4 and 3.1x the episodes/s
# of exact 1-ply in float32, experiments/benchmarks/move_filter_results/), then 10,000 duplicate
# games each against gnubg-nn on the same dice (seed 2002), compared pair by pair.
# The refinement copies the lineage's s4 (strength_dmp.sh: Adam 1e-5 -> 5e-6, 40 episodes a
# round, bf16 collection) for 50,000 episodes, a sixth of s4, from s2b's end (2.08M episodes).
# Rerunning continues where it stopped.  Run from a frozen worktree, one thread:
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/filter_check \
#     START=/work/main/experiments/retraining/strength/s2b_256x3.pt experiments/retraining/filter_check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
PY=${PY:-.venv/bin/python}
D=${D:-experiments/retraining/filter_check}
START=${START:-experiments/retraining/strength/s2b_256x3.pt}
mkdir -p "$D"
FLAGS="--oneply --num-episodes 50000 --lr 1e-5 --end-lr 5e-6 --seed 3500 --workers 1 --quiet
       --episodes-per-round 40 --parallel-games 20 --save-every 2500 --eval-every 0 --collect-precision bf16"
for arm in exact filter3; do
  case $arm in exact) extra="";; filter3) extra="--oneply-filter 3";; esac
  $R train_batch.py "$D/$arm.pt" "$START" $FLAGS $extra
  [ -f "$D/${arm}_vs_gnubg-nn_seed2002.json" ] || $PY play_models.py --model1 "$D/$arm.pt" --gnubg-nn \
     --games 10000 --seed 2002 --workers 1 --quiet --csv "$D/${arm}_vs_gnubg-nn_seed2002.csv" \
     --json "$D/${arm}_vs_gnubg-nn_seed2002.json"
done
$PY tools/compare_results.py "$D/filter3_vs_gnubg-nn_seed2002.csv" "$D/exact_vs_gnubg-nn_seed2002.csv" \
   --json "$D/filter3_minus_exact.json" --overwrite
