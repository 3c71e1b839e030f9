#!/usr/bin/env bash
# Run 10 (phases/07_hopper/README.md, tenth round): the dynamic scheduler's hand-out word
# through shared-memory atomics. SASS counts (this build and the committed kernel, bA);
# compute-sanitizer on the dynamic and grouped paths (racecheck on this build and on the
# ATTN07_SLOT=1 (st.release/ld.acquire) and ATTN07_SLOT=0 (plain) builds, v/s1 and v/s0;
# memcheck, synccheck, initcheck on this build); correctness of the hard shapes beside
# cuDNN; paired `ab` of this build against bA and alternated processes A N N A.
# Run from .carry07/ after unpacking: bash round.sh "$OUT"
out=$1; ev=/tmp/ev; mkdir -p $ev
log=$out/log.txt
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
pack() { (cd /tmp && tar czf $out/ev.tgz ev); }
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv -lms 100 > $ev/smi.csv 2>&1 &
smi=$!
# ---- machine code: HGMMA, USETMAXREG, ATOMS per sm_90a kernel ----
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
for b in build bA; do
  timeout 60 $co -sass $b/phases/07_hopper.so > $ev/sass_$b.txt 2>&1
  awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
         if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /USETMAXREG/) r[fn]++; if ($0 ~ /ATOMS/) a[fn]++; if ($0 ~ /MMA/ && $0 !~ /HGMMA/) m[fn]++; seen[fn]=1 }
       END { for (f in seen) printf "%-110s HGMMA %3d USETMAXREG %d ATOMS %d other_MMA %d\n", f, h[f], r[f], a[f], m[f] }' \
    $ev/sass_$b.txt | sort > $ev/sass_count_$b.txt
  echo "=== sass $b t=$(el)" >> $log; cat $ev/sass_count_$b.txt >> $log
done
xz -9 $ev/sass_build.txt $ev/sass_bA.txt
pack
# ---- sanitizers ----
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
SAN="--shape 2,16,1000,128,1 --shape 4,32,333,77,64,1 --shape 3,8,960,64,1"
san() {   # tool builddir name
  timeout 120 $cs --tool $1 --print-limit 50 --error-exitcode 99 ./build/attnladder run --build $2 --impl 07_hopper \
      $SAN --modes single --sweep-modes single --min-samples 1 --max-samples 2 --no-ceilings --out $ev/san_$3.json > $ev/san_$3.log 2>&1
  echo "sanitize $3 ($1, $2) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $ev/san_$3.log | tail -1)" >> $log
}
echo "=== sanitize t=$(el)" >> $log
san racecheck build racecheck & san memcheck build memcheck & san synccheck build synccheck & san initcheck build initcheck &
wait
san racecheck v/s1 racecheck_s1 & san racecheck v/s0 racecheck_s0 &
wait
grep -h "07_hopper" $ev/san_*.log | grep -E "check " | sort | uniq -c >> $log
pack
# ---- correctness: ragged points (peaked/outlier inputs) and hard shapes beside cuDNN ----
echo "=== correct t=$(el)" >> $log
timeout 150 ./build/attnladder run --build build --impl 07_hopper,sdpa_cudnn --ragged --shape 4,16,2000,300,128,1 --shape 4,16,300,2000,128,1 \
  --shape 2,16,1999,2001,128,1 --shape 2,16,2001,1999,128,0 --shape 8,16,1000,1000,64,1 --shape 4,32,333,77,64,1 \
  --shape 3,45,2048,2048,64,1 --shape 3,40,4096,4096,64,1 --shape 3,45,1024,1024,128,1 --shape 4,16,4000,4096,128,1 \
  --shape 2,16,4096,3000,128,1 --shape 2,16,1000,128,1 --shape 1,8,300,129,64,1 --modes graph --sweep-modes graph \
  --no-ceilings --max-samples 10 --max-seconds 0.2 --out $ev/correct.json > $ev/correct.txt 2>&1
echo "rc=$? t=$(el)" >> $log
echo "07 check PASS: $(grep -E '07_hopper .* check +PASS' $ev/correct.txt | wc -l), FAIL: $(grep -E '07_hopper .* check +FAIL' $ev/correct.txt | wc -l)" >> $log
grep -E "FAIL" $ev/correct.txt | head -20 >> $log
pack
# ---- timing: paired ab, then alternated processes ----
SH="--shape 4,16,4096,128,1 --shape 2,32,8192,64,1"
abr() {
  echo "=== $1 t=$(el)" >> $log
  timeout 90 ./build/attnladder ab --base bA --head build --impl 07_hopper $SH --out $ev/$1.json > $ev/$1.txt 2>&1
  echo "rc=$?" >> $log; grep -E "^07_hopper" $ev/$1.txt >> $log; pack
}
one() {   # name builddir
  echo "=== $1 dir=$2 t=$(el)" >> $log
  timeout 60 ./build/attnladder run --build $2 --impl 07_hopper,sdpa_cudnn $SH --modes graph --sweep-modes graph \
      --no-ceilings --out $ev/$1.json > $ev/$1.txt 2>&1
  echo "rc=$?" >> $log; grep -E "^(07_hopper|sdpa_cudnn) " $ev/$1.txt >> $log; pack
}
abr ab10_1
one a_1 bA
one n_1 build
one n_2 build
one a_2 bA
abr ab10_2
kill $smi 2>/dev/null
xz -9 $ev/smi.csv
pack
echo "total $(el)s" >> $log
