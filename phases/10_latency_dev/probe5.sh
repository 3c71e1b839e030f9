#!/usr/bin/env bash
# dev probe: the split variants against the frozen kernel (L0) and rung 09, two processes;
# then racecheck/synccheck/memcheck on the new paths
B=.dev/b; A=$B/attnladder
nvidia-smi -L
S="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 1,8,512,128,0 --shape 1,8,512,128,1 --shape 1,8,1,300,64,0 --shape 1,8,1,300,64,1 --shape 1,8,1,300,128,0 --shape 1,8,129,257,64,0 --shape 1,8,129,257,64,1 --shape 1,8,129,257,128,0 --shape 1,8,256,64,0 --shape 1,8,256,64,1 --shape 2,8,77,64,0 --shape 2,8,256,64,1"
for i in 1 2; do
  $A run --build $B --impl L0,L1,F221,F122,F121,09_tile_scheduling,sdpa_cudnn $S --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/p$i.json > $OUT/p$i.txt 2>&1; echo "run $i exit=$? $(grep -c 'check  PASS' $OUT/p$i.txt) pass $(grep -c FAIL $OUT/p$i.txt) fail"
done
SS="--shape 1,2,512,64,1 --shape 1,2,512,64,0 --shape 1,2,1,300,64,1 --shape 1,2,129,257,128,0 --shape 1,2,300,129,64,1 --shape 1,2,256,64,0 --shape 1,2,77,64,1"
for tool in racecheck synccheck memcheck; do
  timeout 120 compute-sanitizer --tool $tool --print-limit 10 --error-exitcode 99 $A run --build $B --impl F221,F122,F121,L1 $SS --modes single --sweep-modes single --min-samples 1 --max-samples 2 --no-ceilings --out /tmp/s_$tool.json > $OUT/san_$tool.txt 2>&1
  echo "sanitize $tool exit=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_$tool.txt | tail -1) $(grep -c 'check  PASS' $OUT/san_$tool.txt) pass $(grep -c FAIL $OUT/san_$tool.txt) fail"
done
