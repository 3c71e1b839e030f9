#!/usr/bin/env bash
# Run 14 (phases/07_hopper/README.md, twelfth round: 176-key tiles chosen where they pad
# the keys at most 1.5% more). Layout: build/ = this commit's build, B/ = phases and kernels
# of the build before it (commit 0bde337's 07). Each step has its own time limit.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev14.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
# 1. correctness beside cuDNN where the new choice takes 176-key tiles (even, ragged last
#    tile, seq_q != seq_kv) and where it keeps 128 (4096: 3.1% padding)
echo "=== correct t=$(el)" >> "$log"
timeout -k 5 150 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged \
  --shape 1,16,16384,128,0 --shape 2,16,8192,128,0 --shape 8,16,2816,128,0 --shape 2,16,2800,128,0 \
  --shape 2,16,2001,2800,128,0 --shape 2,16,8190,8190,128,0 --shape 2,16,4096,128,0 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"
python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
    if r['impl']=='07_hopper': s=r['shape']; print(s['batch'],s['heads'],s['seq_q'],s['seq_kv'],s['head_dim'],s['causal'],(r.get('init_note') or '')[:40])
" "$ev/correct.json" | sort -u >> "$log"
# 2. paired ab, this build against B: the chosen shapes faster, the others unchanged
pack
echo "=== ab t=$(el)" >> "$log"
timeout -k 5 150 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 1,16,16384,128,0 --shape 2,16,8192,128,0 \
  --shape 8,16,2816,128,0 --shape 4,16,4096,128,0 --shape 4,16,4096,128,1 --shape 4,32,4096,64,0 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"
pack
# 3. two processes at the target shapes, ratio to cuDNN in the same process
for i in 1 2; do
  echo "=== targets $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
    --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 \
    --modes graph --sweep-modes graph --no-ceilings --out "$ev/targets_$i.json" > "$ev/targets_$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets_$i.txt" >> "$log"; pack
done
pack
echo "total $(el)s" >> "$log"
