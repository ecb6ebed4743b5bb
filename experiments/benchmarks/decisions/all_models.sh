#!/usr/bin/env bash
# Decision error of every checkpoint in best_models/ at 0- and 1-ply, of gnubg-nn at 0- and
# 1-ply and of pubeval, on one decision file: one decision_error.py JSON line per player in
# RESULTS, then a markdown table (mEq per decision, bootstrap 95% CI) on stdout.
#
#   bash experiments/benchmarks/decisions/all_models.sh [DATA] [RESULTS]
#
# DATA defaults to experiments/benchmarks/decisions/decisions.json, RESULTS to
# experiments/benchmarks/decisions/results.jsonl (replaced when every player is done).
# Runs only from a clean checkout: the published table names the commit of each line.
set -euo pipefail
cd "$(dirname "$0")/../../.."
. experiments/require_clean_tree.sh
require_clean_tree
DATA=${1:-experiments/benchmarks/decisions/decisions.json}
RESULTS=${2:-experiments/benchmarks/decisions/results.jsonl}
PYTHON=${PYTHON:-python}
tmp=$(mktemp "${RESULTS}.XXXXXX")
trap 'rm -f "$tmp"' EXIT
for player in best_models/*.pt gnubg-nn pubeval; do
    # a match model plays by the score, which single money decisions do not have
    if [[ $player == *.pt ]] && $PYTHON tools/describe_model.py "$player" --json | grep -q '"game_mode": "match"'; then
        continue
    fi
    for ply in 0 1; do
        if [[ $player == pubeval && $ply == 1 ]]; then continue; fi
        echo "$player $ply-ply" >&2
        OMP_NUM_THREADS=1 $PYTHON experiments/benchmarks/decision_error.py "$player" --ply "$ply" --data "$DATA" \
            | tail -n 1 >> "$tmp"
    done
done
mv "$tmp" "$RESULTS"
trap - EXIT
$PYTHON - "$RESULTS" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"decisions: {rows[0]['data']} (data commit {rows[0]['data_commit']}{', PILOT' if rows[0]['pilot'] else ''})")
print("| player | ply | plays by | overall mEq [95% CI] | contact | crashed | race | best move | outside |")
print("|---|---|---|---|---|---|---|---|---|")
for r in sorted(rows, key=lambda r: r["overall"]["meq"]):
    cls = [f"{c['meq']:.1f}" if c["decisions"] else "-" for c in r["by_class"].values()]
    o = r["overall"]
    print(f"| `{r['model'].replace('best_models/', '')}` | {r['ply']} | {r['plays_by']} | {o['meq']:.1f} "
          f"[{o['ci'][0]:.1f}, {o['ci'][1]:.1f}] | {' | '.join(cls)} | {o['best']:.0%} | {o['outside']:.0%} |")
EOF
