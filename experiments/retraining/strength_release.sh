#!/usr/bin/env bash
# Release the strength lineage's models (issue 33), once strength_dmp.sh and strength_money.sh
# have finished: pick each mode's model on the selection seed, copy it into best_models/ under a
# name that stays, then measure it on dice no candidate was compared on.
#
#   DMP        candidates: the ends of s3, s4 (1-ply), s5 (polish), and s6, s7 (the second cycle)
#              where they ran, ranked by their 10,000-game points against gnubg-nn on the
#              selection seed 1001 (strength_dmp.sh's stage_eval);
#              released as best_models/dmp_256x3.pt, reported on seed 2301.
#   cubeless   m1's end (the only candidate), best_models/cubeless_256x3.pt, reported on seed 2302.
#   cubeful    candidates: m2's, m3's and (where it ran) m4's ends, ranked against
#              gnubg-nn-cubeful on seed 1001 (capped mEq/game, as cubeful results are reported);
#              best_models/cubeful_256x3.pt, reported against the gnubg binary 1.08.003 at 0-ply
#              on seed 2303 (gnubg-ext: the goal's opponent).
# Each report is 10,000 games, both sides at 0-ply, plus pubeval (DMP and cubeless), and the
# 1,100-decision benchmark at 0- and 1-ply (its lines replace the model's in results.jsonl).
# The result files land in experiments/head_to_head/results/ as <model>_vs_<opponent>_seed<S>;
# tools/results_tables.py then needs the new rows (description, CPU-hours, selection seed).
#
#   experiments/retraining/strength_release.sh            # everything not yet measured
#   DRY=1 experiments/retraining/strength_release.sh      # print the choices and the commands only
# Rerunning skips every result file already written.  Runs one process at a time (WORKERS=1);
# the gnubg binary must be built (make gnubg).  It refuses to start from a tree with uncommitted
# changes to tracked files (the figures name their commit); DRY=1, which writes nothing, may.
set -euo pipefail
cd "$(dirname "$0")/../.."
. experiments/require_clean_tree.sh
[ "${DRY:-0}" = 1 ] || require_clean_tree
PY=${PY:-.venv/bin/python}
W=${WORKERS:-1}
S=experiments/retraining/strength
M=experiments/retraining/strength_money
RES=experiments/head_to_head/results
DEC=experiments/benchmarks/decisions
GNUBG=${GNUBG:-.gnubg/1.08.003/bin/gnubg}
run() { echo "+ $*" >&2; [ "${DRY:-0}" = 1 ] || "$@"; }

# best <metric> <candidate.pt> ...: the candidate whose seed-1001 result file is best (stage_eval
# named it <eval dir>/<stem>_vs_<opponent>_seed1001.json); a candidate without one is an error,
# since choosing among a subset would hide the missing comparison.
best() {
  local metric=$1; shift
  $PY - "$metric" "$@" <<'EOF'
import glob, json, os, sys
metric, cands = sys.argv[1], sys.argv[2:]
scores = {}
for pt in cands:
    stem = os.path.splitext(os.path.basename(pt))[0]
    hits = glob.glob(os.path.join(os.path.dirname(pt), "eval", f"{stem}_vs_*_seed1001.json"))
    if len(hits) != 1:
        sys.exit(f"error: {pt}: expected one seed-1001 result file beside it, found {len(hits)}")
    with open(hits[0]) as fh:
        scores[pt] = json.load(fh)[metric]["mean"]
    print(f"  {pt}: {metric} {scores[pt]:.4f} (seed 1001)", file=sys.stderr)
print(max(scores, key=scores.get))
EOF
}

release() {  # source checkpoint, released name
  local src=$1 dst=best_models/$2
  if [ -f "$dst" ]; then
    cmp -s "$src" "$dst" || { echo "error: $dst exists and differs from $src; not overwriting" >&2; exit 2; }
    return 0
  fi
  run cp "$src" "$dst.tmp" && run mv "$dst.tmp" "$dst"
}

report() {  # released name, opponent, game mode, seed
  local out="$RES/${1%.pt}_vs_$2_seed$4"
  [ -f "$out.json" ] && return 0
  local opp=(--model2 "$2"); [ "$2" = gnubg-ext ] && opp+=(--gnubg "$GNUBG")
  run env OMP_NUM_THREADS=1 $PY play_models.py --model1 "best_models/$1" "${opp[@]}" --game-mode "$3" \
      --games 10000 --seed "$4" --workers "$W" --quiet --csv "$out.csv" --json "$out.json" --games-csv "$out.games.csv"
}

decisions() {  # released name: its 0- and 1-ply lines in results.jsonl, replacing any old ones
  local model=best_models/$1 tmp
  grep -q "\"model\": \"$model\"" "$DEC/results.jsonl" && return 0
  tmp=$(mktemp)
  for ply in 0 1; do
    run env OMP_NUM_THREADS=1 $PY experiments/benchmarks/decision_error.py "$model" --ply $ply \
        --data "$DEC/decisions.json" | tail -n 1 >> "$tmp"
  done
  [ "${DRY:-0}" = 1 ] || { cat "$DEC/results.jsonl" "$tmp" > "$DEC/results.jsonl.tmp" && mv "$DEC/results.jsonl.tmp" "$DEC/results.jsonl"; }
  rm -f "$tmp"
}

echo "DMP candidates:" >&2
second=()   # the second cycle's stages, where strength_dmp.sh ran them
for pt in "$S/s6_256x3_1ply.pt" "$S/s7_256x3_polish.pt"; do [ -f "$pt" ] && second+=("$pt"); done
dmp=$(best win_rate "$S/s3_256x3.pt" "$S/s4_256x3_1ply.pt" "$S/s5_256x3_polish.pt" "${second[@]}")
echo "DMP release: $dmp" >&2
release "$dmp" dmp_256x3.pt
report dmp_256x3.pt gnubg-nn dmp 2301
report dmp_256x3.pt pubeval dmp 2301
decisions dmp_256x3.pt

release "$M/m1_cubeless_256x3.pt" cubeless_256x3.pt
report cubeless_256x3.pt gnubg-nn cubeless-money 2302
report cubeless_256x3.pt pubeval cubeless-money 2302
decisions cubeless_256x3.pt

echo "cubeful candidates:" >&2
nojacoby=()   # m4 (cubeful without Jacoby, from m1), where strength_money.sh ran it
[ -f "$M/m4_cubeful_256x3_nojacoby.pt" ] && nojacoby=("$M/m4_cubeful_256x3_nojacoby.pt")
cubeful=$(best capped_meq_per_game "$M/m2_cubeful_256x3.pt" "$M/m3_cubeful_256x3_1ply.pt" "${nojacoby[@]}")
echo "cubeful release: $cubeful" >&2
release "$cubeful" cubeful_256x3.pt
report cubeful_256x3.pt gnubg-ext cubeful-money 2303
decisions cubeful_256x3.pt
echo "released; now add the rows to tools/results_tables.py and run it" >&2
