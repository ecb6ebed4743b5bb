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
S=experiments/retraining/strength
M=experiments/retraining/strength_money
. experiments/retraining/release_lib.sh

echo "DMP candidates:" >&2
second=()   # the second cycle's stages, where strength_dmp.sh ran them
for pt in "$S/s6_256x3_1ply.pt" "$S/s7_256x3_polish.pt"; do [ -f "$pt" ] && second+=("$pt"); done
dmp=$(best win_rate "$S/s3_256x3.pt" "$S/s4_256x3_1ply.pt" "$S/s5_256x3_polish.pt" "${second[@]}")
echo "DMP release: $dmp" >&2
release "$dmp" dmp_256x3.pt
report dmp_256x3.pt gnubg-nn dmp 2301
report dmp_256x3.pt pubeval dmp 2301

release "$M/m1_cubeless_256x3.pt" cubeless_256x3.pt
report cubeless_256x3.pt gnubg-nn cubeless-money 2302
report cubeless_256x3.pt pubeval cubeless-money 2302

echo "cubeful candidates:" >&2
nojacoby=()   # m4 (cubeful without Jacoby, from m1), where strength_money.sh ran it
[ -f "$M/m4_cubeful_256x3_nojacoby.pt" ] && nojacoby=("$M/m4_cubeful_256x3_nojacoby.pt")
cubeful=$(best capped_meq_per_game "$M/m2_cubeful_256x3.pt" "$M/m3_cubeful_256x3_1ply.pt" "${nojacoby[@]}")
echo "cubeful release: $cubeful" >&2
release "$cubeful" cubeful_256x3.pt
report cubeful_256x3.pt gnubg-ext cubeful-money 2303
for m in dmp_256x3.pt cubeless_256x3.pt cubeful_256x3.pt; do decisions $m; done   # last: results.jsonl is tracked
echo "released; now add the rows to tools/results_tables.py and run it" >&2
