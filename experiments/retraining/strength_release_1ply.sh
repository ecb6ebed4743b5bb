#!/usr/bin/env bash
# Release the strength lineage's fourth cycle (strength_exact1ply.sh: e1, exact 1-ply targets
# from s7 with its twin units repaired, Adam 1e-4 -> 5e-6, 500,000 episodes) once e1 and its
# points are done: the same method as strength_release.sh.
#
#   DMP   candidates: s7 (released as dmp_256x3) and e1 at 100k, 250k (its snapshots) and at its
#         end, ranked by their 10,000-game points against gnubg-nn on the selection seed 1001.
#         An e1 point that wins is released as best_models/dmp_256x3_1ply.pt, checked for twin
#         units, and reported on seed 2401 (10,000 duplicate games each against gnubg-nn and
#         pubeval), head to head against dmp_256x3 on seed 2411, and on the 1,100-decision
#         benchmark at 0- and 1-ply.  If s7 wins, nothing is released.
#
#   experiments/retraining/strength_release_1ply.sh          # everything not yet measured
#   DRY=1 experiments/retraining/strength_release_1ply.sh    # the choice and the commands only
# Rerunning skips every result file already written.  It refuses to start from a tree with
# uncommitted changes to tracked files (the figures name their commit); DRY=1 may.
set -euo pipefail
cd "$(dirname "$0")/../.."
S=experiments/retraining/strength
. experiments/retraining/release_lib.sh

E1=$S/e1_256x3_exact1ply
echo "DMP candidates:" >&2
dmp=$(best win_rate "$S/s7_256x3_polish.pt" "${E1}_r000100.pt" "${E1}_r000250.pt" "$E1.pt")
echo "DMP choice: $dmp" >&2
if [ "$dmp" = "$S/s7_256x3_polish.pt" ]; then
  echo "s7 (the dmp_256x3 release) stays best on seed 1001: nothing to release" >&2
  exit 0
fi
release "$dmp" dmp_256x3_1ply.pt
[ "${DRY:-0}" = 1 ] || distinct_units dmp_256x3_1ply.pt
report dmp_256x3_1ply.pt gnubg-nn dmp 2401
report dmp_256x3_1ply.pt pubeval dmp 2401
report dmp_256x3_1ply.pt best_models/dmp_256x3.pt dmp 2411
decisions dmp_256x3_1ply.pt   # last: results.jsonl is tracked
echo "released; now add its rows to tools/results_tables.py and run it" >&2
