# Sourced by the scripts that write published (release) figures: their result files name the
# commit they were made at, so they refuse to start from a checkout with uncommitted changes to
# tracked files (the same test as the "-dirty" suffix in result headers; untracked files do not
# count).  One `error:` line and exit 2; nothing has been written by then.
#   . experiments/require_clean_tree.sh; require_clean_tree
require_clean_tree() {
  local changed
  if ! changed=$(git status --porcelain --untracked-files=no 2>/dev/null); then
    echo "error: $(basename "$0") must run in a git checkout: its result files name the commit they were made at" >&2
    exit 2
  fi
  if [ -n "$changed" ]; then
    echo "error: $(basename "$0") writes release figures that name their commit; the tree has uncommitted changes to $(printf '%s\n' "$changed" | wc -l | tr -d ' ') tracked file(s) (git status): commit or stash them first" >&2
    exit 2
  fi
}
