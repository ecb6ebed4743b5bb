#!/usr/bin/env bash
# Money play from the exact 1-ply DMP net (e1), at PureTD's money schedule: its cubeless net ran
# Adam 5e-5 -> 5e-6 at 1,000 episodes a round, then exact 1-ply at about 1.5e-5; its cubeful net
# exact 1-ply at about 1e-5.  Every step resumes or skips itself, so rerunning this script
# continues wherever it stopped.
#
#   n1  cubeless money: the DMP trunk + a fresh equity head (--warm-start-equity), Adam 5e-5 ->
#       5e-6 after a 5-round warm-up, 1,000 episodes a round, bf16 collection,   3,000,000 episodes
#   n2  exact 1-ply cubeless from n1, Adam 1.5e-5 -> 5e-6, 1,000 episodes a round,  200,000 episodes
#   n3  cubeful money from n1 (--warm-start-cubeful), under the Jacoby rule,
#       Adam 5e-5 -> 5e-6, 1,000 episodes a round,                                2,000,000 episodes
#   n4  n3 again without the Jacoby rule (the same start, seed and dice), evaluated under Jacoby
#   n5  exact 1-ply cubeful from the better of n3 and n4 (by their points), Adam 1e-5 -> 5e-6,
#       1,000 episodes a round,                                                    200,000 episodes
#   points: 10,000 games on the selection seed 1001 at each stage's end: cubeless against
#   gnubg-nn, cubeful against gnubg-nn-cubeful (both 0-ply); releases are then measured on fresh
#   seeds by strength_release.sh's method.
#
# DMP: the DMP net to start from.  e1's 250k-episode snapshot stands in for the finished e1 so
# that the money legs can use the second core while e1 runs on the first (at 250k it beat s7,
# the current release, by +0.58 [-0.52, +1.70] points on seed 1001).
#
# Run it from a frozen worktree, e.g.
#   git worktree add --detach /work/lineage3 <commit> && cd /work/lineage3 && make setup
#   D=/work/main/experiments/retraining/strength_money experiments/retraining/strength_money_e1.sh
# LEGS picks the legs this run takes (default: all five, in order), so that two runs can share
# the work on two cores once n1 is done, e.g. LEGS="n2 n5" on one core and LEGS="n3 n4" on the
# other (n5 needs both n3's and n4's points: without them the run stops there, to be rerun).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
R=experiments/retraining/run_stage.sh
D=${D:-experiments/retraining/strength_money}
S=${S:-$(dirname "$D")/strength}
DMP=${DMP:-$S/e1_256x3_exact1ply_r000250.pt}
W=${WORKERS:-1}
LEGS=${LEGS:-n1 n2 n3 n4 n5}
want() { [[ " $LEGS " == *" $1 "* ]]; }
mkdir -p "$D/eval"
stage_eval() {  # checkpoint, game mode, opponent
  local out="$D/eval/$(basename "$1" .pt)_vs_$3_seed1001"
  [ -f "$out.json" ] && return 0
  $PY play_models.py --model1 "$1" --model2 "$3" --game-mode "$2" --games 10000 \
     --seed 1001 --workers "$W" --quiet --csv "$out.csv" --json "$out.json"
}
ZERO="--workers $W --quiet --episodes-per-round 1000 --parallel-games 100 --save-every 250 --eval-every 100
      --eval-games 1000 --collect-precision bf16 --warmup-cycles 5"
ONE="--oneply --workers $W --quiet --episodes-per-round 1000 --parallel-games 50 --save-every 50 --eval-every 25
     --eval-games 1000 --collect-precision bf16"
N1="$D/n1_cubeless_256x3.pt"
if want n1; then
  $R train_batch.py "$N1" - --warm-start-equity "$DMP" --num-episodes 3000000 --lr 5e-5 --end-lr 5e-6 \
     --seed 451 --eval-opponent gnubg-nn $ZERO
  stage_eval "$N1" cubeless-money gnubg-nn
fi
N2="$D/n2_cubeless_256x3_exact1ply.pt"
if want n2; then
  $R train_batch.py "$N2" "$N1" --num-episodes 200000 --lr 1.5e-5 --end-lr 5e-6 --seed 452 \
     --eval-opponent gnubg-nn $ONE
  stage_eval "$N2" cubeless-money gnubg-nn
fi
N3="$D/n3_cubeful_256x3_jacoby.pt" N4="$D/n4_cubeful_256x3_nojacoby.pt"
if want n3; then
  $R train_batch.py "$N3" - --warm-start-cubeful "$N1" --num-episodes 2000000 --lr 5e-5 --end-lr 5e-6 \
     --seed 453 --eval-opponent gnubg-nn-cubeful $ZERO
  stage_eval "$N3" cubeful-money gnubg-nn-cubeful
fi
if want n4; then
  $R train_batch.py "$N4" - --warm-start-cubeful "$N1" --no-jacoby --num-episodes 2000000 --lr 5e-5 \
     --end-lr 5e-6 --seed 453 --eval-opponent gnubg-nn-cubeful $ZERO
  stage_eval "$N4" cubeful-money gnubg-nn-cubeful
fi
want n5 || exit 0
# N5_FROM names n5's start outright (n3 or n4's checkpoint), so that n5 can run beside n4 on the
# other core instead of after it; without it n5 waits for both points and takes the better.
if [ -n "${N5_FROM:-}" ]; then better=$N5_FROM; else
points="$D/eval/$(basename "$N3" .pt)_vs_gnubg-nn-cubeful_seed1001.json $D/eval/$(basename "$N4" .pt)_vs_gnubg-nn-cubeful_seed1001.json"
for p in $points; do   # another run may still be making n3's or n4's point
  [ -f "$p" ] || { echo "n5 needs $p (n3's and n4's points first); rerun once they are made" >&2; exit 0; }
done
# n5 starts from the cubeful stage with the higher point (capped mEq/game; the same seed and dice for both)
better=$($PY - "$D/eval" "$N3" "$N4" <<'PYEOF'
import json, os, sys
ev, *pts = sys.argv[1:]
score = lambda pt: json.load(open(os.path.join(ev, os.path.basename(pt)[:-3] + "_vs_gnubg-nn-cubeful_seed1001.json")))["capped_meq_per_game"]["mean"]
print(max(pts, key=score))
PYEOF
)
fi
N5="$D/n5_cubeful_256x3_exact1ply.pt"
$R train_batch.py "$N5" "$better" --num-episodes 200000 --lr 1e-5 --end-lr 5e-6 --seed 455 \
   --eval-opponent gnubg-nn-cubeful $ONE
stage_eval "$N5" cubeful-money gnubg-nn-cubeful
