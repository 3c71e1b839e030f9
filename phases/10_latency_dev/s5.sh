#!/usr/bin/env bash
B=.dev/b
nvidia-smi -L
S=""
for sh in 1,8,512,64,0 1,8,512,64,1 1,8,512,128,1 1,8,512,128,0 1,4,512,64,1 2,4,512,64,1 1,8,1,512,64,1 1,8,128,512,64,1 1,8,512,64,1; do S="$S --shape $sh"; done
for r in 1 2; do
$B/attnladder run --build $B --impl O10,A1,sdpa_cudnn $S --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/m$r.json > $OUT/m$r.txt 2>&1
echo "run $r exit=$? $(grep -c 'check  PASS' $OUT/m$r.txt) pass $(grep -c FAIL $OUT/m$r.txt) fail"
done
python3 .dev/tab.py $OUT/m1.json $OUT/m2.json
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout 200 compute-sanitizer --tool $tool $extra --print-limit 20 --error-exitcode 99 $B/attnladder run --build $B --impl A1 --shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 1,8,512,128,1 --shape 1,8,1,512,64,1 --modes single --sweep-modes single --min-samples 1 --max-samples 2 --no-ceilings --out /tmp/san_$tool.json > $OUT/san_$tool.txt 2>&1
  echo "$tool rc=$? $(grep -c 'check  PASS' $OUT/san_$tool.txt) pass; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_$tool.txt | tail -2 | tr '\n' ' ')"
done
cuobjdump -sass $B/phases/A1.so | awk '/Function :/{f=($0 ~ /latency_attentionILi64/)} f' | grep -E "MEMBAR|CCTL|UCGABAR|SYNCS|STAS|ST\.E" | awk -F'/\\*' '{print $2}' | sort | uniq -c | head
