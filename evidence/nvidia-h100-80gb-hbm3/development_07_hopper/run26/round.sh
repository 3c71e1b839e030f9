#!/usr/bin/env bash
# Run 26 ("What is left" 3): the per-work-tile cost after chaining. Four non-causal D=128
# shapes with the same 2048 work tiles (128 query rows each) and 2048 to 16384 keys per
# tile, 07 beside cuDNN, two processes; time = a + k x keys per shape gives each side's
# per-key cost k and per-work-tile-round cost a.  build/ = this commit's build.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev26.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
for i in 1 2; do
  echo "=== process $i t=$(el)" >> "$log"
  timeout -k 5 120 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 8,16,2048,128,0 --shape 4,16,4096,128,0 \
    --shape 2,16,8192,128,0 --shape 1,16,16384,128,0 --modes graph --sweep-modes graph --no-ceilings \
    --out "$ev/fit_$i.json" > "$ev/fit_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/fit_$i.txt" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
