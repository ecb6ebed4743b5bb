#!/usr/bin/env bash
# Run one training stage so that running it again continues it where it stopped.
#   run_stage.sh SCRIPT OUT.pt FROM.pt|- [flags...]
# First run: SCRIPT --resume FROM.pt --save OUT.pt flags (or from scratch when FROM is -).
# Later runs: while OUT.pt holds an unfinished stage, SCRIPT --resume OUT.pt --save OUT.pt flags
# (the same flags, so the episode count, LR schedule and optimizer state carry on);
# once it is finished, nothing is done.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
script=$1 out=$2 from=$3
shift 3
if [ -f "$out" ]; then
  state=$($PY - "$out" <<'PYEOF'
import sys
from tdbg.net.model import load_checkpoint
_, meta, ts = load_checkpoint(sys.argv[1])
st = (ts or {}).get("stage") or {}
done, total = st.get("episodes_done", 0), st.get("settings", {}).get("num_episodes", 0)
print("finished" if total and done >= total else "unfinished")
PYEOF
)
  if [ "$state" = finished ]; then echo "$out: stage finished"; exit 0; fi
  echo "$out: continuing"
  # warm starts and --new-stage only apply when a stage begins; the checkpoint already holds their result
  args=()
  skip=0
  for a in "$@"; do
    if [ $skip = 1 ]; then skip=0; continue; fi
    case $a in
      --warm-start-equity|--warm-start-cubeful|--warm-start-match|--match-head) skip=1 ;;  # and the head it set
      --new-stage) ;;  # it began the stage; continuing must not begin another
      *) args+=("$a") ;;
    esac
  done
  exec $PY "$script" --resume "$out" --save "$out" "${args[@]}"
fi
if [ "$from" = - ]; then
  exec $PY "$script" --save "$out" "$@"
fi
case " $* " in
  *" --warm-start-equity "*|*" --warm-start-cubeful "*|*" --warm-start-match "*) exec $PY "$script" --save "$out" "$@" ;;
esac
exec $PY "$script" --resume "$from" --save "$out" "$@"
