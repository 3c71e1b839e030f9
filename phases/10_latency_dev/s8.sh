#!/usr/bin/env bash
B=.dev/b
nvidia-smi -L
for sh in "1 8 512 512 64 0" "1 8 512 512 64 1"; do
  true
done
S=""
for sh in 1,8,512,64,0 1,8,512,64,1 1,8,512,128,1 1,8,512,128,0 1,4,512,64,1 2,4,512,64,1 1,8,128,512,64,1 1,8,1,512,64,1 2,8,77,64,0 2,8,77,128,1 1,8,256,64,0 1,8,300,129,64,1; do S="$S --shape $sh"; done
for r in 1 2; do
$B/attnladder run --build $B --impl O10,A5,A6,A7,A8,sdpa_cudnn $S --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/m$r.json > $OUT/m$r.txt 2>&1
echo "run $r exit=$? $(grep -c 'check  PASS' $OUT/m$r.txt) pass $(grep -c FAIL $OUT/m$r.txt) fail"
done
python3 .dev/tab.py $OUT/m1.json $OUT/m2.json
