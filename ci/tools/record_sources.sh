#!/usr/bin/env bash
# The record of what one rung's or kernel's binary was built from, written by its compile
# recipe right after nvcc (Makefile): NAME.so.sha256 (the binary) and NAME.sources.sha256
# (its sources, paths from the repository root), both beside the binary.
# ci/checks/check_build_sources.sh compares them with the tree before a GPU session
# measures: a binary that make kept because its date was newer than its changed sources,
# or one copied in, is then named instead of measured under the tree's commit.
#   ci/tools/record_sources.sh BUILD/DIR/NAME.so DEPFILE SOURCE...   (from the repository root)
# The sources: the folder's own files as make lists them, and the files inside the tree
# that nvcc's dependency file names (another rung's headers a rung includes; nvcc writes
# the includes of its last .cu only, hence both). System and CUDA headers are left out.
set -eu
so=${1:?usage: record_sources.sh BUILD/DIR/NAME.so DEPFILE SOURCE...}
dep=${2:?usage: record_sources.sh BUILD/DIR/NAME.so DEPFILE SOURCE...}
shift 2
[ $# -gt 0 ] || { echo "record_sources: no sources for $so" >&2; exit 2; }
dir=$(dirname "$so") name=$(basename "$so" .so)
from_dep() {
  [ -f "$dep" ] || return 0
  sed 's/\\$//' "$dep" | tr ' ' '\n' | grep -E '^(phases|kernels|harness)/' | grep -v ':$' | grep -v '\.\.' || true
}
# the binary by its name alone: the folder is carried to GPU machines under other names
(cd "$dir" && sha256sum "$name.so") > "$dir/$name.so.sha256.tmp"
{ printf '%s\n' "$@"; from_dep; } | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done \
  | xargs sha256sum > "$dir/$name.sources.sha256.tmp"
mv "$dir/$name.so.sha256.tmp" "$dir/$name.so.sha256"
mv "$dir/$name.sources.sha256.tmp" "$dir/$name.sources.sha256"
