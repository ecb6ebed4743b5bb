#!/usr/bin/env bash
# Release the money legs of the live lineage (live_money.sh: n1, n2, n4, n5 from the DMP release
# dmp_256x3_live) once their points are done: the method of strength_release_money_1ply.sh.
#
#   cubeless  candidates: the cubeless release of the old line (cubeless_256x3_1ply, which is
#             strength_money/n2), live_money's n1 (3M cubeless episodes) and n2 (its exact 1-ply
#             stage), ranked by points per game against gnubg-nn on the selection seed 1001.  A
#             winner other than the old release is released as best_models/cubeless_256x3_live.pt,
#             checked for twin units, reported on seed 2602 (10,000 duplicate games each against
#             gnubg-nn and pubeval) and head to head against cubeless_256x3_1ply on seed 2612.
#   cubeful   candidates: the cubeful release of the old line (cubeful_256x3_from_1ply, which is
#             strength_money/n4), live_money's n4 (2M episodes without the Jacoby rule) and n5
#             (its exact 1-ply stage), ranked by capped mEq/game against gnubg-nn-cubeful on seed
#             1001.  A winner other than the old release is released as
#             best_models/cubeful_256x3_live.pt, checked for twin units, reported against the
#             gnubg binary 1.08.003 at 0-ply on seed 2603 and head to head against
#             cubeful_256x3_from_1ply on seed 2613.
# Each release also gets its lines of the 1,100-decision benchmark at 0- and 1-ply.
#
#   experiments/retraining/live_money_release.sh                  # both, everything not yet measured
#   PARTS=cubeless experiments/retraining/live_money_release.sh   # one part (cubeless or cubeful)
#   DRY=1 experiments/retraining/live_money_release.sh            # the choices and the commands only
# Rerunning skips every result file already written.  It refuses to start from a tree with
# uncommitted changes to tracked files (the figures name their commit); DRY=1 may.
set -euo pipefail
cd "$(dirname "$0")/../.."
OLD=experiments/retraining/strength_money
M=experiments/retraining/live_money
PARTS=${PARTS:-cubeless cubeful}
. experiments/retraining/release_lib.sh

# choose <metric> <incumbent> <released name> <candidate.pt> ...: as in
# strength_release_money_1ply.sh: fails (status 1) where the incumbent stays best.
choose() {
  local metric=$1 incumbent=$2 name=$3 pick; shift 3
  pick=$(best "$metric" "$incumbent" "$@") || exit 2   # (an if-condition does not stop on errors)
  echo "choice: $pick" >&2
  if [ "$pick" = "$incumbent" ]; then
    echo "$incumbent (released before) stays best on seed 1001: no $name" >&2
    return 1
  fi
  release "$pick" "$name"
  [ "${DRY:-0}" = 1 ] || distinct_units "$name"
}

released=()
if [[ " $PARTS " == *" cubeless "* ]]; then
  echo "cubeless candidates:" >&2
  if choose points_per_game "$OLD/n2_cubeless_256x3_exact1ply.pt" cubeless_256x3_live.pt \
      "$M/n1_cubeless_256x3.pt" "$M/n2_cubeless_256x3_exact1ply.pt"; then
    report cubeless_256x3_live.pt gnubg-nn cubeless-money 2602
    report cubeless_256x3_live.pt pubeval cubeless-money 2602
    report cubeless_256x3_live.pt best_models/cubeless_256x3_1ply.pt cubeless-money 2612
    released+=(cubeless_256x3_live.pt)
  fi
fi
if [[ " $PARTS " == *" cubeful "* ]]; then
  echo "cubeful candidates:" >&2
  if choose capped_meq_per_game "$OLD/n4_cubeful_256x3_nojacoby.pt" cubeful_256x3_live.pt \
      "$M/n4_cubeful_256x3_nojacoby.pt" "$M/n5_cubeful_256x3_exact1ply.pt"; then
    report cubeful_256x3_live.pt best_models/cubeful_256x3_from_1ply.pt cubeful-money 2613
    report cubeful_256x3_live.pt gnubg-ext cubeful-money 2603
    released+=(cubeful_256x3_live.pt)
  fi
fi
for m in "${released[@]}"; do decisions "$m"; done   # last: results.jsonl is tracked
echo "released: ${released[*]:-nothing}; now add their rows to tools/results_tables.py and run it" >&2
