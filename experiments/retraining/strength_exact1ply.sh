#!/usr/bin/env bash
# The strength lineage's fourth cycle: the 1-ply stage as PureTD ran it, from s7 with its twin
# units repaired.  Every step resumes or skips itself, so rerunning this script continues
# wherever it stopped.
#
#   s7r  s7 (the dmp_256x3 release) with its twin units folded and freed (tools/repair_twins.py):
#        distinct units [180,213,256] -> [256,256,256]
#   e1   exact 1-ply targets (every candidate's 21 replies, no move filter), Adam 1e-4 -> 5e-6
#        after a 5-round warm-up from 1e-5, 1,000 episodes a round,                500,000 episodes
#        (PureTD's own 1-ply stage for its [256,256,256] DMP net; the lineage's earlier 1-ply
#        stages ran at 1e-5 to 3e-5, a tenth of it, and moved nothing measurable)
#   points: 10,000 duplicate games against gnubg-nn (DMP, 0-ply) on the selection seed 1001 at
#   100k, 250k (the stage's snapshots) and 500k episodes, and of s7r itself (what the repair cost)
#
# Run it from a frozen worktree with one thread per process (one core; the other runs the growth
# check, strength_growth_check.sh), e.g.
#   git worktree add --detach /work/lineage <commit> && cd /work/lineage && make setup
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/strength experiments/retraining/strength_exact1ply.sh
# STOP_BEFORE_POINTS=1 trains only (the points can then run on the other core).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
R=experiments/retraining/run_stage.sh
D=${D:-experiments/retraining/strength}
W=${WORKERS:-1}
mkdir -p "$D/eval"
stage_eval() {  # as strength_dmp.sh's
  local pt=$1 out="$D/eval/$(basename "$1" .pt)_vs_gnubg-nn_seed1001"
  [ -f "$out.json" ] && return 0
  $PY play_models.py --model1 "$pt" --gnubg-nn --games 10000 --seed 1001 --workers "$W" \
     --quiet --csv "$out.csv" --json "$out.json"
}
REPAIRED="$D/s7r_256x3_repaired.pt"
[ -f "$REPAIRED" ] || $PY tools/repair_twins.py "$D/s7_256x3_polish.pt" -o "$REPAIRED" --seed 7 --games 200 \
   --json > "$D/s7r_256x3_repaired.json"
E1="$D/e1_256x3_exact1ply.pt"
$R train_batch.py "$E1" "$REPAIRED" --oneply --num-episodes 500000 --episodes-per-round 1000 \
   --parallel-games 50 --lr 1e-4 --end-lr 5e-6 --warmup-cycles 5 --seed 341 --collect-precision bf16 \
   --workers "$W" --quiet --save-every 50 --eval-every 25 --eval-opponent gnubg-nn --eval-games 1000
[ "${STOP_BEFORE_POINTS:-0}" = 1 ] && exit 0
stage_eval "$REPAIRED"
stage_eval "${E1%.pt}_r000100.pt"
stage_eval "${E1%.pt}_r000250.pt"
stage_eval "$E1"
