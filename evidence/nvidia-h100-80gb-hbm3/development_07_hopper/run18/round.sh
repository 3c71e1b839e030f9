#!/usr/bin/env bash
# Run 18 (phases/07_hopper/README.md, thirteenth round: the narrow last tile of 176-key
# tiles). Layout: build/ = this commit's build, B/ = phases and kernels of the build before
# it (commit a7c7eea's 07). The third build of the round (the narrow tile first, the loop
# untouched). Each step has its own time limit; each step's output is packed as it ends.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev18.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
# 0. SASS: HGMMA and WARPGROUP.DEPBAR per sm_90a kernel (a serialised kernel waits after
#    every HGMMA: run 16's first build), MUFU.EX2
timeout 60 $co -sass build/phases/07_hopper.so > "$ev/sass.txt" 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /WARPGROUP.DEPBAR/) w[fn]++; if ($0 ~ /MUFU.EX2/) e[fn]++; if ($0 ~ /USETMAXREG/) r[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d DEPBAR %3d MUFU.EX2 %3d USETMAXREG %d\n", f, h[f], w[f], e[f], r[f] }' "$ev/sass.txt" \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
grep -oE "HGMMA\.64x[0-9]+x16[^ ]*" "$ev/sass.txt" | sort | uniq -c > "$ev/hgmma_shapes.txt"
python3 ci/tools/sass_loops.py "$ev/sass.txt" > "$ev/sass_loops.txt" 2>&1
xz -9 "$ev/sass.txt"
echo "=== sass t=$(el)" >> "$log"; grep 176 "$ev/sass_count.txt" >> "$log"; cat "$ev/hgmma_shapes.txt" "$ev/sass_loops.txt" >> "$log"; pack
# 1. correctness beside cuDNN, the automatic choice: every tail width (4096: 48, 8192: 96,
#    16384: 16 -> 48, 2000: 64 -> 96, 2800: 160 -> 176), seq_q != seq_kv both ways
echo "=== correct auto t=$(el)" >> "$log"
timeout -k 5 150 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged \
  --shape 1,16,16384,128,0 --shape 2,16,8192,128,0 --shape 4,16,4096,128,0 --shape 8,16,2816,128,0 --shape 2,16,2000,128,0 \
  --shape 2,16,2001,2800,128,0 --shape 2,16,2800,2001,128,0 --shape 2,16,1999,2001,128,0 --shape 4,16,1880,128,0 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"
grep -E "FAIL" "$ev/correct.txt" | head -5 >> "$log"; pack
# 2. correctness beside cuDNN, pingpong-176 forced: tails of 128 (452, 1000, 300 keys),
#    48 (177, 16 keys), one-tile shapes of 96 and 128 (80, 120 keys), a single full tile (176), causal (the last tile ends at the
#    block's diagonal; rows that see no key at 300:129)
echo "=== correct forced t=$(el)" >> "$log"
ATTN07_VARIANT=pingpong-176 timeout -k 5 150 ./build/attnladder run --impl 07_hopper,sdpa_cudnn \
  --shape 2,16,452,128,0 --shape 2,16,1000,128,0 --shape 4,16,16,300,128,0 --shape 2,16,177,128,0 --shape 2,16,300,16,128,0 \
  --shape 2,16,176,128,0 --shape 2,16,300,80,128,0 --shape 2,16,300,120,128,0 --shape 4,16,2000,300,128,1 --shape 1,8,300,129,128,1 --shape 2,16,1999,2001,128,1 \
  --shape 2,16,4096,128,1 --shape 2,16,1000,128,1 --shape 2,16,300,2000,128,1 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct_forced.json" > "$ev/correct_forced.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct_forced.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct_forced.txt")" >> "$log"
grep -E "FAIL" "$ev/correct_forced.txt" | head -5 >> "$log"; pack
# 3. paired ab against B: the predictions' shapes
echo "=== ab t=$(el)" >> "$log"
timeout -k 5 150 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
  --shape 2,16,8192,128,0 --shape 8,16,2816,128,0 --shape 2,16,2000,128,0 --shape 4,16,1880,128,0 --shape 4,16,4096,128,1 --shape 4,32,4096,64,0 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
# 4. two processes at the target shapes, ratio to cuDNN in the same process
for i in 1 2; do
  echo "=== targets $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
    --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 \
    --modes graph --sweep-modes graph --no-ceilings --out "$ev/targets_$i.json" > "$ev/targets_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets_$i.txt" >> "$log"; pack
done
# 5. sanitizers on the narrow tails (forced pingpong-176; small enough for the full CPU check)
SAN="--shape 2,16,1000,128,0 --shape 2,8,177,128,0 --shape 2,8,300,80,128,0 --shape 1,16,900,128,1"
for tool in memcheck racecheck synccheck initcheck; do
  ATTN07_VARIANT=pingpong-176 timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    $SAN --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
