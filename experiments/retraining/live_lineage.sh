#!/usr/bin/env bash
# A lineage whose every hidden unit works, on PureTD's documented route (its training records),
# run from scratch with the project's own scripts.  Every stage resumes at its last round
# (run_stage.sh): rerunning this script continues wherever it stopped.
#
#   bases  [128,128] from scratch, 300,000 episodes each, Adam LR -> 0.3 LR for LR = 1e-3, 3e-4,
#          1e-4 (the old lineage's base s1 ran 1e-3 -> 3e-4 and lost a quarter of its units);
#          each against gnubg-nn on the selection seed.  The base of the lineage is the arm with
#          the best win rate, recorded once in $D/base_choice.json (a rerun keeps it).
#   w1     widened to [256,256] with fresh units (random incoming, zero outgoing weights),
#          Adam 5e-5 -> 5e-6,                                                  500,000 episodes
#   w2     the same again (PureTD's LR restart),                               500,000 episodes
#   w2r    w2 with the units the base lost revived (tools/repair_twins.py --no-twins: fresh incoming,
#          zero outgoing weights, every value unchanged), so the identity layer below copies none
#   d1-d3  a third layer of 256 as identity plus noise, then phases of Adam 5e-5 -> 5e-6,
#          each restarting the LR,                                     1,000,000 episodes each
#   x1     exact 1-ply targets from the best d phase, Adam 1e-4 -> 5e-6, 1,000 episodes a round,
#          moves still chosen at 0-ply,                                          500,000 episodes
#   x2     a second exact 1-ply phase from x1 repaired (x1r), the LR restarted,  500,000 episodes
# Every stage logs unit health (dead, distinct, active units) every 50 rounds and at its end, and
# ends with 10,000 duplicate games against gnubg-nn on the selection seed 1001.
#
# Run it from a frozen worktree with one thread per process, e.g.
#   git worktree add /work/frozen <commit> && cd /work/frozen && make setup
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/live experiments/retraining/live_lineage.sh
# STOP_AFTER=bases|w2|d1|d2|d3|x1 ends after that step.  BASE=CHECKPOINT starts the route from that base
# instead of the batch base comparison (e.g. the online base of online_base.sh, in its own D:
#   BASE=experiments/retraining/live/base_online_128x2.pt D=experiments/retraining/live_online ...).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
PY=${PY:-.venv/bin/python}
D=${D:-experiments/retraining/live}
mkdir -p "$D/eval"
stage_eval() {
  local pt=$1 out="$D/eval/$(basename "$1" .pt)_vs_gnubg-nn_seed1001"
  [ -f "$out.json" ] && return 0
  $PY play_models.py --model1 "$pt" --gnubg-nn --games 10000 --seed 1001 --workers 1 \
     --quiet --csv "$out.csv" --json "$out.json"
}
stop_after() { [ "${STOP_AFTER:-}" = "$1" ] && exit 0 || true; }
# choose FILE ARM...: the arm with the best win rate on the selection seed, recorded once in FILE (a rerun keeps
# the choice); prints its checkpoint's path
choose() {
  local file=$1; shift
  if [ ! -f "$file" ]; then
    $PY - "$D" "$@" > "$file.tmp" <<'PYEOF'
import json, os, sys
d, names = sys.argv[1], sys.argv[2:]
arms = {a: json.load(open(os.path.join(d, "eval", a + "_vs_gnubg-nn_seed1001.json")))["win_rate"]["mean"]
        for a in names}
best = max(arms, key=arms.get)
print(json.dumps({"chosen": best + ".pt", "win_rates_seed1001": arms,
                  "rule": "best win rate against gnubg-nn, 10,000 duplicate games on the selection seed 1001"},
                 indent=2))
PYEOF
    mv "$file.tmp" "$file"
  fi
  echo "$D/$($PY -c "import json, os, sys; print(os.path.basename(json.load(open(sys.argv[1]))['chosen']))" "$file")"
}
COMMON="--workers 1 --quiet --episodes-per-round 200 --parallel-games 100 --health-every 50
        --eval-every 500 --eval-opponent gnubg-nn --eval-games 1000"
if [ -z "${BASE:-}" ]; then
  for lr in 1e-3 3e-4 1e-4; do
    end=$($PY -c "print(f'{$lr * 0.3:g}')")
    $R train_batch.py "$D/base_lr${lr}_128x2.pt" - --hidden 128,128 --num-episodes 300000 --lr "$lr" \
       --end-lr "$end" --seed 581 $COMMON
    stage_eval "$D/base_lr${lr}_128x2.pt"
  done
  BASE=$(choose "$D/base_choice.json" base_lr1e-3_128x2 base_lr1e-4_128x2 base_lr3e-4_128x2)
