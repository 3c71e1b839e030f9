#!/usr/bin/env bash
# GPU machine: the memory-bound points timed on inputs cold in L2 (harness/measure/
# l2_copies.h), checked against the measured copy ceiling. One process of
# `attnladder run`: rung 11 and the cuDNN baseline (every ratio paired, both timed on the
# same copies) at decode shapes whose K and V fit in L2 (1x32x1x4096x64: 33 MB, the one the
# H100 reference ran at 3,536 GB/s against a 2,993 ceiling; 1x32x1x4096x128: 67 MB;
# 1x8x1x1024x128: 4 MB; the batched 4x32x1x1024x128: 67 MB) and one cold by size
# (8x32x1x4096x128: 537 MB), with the ceilings measured.
# Writes, under OUT (the first argument, created):
#   cold.json     the run (results[].timing.l2 says how each point's inputs were kept cold)
#   cold.log      its progress lines ("graph ... l2 rotated x5")
#   summary.tsv   per result: shape, impl, l2 state, copies, median us, GB/s, the copy
#                 ceiling, GB/s over it, the paired ratio to the baseline
# Exits 1 when a GB/s figure passes the ceiling by more than 1% or a memory-bound point
# that fits three L2s was not timed rotated; 3 without a GPU.
#   BUILD=build bash ci/tools/cold_decode_check.sh OUT
set -u
build=${BUILD:-build}
out=${1:?usage: cold_decode_check.sh OUT}
nvidia-smi -L >/dev/null 2>&1 || { echo "cold_decode_check: no GPU; nothing measured"; exit 3; }
mkdir -p "$out" || exit 2
shapes="--shape 1,32,1,4096,64,0 --shape 1,32,1,4096,128,0 --shape 1,8,1,1024,128,0 --shape 4,32,1,1024,128,0"
shapes="$shapes --shape 8,32,1,4096,128,0"
# shellcheck disable=SC2086
"$build/attnladder" run --build "$build" --impl sdpa_cudnn,11_split_keys $shapes --modes graph \
  --sweep-modes graph --out "$out/cold.json" 2> "$out/cold.log" || {
  tail -20 "$out/cold.log"; echo "cold_decode_check: the run failed (log: $out/cold.log)"; exit 1; }
python3 - "$out/cold.json" "$out/summary.tsv" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
ceiling = run["ceilings"]["dram_gbps"]
l2 = run["context"]["gpu"]["l2_bytes"]
bad = []
with open(sys.argv[2], "w") as f:
    f.write("shape\timpl\tl2\tcopies\tmedian_us\tgbps\tceiling_gbps\tof_ceiling\tratio\n")
    for r in run["results"]:
        if "timing" not in r:
            continue
        s = r["shape"]
        shape = "%dx%dx%d:%dx%d" % (s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"])
        t = r["timing"]
        cold = t.get("l2", {})
        gbps = r["derived"]["gbps"]
        ratio = (r["derived"].get("ratio") or {}).get("median")
        f.write("%s\t%s\t%s\t%s\t%.4f\t%.0f\t%.0f\t%.3f\t%s\n" % (
            shape, r["impl"], cold.get("state", "not recorded"), cold.get("copies", ""),
            t["graph"]["median_us"], gbps, ceiling, gbps / ceiling, "" if ratio is None else "%.4f" % ratio))
        kv = 4 * s["batch"] * s["heads"] * s["seq_kv"] * s["head_dim"]
        if gbps > ceiling * 1.01:
            bad.append("%s %s: %.0f GB/s above the copy ceiling %.0f" % (shape, r["impl"], gbps, ceiling))
        want = "cold_by_size" if kv >= 3 * l2 else "rotated"
        if cold.get("state") != want:
            bad.append("%s %s: l2 %s, expected %s" % (shape, r["impl"], cold.get("state"), want))
print(open(sys.argv[2]).read(), end="")
for b in bad:
    print("cold_decode_check: " + b)
sys.exit(1 if bad else 0)
EOF
