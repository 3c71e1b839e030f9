#!/usr/bin/env bash
# Run 19 (phases/07_hopper/README.md, fourteenth round: ragged keys first for every
# overlapped variant at non-causal launches). Layout: build/ = this commit's build, B/ =
# phases and kernels with round 13's 07 (commit 58459d3). Each step has its own time
# limit; each step's output is packed as it ends.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev19.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
# 0. SASS: each sm_90a kernel's main loop (the FIRST twins should have one softmax path and
#    few MOV), HGMMA/DEPBAR per kernel
timeout 60 $co -sass build/phases/07_hopper.so > "$ev/sass.txt" 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /WARPGROUP.DEPBAR/) w[fn]++; if ($0 ~ /MUFU.EX2/) e[fn]++; if ($0 ~ /USETMAXREG/) r[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d DEPBAR %3d MUFU.EX2 %3d USETMAXREG %d\n", f, h[f], w[f], e[f], r[f] }' "$ev/sass.txt" \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
python3 ci/tools/sass_loops.py "$ev/sass.txt" > "$ev/sass_loops.txt" 2>&1
xz -9 "$ev/sass.txt"
echo "=== sass t=$(el)" >> "$log"; cat "$ev/sass_loops.txt" >> "$log"; pack
# 1. correctness beside cuDNN, the automatic choice (every variant's ragged-first twin:
#    1wg-overlap on the headline and ragged points, 3wg and pingpong at D=64, pingpong and
#    pingpong-176 at D=128; ragged and even keys, seq_q != seq_kv both ways)
echo "=== correct auto t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged \
  --shape 4,32,4096,64,0 --shape 16,32,1024,64,0 --shape 2,16,1999,2001,64,0 --shape 4,16,2001,1999,64,0 --shape 2,32,1000,64,0 \
  --shape 4,16,777,333,64,0 --shape 2,16,1024,128,0 --shape 2,16,1000,777,128,0 --shape 8,16,2816,128,0 --shape 4,16,4096,128,0 \
  --shape 2,16,2001,2800,128,0 --shape 4,16,1880,128,0 --shape 2,16,300,100,128,0 --shape 2,16,300,100,64,0 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"
grep -E "FAIL" "$ev/correct.txt" | head -5 >> "$log"; pack
# 2. forced variants (their twins at non-causal shapes): overlap D=128/64, 3wg, 1wg-overlap
echo "=== correct forced t=$(el)" >> "$log"
for v in overlap 3wg 1wg-overlap pingpong; do
  ATTN07_VARIANT=$v timeout -k 5 60 ./build/attnladder run --impl 07_hopper,sdpa_cudnn \
    --shape 2,16,1000,64,0 --shape 2,16,300,1000,64,0 --shape 2,16,1000,128,0 --shape 2,16,77,129,128,0 --shape 2,16,1024,64,0 \
    --modes graph --sweep-modes graph --no-ceilings --max-samples 5 --max-seconds 0.1 --out "$ev/correct_$v.json" > "$ev/correct_$v.txt" 2>&1
  echo "$v rc=$? 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct_$v.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct_$v.txt")" >> "$log"
  grep -E "FAIL" "$ev/correct_$v.txt" | head -3 >> "$log"
done; pack
# 3. paired ab against B (round 13)
echo "=== ab t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 8,16,2816,128,0 --shape 4,32,4096,64,0 \
  --shape 16,32,1024,64,0 --shape 1,8,512,64,0 --shape 2,16,1024,128,0 --shape 2,32,1000,64,0 --shape 4,16,4096,128,0 \
  --shape 1,16,16384,128,0 --shape 4,16,4096,128,1 --shape 2,32,8192,64,1 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
# 4. two processes at the target shapes, ratio to cuDNN in the same process
for i in 1 2; do
  echo "=== targets $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
    --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 \
    --modes graph --sweep-modes graph --no-ceilings --out "$ev/targets_$i.json" > "$ev/targets_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets_$i.txt" >> "$log"; pack
done
# 5. sanitizers on the twins (automatic choice; small enough for the full CPU check)
SAN="--shape 2,16,1000,64,0 --shape 2,8,1000,128,0 --shape 2,16,333,777,128,0"
for tool in memcheck racecheck synccheck initcheck; do
  timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    $SAN --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
ATTN07_VARIANT=3wg timeout -k 5 60 $cs --tool racecheck --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
  --shape 2,16,1000,64,0 --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_race3wg.json" > "$ev/san_race3wg.log" 2>&1
echo "sanitize racecheck 3wg rc=$? t=$(el) $(grep -E 'RACECHECK SUMMARY' "$ev/san_race3wg.log" | tail -1)" >> "$log"
echo "total $(el)s" >> "$log"; pack
