#!/usr/bin/env bash
# Rung 12 (phases/12_decode_rows) on a GPU, in about three minutes (H100/H200): run from the
# repository root with a build folder that holds build/attnladder and build/phases/*.so.
#   ci/tools/rung12_check.sh BUILD OUTDIR
# Writes under OUTDIR (created):
#   rung12.json, rung12.log   rungs 10, 11, 12 and cuDNN timed in rotation (paired ratios) at
#                             the batched-decode shapes, the zone between rung 11's split and
#                             a full GPU, and two prefill shapes that rung 12 passes to 11
#   correct.json, correct.log rung 12 checked against the oracle at ragged and edge decode
#                             shapes (uniform inputs) and at the sweep's ragged points
#                             (--ragged: peaked and outlier inputs too); timed briefly
#   memcheck.log              compute-sanitizer --tool memcheck on two small decode shapes
#                             (one split into pieces, one a piece a head)
#   abi_check.log             ci/abi_check.py at five hard shapes (where PyTorch is installed)
#   summary.txt               the table printed last
# Every step has its own time limit and the summary is printed whatever failed; a step that
# ran out of time leaves its *.partial.json, which the summary reads.
# exit 0 every step ran and passed, 1 a check failed or a step did not finish, 2 bad usage
set -u
build=${1:-} out=${2:-}
if [ -z "$build" ] || [ -z "$out" ] || [ ! -x "$build/attnladder" ]; then
  echo "usage: ci/tools/rung12_check.sh BUILD OUTDIR   (BUILD/attnladder must exist; from the repository root)" >&2
  exit 2
fi
[ -f "$build/phases/12_decode_rows.so" ] || { echo "rung12_check: no $build/phases/12_decode_rows.so" >&2; exit 2; }
mkdir -p "$out" || exit 2
al=$build/attnladder
impls=10_latency,11_split_keys,12_decode_rows,sdpa_cudnn
status=0
note() { echo "rung12_check: $*" | tee -a "$out/steps.txt"; }
: > "$out/steps.txt"

# 1. Timing: batched decode (B x H x Sq x Skv x D, causal), the zone rung 10 ran one block a SM
#    (1x64x1x2048x128, 16x8x1x8192x64, 4x32x4x16384x128 causal: 64-128 heads) and prefill.
timed=(8,32,1,4096,128,0 16,32,1,2048,64,0 32,16,1,1024,128,0 8,32,16,4096,128,1 4,8,1,16384,128,0
       16,8,1,8192,64,0 4,32,4,16384,128,1 1,64,1,2048,128,0 32,32,1,512,64,0
       4,32,1,1024,128,0 16,8,16,4096,64,1 32,8,1,2048,128,0 8,32,4,2048,128,1
       1,8,512,512,64,0 4,16,4096,4096,128,0)
args=()
for s in "${timed[@]}"; do args+=(--shape "$s"); done
t0=$(date +%s)
timeout 130 "$al" run --build "$build" --impl "$impls" "${args[@]}" --out "$out/rung12.json" \
  > "$out/rung12.log" 2>&1
rc=$?
note "timing: exit $rc in $(( $(date +%s) - t0 )) s (124: out of time)"
[ $rc = 0 ] || status=1

# 2. Correctness of rung 12 on hard shapes: ragged key counts (tails inside a 64-key tile),
#    seq_q 2..16, causal with seq_q > seq_kv (rows that see no key are zeros), one piece a
#    head (more heads than block slots) and many pieces; the sweep's ragged points add the
#    peaked and outlier inputs. Briefly timed, unpaired: correctness is what this step is for.
hard=(1,8,1,1000,64,0 3,5,7,777,128,1 1,8,1,1025,64,0 3,5,7,1777,128,1 2,3,16,4097,128,1
      2,4,2,1100,64,0 1,8,13,1500,128,1 128,8,1,777,128,0 600,2,16,10,64,1 300,1,3,1100,64,1
      1,4,5,100000,64,0 7,9,16,2049,128,0 64,33,1,1000,64,0 512,1,9,1023,128,1)
args=()
for s in "${hard[@]}"; do args+=(--shape "$s"); done
t0=$(date +%s)
timeout 50 "$al" run --build "$build" --impl 12_decode_rows,sdpa_cudnn --ragged "${args[@]}" --independent \
  --modes graph --sweep-modes graph --min-samples 3 --max-samples 5 --max-seconds 0.05 \
  --min-gpu-seconds 0 --no-ceilings --out "$out/correct.json" > "$out/correct.log" 2>&1
rc=$?
note "correctness: exit $rc in $(( $(date +%s) - t0 )) s"
[ $rc = 0 ] || status=1

