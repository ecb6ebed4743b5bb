#!/usr/bin/env bash
# gnubg's own error rates of the cubeful models (gnubg_eval.py: self-play, cubeful money, 1,000
# games, seed 91, analysis at 0-ply), judged by 1.08.003 (make gnubg) and by Debian 12's 1.07.001.
# Our players are deterministic and roll our dice, so both judges analyse the same .mat files.
# Runs only from a clean checkout (the JSONs name their commit):  experiments/gnubg_eval/run.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
. experiments/require_clean_tree.sh
require_clean_tree
PY=${PY:-.venv/bin/python}
OUT=${1:-experiments/gnubg_eval}
G108=${G108:-.gnubg/1.08.003/bin/gnubg}
G107=${G107:-/usr/games/gnubg}
MATS=${MATS:-$(mktemp -d /tmp/gnubg_eval_mats.XXXXXX)}  # the games, kept out of the repository
mkdir -p "$OUT"
for m in cubeful_256x2_1ply cubeful_256x2; do
  for judge in "$G108:" "$G107:-1.07.001"; do
    bin=${judge%%:*}
    suffix=${judge#*:}
    rm -rf "$MATS/$m$suffix" "$OUT/${m}_gnubg_eval_0ply$suffix.json"
    $PY gnubg_eval.py --model best_models/$m.pt --games 1000 --ply 0 --workers 2 --seed 91 --gnubg "$bin" --quiet \
        --out "$MATS/$m$suffix" --json "$OUT/${m}_gnubg_eval_0ply$suffix.json"
  done
done
