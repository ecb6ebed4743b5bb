#!/usr/bin/env bash
# Every published head-to-head number, with the seeds and game counts of best_models/README.md:
# duplicate-dice games that our engine replays exactly, then the games against the gnubg
# binary (GNUBG_EXT=0 skips those; DUPLICATE=0 skips the duplicate-dice games).
# It runs only from a clean checkout (each CSV header records the commit it was made at).
#   experiments/head_to_head/remeasure.sh [OUT_DIR]   (default: experiments/head_to_head/results)
# About 20 minutes on 2 idle cores, plus the gnubg-ext games.
set -euo pipefail
cd "$(dirname "$0")/../.."
. experiments/require_clean_tree.sh
require_clean_tree
PY=${PY:-.venv/bin/python}
OUT=${1:-experiments/head_to_head/results}
mkdir -p "$OUT"
play() {  # NAME ARGS...: one 10,000-game run -> OUT/NAME.csv and OUT/NAME.json
  local name=$1
  shift
  rm -f "$OUT/$name.csv" "$OUT/$name.json"   # a re-measurement replaces the old record (git keeps it)
  $PY play_models.py "$@" --games 10000 --workers 2 --quiet --json "$OUT/$name.json" --csv "$OUT/$name.csv"
}
B=best_models
if [ "${DUPLICATE:-1}" = 1 ]; then
# DMP: gnubg-nn plays P(win); pubeval its fixed policy
play dmp_128x2_vs_gnubg-nn        --model1 $B/dmp_128x2.pt --model2 gnubg-nn --seed 11
play dmp_128x2_vs_pubeval         --model1 $B/dmp_128x2.pt --model2 pubeval --seed 12
play dmp_256x2_vs_gnubg-nn        --model1 $B/dmp_256x2.pt --model2 gnubg-nn --seed 21
play dmp_256x2_vs_pubeval         --model1 $B/dmp_256x2.pt --model2 pubeval --seed 22
play dmp_256x2_1ply_vs_gnubg-nn   --model1 $B/dmp_256x2_1ply.pt --model2 gnubg-nn --seed 21
play dmp_256x2_1ply_vs_pubeval    --model1 $B/dmp_256x2_1ply.pt --model2 pubeval --seed 22
# cubeless money: gnubg-nn plays cubeless equity
M="--game-mode cubeless-money"
play dmp_256x2_cubeless_vs_gnubg-nn --model1 $B/dmp_256x2.pt --model2 gnubg-nn $M --seed 31
play dmp_256x2_cubeless_vs_pubeval  --model1 $B/dmp_256x2.pt --model2 pubeval $M --seed 31
play cubeless_256x2_vs_gnubg-nn   --model1 $B/cubeless_256x2.pt --model2 gnubg-nn $M --seed 41
play cubeless_256x2_vs_pubeval    --model1 $B/cubeless_256x2.pt --model2 pubeval $M --seed 41
play prob5_128x2_vs_gnubg-nn      --model1 $B/prob5_128x2.pt --model2 gnubg-nn $M --seed 71
play prob5_128x2_vs_pubeval       --model1 $B/prob5_128x2.pt --model2 pubeval $M --seed 71
play prob5_128x2_1ply_vs_gnubg-nn --model1 $B/prob5_128x2_1ply.pt --model2 gnubg-nn $M --seed 71
play prob5_128x2_1ply_vs_pubeval  --model1 $B/prob5_128x2_1ply.pt --model2 pubeval $M --seed 71
# cubeful money, our models only (gnubg-nn has no cube)
C="--game-mode cubeful-money"
play cubeful_256x2_vs_cubeless_parent --model1 $B/cubeful_256x2.pt \
    --model2 experiments/retraining/money/cubeless_as_cubeful_256x2.pt $C --seed 51
play cubeful_256x2_1ply_vs_cubeful_256x2 --model1 $B/cubeful_256x2_1ply.pt --model2 $B/cubeful_256x2.pt $C --seed 52
fi
# against the real gnubg binary: 2,000 games each, gnubg's own seeded dice.  GNUBG is the
# binary (default: make gnubg's 1.08.003 build, the seed's opponent); for Debian 12's
# 1.07.001 run GNUBG=/usr/games/gnubg SUFFIX=-1.07.001 (files named ..._vs_gnubg-ext-1.07.001).
if [ "${GNUBG_EXT:-1}" = 1 ]; then
  GNUBG=${GNUBG:-.gnubg/1.08.003/bin/gnubg}
  SUFFIX=${SUFFIX:-}
  ext() {  # NAME MODEL: cubeful money against gnubg-ext at 0-ply
    local n=$1$SUFFIX
    rm -f "$OUT/$n.csv" "$OUT/$n.json" "$OUT/$n.games.csv"
    $PY play_models.py --model1 "$2" --model2 gnubg-ext --gnubg "$GNUBG" --games 2000 --workers 2 --seed 61 --quiet \
        --json "$OUT/$n.json" --csv "$OUT/$n.csv" --games-csv "$OUT/$n.games.csv"
  }
  ext cubeful_256x2_1ply_vs_gnubg-ext $B/cubeful_256x2_1ply.pt
  ext cubeful_256x2_vs_gnubg-ext $B/cubeful_256x2.pt
  ext cubeless_parent_as_cubeful_vs_gnubg-ext experiments/retraining/money/cubeless_as_cubeful_256x2.pt
fi
