#!/usr/bin/env bash
# Run 22 (phases/07_hopper/README.md, sixteenth round: work tiles chained). Layout: build/ =
# this commit's build, B/ = phases and kernels with round 15b's 07 (commit 4331d6e). Each
# step has its own time limit; each step's output is packed as it ends.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev22.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
timeout 60 $co -sass build/phases/07_hopper.so > "$ev/sass.txt" 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /HMMA/ && $0 !~ /HGMMA/) m[fn]++; if ($0 ~ /WARPGROUP.DEPBAR/) w[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d HMMA %d DEPBAR %d\n", f, h[f], m[f], w[f] }' "$ev/sass.txt" \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
python3 ci/tools/sass_loops.py "$ev/sass.txt" > "$ev/sass_loops.txt" 2>&1
xz -9 "$ev/sass.txt"
echo "=== sass t=$(el)" >> "$log"; grep "Lb1EEEv" "$ev/sass_count.txt" >> "$log"; pack
# 1. correctness beside cuDNN, automatic choice (the chained twins: every first-tile width,
#    many work tiles per block)
echo "=== correct auto t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged \
  --shape 1,16,16384,128,0 --shape 2,16,8192,128,0 --shape 4,16,4096,128,0 --shape 8,16,2816,128,0 --shape 2,16,2000,128,0 \
  --shape 4,16,1880,128,0 --shape 2,16,2001,2800,128,0 --shape 2,16,2800,2001,128,0 --shape 4,32,4096,64,0 --shape 3,40,4096,64,0 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"
grep -E "FAIL" "$ev/correct.txt" | head -5 >> "$log"; pack
# 2. forced: one-key-tile work tiles, many per block (the chained Q wait), ragged 3wg
echo "=== correct forced t=$(el)" >> "$log"
for v in pingpong-176 3wg; do
  ATTN07_VARIANT=$v timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn \
    --shape 64,16,256,100,128,0 --shape 64,16,256,176,128,0 --shape 32,16,300,40,128,0 --shape 8,16,1000,128,0 \
    --shape 64,16,384,100,64,0 --shape 8,16,1999,2001,64,0 --shape 16,16,600,300,64,0 \
    --modes graph --sweep-modes graph --no-ceilings --min-samples 2 --max-samples 5 --max-seconds 0.1 --out "$ev/correct_$v.json" > "$ev/correct_$v.txt" 2>&1
  echo "$v rc=$? 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct_$v.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct_$v.txt")" >> "$log"
  grep -E "FAIL|exceeds|usage" "$ev/correct_$v.txt" | head -3 >> "$log"
done; pack
# 3. paired ab against B (round 15b)
echo "=== ab t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
  --shape 2,16,8192,128,0 --shape 8,16,2816,128,0 --shape 4,32,4096,64,0 --shape 16,32,1024,64,0 --shape 4,16,4096,128,1 \
  --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
# 4. two processes at the target shapes
for i in 1 2; do
  echo "=== targets $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
    --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 \
    --modes graph --sweep-modes graph --no-ceilings --out "$ev/targets_$i.json" > "$ev/targets_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets_$i.txt" >> "$log"; pack
done
# 5. sanitizers on the chained kernels (many work tiles per block; one-key-tile ones forced)
for tool in memcheck racecheck synccheck initcheck; do
  timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 2,16,2000,128,0 --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  r1=$?
  ATTN07_VARIANT=pingpong-176 timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 8,16,256,100,128,0 --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san2_$tool.json" > "$ev/san2_$tool.log" 2>&1
  r2=$?
  ATTN07_VARIANT=3wg timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 2,16,1000,64,0 --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san3_$tool.json" > "$ev/san3_$tool.log" 2>&1
  r3=$?
  echo "sanitize $tool rc=$r1/$r2/$r3 t=$(el) $(for f in san san2 san3; do grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/${f}_$tool.log" | tail -1; done | tr '\n' '|')" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
