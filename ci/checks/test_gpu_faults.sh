#!/usr/bin/env bash
# Faults that need the GPU machine (run there, after make build elsewhere):
#  1. an interrupted run keeps what it measured as *.partial.json, exits 130, and the gate
#     leaves the partial file out unless asked (show/report: ci/checks/test_cli.sh);
#  2. a shape that cannot fit in the free device memory is recorded as unsupported with
#     the bytes it needs, and the rest of the run goes on (memory held by another process);
#  3. `ab` names the option that left a changed rung's sweep out (--shape, --no-paths,
#     --headline-only, --no-sweep), and times every sweep point with none of them.
set -u
build=${1:-build}
bin=$build/attnladder
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "gpu_faults: ok   $1"; else echo "gpu_faults: FAIL $1" >&2; fail=1; fi; }

timeout -s INT --preserve-status 25 "$bin" run --build "$build" --sweep --no-ceilings \
  --evidence "$tmp/ev" > "$tmp/int.out" 2> "$tmp/int.err"; st=$?
part=$(ls "$tmp"/ev/*/*.partial.json 2>/dev/null | head -1)
check "SIGINT exits 130 (got $st)" '[ "$st" = 130 ]'
check "SIGINT leaves a partial evidence file" '[ -n "$part" ]'
check "no complete evidence file from the interrupted run" '[ -z "$(ls "$tmp"/ev/*/*Z_*[0-9a-f].json 2>/dev/null | grep -v partial)" ]'
check "the partial file is valid and says partial" '"$bin" show "$part" > /dev/null && grep -q "\"partial\": true" "$part"'
"$bin" gate "$part" > "$tmp/gate.out" 2>&1; gst=$?
check "gate refuses a partial run (exit $gst)" '[ "$gst" = 2 ] && grep -q partial "$tmp/gate.out"'
"$bin" gate "$part" --include-partial > /dev/null 2>&1; gst=$?
check "gate reads it with --include-partial (exit $gst, not 2)" '[ "$gst" != 2 ]'

python3 - <<'PY' &
import time, torch
free, total = torch.cuda.mem_get_info()
hold = torch.empty(free - 3 * 2**30, dtype=torch.uint8, device="cuda")
open("/tmp/gpu_faults_held", "w").write(str(hold.numel()))
time.sleep(40)
PY
holder=$!
for _ in $(seq 1 60); do [ -e /tmp/gpu_faults_held ] && break; sleep 0.5; done
"$bin" run --build "$build" --impl 06_tiling --shape 16,16,16384,128 --shape 1,8,512,64 \
  --no-ceilings --modes graph --evidence "$tmp/ev2" > "$tmp/oom.out" 2>&1; ost=$?
kill $holder 2>/dev/null; wait $holder 2>/dev/null; rm -f /tmp/gpu_faults_held
check "a shape beyond free memory does not stop the run (exit $ost)" '[ "$ost" = 0 ]'
check "it is reported with the bytes needed" 'grep -q "out of device memory: Q, K, V and O need" "$tmp/oom.out"'
check "the next shape is still measured" 'grep -q "06_tiling .*1x8x512x64 .*ok" "$tmp/oom.out"'
grep -E "out of device memory|1x8x512x64" "$tmp/oom.out" | head -3
# 3: a head whose 10_latency record says one of its own sources changed (the shared objects
# the same files): ab says the sweep is due, and which option left it out
mkdir -p "$tmp/head/phases"
for f in "$build"/phases/*; do ln -s "$(readlink -f "$f")" "$tmp/head/phases/"; done
rec=$tmp/head/phases/10_latency.sources.sha256
rm -f "$rec"
awk '$2 ~ /^phases\/10_latency\// && !done { $1 = "0" substr($1, 2); done = 1 } { print $1 "  " $2 }' \
  "$build/phases/10_latency.sources.sha256" > "$rec"
abq() { "$bin" ab --base "$build" --head "$tmp/head" --impl 10_latency --min-samples 5 --max-samples 10 \
  --min-gpu-seconds 0 "$@" > "$tmp/ab.out" 2>&1; }
for opt in "--shape 1,8,512,64" "--no-paths" "--headline-only" "--no-sweep"; do
  abq $opt; ast=$?
  check "ab $opt: exit $ast, the sweep left out, named (${opt%% *})" \
    '[ "$ast" != 2 ] && grep -q "^10_latency .*changed: .*sweep left out (${opt%% *})" "$tmp/ab.out"'
done
"$bin" ab --base "$build" --head "$tmp/head" --impl 10_latency --list-paths > "$tmp/ab.out" 2>&1
check "ab with none of them: every sweep point" 'grep -q "^10_latency .*changed: .*timed at every sweep point" "$tmp/ab.out"'
grep "changed:" "$tmp/ab.out" | head -2
exit $fail
