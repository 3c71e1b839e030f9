#!/usr/bin/env bash
# Run 37: the committed build (rounds 18 and 20; 1d19371's sources) against round 16's
# clean-up (B/, the 07 of 40a3619), paired, at the headline shapes and the targets: the
# session's rounds together.
#   bash round.sh "$OUT"   (build/ = this commit's build)
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev37.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
timeout -k 5 300 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 1,8,512,64,0 --shape 1,8,512,64,1 \
  --shape 4,16,4096,128,0 --shape 4,16,4096,128,1 --shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 \
  --shape 2,32,8192,64,1 --shape 2,16,1100,128,0 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
