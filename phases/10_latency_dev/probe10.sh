#!/usr/bin/env bash
# the causal pairs' dependent-launch trigger after the wait (LX) against at entry (LN, the frozen choice), two processes
B=.dev/b; A=$B/attnladder
S="--shape 1,8,512,64,1 --shape 1,4,512,64,1 --shape 1,8,512,128,1 --shape 2,4,512,64,1 --shape 1,8,1,512,64,1 --shape 1,8,512,64,0"
for i in 1 2; do
  impl=LN,LX; [ $i = 2 ] && impl=LX,LN
  $A run --build $B --impl $impl,sdpa_cudnn $S --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/x$i.json > $OUT/x$i.txt 2>&1
  echo "run $i exit=$? $(grep -c 'check  PASS' $OUT/x$i.txt) pass $(grep -c FAIL $OUT/x$i.txt) fail"
done
