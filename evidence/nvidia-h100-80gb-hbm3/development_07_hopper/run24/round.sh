#!/usr/bin/env bash
# Run 24 ("What is left" 4: the D=64 causal shape): the committed build's choices for D=64
# causal against two overrides, alternated processes, 07 beside cuDNN in each: default
# (`3wg`, one block per tile), ATTN07_VARIANT=pingpong (two consumer warpgroups, dynamic
# scheduler, since round 15 one softmax path per loop), ATTN07_PERSIST=1 (`3wg` persistent,
# static round robin).
#   bash round.sh "$OUT"   (build/ = this commit's build)
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev24.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
SH="--shape 2,32,8192,64,1 --shape 4,32,4096,64,1 --shape 16,32,1024,64,1"
for rep in 1 2; do
  for cfg in default pingpong persist; do
    case $cfg in default) envs=();; pingpong) envs=(ATTN07_VARIANT=pingpong);; persist) envs=(ATTN07_PERSIST=1);; esac
    echo "=== $cfg $rep t=$(el)" >> "$log"
    env "${envs[@]}" timeout -k 5 60 ./build/attnladder run --impl 07_hopper,sdpa_cudnn $SH --modes graph --sweep-modes graph \
      --no-ceilings --out "$ev/${cfg}_$rep.json" > "$ev/${cfg}_$rep.txt" 2>&1
    echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/${cfg}_$rep.txt" >> "$log"; pack
  done
done
echo "total $(el)s" >> "$log"; pack
