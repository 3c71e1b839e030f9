#!/usr/bin/env bash
# the two-tile path with the softmax overlapped by the tensor cores (LO) against the frozen (LC), two processes; sanitizers on LO
B=.dev/b; A=$B/attnladder
S="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 1,8,512,128,0 --shape 1,8,512,128,1 --shape 1,8,256,64,0 --shape 1,8,256,64,1 --shape 1,8,300,129,64,1 --shape 1,8,300,129,128,1 --shape 2,8,77,64,0 --shape 1,4,512,64,1"
for i in 1 2; do
  impl=LC,LO; [ $i = 2 ] && impl=LO,LC
  $A run --build $B --impl $impl,09_tile_scheduling,sdpa_cudnn $S --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/o$i.json > $OUT/o$i.txt 2>&1
  echo "run $i exit=$? $(grep -c 'check  PASS' $OUT/o$i.txt) pass $(grep -c FAIL $OUT/o$i.txt) fail"
done
$A run --build $B --impl LO --shape 1,8,512,64,1 --shape 1,8,300,129,64,1 --shape 1,2,200,64,1 --shape 1,2,512,128,0 --modes single --sweep-modes single --min-samples 3 --max-samples 5 --no-ceilings --out $OUT/hard.json > $OUT/hard.txt 2>&1; echo "hard inputs exit=$? $(grep -c 'PASS' $OUT/hard.txt) pass $(grep -c FAIL $OUT/hard.txt) fail"
for tool in racecheck synccheck memcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $A run --build $B --impl LO --shape 1,2,512,64,1 --shape 1,2,512,64,0 --shape 1,2,256,128,1 --shape 1,2,300,129,64,1 --modes single --sweep-modes single --min-samples 1 --max-samples 2 --no-ceilings --out /tmp/s.json > $OUT/s_$tool.txt 2>&1
  echo "$tool exit=$? $(grep -E 'SUMMARY' $OUT/s_$tool.txt | tail -1) $(grep -c 'check  PASS' $OUT/s_$tool.txt) pass"
done
