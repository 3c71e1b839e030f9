#!/usr/bin/env bash
# The drift gate on every committed complete run of every GPU with an accepted set, each
# gated against that set (a member against the others), computed once for `make test`
# and read by test_drift.sh (no false alarm) and study_summary.py (the figures):
#   ci/checks/drift_runs.sh BIN OUT_DIR [JOBS]
# Writes OUT_DIR/<gpu>/<run>.json (gate --json) and .txt (its table and exit status; <run>:
# the run's name without .json or .json.gz), then OUT_DIR/index.txt ("<gpu> <run file>
# <exit status>" per run, sorted), last, so that an index exists only for a complete set.
# The runs, plain or compressed, are gated JOBS at a time (default 2).
set -u
bin=${1:-}; out=${2:-}; jobs=${3:-2}
[ -x "$bin" ] && [ -n "$out" ] || { echo "usage: ci/checks/drift_runs.sh BIN OUT_DIR [JOBS]" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2
rm -rf "$out"; mkdir -p "$out"
list=$out/runs.txt
for acc in evidence/*/accepted.txt; do
  [ -e "$acc" ] || continue
  for run in "$(dirname "$acc")"/2*.json "$(dirname "$acc")"/2*.json.gz; do
    case "$run" in *.partial.json|*.partial.json.gz) continue ;; esac
    [ -e "$run" ] && echo "$run"
  done
done | sort > "$list"
one() {   # one RUN: gate it, keep the table and the exit status
  local run=$1 slug stem; slug=$(basename "$(dirname "$run")"); stem=$(basename "${run%.gz}" .json)
  mkdir -p "$out/$slug"
  "$bin" gate "$run" --against accepted --json "$out/$slug/$stem.json" > "$out/$slug/$stem.txt" 2>&1
  echo "$slug $(basename "$run") $?"
}
export -f one; export bin out
xargs -r -P "$jobs" -I{} bash -c 'one "$@"' _ {} < "$list" | sort > "$out/index.tmp" || exit 1
[ "$(wc -l < "$out/index.tmp")" = "$(wc -l < "$list")" ] || { echo "drift_runs: not every run was gated" >&2; exit 1; }
mv "$out/index.tmp" "$out/index.txt"
echo "drift_runs: $(wc -l < "$out/index.txt") runs gated against their accepted sets ($out)"