fi
stop_after bases
$R train_batch.py "$D/w1_256x2.pt" "$BASE" --expand 256,256 --num-episodes 500000 --lr 5e-5 --end-lr 5e-6 \
   --seed 582 $COMMON
stage_eval "$D/w1_256x2.pt"
$R train_batch.py "$D/w2_256x2.pt" "$D/w1_256x2.pt" --num-episodes 500000 --lr 5e-5 --end-lr 5e-6 \
   --seed 583 $COMMON
stage_eval "$D/w2_256x2.pt"
stop_after w2
[ -f "$D/w2r_256x2.pt" ] || $PY tools/repair_twins.py "$D/w2_256x2.pt" -o "$D/w2r_256x2.pt" --no-twins --json \
   > "$D/w2r_256x2_repair.json"
$R train_batch.py "$D/d1_256x3.pt" "$D/w2r_256x2.pt" --expand-depth-size 256 --num-episodes 1000000 \
   --lr 5e-5 --end-lr 5e-6 --seed 584 --save-every 2500 $COMMON
stage_eval "$D/d1_256x3.pt"
stop_after d1
$R train_batch.py "$D/d2_256x3.pt" "$D/d1_256x3.pt" --num-episodes 1000000 --lr 5e-5 --end-lr 5e-6 \
   --seed 585 --save-every 2500 $COMMON
stage_eval "$D/d2_256x3.pt"
stop_after d2
$R train_batch.py "$D/d3_256x3.pt" "$D/d2_256x3.pt" --num-episodes 1000000 --lr 5e-5 --end-lr 5e-6 \
   --seed 586 --save-every 2500 $COMMON
stage_eval "$D/d3_256x3.pt"
stop_after d3
BEST_D=$(choose "$D/d_choice.json" d1_256x3 d2_256x3 d3_256x3)
$R train_batch.py "$D/x1_256x3_exact1ply.pt" "$BEST_D" --oneply --num-episodes 500000 --lr 1e-4 --end-lr 5e-6 \
   --seed 587 --workers 1 --quiet --episodes-per-round 1000 --parallel-games 100 --health-every 10 \
   --save-every 100 --eval-every 50 --eval-opponent gnubg-nn --eval-games 1000
stage_eval "$D/x1_256x3_exact1ply.pt"
for r in 200 400; do   # x1's points along the way (its --save-every snapshots, kept out of git)
  [ -f "$D/x1_256x3_exact1ply_r000${r}.pt" ] && stage_eval "$D/x1_256x3_exact1ply_r000${r}.pt"
done
stop_after x1
# x2: a second exact 1-ply phase, restarting the LR (as between the 0-ply phases), from x1 with its
# twin pair folded and its dead units revived (x1r, the release); x1's points rose through 400,000
# episodes (49.27% at 200k, 50.22% at 400k, 49.75% at its end).
[ -f "$D/x1r_256x3_exact1ply.pt" ] || $PY tools/repair_twins.py "$D/x1_256x3_exact1ply.pt" \
   -o "$D/x1r_256x3_exact1ply.pt" --json > "$D/x1r_256x3_exact1ply_repair.json"
stage_eval "$D/x1r_256x3_exact1ply.pt"
$R train_batch.py "$D/x2_256x3_exact1ply.pt" "$D/x1r_256x3_exact1ply.pt" --oneply --num-episodes 500000 \
   --lr 1e-4 --end-lr 5e-6 --seed 588 --workers 1 --quiet --episodes-per-round 1000 --parallel-games 100 \
   --health-every 10 --save-every 100 --eval-every 50 --eval-opponent gnubg-nn --eval-games 1000
stage_eval "$D/x2_256x3_exact1ply.pt"
for r in 200 400; do   # x2's points along the way, as x1's
  [ -f "$D/x2_256x3_exact1ply_r000${r}.pt" ] && stage_eval "$D/x2_256x3_exact1ply_r000${r}.pt"
done
# each of x2's points minus its parent x1r, paired over the 5,000 shared duplicate pairs
for p in x2_256x3_exact1ply_r000200 x2_256x3_exact1ply_r000400 x2_256x3_exact1ply; do
  [ -f "$D/eval/${p}_vs_gnubg-nn_seed1001.csv" ] && [ ! -f "$D/eval/${p}_minus_x1r.json" ] && \
    $PY tools/compare_results.py "$D/eval/${p}_vs_gnubg-nn_seed1001.csv" \
      "$D/eval/x1r_256x3_exact1ply_vs_gnubg-nn_seed1001.csv" --json "$D/eval/${p}_minus_x1r.json"
done
stop_after x2
