#!/usr/bin/env bash
# PureTD's kind of base beside the batch bases of live_lineage.sh: [128,128] from scratch by online
# TD(0) (an SGD step after every move, train_online.py) at SGD 0.1 -> 0.01, the same 300,000
# episodes, unit health every 100 log rows of 100 episodes; then against gnubg-nn over 10,000
# duplicate games on the selection seed 1001.  Online TD plays one game at a time (about 20-40
# episodes/s on one core), so this takes hours: it saves every 100 episodes and a rerun continues.
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/live experiments/retraining/online_base.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
PY=${PY:-.venv/bin/python}
D=${D:-experiments/retraining/live}
mkdir -p "$D/eval"
$R train_online.py "$D/base_online_128x2.pt" - --hidden 128,128 --lambda 0 --lr 0.1 --end-lr 0.01 \
   --num-episodes 300000 --seed 581 --quiet --health-every 100
out="$D/eval/base_online_128x2_vs_gnubg-nn_seed1001"
[ -f "$out.json" ] || $PY play_models.py --model1 "$D/base_online_128x2.pt" --gnubg-nn --games 10000 --seed 1001 \
   --workers 1 --quiet --csv "$out.csv" --json "$out.json"
