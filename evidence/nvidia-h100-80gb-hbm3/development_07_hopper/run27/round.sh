#!/usr/bin/env bash
# Run 27 (phases/07_hopper/README.md, seventeenth round: the next work tile's Q into L2).
# Layout: build/ = this commit's build, B/ = phases and kernels with round 16's 07 (commit
# 980be3f).
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev27.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
echo "=== ab t=$(el)" >> "$log"
timeout -k 5 200 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 8,16,2048,128,0 --shape 4,16,4096,128,0 \
  --shape 1,16,16384,128,0 --shape 4,32,4096,64,0 --shape 4,16,4096,128,1 --shape 2,32,8192,64,1 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
echo "=== correct t=$(el)" >> "$log"
timeout -k 5 150 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged --shape 4,16,4096,128,0 --shape 8,16,2048,128,0 \
  --shape 2,16,1100,128,0 --shape 4,32,4096,64,0 --shape 2,16,2001,1999,64,0 --shape 2,16,1024,128,0 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"; pack
for i in 1 2; do
  echo "=== targets $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
    --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 --shape 8,16,2048,128,0 \
    --modes graph --sweep-modes graph --no-ceilings --out "$ev/targets_$i.json" > "$ev/targets_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets_$i.txt" >> "$log"; pack
done
for tool in memcheck racecheck synccheck; do
  timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 2,16,1100,128,0 --shape 2,16,1000,64,0 --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings \
    --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
