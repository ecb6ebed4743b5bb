#!/usr/bin/env bash
# Paired check of revival by itself: from best_models/dmp_256x3_1ply.pt as it is ("plain") and with
# its dead units revived ("revived": tools/repair_twins.py --no-twins: fresh incoming weights, zero
# outgoing weights, the function unchanged), the same 1,000,000 0-ply episodes at Adam 5e-5 -> 5e-6
# (same training seed and dice), unit health logged every 250 rounds (50,000 episodes; the start's
# in start_ARM.json), then each against gnubg-nn over 10,000 duplicate games on the selection seed
# 1001, and revived minus plain paired (compare_results.py).  ARMS="plain" or "revived" runs one
# arm (two shells run both at once); rerun to continue.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
PY=${PY:-.venv/bin/python}
D=${D:-experiments/retraining/revival_check}
SRC=best_models/dmp_256x3_1ply.pt
ARMS=${ARMS:-plain revived}
mkdir -p "$D"
[ -f "$D/revived_start.pt" ] || $PY tools/repair_twins.py "$SRC" -o "$D/revived_start.pt" --no-twins --json \
   > "$D/revived_start_repair.json"
FLAGS="--num-episodes 1000000 --lr 5e-5 --end-lr 5e-6 --seed 591 --workers 1 --quiet --episodes-per-round 200
       --parallel-games 100 --health-every 250 --eval-every 1000 --eval-opponent gnubg-nn --eval-games 1000
       --new-stage"   # the source holds an unfinished 1-ply stage: a new stage on its weights
for a in $ARMS; do
  start=$SRC; [ "$a" = revived ] && start="$D/revived_start.pt"
  [ -f "$D/start_$a.json" ] || $PY tools/describe_model.py "$start" --json > "$D/start_$a.json"
  $R train_batch.py "$D/$a.pt" "$start" $FLAGS
  [ -f "$D/${a}_vs_gnubg-nn_seed1001.json" ] || $PY play_models.py --model1 "$D/$a.pt" --gnubg-nn --games 10000 \
     --seed 1001 --workers 1 --quiet --csv "$D/${a}_vs_gnubg-nn_seed1001.csv" --json "$D/${a}_vs_gnubg-nn_seed1001.json"
done
if [ -f "$D/plain_vs_gnubg-nn_seed1001.csv" ] && [ -f "$D/revived_vs_gnubg-nn_seed1001.csv" ]; then
  $PY tools/compare_results.py "$D/revived_vs_gnubg-nn_seed1001.csv" "$D/plain_vs_gnubg-nn_seed1001.csv" \
     --json "$D/revived_minus_plain.json" --overwrite
fi
