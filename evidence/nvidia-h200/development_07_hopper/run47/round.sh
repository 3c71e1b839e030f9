#!/usr/bin/env bash
# Run 47 (H200): the build of rounds 22-25 (the 07 of bc81722 / 2e1e5b8) on the H200:
# correctness beside cuDNN on the split shapes, the dynamic scheduler's and 3wg's causal
# shapes and the ragged points; memcheck and racecheck; two ladder processes and two target
# processes.
#   bash round.sh "$OUT"   (build/ = the carried build)
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev47.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
CS="--shape 4,16,4096,128,0 --shape 2,16,1100,128,0 --shape 4,16,1880,128,0 --shape 1,17,1000,1500,128,0 --shape 2,16,700,2100,128,0 --shape 4,32,4096,64,0 --shape 2,16,1300,1001,64,0 --shape 1,67,384,300,64,0 --shape 2,16,1000,128,1 --shape 2,32,1000,64,1 --shape 3,5,1001,64,1 --shape 1,8,1500,1000,64,1 --shape 2,32,8192,64,1 --shape 2,3,777,64,0"
timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged $CS \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "correct rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"; pack
for tool in memcheck racecheck; do
  timeout -k 5 100 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 2,16,1100,128,0 --shape 1,8,300,129,128,1 --shape 3,5,1001,64,1 --shape 2,3,777,64,0 --modes single --sweep-modes single \
    --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
SH="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0 --shape 4,16,4096,128,1"
TG="--shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1"
for i in 1 2; do
  timeout -k 5 90 ./build/attnladder run $SH --modes graph --sweep-modes graph --no-ceilings --evidence "$ev" > "$ev/ladder$i.txt" 2>&1
  echo "ladder $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|06_tiling|sdpa_cudnn) " "$ev/ladder$i.txt" >> "$log"; pack
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn $TG --modes graph --sweep-modes graph --no-ceilings \
    --out "$ev/targets$i.json" > "$ev/targets$i.txt" 2>&1
  echo "targets $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets$i.txt" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
