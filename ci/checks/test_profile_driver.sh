#!/usr/bin/env bash
# `attnladder profile` without a GPU (`make test`), through a stand-in for ncu that prints
# the raw CSV page a real one would for the fixture rungs it is asked about:
#  - one profiled process a shape for every implementation that supports it, each
#    implementation's kernels told apart by the launch floor's marker kernel (ncu_csv.h),
#    and the evidence's profile rows the same as one process an implementation would give;
#  - a process whose markers are not one per implementation (a lost row) and one that
#    exits non-zero each fall back to one process an implementation, rows unchanged.
#   ci/checks/test_profile_driver.sh [BUILD]
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${1:-build}
bin=$build/attnladder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0
note() { echo "test_profile_driver: $*" >&2; fail=1; }

# a build folder of two fixture rungs (no GPU code) and the launch floor's object
mkdir -p "$tmp/build/phases" "$tmp/build/kernels"
cp "$build"/fixtures/paths/base/phases/*.so "$tmp/build/phases/" || exit 2
cp "$build/kernels/launch_floor.so" "$tmp/build/kernels/" || exit 2
run=$(ls evidence/nvidia-h100-80gb-hbm3/2*.json.gz | tail -1)
# the run's own profile rows dropped: the rows compared are the ones this test adds. Cut
# to the two profiled shapes' rows: profile reads the run it writes into only as a run the
# reader accepts, and each of the three cases read and rewrote all 738 rows (10.7 MB) and
# parsed them again: 12.4 -> 4.6 CPU s. Planted in measure/ncu_csv.c (a marked process's
# kernels split whatever its count of markers): failed on the cut run (drop: the second
# rung's kernels given to the first, no fallback said); and in cmd/profile.c (never one
# process a shape for two rungs): failed every case.
gunzip -c "$run" | python3 -c '
import json, sys
d = json.load(sys.stdin); d.pop("profile", None)
shapes = {(1, 8, 512, 512, 64, 0), (4, 16, 4096, 4096, 128, 1)}
for f in ("results", "input_checks", "reference_checks"):
    d[f] = [r for r in d[f] if tuple(int(r["shape"][k]) for k in
            ("batch", "heads", "seq_q", "seq_kv", "head_dim", "causal")) in shapes]
if not d["results"]: sys.exit("test_profile_driver: the run has neither profiled shape")
d["progress"] = {"points": len(shapes), "done": len(shapes)}
json.dump(d, sys.stdout)' > "$tmp/base.json" || exit 2

# The stand-in: --version; else the page for --impl's list at --shape, a marker before each
# implementation's kernel when --marked is given. MODE=drop loses the second marker row,
# MODE=fail exits 1 for a marked process. Every call is counted in $tmp/calls.
cat > "$tmp/ncu" <<'SH'
#!/usr/bin/env bash
[ "$1" = --version ] && { echo "stand-in ncu"; exit 0; }
impls= shape= marked=0
while [ $# -gt 0 ]; do
  case $1 in --impl) impls=$2; shift;; --shape) shape=$2; shift;; --marked) marked=1;; esac; shift
done
echo "$marked $impls $shape" >> "$CALLS"
[ $marked = 1 ] && [ "$MODE" = fail ] && { echo "==ERROR== the target failed"; exit 1; }
echo '==PROF== Connected to process 1'
echo '"ID","Kernel Name","launch__grid_size","launch__block_size","launch__registers_per_thread"'
echo '"","","","","register/thread"'
id=0 n=0
for impl in ${impls//,/ }; do
  n=$((n + 1))
  if [ $marked = 1 ] && ! { [ "$MODE" = drop ] && [ $n = 2 ]; }; then
    echo "\"$id\",\"(anonymous namespace)::empty_kernel()\",\"1\",\"32\",\"16\""; id=$((id + 1))
  fi
  echo "\"$id\",\"kernel_of_${impl}(Params)\",\"132\",\"256\",\"${#impl}\""; id=$((id + 1))
done
SH
chmod +x "$tmp/ncu"

# profile MODE: into a fresh copy of the run; prints the rows as "impl shape kernel regs"
profile() {
  cp "$tmp/base.json" "$tmp/into.json"
  : > "$tmp/calls"
  CALLS=$tmp/calls MODE=$1 "$bin" profile --build "$tmp/build" --into "$tmp/into.json" --ncu "$tmp/ncu" \
    --impl 01_fixture_one_path,07_fixture_paths --shape 1,8,512,64,0 --shape 4,16,4096,128,1 \
    > "$tmp/out.txt" 2>&1 || { note "$1: profile exited $?: $(cat "$tmp/out.txt")"; return 1; }
  python3 - "$tmp/into.json" > "$tmp/rows_$1.txt" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1])).get("profile", []):
    s = p["shape"]
    for k in p["kernels"]:
        print(p["impl"], "x".join(str(s[f]) for f in ("batch", "heads", "seq_q", "seq_kv", "head_dim")),
              s.get("causal"), k["kernel"], k["metrics"].get("launch__registers_per_thread"))
PY
}

cases=$((cases + 1))
if profile ok; then
  want="01_fixture_one_path 1x8x512x512x64 0 kernel_of_01_fixture_one_path(Params) 19.0
01_fixture_one_path 4x16x4096x4096x128 1 kernel_of_01_fixture_one_path(Params) 19.0
07_fixture_paths 1x8x512x512x64 0 kernel_of_07_fixture_paths(Params) 16.0
07_fixture_paths 4x16x4096x4096x128 1 kernel_of_07_fixture_paths(Params) 16.0"
  [ "$(cat "$tmp/rows_ok.txt")" = "$want" ] || note "one process a shape: rows $(cat "$tmp/rows_ok.txt")"
  [ "$(wc -l < "$tmp/calls")" = 2 ] && ! grep -q '^0 ' "$tmp/calls" \
    || note "one process a shape: ncu ran as $(cat "$tmp/calls")"
fi
for mode in drop fail; do
  cases=$((cases + 1))
  profile $mode || continue
  cmp -s "$tmp/rows_ok.txt" "$tmp/rows_$mode.txt" || note "$mode: rows differ: $(cat "$tmp/rows_$mode.txt")"
  # each marked attempt (full and short metric lists) then one process an implementation
  [ "$(grep -c '^1 ' "$tmp/calls")" = 4 ] && [ "$(grep -c '^0 ' "$tmp/calls")" = 4 ] \
    || note "$mode: ncu ran as $(cat "$tmp/calls")"
  grep -q "one process each" "$tmp/out.txt" || note "$mode: the fallback is not said: $(cat "$tmp/out.txt")"
done
[ $fail = 0 ] && echo "test_profile_driver: $cases cases passed"
exit $fail
