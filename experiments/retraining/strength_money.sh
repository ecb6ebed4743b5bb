#!/usr/bin/env bash
# The money legs of the strength lineage (issue 33), planned in full before they start: the DMP
# lineage's deep net carried into money play, as PureTD carried its DMP net into its money models.
#
#   m1  cubeless money, [256,256,256] DMP trunk + fresh equity head (--warm-start-equity),
#       Adam 1e-4 -> 1e-5, bf16 collection,                                   2,000,000 episodes
#   m2  cubeful money, 196 -> 200 inputs (--warm-start-cubeful from m1's end),
#       Adam 5e-5 -> 5e-6, bf16 collection,                                   1,000,000 episodes
#   m3  1-ply refinement of m2 through the move filter (--oneply --oneply-filter 3),
#       Adam 1e-5 -> 5e-6 (PureTD's cubeful 1-ply LR), bf16 collection,         100,000 episodes
#       (planned at 5e-6 -> 2e-6; raised before it started, when the DMP lineage's s4 at
#       1e-5 -> 5e-6 had moved its net by +0.17 [-0.55, +0.93] points: half that would move nothing)
#   m4  cubeful money again from m1's end, as m2 but trained without the Jacoby rule
#       (--no-jacoby), evaluated like m2 under Jacoby,                         1,000,000 episodes
#       (added in the sixth session, after m2's point: m2 lost ~120 mEq/game in its cube and as
#       much in chequer play that had become worse than m1's; under Jacoby every self-play game
#       whose cube stays centred counts a gammon once (as in PureTD's cubeful training, whose
#       script defaults --jacoby to on).  Quick checks against gnubg-nn-cubeful:
#       cubeful money, as the stage trains it, without Jacoby.)
# 3M money episodes of 0-ply in all, then the 1-ply refinement the issue asks for.  Why these numbers: the earlier [256,256] money legs (money_legs.sh,
# 200k each at 5e-4 / 2e-4) stopped at -137 (cubeless) and -245 mEq/game (cubeful) against gnubg;
# the DMP lineage showed the deep net wants millions of episodes at 1e-4 and below.
# DMP: the DMP lineage's checkpoint to start from (default: s3's end, the deepest finished 0-ply
# stage, 6M episodes in its lineage).
# Each stage's end gets a 10,000-game point against gnubg-nn on the selection seed 1001
# (cubeless money against gnubg-nn; cubeful money against gnubg-nn-cubeful), in $D/eval/;
# m4's end also gets cube_split.py's split of its loss into chequer play and cube.
#
# Run it from a frozen worktree with one thread per process, e.g.
#   git worktree add --detach /work/lineage <commit> && cd /work/lineage && make setup
#   OMP_NUM_THREADS=1 D=/work/main/experiments/retraining/strength_money experiments/retraining/strength_money.sh
# Rerunning continues the unfinished stage at its last round.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
D=${D:-experiments/retraining/strength_money}
DMP=${DMP:-experiments/retraining/strength/s3_256x3.pt}
W=${WORKERS:-1}
mkdir -p "$D/eval"
stage_eval() {  # checkpoint, game mode, opponent
  local out="$D/eval/$(basename "$1" .pt)_vs_$3_seed1001"
  [ -f "$out.json" ] && return 0
  ${PY:-.venv/bin/python} play_models.py --model1 "$1" --model2 "$3" --game-mode "$2" --games 10000 \
     --seed 1001 --workers "$W" --quiet --csv "$out.csv" --json "$out.json"
}
COMMON="--workers $W --quiet --episodes-per-round 200 --parallel-games 100 --save-every 2500
        --eval-every 1000 --eval-opponent gnubg-nn --eval-games 1000 --collect-precision bf16"
$R train_batch.py "$D/m1_cubeless_256x3.pt" - --warm-start-equity "$DMP" --num-episodes 2000000 \
   --lr 1e-4 --end-lr 1e-5 --warmup-cycles 20 --seed 431 $COMMON
stage_eval "$D/m1_cubeless_256x3.pt" cubeless-money gnubg-nn
$R train_batch.py "$D/m2_cubeful_256x3.pt" - --warm-start-cubeful "$D/m1_cubeless_256x3.pt" \
   --num-episodes 1000000 --lr 5e-5 --end-lr 5e-6 --warmup-cycles 20 --seed 432 $COMMON
stage_eval "$D/m2_cubeful_256x3.pt" cubeful-money gnubg-nn-cubeful
$R train_batch.py "$D/m3_cubeful_256x3_1ply.pt" "$D/m2_cubeful_256x3.pt" --oneply --oneply-filter 3 \
   --num-episodes 100000 --lr 1e-5 --end-lr 5e-6 --seed 433 --workers $W --quiet --episodes-per-round 40 \
   --parallel-games 20 --save-every 2500 --eval-every 2500 --eval-opponent gnubg-nn --eval-games 1000 \
   --collect-precision bf16
stage_eval "$D/m3_cubeful_256x3_1ply.pt" cubeful-money gnubg-nn-cubeful
$R train_batch.py "$D/m4_cubeful_256x3_nojacoby.pt" - --warm-start-cubeful "$D/m1_cubeless_256x3.pt" --no-jacoby \
   --num-episodes 1000000 --lr 5e-5 --end-lr 5e-6 --warmup-cycles 20 --seed 434 \
   ${COMMON/--eval-opponent gnubg-nn /--eval-opponent gnubg-nn-cubeful }
stage_eval "$D/m4_cubeful_256x3_nojacoby.pt" cubeful-money gnubg-nn-cubeful
split="$D/eval/cube_split_m4_seed1001.out"
[ -f "$split" ] || { ${PY:-.venv/bin/python} experiments/retraining/cube_split.py "$D/m4_cubeful_256x3_nojacoby.pt" \
    --cubeless "$D/m1_cubeless_256x3.pt" --games 10000 --seed 1001 --quiet > "$split.tmp" && mv "$split.tmp" "$split"; }
