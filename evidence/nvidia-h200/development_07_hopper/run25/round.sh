#!/usr/bin/env bash
# Run 25: the build after rounds 13-16 on an H200 (one process of the checks, two at the
# target shapes, 07 beside cuDNN). build/ = this commit's build.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev25.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
echo "=== correct t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged --shape 4,16,4096,128,0 --shape 2,16,8192,128,0 \
  --shape 2,16,1100,128,0 --shape 4,16,1880,128,0 --shape 4,32,4096,64,0 --shape 16,32,1024,64,0 --shape 2,32,8192,64,1 \
  --shape 4,16,2000,300,128,1 --shape 3,45,1024,128,1 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"; pack
for i in 1 2; do
  echo "=== targets $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
    --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 \
    --modes graph --sweep-modes graph --no-ceilings --out "$ev/targets_$i.json" > "$ev/targets_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets_$i.txt" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
