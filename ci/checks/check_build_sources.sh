#!/usr/bin/env bash
# Before a GPU session measures a build folder: is every rung and kernel binary in it the one
# the tree's sources build? Each binary's record (ci/tools/record_sources.sh, written by
# its compile recipe) must name this very binary (its SHA-256), and the sources it lists
# must be the tree's files, unchanged, with none added since. Run from the repository root.
#   ci/checks/check_build_sources.sh BUILD
# exit 0 all built from the tree, 1 some not (each named, with its cause), 2 bad input
set -u
build=${1:-}
[ -n "$build" ] || { echo "usage: check_build_sources.sh BUILD   (from the repository root)" >&2; exit 2; }
[ -d "$build" ] || { echo "check_build_sources: '$build' is not a build folder" >&2; exit 2; }
bad=0 n=0
say() { echo "check_build_sources: $*"; }

# the sources a recipe compiles, as the Makefile's prerequisites list them (its phase and
# kernel rules): the folder's .cu, .cuh, .h and .c files and the ABI header
expected_sources() {
  local f
  for f in "$1"/*.cu "$1"/*.cuh "$1"/*.h "$1"/*.c; do [ -f "$f" ] && echo "$f"; done
  echo harness/include/attn_phase.h
}

# check_one SO KIND: 0 when SO is what the tree builds, else 1 with the cause said
check_one() {
  local so=$1 kind=$2 name dir rec_so rec_src line hash path ok=0
  name=$(basename "$so" .so) dir=$(dirname "$so")
  rec_so=$dir/$name.so.sha256 rec_src=$dir/$name.sources.sha256
  if [ ! -f "$rec_so" ] || [ ! -f "$rec_src" ]; then
    say "no record of the sources $so was built from ($name.so.sha256, $name.sources.sha256): built before records were kept, or copied in; rebuild it (remove it, then make build)"
    return 1
  fi
  # the records are read, never run: each line a hash and a plain path inside the tree
  if ! grep -qxE "[0-9a-f]{64}  $name\.so" "$rec_so" || [ "$(wc -l < "$rec_so")" != 1 ]; then
    say "$rec_so is not a record of $name.so (one line: SHA-256, two spaces, $name.so); rebuild it (remove it, then make build)"
    return 1
  fi
  if grep -vqxE "[0-9a-f]{64}  (phases|kernels|harness)(/[A-Za-z0-9_][A-Za-z0-9_.-]*)+" "$rec_src"; then
    say "$rec_src has a line that is not a SHA-256 and a file of the tree's phases/, kernels/ or harness/; rebuild it (remove it, then make build)"
    return 1
  fi
  # one sha256sum for the binary and every recorded source there is (the paths are plain,
  # checked above), not a sha256sum and a cut each: the 15 binaries of a build 8.0 -> 2.0
  # CPU s, test_build_sources.sh 7.0 -> 3.5
  local -a recorded=() present=()
  local -A want=() now=() listed=()
  while read -r hash path; do
    recorded+=("$path"); want[$path]=$hash; listed[$path]=1
    [ -f "$path" ] && present+=("$path")
  done < "$rec_src"
  while read -r hash path; do now[$path]=$hash; done < <(sha256sum -- "$so" "${present[@]}")
  read -r hash _ < "$rec_so"
  if [ "$hash" != "${now[$so]}" ]; then
    say "$so is not the binary built with its record (replaced or copied in after the build); rebuild it (remove it, then make build)"
    ok=1
  fi
  for path in "${recorded[@]}"; do
    if [ ! -f "$path" ]; then
      say "$path, in the record of $so, is no longer in the tree; rebuild it (remove it, then make build)"; ok=1
    elif [ "${want[$path]}" != "${now[$path]}" ]; then
      say "$path changed since $so was built; rebuild it (remove it, then make build)"; ok=1
    fi
  done
  while read -r path; do
    [ -n "${listed[$path]:-}" ] \
      || { say "$path is not in the record of $so (added since it was built); rebuild it (remove it, then make build)"; ok=1; }
  done < <(expected_sources "$kind/$name")
  return $ok
}

for kind in phases kernels; do
  for so in "$build/$kind"/*.so; do
    [ -f "$so" ] || continue
    n=$((n + 1))
    check_one "$so" "$kind" || bad=$((bad + 1))
  done
done
[ $n -gt 0 ] || { say "no phase or kernel binaries in $build/phases or $build/kernels"; exit 2; }
if [ $bad -gt 0 ]; then
  say "$bad of $n binaries are not what the tree's sources build; rebuild them (make build) before measuring"
  exit 1
fi
say "$n binaries built from the tree's sources"
