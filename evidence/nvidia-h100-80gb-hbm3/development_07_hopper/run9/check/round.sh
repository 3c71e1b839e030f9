#!/usr/bin/env bash
# The last check of phases/07_hopper/README.md: correctness with cuDNN on the large
# hard shapes; the grouping with the dynamic scheduler (ATTN07_GROUP=1 against the
# default, alternated); compute-sanitizer on the dynamic and grouped paths.
# Run from .carry07/: bash round.sh "$OUT"
out=$1; ev=/tmp/ev; mkdir -p $ev
log=$out/log.txt
t0=$(date +%s)
pack() { (cd /tmp && tar czf $out/ev.tgz ev); }
echo "=== correct10 t=0" >> $log
./build/attnladder run --build build --impl 07_hopper,sdpa_cudnn --shape 2,16,2001,1999,128,0 --shape 3,45,2048,64,1 \
  --shape 3,40,4096,64,1 --shape 4,16,4000,4096,128,1 --shape 2,16,4096,3000,128,1 --modes graph --sweep-modes graph \
  --no-ceilings --max-samples 10 --max-seconds 0.2 --out $ev/correct10.json > $ev/correct10.txt 2>&1
echo "rc=$?" >> $log; grep -E "check" $ev/correct10.txt >> $log; pack
CS="--shape 4,16,4096,128,1 --shape 2,32,8192,64,1 --shape 1,16,16384,128,1"
for r in 1 2; do
  for g in g1 def; do
    el=$(( $(date +%s) - t0 )); [ $el -gt 150 ] && { echo "skip $g $r at $el" >> $log; continue; }
    e=""; [ $g = g1 ] && e="ATTN07_GROUP=1"
    echo "=== ${g}_$r env=[$e] t=$el" >> $log
    env $e ./build/attnladder run --build build --impl 07_hopper,sdpa_cudnn $CS --modes graph --sweep-modes graph \
      --no-ceilings --out $ev/${g}_$r.json > $ev/${g}_$r.txt 2>&1
    echo "rc=$?" >> $log; grep -E "^(07_hopper|sdpa_cudnn) " $ev/${g}_$r.txt >> $log; pack
  done
done
el=$(( $(date +%s) - t0 )); echo "=== sanitize t=$el" >> $log
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
left=$(( 280 - el ))
for tool in memcheck racecheck synccheck initcheck; do
  ( timeout $left $cs --tool $tool --print-limit 50 --error-exitcode 99 ./build/attnladder run --build build --impl 07_hopper \
      --shape 2,16,1000,128,1 --shape 4,32,333,77,64,1 --shape 3,8,960,64,1 --modes single --sweep-modes single \
      --min-samples 1 --max-samples 2 --no-ceilings --out $ev/san_$tool.json > $ev/san_$tool.log 2>&1
    echo "sanitize $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $ev/san_$tool.log | tail -1)" >> $log ) &
done
wait
grep -h "07_hopper" $ev/san_*.log | grep -E "check|FAIL" | sort | uniq -c >> $log
pack
echo "total $(( $(date +%s) - t0 ))s" >> $log
