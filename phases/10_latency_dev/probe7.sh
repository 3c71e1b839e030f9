#!/usr/bin/env bash
# trace builds: the frozen split (T1) against two warpgroups a block (T221 at the headline, T121/T122 at 2x8x77 and 1x8x256)
B=.dev/b; A=$B/attnladder
nvidia-smi -L
for impl in T1 T221 T121 T122; do
  $A run --build $B --impl $impl,09_tile_scheduling,sdpa_cudnn --shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 2,8,77,64,0 --shape 1,8,256,64,0 --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/t_$impl.json > $OUT/t_$impl.txt 2>&1
  echo "== $impl exit=$?"; grep -E "^trace|stamp|shared SM" $OUT/t_$impl.txt | tail -80
done
