#!/usr/bin/env bash
# Run 20 (phases/07_hopper/README.md, fifteenth round: one softmax path per loop; and
# round 14's forced-variant checks, refused in run 19). Layout: build/ = this commit's
# build, B/ = phases and kernels with round 14's 07 (commit 17696d9). Each step has its own time
# limit; each step's output is packed as it ends.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev20.XXXXXX)
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
# 1. correctness beside cuDNN, the automatic choice: causal shapes of every variant (rows
#    that see no key, seq_q != seq_kv both ways, ragged tails, the dynamic scheduler, 3wg)
echo "=== correct auto t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged \
  --shape 2,32,8192,64,1 --shape 16,32,1024,64,1 --shape 8,16,1000,64,1 --shape 4,32,333,77,64,1 --shape 3,40,4096,64,1 \
  --shape 4,16,2000,300,128,1 --shape 4,16,300,2000,128,1 --shape 2,16,1999,2001,128,1 --shape 4,16,4096,128,1 \
  --shape 3,45,1024,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 4,16,4096,128,0 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"
grep -E "FAIL" "$ev/correct.txt" | head -5 >> "$log"; pack
# 2. forced variants, causal and not (round 14's twins and this round's split loops)
echo "=== correct forced t=$(el)" >> "$log"
for v in overlap 3wg 1wg-overlap pingpong pingpong-176; do
  ATTN07_VARIANT=$v timeout -k 5 60 ./build/attnladder run --impl 07_hopper,sdpa_cudnn \
    --shape 2,16,1000,64,0 --shape 2,16,300,1000,64,1 --shape 2,16,1000,128,1 --shape 2,16,77,129,128,0 --shape 2,16,1024,64,1 \
    --shape 2,16,1000,128,0 --shape 2,16,129,77,128,1 \
    --modes graph --sweep-modes graph --no-ceilings --min-samples 2 --max-samples 5 --max-seconds 0.1 --out "$ev/correct_$v.json" > "$ev/correct_$v.txt" 2>&1
  echo "$v rc=$? 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct_$v.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct_$v.txt")" >> "$log"
  grep -E "FAIL|exceeds|usage" "$ev/correct_$v.txt" | head -3 >> "$log"
done
ATTN07_SCHED=static timeout -k 5 60 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 2,16,1000,128,1 --shape 4,16,2000,300,128,1 \
  --modes graph --sweep-modes graph --no-ceilings --min-samples 2 --max-samples 5 --max-seconds 0.1 --out "$ev/correct_static.json" > "$ev/correct_static.txt" 2>&1
echo "static rc=$? 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct_static.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct_static.txt")" >> "$log"
pack
# 3. paired ab against B (round 14)
echo "=== ab t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 2,32,8192,64,1 --shape 4,16,4096,128,1 \
  --shape 1,16,16384,128,1 --shape 1,8,512,64,1 --shape 16,32,1024,64,1 --shape 4,32,4096,64,0 --shape 4,16,4096,128,0 \
  --shape 1,8,512,64,0 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
# 4. two processes at the target shapes, ratio to cuDNN in the same process
for i in 1 2; do
  echo "=== targets $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
    --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 \
    --modes graph --sweep-modes graph --no-ceilings --out "$ev/targets_$i.json" > "$ev/targets_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets_$i.txt" >> "$log"; pack
done
# 5. sanitizers on causal shapes (dynamic scheduler, 3wg, rows that see no key; automatic choice)
SAN="--shape 2,16,1000,128,1 --shape 4,32,333,77,64,1 --shape 3,8,960,64,1 --shape 1,8,300,129,128,1"
for tool in memcheck racecheck synccheck initcheck; do
  timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    $SAN --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
