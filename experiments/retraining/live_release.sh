#!/usr/bin/env bash
# Release the live lineage (live_lineage.sh: a base that keeps its units, widened with fresh units,
# deepened, then exact 1-ply targets) once its x1 stage is done: the method of
# strength_release_1ply.sh.
#
#   DMP   candidates: the e1 point released as dmp_256x3_1ply and x1r (x1 with its one twin pair
#         folded and its dead units revived: a release may hold no twin units, so x1 itself is
#         not one; x1r - x1 on seed 1001 is in live/eval/x1r_minus_x1.json), ranked by their
#         10,000-game points against gnubg-nn on the selection seed 1001.  An x1r that wins is
#         released as best_models/dmp_256x3_live.pt, checked for twin units, and reported on
#         seed 2501 (10,000 duplicate games each against gnubg-nn and pubeval), head to head
#         against dmp_256x3_1ply on seed 2511 and against PureTD's documented [256,256,256] on
#         seed 2521 (PURETD=its checkpoint converted by experiments/head_to_head/puretd_net.py;
#         left out when PURETD is not set; with it, PureTD's net also plays gnubg-nn on seed 2501,
#         paired with the release's row), and on the 1,100-decision benchmark at 0- and 1-ply.
#
#   experiments/retraining/live_release.sh          # everything not yet measured
#   DRY=1 experiments/retraining/live_release.sh    # the choice and the commands only
# Rerunning skips every result file already written.  It refuses to start from a tree with
# uncommitted changes to tracked files (the figures name their commit); DRY=1 may.
set -euo pipefail
cd "$(dirname "$0")/../.."
L=experiments/retraining/live
. experiments/retraining/release_lib.sh

echo "DMP candidates:" >&2
dmp=$(best win_rate experiments/retraining/strength/e1_256x3_exact1ply_r000250.pt "$L/x1r_256x3_exact1ply.pt")
echo "DMP choice: $dmp" >&2
if [ "$dmp" != "$L/x1r_256x3_exact1ply.pt" ]; then
  echo "dmp_256x3_1ply stays best on seed 1001: nothing to release" >&2
  exit 0
fi
release "$dmp" dmp_256x3_live.pt
[ "${DRY:-0}" = 1 ] || distinct_units dmp_256x3_live.pt
report dmp_256x3_live.pt gnubg-nn dmp 2501
report dmp_256x3_live.pt pubeval dmp 2501
report dmp_256x3_live.pt best_models/dmp_256x3_1ply.pt dmp 2511
if [ -n "${PURETD:-}" ]; then
  report dmp_256x3_live.pt "$PURETD" dmp 2521
  # PureTD's net against gnubg-nn on the release's dice: paired with the release's own row
  out="$RES/$(basename "${PURETD%.pt}")_vs_gnubg-nn_seed2501"
  [ -f "$out.json" ] || run env OMP_NUM_THREADS=1 $PY play_models.py --model1 "$PURETD" --gnubg-nn \
      --games 10000 --seed 2501 --workers "$W" --quiet --csv "$out.csv" --json "$out.json"
fi
decisions dmp_256x3_live.pt   # last: results.jsonl is tracked
echo "released; now add its rows to tools/results_tables.py and run it" >&2