# 3. compute-sanitizer memcheck: 2x8x3x1500x128 causal (6 pieces a head, the merge) and
#    300x1x3x1100x64 causal (one piece a head, more heads than block slots).
t0=$(date +%s)
if command -v compute-sanitizer > /dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  timeout 60 "$cs" --tool memcheck --error-exitcode 9 "$al" run --build "$build" --impl 12_decode_rows,sdpa_cudnn --independent \
    --shape 2,8,3,1500,128,1 --shape 300,1,3,1100,64,1 --modes graph --sweep-modes graph \
    --min-samples 1 --max-samples 2 --max-seconds 0.01 --min-gpu-seconds 0 --no-ceilings --no-gpu-ref \
    --out "$out/memcheck.json" > "$out/memcheck.log" 2>&1
  rc=$?
  note "memcheck: exit $rc in $(( $(date +%s) - t0 )) s ($(grep -h 'ERROR SUMMARY' "$out/memcheck.log" | tail -1))"
  [ $rc = 0 ] || status=1
else
  note "memcheck: compute-sanitizer not found (not run)"
  status=1
fi

# 4. The independent cross-check (ci/abi_check.py: ctypes and PyTorch's fp64 math, no harness
#    code) at a few of the hard shapes, where PyTorch is installed.
if timeout 15 python3 -c "import torch; assert torch.cuda.is_available()" > /dev/null 2>&1; then
  t0=$(date +%s)
  timeout 35 python3 ci/abi_check.py "$build/phases/12_decode_rows.so" --shapes 3,5,7,1777,128,1 \
    128,8,1,777,128,0 600,2,16,10,64,1 7,9,16,2049,128,0 1,8,1,1000,64,0 > "$out/abi_check.log" 2>&1
  rc=$?
  note "abi_check: exit $rc in $(( $(date +%s) - t0 )) s"
  [ $rc = 0 ] || status=1
else
  note "abi_check: no PyTorch with CUDA here (not run)"
fi

# 5. The summary, last.
python3 - "$out" > "$out/summary.txt" 2>&1 <<'EOF'
import gzip, json, os, sys
out = sys.argv[1]
def load(name):
    for f in (name + ".json", name + ".partial.json"):
        p = os.path.join(out, f)
        if os.path.exists(p):
            try:
                with (gzip.open if f.endswith(".gz") else open)(p, "rt") as fh:
                    return json.load(fh), f
            except (OSError, ValueError) as e:
                print(f"{f}: unreadable ({e})")
    return None, None
def key(s):
    return f"{s['batch']}x{s['heads']}x{s['seq_q']}x{s['seq_kv']}x{s['head_dim']}" + (" causal" if s['causal'] else "")
def ratio(r):
    d = (r or {}).get("derived") or {}
    x = d.get("ratio") or {}
    return x.get("median")
def ok(r):
    c = (r or {}).get("correctness") or {}
    return c.get("pass") is True and (c.get("after_timing") or {}).get("pass", True) is not False
d, f = load("rung12")
if d:
    print(f"timing ({f}; ratios paired with sdpa_cudnn; lower is better):")
    rows = {}
    for r in d.get("results", []):
        rows.setdefault(key(r["shape"]), {})[r["impl"]] = r
    print(f"| {'shape':26} | {'10':>6} | {'11':>6} | {'12':>6} | {'12/best below':>13} | 12 us   | ok | 12's path")
    for k, v in rows.items():
        r10, r11, r12 = (ratio(v.get(n)) for n in ("10_latency", "11_split_keys", "12_decode_rows"))
        below = [x for x in (r10, r11) if x]
        rel = r12 / min(below) if r12 and below else None
        t = ((v.get("12_decode_rows") or {}).get("timing") or {}).get("graph") or {}
        fmt = lambda x: f"{x:6.3f}" if x else "     -"
        flag = " SLOWER" if rel and rel > 1.01 else ""
        note = ((v.get("12_decode_rows") or {}).get("init_note") or (v.get("12_decode_rows") or {}).get("reason") or "")[:60]
        us = t.get("median_us")
        print(f"| {k:26} | {fmt(r10)} | {fmt(r11)} | {fmt(r12)} | {(f'{rel:13.3f}' if rel else '            -')} | "
              f"{(f'{us:7.2f}' if us else '      -')} | {'y' if ok(v.get('12_decode_rows')) else 'N'}  | {note}{flag}")
else:
    print("timing: no rung12.json (see rung12.log)")
d, f = load("correct")
if d:
    res = [r for r in d.get("results", []) if r["impl"] == "12_decode_rows"]
    checks = [c for c in d.get("input_checks", []) if c.get("impl") == "12_decode_rows"]
    bad = [key(r["shape"]) for r in res if r.get("supported") and not ok(r)]
    unsup = [key(r["shape"]) for r in res if not r.get("supported")]
    badc = [key(c["shape"]) + " " + c.get("inputs", "?") for c in checks if (c.get("correctness") or {}).get("pass") is not True]
    worst = max([((r.get("correctness") or {}).get("rel_l2") or 0) for r in res] or [0])
    print(f"correctness ({f}): rung 12 at {len(res)} shapes, {len(res) - len(bad) - len(unsup)} pass, "
          f"{len(bad)} FAIL {bad}, {len(unsup)} unsupported {unsup}; worst rel_l2 {worst:.2e}; "
          f"other inputs {len(checks) - len(badc)}/{len(checks)} pass {badc}")
else:
    print("correctness: no correct.json (see correct.log)")
EOF
[ $? = 0 ] || status=1
echo
cat "$out/steps.txt"
cat "$out/summary.txt"
exit $status
