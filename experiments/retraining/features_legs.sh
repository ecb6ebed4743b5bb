#!/usr/bin/env bash
# The board features (features.py) in TD self-play.  Rerun to continue (each stage resumes
# where it stopped); STAGES picks some (default: all), WORKERS sets the workers (default 1).
#  n:  DMP.  The released dmp_512x2x256 (j at 357,400 episodes, 47.70% against gnubg-nn) plus
#      the 20 features at zero weight, 0-ply, Adam 5e-5 -> 1e-5 over 300k episodes.  Its
#      control is j's own line, flat at 47.1-47.7% from 160k to 646k episodes on raw inputs.
#  b4: match play.  The match leg b3 at 600,000 episodes plus the features at zero weight,
#      b3's settings (mwc-outcomes head, lambda-returns, greedy cube), Adam 5e-5 -> 1e-5.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=experiments/retraining/run_stage.sh
W=${WORKERS:-1}
STAGES=${STAGES:-"n b4"}
for s in $STAGES; do
  case $s in
    n) $R train_batch.py experiments/retraining/explore/n_features_from_j357k.pt best_models/dmp_512x2x256.pt \
         --new-stage --board-features --num-episodes 300000 --episodes-per-round 200 --parallel-games 100 \
         --lr 5e-5 --end-lr 1e-5 --eval-every 250 --eval-opponent gnubg-nn --eval-games 1000 --workers $W \
         --seed 13 --save-every 250 --quiet ;;
    b4) $R train_batch.py experiments/retraining/big/match_512x2x256_features.pt \
         experiments/retraining/big/match_512x2x256.pt --new-stage --board-features --game-mode match \
         --cube-start 0.3 --td-lambda 0.7 --num-episodes 400000 --lr 5e-5 --end-lr 1e-5 --warmup-cycles 20 \
         --seed 24 --workers $W --quiet --episodes-per-round 200 --parallel-games 100 --save-every 250 \
         --eval-every 250 --eval-opponent gnubg-nn --eval-games 500 ;;
    *) echo "unknown stage $s (n, b4)" >&2; exit 2 ;;
  esac
done
