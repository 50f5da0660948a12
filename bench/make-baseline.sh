#!/usr/bin/env bash
# A built copy of another commit, to measure against this tree in turns:
#
#   bash bench/make-baseline.sh 99c6eb2 /tmp/debrief-99c6eb2
#   DEBRIEF_BENCH_STEADY_BASELINE=/tmp/debrief-99c6eb2 DEBRIEF_BENCH_ONLY=steady npm run bench
#
# The commit's files (git archive: no worktree registered), this tree's node_modules hard-linked
# beside them (the workspace links are relative, so they resolve to the copy's own packages), and
# its TypeScript built with tsc -b. The dashboard is not built: ingest does not serve it.
set -euo pipefail
commit="${1:?usage: make-baseline.sh <commit> <dir>}"
dir="${2:?usage: make-baseline.sh <commit> <dir>}"
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -e "$dir" ]; then
  echo "$dir exists: remove it first" >&2
  exit 1
fi
mkdir -p "$dir"
git -C "$root" archive "$commit" | tar -x -C "$dir"
cp -al "$root/node_modules" "$dir/node_modules"
for modules in "$root"/packages/*/node_modules; do
  [ -d "$modules" ] || continue
  package="$(basename "$(dirname "$modules")")"
  cp -al "$modules" "$dir/packages/$package/node_modules"
done
(cd "$dir" && npx tsc -b && chmod +x packages/server/dist/cli.js)
echo "$dir: $commit built; its server is $dir/packages/server/dist/cli.js"
