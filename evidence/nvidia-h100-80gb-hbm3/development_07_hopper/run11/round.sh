#!/usr/bin/env bash
# Run 11 (phases/07_hopper/README.md, eleventh round), prepared and not run yet (no device
# was lent after run 10). Builds: N = build/ with phases/07_hopper.so compiled with
# -DATTN07_PBUF=2 (`make -s nvcc-command-07_hopper`, <build> -> build, plus the flag:
# P in two buffers), P = the default build (P/build, round 10's kernel, commit 764f265 or
# any later commit with the default switches),
# bA = round 9's kernel (the committed one before round 10). SASS counts of N;
# compute-sanitizer on N; correctness (ragged points, hard shapes, beside cuDNN) of P and
# N; paired `ab` P vs bA (round 10's cost); alternated processes P N N P (07 and cuDNN in
# each) and a paired `ab` N vs P (round 11); last, racecheck of round 10's comparison
# builds (v/s1 release/acquire, v/s0 plain) under a 45 s limit.
# Run from a fresh directory after unpacking: bash round.sh "$OUT"
out=$1; ev=$(mktemp -d /tmp/ev11.XXXXXX)
log=$out/log.txt
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
pack() { (cd $ev && tar czf $out/ev.tgz .); }
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv -lms 100 > $ev/smi.csv 2>&1 &
smi=$!
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
timeout 60 $co -sass build/phases/07_hopper.so > /tmp/sass_n.txt 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /USETMAXREG/) r[fn]++; if ($0 ~ /ATOMS/) a[fn]++; if ($0 ~ /F2FP/) c[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d USETMAXREG %d ATOMS %d F2FP %d\n", f, h[f], r[f], a[f], c[f] }' /tmp/sass_n.txt | sort > $ev/sass_count_n.txt
echo "=== sass N t=$(el)" >> $log; sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' $ev/sass_count_n.txt >> $log
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
SAN="--shape 2,16,1000,128,1 --shape 4,32,333,77,64,1 --shape 3,8,960,64,1 --shape 2,16,1000,1100,128,0"
san() {   # tool builddir name
  timeout -k 5 100 $cs --tool $1 --print-limit 50 --error-exitcode 99 ./build/attnladder run --build $2 --impl 07_hopper \
      $SAN --modes single --sweep-modes single --min-samples 1 --max-samples 2 --no-ceilings --out $ev/san_$3.json > $ev/san_$3.log 2>&1
  echo "sanitize $3 ($1, $2) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $ev/san_$3.log | tail -1)" >> $log
}
if [ -z "${SKIP_SAN:-}" ]; then   # SKIP_SAN=1: the sanitizer step already has its result
echo "=== sanitize N t=$(el)" >> $log
san racecheck build racecheck_n & p1=$!; san memcheck build memcheck_n & p2=$!; san synccheck build synccheck_n & p3=$!; san initcheck build initcheck_n & p4=$!
wait $p1 $p2 $p3 $p4   # not a bare wait: the nvidia-smi sampler never ends
grep -h "07_hopper" $ev/san_*.log | grep -E "check " | sort | uniq -c >> $log
fi
pack
correct() {   # name builddir
  echo "=== correct $1 ($2) t=$(el)" >> $log
  timeout -k 5 100 ./build/attnladder run --build $2 --impl 07_hopper,sdpa_cudnn --ragged --shape 4,16,2000,300,128,1 --shape 4,16,300,2000,128,1 \
    --shape 2,16,1999,2001,128,1 --shape 2,16,2001,1999,128,0 --shape 8,16,1000,1000,64,1 --shape 4,32,333,77,64,1 \
    --shape 3,45,2048,2048,64,1 --shape 3,40,4096,4096,64,1 --shape 3,45,1024,1024,128,1 --shape 4,16,4000,4096,128,1 \
    --shape 2,16,4096,3000,128,1 --shape 2,16,1000,128,1 --shape 1,8,300,129,64,1 --shape 2,16,1999,128,0 --shape 3,16,4001,64,0 --shape 2,16,2048,1100,128,0 --shape 2,16,1000,640,64,0 \
    --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out $ev/$1.json > $ev/$1.txt 2>&1
  echo "rc=$? t=$(el); 07 check PASS: $(grep -E '07_hopper .* check +PASS' $ev/$1.txt | wc -l), FAIL: $(grep -E '07_hopper .* check +FAIL' $ev/$1.txt | wc -l)" >> $log
  grep -E "FAIL" $ev/$1.txt | head -20 >> $log
  pack
}
correct correct_p P/build
correct correct_n build
abr() {   # name base head shapes...
  local n=$1 b=$2 h=$3; shift 3
  echo "=== $n ($h vs $b) t=$(el)" >> $log
  timeout -k 5 90 ./build/attnladder ab --base $b --head $h --impl 07_hopper "$@" --out $ev/$n.json > $ev/$n.txt 2>&1
  echo "rc=$?" >> $log; grep -E "^07_hopper" $ev/$n.txt >> $log; pack
}
abr ab_p_vs_main bA P/build --shape 4,16,4096,128,1 --shape 2,32,8192,64,1
SH="--shape 4,16,4096,128,0 --shape 1,16,16384,128,0 --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 16,32,1024,64,1 --shape 4,32,4096,64,0"
one() {   # name builddir
  echo "=== $1 dir=$2 t=$(el)" >> $log
  timeout -k 5 60 ./build/attnladder run --build $2 --impl 07_hopper,sdpa_cudnn $SH --modes graph --sweep-modes graph \
      --no-ceilings --out $ev/$1.json > $ev/$1.txt 2>&1
  echo "rc=$?" >> $log; grep -E "^(07_hopper|sdpa_cudnn) " $ev/$1.txt >> $log; pack
}
one p_1 P/build
one n_1 build
one n_2 build
one p_2 P/build
abr ab_n_vs_p P/build build --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 --shape 4,16,4096,128,1 --shape 16,32,1024,64,1 --shape 1,16,16384,128,1
kill $smi 2>/dev/null
xz -9 $ev/smi.csv
pack
# round 10's comparison builds under racecheck, 45 s at most (run 10: no summary in 500 s)
echo "=== racecheck s1/s0 t=$(el)" >> $log
for v in s1 s0; do
  setsid bash -c "exec $cs --tool racecheck --print-limit 20 --error-exitcode 99 ./build/attnladder run --build v/$v --impl 07_hopper \
      --shape 2,16,1000,128,1 --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings \
      --out $ev/san_racecheck_$v.json > $ev/san_racecheck_$v.log 2>&1" &
  echo $! > $ev/pid_$v
done
for i in $(seq 45); do
  sleep 1; alive=0
  for v in s1 s0; do kill -0 $(cat $ev/pid_$v) 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break
done
for v in s1 s0; do
  p=$(cat $ev/pid_$v)
  if kill -0 $p 2>/dev/null; then echo "racecheck $v: still running at $(el) s, killed" >> $log; kill -9 -- -$p 2>/dev/null; kill -9 $p 2>/dev/null
  else echo "racecheck $v: $(grep -E 'RACECHECK SUMMARY' $ev/san_racecheck_$v.log | tail -1)" >> $log; fi
  tail -c 1500 $ev/san_racecheck_$v.log >> $log
done
pack
echo "total $(el)s" >> $log
