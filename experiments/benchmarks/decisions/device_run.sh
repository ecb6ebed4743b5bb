#!/usr/bin/env bash
# Make the decision benchmark's data on a many-core machine without network access:
# install the carried wheels (cffi, pycparser, setuptools, gnubg-nn for CPython 3.12, in
# .whl/ at the repository root, not committed), build the C engine, then run
# make_decisions.py over WORKERS processes with a hard time budget (finished chunks are
# kept; a chunk that cannot finish in time is not started or is dropped), writing
# $OUT/decisions.json, $OUT/make_decisions.log and the finished chunks as
# $OUT/decision_chunks.tar.gz, and print a summary.  To resume on a fresh machine, carry
# that archive back as .whl/decision_chunks.tar.gz: its chunks are kept, the rest made.
#
#   OUT=/some/folder COMMIT=abc1234 bash experiments/benchmarks/decisions/device_run.sh
#
# Settings (environment): WORKERS (15), DECISIONS (1200), TOTAL_BUDGET (seconds for the
# whole script, setup included: 440), SEED (0), PYTHON (python3).
set -euo pipefail
cd "$(dirname "$0")/../../.."
: "${OUT:?set OUT to the output folder}"
WORKERS=${WORKERS:-15}
DECISIONS=${DECISIONS:-1200}
TOTAL_BUDGET=${TOTAL_BUDGET:-440}
SEED=${SEED:-0}
PYTHON=${PYTHON:-python3}
start=$(date +%s)
mkdir -p "$OUT"
echo "machine: $(nproc) cores, $($PYTHON --version 2>&1), $(uname -m), commit ${COMMIT:-unknown}"

if ! ls .whl/*.whl > /dev/null 2>&1; then
    echo "error: no wheels in .whl/ (carry .whl: cffi, pycparser, setuptools, gnubg-nn for cp312)" >&2
    exit 2
fi
if $PYTHON -m pip --version > /dev/null 2>&1; then
    $PYTHON -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
else  # no pip: a wheel is a zip of the installed files
    for w in .whl/*.whl; do $PYTHON -m zipfile -e "$w" /tmp/site; done
fi
export PYTHONPATH=/tmp/site
$PYTHON c_engine/build_cffi.py > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; echo "error: C engine build failed" >&2; exit 1; }
$PYTHON -c "import gnubg_nn, numpy, torch, tqdm; from tdbg.game import _bgcore; print('gnubg-nn, numpy, torch, tqdm, C engine: ok')"

mkdir -p /tmp/decision_chunks
if [[ -f .whl/decision_chunks.tar.gz ]]; then
    tar -xzf .whl/decision_chunks.tar.gz -C /tmp
    echo "resuming: $(ls /tmp/decision_chunks | wc -l) chunks carried in"
fi
left=$(( TOTAL_BUDGET - ($(date +%s) - start) - 15 ))  # 15 s for the merge and the summary
if (( left < 60 )); then
    echo "error: only ${left} s left after setup" >&2
    exit 1
fi
echo "generating up to $DECISIONS decisions on $WORKERS workers within ${left} s"
OMP_NUM_THREADS=1 $PYTHON experiments/benchmarks/decisions/make_decisions.py --out "$OUT/decisions.json" \
    --chunks /tmp/decision_chunks --decisions "$DECISIONS" --seed "$SEED" --workers "$WORKERS" \
    --time-budget "$left" --quiet ${COMMIT:+--commit "$COMMIT"} 2>&1 | tee "$OUT/make_decisions.log"
tar -czf "$OUT/decision_chunks.tar.gz" -C /tmp decision_chunks
echo "total: $(( $(date +%s) - start )) s; $(du -h "$OUT/decisions.json" | cut -f1) in $OUT/decisions.json"
