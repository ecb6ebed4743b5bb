#!/usr/bin/env bash
# Release the money legs grown from the exact 1-ply DMP net (strength_money_e1.sh: n1-n5) once
# their points are done: the same method as strength_release.sh.
#
#   cubeless  candidates: m1 (released as cubeless_256x3), n1 (cubeless from e1) and n2 (its exact
#             1-ply stage), ranked by points per game against gnubg-nn on the selection seed 1001.
#             A winner other than m1 is released as best_models/cubeless_256x3_1ply.pt, checked
#             for twin units, reported on seed 2402 (10,000 duplicate games each against gnubg-nn
#             and pubeval) and head to head against cubeless_256x3 on seed 2412.
#   cubeful   candidates: m4 (released as cubeful_256x3), n3 (under Jacoby), n4 (without it) and
#             n5 (exact 1-ply from n3), ranked by capped mEq/game against gnubg-nn-cubeful on seed
#             1001.  A winner other than m4 is released as best_models/cubeful_256x3_from_1ply.pt
#             (named for the line of dmp_256x3_1ply: not every candidate is a 1-ply stage), checked
#             for twin units, reported against the gnubg binary 1.08.003 at 0-ply on seed 2403 and
#             head to head against cubeful_256x3 on seed 2413.
# Each release also gets its lines of the 1,100-decision benchmark at 0- and 1-ply.
#
#   experiments/retraining/strength_release_money_1ply.sh         # everything not yet measured
#   DRY=1 experiments/retraining/strength_release_money_1ply.sh   # the choices and the commands only
# Rerunning skips every result file already written.  It refuses to start from a tree with
# uncommitted changes to tracked files (the figures name their commit); DRY=1 may.
set -euo pipefail
cd "$(dirname "$0")/../.."
M=experiments/retraining/strength_money
. experiments/retraining/release_lib.sh

# choose <metric> <incumbent> <released name> <candidate.pt> ...: ranks the incumbent (the stage
# released before) with the candidates on seed 1001 and, where a candidate wins, releases it
# under the new name and checks it for twin units; fails (status 1) where the incumbent stays best.
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
echo "cubeless candidates:" >&2
if choose points_per_game "$M/m1_cubeless_256x3.pt" cubeless_256x3_1ply.pt "$M/n1_cubeless_256x3.pt" \
    "$M/n2_cubeless_256x3_exact1ply.pt"; then
  report cubeless_256x3_1ply.pt gnubg-nn cubeless-money 2402
  report cubeless_256x3_1ply.pt pubeval cubeless-money 2402
  report cubeless_256x3_1ply.pt best_models/cubeless_256x3.pt cubeless-money 2412
  released+=(cubeless_256x3_1ply.pt)
fi
echo "cubeful candidates:" >&2
if choose capped_meq_per_game "$M/m4_cubeful_256x3_nojacoby.pt" cubeful_256x3_from_1ply.pt \
    "$M/n3_cubeful_256x3_jacoby.pt" "$M/n4_cubeful_256x3_nojacoby.pt" "$M/n5_cubeful_256x3_exact1ply.pt"; then
  report cubeful_256x3_from_1ply.pt best_models/cubeful_256x3.pt cubeful-money 2413
  report cubeful_256x3_from_1ply.pt gnubg-ext cubeful-money 2403
  released+=(cubeful_256x3_from_1ply.pt)
fi
for m in "${released[@]}"; do decisions "$m"; done   # last: results.jsonl is tracked
echo "released: ${released[*]:-nothing}; now add their rows to tools/results_tables.py and run it" >&2
