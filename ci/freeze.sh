#!/usr/bin/env bash
# Freezing: a frozen phase's compile closure (every file in its directory plus every
# header of this repository that its sources include, from `nvcc -M`) is pinned by
# sha256 in ci/frozen/<phase>.sha256.
#
#   ci/freeze.sh NAME...    write (or rewrite) the manifest of each phase: an explicit,
#                           reviewed change; say why in the commit
#   ci/freeze.sh --check    recompute every manifest; exit 1 on any difference
#                           (a changed, missing or newly included file)
set -u
cd "$(dirname "$0")/.."
CUDA=${CUDA:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA/bin/nvcc}
INCLUDES="-Iharness -Iharness/include -Ikernels/reference -I$CUDA/include"

# The closure of one phase, one repo-relative path per line, sorted.
closure() {
  local dir=phases/$1
  [ -d "$dir" ] || { echo "freeze: no phase directory $dir" >&2; return 2; }
  {
    find "$dir" -type f ! -name '*.o' ! -name '*.so'
    for src in "$dir"/*.cu; do
      [ -e "$src" ] || continue
      "$NVCC" -M -std=c++17 $INCLUDES "$src" 2>/dev/null | sed '1s/^[^:]*://' | tr ' \\' '\n\n'
    done
  } | sed 's|^\./||' | grep -v '^$' | grep -v '^/' | sort -u
}

manifest() { closure "$1" | xargs -r sha256sum; }

if [ "${1:-}" = "--check" ]; then
  fail=0; n=0
  for m in ci/frozen/*.sha256; do
    [ -e "$m" ] || continue
    name=$(basename "$m" .sha256); n=$((n + 1))
    now=$(manifest "$name") || { fail=1; continue; }
    if ! diff -u "$m" <(printf '%s\n' "$now") > /tmp/freeze_diff.$$ 2>&1; then
      echo "freeze: phase $name is frozen and its compile closure changed:" >&2
      grep '^[-+][0-9a-f]' /tmp/freeze_diff.$$ | sed 's/^/    /' >&2
      echo "  improve by adding a new phase or header; unfreezing is an explicit change to $m" >&2
      fail=1
    fi
    rm -f /tmp/freeze_diff.$$
  done
  [ $fail = 0 ] && echo "freeze: $n frozen phases unchanged"
  exit $fail
fi

[ $# -gt 0 ] || { echo "usage: ci/freeze.sh NAME... | --check" >&2; exit 2; }
for name in "$@"; do
  m=ci/frozen/$name.sha256
  manifest "$name" > "$m.tmp" && [ -s "$m.tmp" ] && mv "$m.tmp" "$m" \
    || { rm -f "$m.tmp"; echo "freeze: could not compute the closure of $name" >&2; exit 2; }
  echo "freeze: $name pinned ($(wc -l < "$m") files) in $m"
done
