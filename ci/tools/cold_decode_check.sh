#!/usr/bin/env bash
# GPU machine: the memory-bound points timed on inputs cold in L2 (harness/measure/
# l2_copies.h), checked against the measured ceilings: a cold figure against the read
# stream's (a decode step only reads K and V; a copy writes as much as it reads), where the
# run measured one, else the copy's. One process of `attnladder run`: rungs 11 and 12 and
# the cuDNN baseline (every ratio paired, all timed on the same copies) at decode shapes
# whose K and V fit in L2 (1x32x1x4096x64: 33 MB, the one the H100 reference ran at 3,536
# GB/s against a 2,993 ceiling; 1x32x1x4096x128: 67 MB; 1x8x1x1024x128: 4 MB; the batched
# 4x32x1x1024x128: 67 MB) and batched ones cold by size (8x32x1x4096x128: 537 MB, and
# 16x8x1x8192x64, 32x32x1x1024x64, 32x8x1x2048x128, 4x8x1x16384x128), with the ceilings
# measured.
# Writes, under OUT (the first argument, created):
#   cold.json     the run (results[].timing.l2 says how each point's inputs were kept cold)
#   cold.log      its progress lines ("graph ... l2 rotated x5")
#   summary.tsv   per result: shape, impl, l2 state, copies, median us, GB/s, the copy
#                 and read ceilings, GB/s over each, the paired ratio to the baseline
# Exits 1 when a GB/s figure passes its ceiling by more than 1% or a memory-bound point
# that fits three L2s was not timed rotated; 3 without a GPU.
#   BUILD=build bash ci/tools/cold_decode_check.sh OUT
set -u
build=${BUILD:-build}
out=${1:?usage: cold_decode_check.sh OUT}
nvidia-smi -L >/dev/null 2>&1 || { echo "cold_decode_check: no GPU; nothing measured"; exit 3; }
mkdir -p "$out" || exit 2
shapes="--shape 1,32,1,4096,64,0 --shape 1,32,1,4096,128,0 --shape 1,8,1,1024,128,0 --shape 4,32,1,1024,128,0"
shapes="$shapes --shape 8,32,1,4096,128,0 --shape 16,8,1,8192,64,0 --shape 32,32,1,1024,64,0"
shapes="$shapes --shape 32,8,1,2048,128,0 --shape 4,8,1,16384,128,0"
# shellcheck disable=SC2086
"$build/attnladder" run --build "$build" --impl sdpa_cudnn,11_split_keys,12_decode_rows $shapes --modes graph \
  --sweep-modes graph --out "$out/cold.json" 2> "$out/cold.log" || {
  tail -20 "$out/cold.log"; echo "cold_decode_check: the run failed (log: $out/cold.log)"; exit 1; }
python3 - "$out/cold.json" "$out/summary.tsv" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
copy = run["ceilings"]["dram_gbps"]
read = run["ceilings"].get("read_gbps")
l2 = run["context"]["gpu"]["l2_bytes"]
bad = []
with open(sys.argv[2], "w") as f:
    f.write("shape\timpl\tl2\tcopies\tmedian_us\tgbps\tcopy_gbps\tof_copy\tread_gbps\tof_read\tratio\n")
    for r in run["results"]:
        if "timing" not in r:
            continue
        s = r["shape"]
        shape = "%dx%dx%d:%dx%d" % (s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"])
        t = r["timing"]
        cold = t.get("l2", {})
        gbps = r["derived"]["gbps"]
        ratio = (r["derived"].get("ratio") or {}).get("median")
        f.write("%s\t%s\t%s\t%s\t%.4f\t%.0f\t%.0f\t%.3f\t%s\t%s\t%s\n" % (
            shape, r["impl"], cold.get("state", "not recorded"), cold.get("copies", ""),
            t["graph"]["median_us"], gbps, copy, gbps / copy, "%.0f" % read if read else "",
            "%.3f" % (gbps / read) if read else "", "" if ratio is None else "%.4f" % ratio))
        kv = 4 * s["batch"] * s["heads"] * s["seq_kv"] * s["head_dim"]
        want = "cold_by_size" if kv >= 3 * l2 else "rotated"
        # a cold read is held to the read stream's ceiling where measured, else to the copy's
        name, ceiling = ("read", read) if read and cold.get("state") == want else ("copy", copy)
        if gbps > ceiling * 1.01:
            bad.append("%s %s: %.0f GB/s above the %s ceiling %.0f" % (shape, r["impl"], gbps, name, ceiling))
        if cold.get("state") != want:
            bad.append("%s %s: l2 %s, expected %s" % (shape, r["impl"], cold.get("state"), want))
print(open(sys.argv[2]).read(), end="")
for b in bad:
    print("cold_decode_check: " + b)
sys.exit(1 if bad else 0)
EOF
