#!/usr/bin/env bash
# E1: the block barrier before griddepcontrol.wait (LE) against the frozen order (LC), two processes
B=.dev/b; A=$B/attnladder
S="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 1,8,512,128,0 --shape 2,8,77,64,0 --shape 2,8,77,64,1 --shape 2,8,77,128,0 --shape 1,8,256,64,0 --shape 1,8,300,129,64,1"
for i in 1 2; do
  impl=LC,LE; [ $i = 2 ] && impl=LE,LC
  $A run --build $B --impl $impl,09_tile_scheduling,sdpa_cudnn $S --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/e$i.json > $OUT/e$i.txt 2>&1
  echo "run $i exit=$? $(grep -c 'check  PASS' $OUT/e$i.txt) pass $(grep -c FAIL $OUT/e$i.txt) fail"
done
for tool in racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $A run --build $B --impl LE --shape 1,2,512,64,1 --shape 1,2,512,64,0 --shape 2,2,77,64,1 --shape 1,2,256,128,0 --modes single --sweep-modes single --min-samples 1 --max-samples 2 --no-ceilings --out /tmp/s.json > $OUT/s_$tool.txt 2>&1
  echo "$tool exit=$? $(grep -E 'SUMMARY' $OUT/s_$tool.txt | tail -1)"
done
