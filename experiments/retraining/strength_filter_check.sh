#!/usr/bin/env bash
# The move filter's paired check: does 1-ply training through the filter lose strength against
# exact 1-ply?  f1 is e1 (strength_exact1ply.sh: exact 1-ply targets from s7r, Adam 1e-4 -> 5e-6
# after a 5-round warm-up over a 500,000-episode schedule, seed 341) with one change: targets
# through the move filter's 8 best candidates a roll (--oneply-filter 8, the K whose targets
# differed least from exact ones in move_filter_accuracy.py's table), races and bear-offs valued
# exactly (--filter-exact-races: there the filter missed most).  The same start, seed, schedule
# and collection; the run stops at STOP episodes (default 100,000; the schedule stays the
# 500,000-episode one, so the LR at each episode is e1's).
#   points: f1's STOP-episode snapshot, 10,000 duplicate games against gnubg-nn on seed 1001,
#   paired over the 5,000 shared pairs with e1's snapshot at the same episodes (its file in
#   strength/eval/), written to filter_check.out.
# Rerunning continues where it stopped.  Run it from a frozen worktree with one thread, e.g.
#   git worktree add --detach /work/filtercheck <commit> && cd /work/filtercheck && make setup
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/strength experiments/retraining/strength_filter_check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
R=experiments/retraining/run_stage.sh
D=${D:-experiments/retraining/strength}
W=${WORKERS:-1}
STOP=${STOP:-100000}
ROUND=$(printf 'r%06d' $((STOP / 1000)))
F1="$D/f1_256x3_filter8_exactraces.pt"
$R train_batch.py "$F1" "$D/s7r_256x3_repaired.pt" --oneply --oneply-filter 8 --filter-exact-races \
   --num-episodes 500000 --stop-at "$STOP" --episodes-per-round 1000 --parallel-games 50 --lr 1e-4 \
   --end-lr 5e-6 --warmup-cycles 5 --seed 341 --collect-precision bf16 --workers "$W" --quiet --save-every 50 \
   --eval-every 25 --eval-opponent gnubg-nn --eval-games 1000
snap="${F1%.pt}_$ROUND.pt" e1="$D/eval/e1_256x3_exact1ply_${ROUND}_vs_gnubg-nn_seed1001"
out="$D/eval/$(basename "$snap" .pt)_vs_gnubg-nn_seed1001"
[ -f "$out.json" ] || $PY play_models.py --model1 "$snap" --gnubg-nn --games 10000 --seed 1001 --workers "$W" \
   --quiet --csv "$out.csv" --json "$out.json"
{ echo "A=$(basename "$snap" .pt) B=e1_256x3_exact1ply_$ROUND"
  $PY tools/compare_results.py "$out.csv" "$e1.csv" | tail -1; } >> "$D/filter_check.out"
