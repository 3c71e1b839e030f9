#!/usr/bin/env bash
# The GPU study tools on a machine without a GPU (`make test`): each one measures nothing,
# says so and exits 3 (the harness's "no GPU" status), whether nvidia-smi is missing or
# fails; a bad setting exits 2 naming the accepted values before anything else.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0
note() { echo "test_study_tools: $*" >&2; fail=1; }
. "$(dirname "$0")/expect.sh"
# a PATH with no nvidia-smi at all, and one whose nvidia-smi fails
mkdir -p "$tmp/none" "$tmp/failing"
for t in bash env mktemp rm mkdir cp date seq cat tr sed grep head; do
  p=$(command -v "$t") && ln -s "$p" "$tmp/none/$t"
done
# the interpreter itself, not a version manager's shim (which needs its own PATH)
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/none/python3"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' > "$tmp/failing/nvidia-smi"
chmod +x "$tmp/failing/nvidia-smi"
for env in none failing; do
  P=$tmp/none; [ "$env" = failing ] && P=$tmp/failing:$tmp/none
  expect "ab_planted.py ($env)" 3 "no GPU" env PATH="$P" python3 ci/tools/ab_planted.py "$tmp/o"
  expect "ab_study.sh ($env)" 3 "no GPU" env PATH="$P" bash ci/tools/ab_study.sh "$tmp/o"
  expect "paired_ratio_study.sh ($env)" 3 "no GPU" env PATH="$P" bash ci/tools/paired_ratio_study.sh "$tmp/o"
done
expect "ab_planted.py PLANT_BASE=bogus" 2 "PLANT_BASE must be" env PLANT_BASE=bogus python3 ci/tools/ab_planted.py "$tmp/o"
expect "ab_planted.py SERIES=bogus" 2 "SERIES must name" env SERIES=bogus python3 ci/tools/ab_planted.py "$tmp/o"
expect "ab_planted.py SERIES=paths without shapes" 2 "PATHS_SHAPES" env SERIES=paths python3 ci/tools/ab_planted.py "$tmp/o"
expect "ab_planted.py SERIES=paths, a bad shape" 2 "PATHS_SHAPES" env SERIES=paths PATHS_SHAPES="4,32,x,64,0" python3 ci/tools/ab_planted.py "$tmp/o"
[ -e "$tmp/o" ] && [ -n "$(ls -A "$tmp/o" 2>/dev/null)" ] && note "a tool without a GPU wrote into its output directory: $(ls "$tmp/o")"
[ "$fail" = 0 ] && echo "test_study_tools: $cases cases passed"
exit "$fail"
