#!/usr/bin/env bash
# Run 49: ncu metrics of the frozen 07 (build of 4a2b3b8 / 5500f84) and cuDNN, written into the
# frozen build's first accepted ladder file (20261124T053007Z_4a2b3b8.json, a copy of which
# comes back under $OUT): the headline, 4x16x4096x128 causal and not, 2x32x8192x64 causal.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
f=evidence/nvidia-h100-80gb-hbm3/20261124T053007Z_4a2b3b8.json
cp "$f" /tmp/into.json
timeout -k 5 300 ./build/attnladder profile --into /tmp/into.json --impl 07_hopper,sdpa_cudnn --shape 1,8,512,64,0 \
  --shape 4,16,4096,128,0 --shape 4,16,4096,128,1 --shape 2,32,8192,64,1 > "$out/profile.txt" 2>&1
echo "profile rc=$? t=$(el)" >> "$log"; tail -12 "$out/profile.txt" >> "$log"
cp /tmp/into.json "$out/profiled.json"
