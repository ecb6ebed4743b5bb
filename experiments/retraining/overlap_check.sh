#!/usr/bin/env bash
# Paired strength check of --overlap (the workers collect round k+1 on the weights before round k's
# training, so every target is one round staler): the same start (the strength lineage's s2 at
# 423,400 episodes, [256,256,256]), the same 300,000 episodes, seed and LR line as bf16_check.sh,
# with 2 workers (bf16 collection, the default), once without --overlap and once with it; then each
# against gnubg-nn playing DMP over 10,000 duplicate games on the same dice (seed 2001), and overlap
# minus plain paired (compare_results.py).  ARMS="plain" or "overlap" runs one arm (two shells run
# both at once); SEED (training) and DICE (the games) change the seeds for a replication (give it
# its own D); rerun to continue.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
PY=${PY:-.venv/bin/python}
D=${D:-experiments/retraining/overlap_check}
START=${START:-experiments/retraining/strength/s2_256x3.pt}
ARMS=${ARMS:-plain overlap}
SEED=${SEED:-3400}
DICE=${DICE:-2001}
mkdir -p "$D"
FLAGS="--num-episodes 300000 --lr 8.65e-5 --end-lr 7.6e-5 --seed $SEED --workers 2 --quiet
       --episodes-per-round 200 --parallel-games 100 --eval-every 0"
for a in $ARMS; do
  extra=""; [ "$a" = overlap ] && extra="--overlap"
  $R train_batch.py "$D/$a.pt" "$START" $extra $FLAGS
  [ -f "$D/${a}_vs_gnubg-nn_seed$DICE.json" ] || $PY play_models.py --model1 "$D/$a.pt" --gnubg-nn --games 10000 \
     --seed $DICE --workers 1 --quiet --csv "$D/${a}_vs_gnubg-nn_seed$DICE.csv" --json "$D/${a}_vs_gnubg-nn_seed$DICE.json"
done
if [ -f "$D/plain_vs_gnubg-nn_seed$DICE.csv" ] && [ -f "$D/overlap_vs_gnubg-nn_seed$DICE.csv" ]; then
  $PY tools/compare_results.py "$D/overlap_vs_gnubg-nn_seed$DICE.csv" "$D/plain_vs_gnubg-nn_seed$DICE.csv" \
     --json "$D/overlap_minus_plain.json" --overwrite
fi
