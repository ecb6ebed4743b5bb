#!/usr/bin/env bash
# Make result files again from a clean commit: each named result was written from a tree with
# uncommitted changes (its header says `# commit: <hash>-dirty`), so nobody can check out the
# code that made it.  The command in the file's header is run again as it was (same models,
# seed, games), from this checkout, which must be clean, with its outputs sent to the untracked
# folder OUT (replacing a tracked file mid-run would make the next run's tree dirty); once every
# run has finished, the new files replace the old ones (git keeps those).  The players are
# deterministic and the dice seeded, so an unchanged program gives the same figure: each line
# printed compares the old and the new.
#
#   experiments/head_to_head/remeasure_dirty.sh NAME...   # NAME: a result file's stem under RES
#   e.g. experiments/head_to_head/remeasure_dirty.sh cubeless_256x3_vs_gnubg-nn_seed2302
# A name whose file already names a clean commit is skipped, so a rerun continues.
set -euo pipefail
cd "$(dirname "$0")/../.."
. experiments/require_clean_tree.sh
require_clean_tree
PY=${PY:-.venv/bin/python}
RES=${RES:-experiments/head_to_head/results}
OUT=${OUT:-remeasured}
[ $# -gt 0 ] || { echo "error: name at least one result file (a stem under $RES)" >&2; exit 2; }
for name in "$@"; do
  [ -f "$RES/$name.csv" ] || { echo "error: $RES/$name.csv: no such result file" >&2; exit 2; }
done
mkdir -p "$OUT"
figure() {  # the summary lines of a result file's header, on one line
  grep -E '^# [a-z_]+: -?[0-9.]+ \(95% CI' "$1" | sed 's/^# //' | paste -sd';' - || echo "(no summary line)"
}
for name in "$@"; do
  csv="$RES/$name.csv"
  grep -q -- '^# commit: .*-dirty$' "$csv" || { echo "$name: already from a clean commit, skipped" >&2; continue; }
  cmd=$(sed -n '1s/^# command: //p' "$csv")
  case $cmd in play_models.py\ *) ;; *) echo "error: $csv: its header's command is not a play_models.py run" >&2; exit 2 ;; esac
  old=$(figure "$csv")
  read -r -a argv <<< "$cmd"
  argv=("${argv[@]/#$RES\//$OUT/}")   # the outputs go to OUT
  rm -f "$OUT/$name.csv" "$OUT/$name.json" "$OUT/$name.games.csv"   # an earlier, unfinished try
  echo "+ $PY ${argv[*]}" >&2
  OMP_NUM_THREADS=1 "$PY" "${argv[@]}"
  echo "$name: was $old; now $(figure "$OUT/$name.csv")" >&2
done
for name in "$@"; do   # all made: the new files replace the old
  for ext in csv json games.csv; do
    if [ -f "$OUT/$name.$ext" ]; then mv "$OUT/$name.$ext" "$RES/$name.$ext"; fi
  done
done
