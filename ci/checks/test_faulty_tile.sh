#!/usr/bin/env bash
# GPU machine: the correctness check against a faulty implementation. Runs the standard
# sweep with the test-only 99_faulty_skip_tile (06_tiling with one interior query tile
# wrong) and the baseline from a scratch build directory, then checks that every point
# where it is wrong failed and every other passed (check_faulty_tile.py). Writes
# OUT/faulty_skip_tile_<stamp>.json (OUT: first argument, default evidence/<gpu>).
set -u
build=${BUILD:-build}
bin=$build/attnladder
nvidia-smi -L >/dev/null 2>&1 || { echo "test_faulty_tile: no GPU; nothing checked"; exit 3; }
[ -e "$build/testing/faulty_skip_tile.so" ] || { echo "test_faulty_tile: build $build/testing/faulty_skip_tile.so first (make test-switches)" >&2; exit 2; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/phases" "$scratch/kernels" "$scratch/testing"
cp "$build/phases/06_tiling.so" "$build/phases/06_tiling.ptxas.txt" "$scratch/phases/"
cp "$build/testing/faulty_skip_tile.so" "$scratch/phases/99_faulty_skip_tile.so"
cp "$build/kernels/sdpa_cudnn.so" "$scratch/kernels/"
cp "$build/gitinfo" "$scratch/" 2>/dev/null
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${1:-}
if [ -z "$out" ]; then
  slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
  out=evidence/$slug/studies/faulty
fi
mkdir -p "$out"
file=$out/faulty_skip_tile_$stamp.json
ATTN_FAULTY_BASE=$scratch/phases/06_tiling.so "$bin" run --build "$scratch" --sweep \
  --impl 99_faulty_skip_tile,sdpa_cudnn --modes graph --sweep-modes graph --max-seconds 0.2 \
  --no-ceilings --out "$file" > "$out/faulty_skip_tile_$stamp.log" 2>&1
echo "test_faulty_tile: the run exited $? (1 expected: the faulty implementation fails its checks)"
# a sweep's run is large (samples): stored xz-compressed, as every large study is
# (evidence/README.md); check_faulty_tile.py reads either
[ -e "$file" ] && python3 -c 'import sys; sys.path.insert(0, "ci/tools"); import evidence_files as e; e.compress_if_large(sys.argv[1])' "$file" \
  && [ -e "$file.xz" ] && file=$file.xz
python3 ci/checks/check_faulty_tile.py "$file"
