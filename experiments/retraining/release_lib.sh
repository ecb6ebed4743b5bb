# Sourced by the release scripts (strength_release.sh, strength_release_1ply.sh), from the
# repository's root: choosing a release on the selection seed, copying it into best_models/, and
# measuring it on fresh seeds.  It refuses a tree with uncommitted changes to tracked files (the
# figures name their commit) unless DRY=1, which only prints the commands.  WORKERS, PY and GNUBG
# may be set from outside.  Every result goes to a new, untracked file, and results.jsonl
# (tracked) is changed only by `decisions`, which a script calls after its last game: a tracked
# file changed mid-script would make every later result name a "-dirty" commit.
. experiments/require_clean_tree.sh
[ "${DRY:-0}" = 1 ] || require_clean_tree
PY=${PY:-.venv/bin/python}
W=${WORKERS:-1}
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

report() {  # released name, opponent (a built-in name or a checkpoint), game mode, seed
  local out="$RES/${1%.pt}_vs_$(basename "${2%.pt}")_seed$4"
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

distinct_units() {  # released name: no hidden layer may hold twin units (cosine > 0.95)
  $PY tools/describe_model.py --json "best_models/$1" | $PY -c '
import json, sys
d = json.load(sys.stdin)
have, width = d["distinct_units"], d["hidden"]
print(f"{sys.argv[1]}: distinct units {have} of {width}", file=sys.stderr)
if have != width:
    print(f"error: {sys.argv[1]} has twin units", file=sys.stderr)
    sys.exit(2)' "$1"
}
