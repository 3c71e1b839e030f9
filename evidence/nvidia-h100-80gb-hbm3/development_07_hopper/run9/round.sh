#!/usr/bin/env bash
# Round 9 on the H100 (phases/07_hopper/README.md, ninth round): the committed kernel (bA)
# and this build (build) in alternated processes (A N N A, then N A while time is left),
# 07_hopper and sdpa_cudnn in each, graph mode; a paired `ab` process; a correctness pass
# of this build on the ragged points and hard shapes; nvidia-smi logs the clocks.
# Run from .carry07/: bash round.sh "$OUT"
out=$1; ev=/tmp/ev; mkdir -p $ev
log=$out/log.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv -lms 100 > $out/smi.csv 2>&1 &
smi=$!
SHAPES="--shape 4,16,4096,128,0 --shape 4,16,4096,128,1 --shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 --shape 16,32,1024,64,1 --shape 1,8,512,64,0 --shape 1,8,512,64,1"
t0=$(date +%s)
pack() { (cd /tmp && tar czf $out/ev.tgz ev); }
one() {   # name builddir [VAR=value]...
  local name=$1 dir=$2; shift 2
  local el=$(( $(date +%s) - t0 ))
  if [ $el -gt ${LIMIT:-200} ]; then echo "skip $name at ${el}s" >> $log; return; fi
  echo "=== $name dir=$dir env=[$*] start $(date +%H:%M:%S.%N) t=${el}s" >> $log
  env "$@" ./build/attnladder run --build $dir --impl 07_hopper,sdpa_cudnn $SHAPES --modes graph --sweep-modes graph \
      --no-ceilings --out $ev/$name.json > $ev/$name.txt 2>&1
  echo "rc=$? end $(date +%H:%M:%S.%N)" >> $log
  grep -E "^(07_hopper|sdpa_cudnn) " $ev/$name.txt >> $log
  pack
}
LIMIT=100 one a_1 bA
LIMIT=100 one n_1 build
# correctness of this build: the ragged points (with the peaked/outlier input checks) and
# hard shapes through the dynamic (causal, two warpgroups) and grouped paths
el=$(( $(date +%s) - t0 )); echo "=== correct start t=${el}s" >> $log
./build/attnladder run --build build --impl 07_hopper --ragged --shape 4,16,2000,300,128,1 --shape 4,16,300,2000,128,1 \
  --shape 2,16,1999,2001,128,1 --shape 2,16,2001,1999,128,0 --shape 8,16,1000,1000,64,1 --shape 4,32,333,77,64,1 \
  --shape 3,45,2048,2048,64,1 --shape 3,40,4096,4096,64,1 --shape 3,45,1024,1024,128,1 --modes graph --sweep-modes graph \
  --no-ceilings --max-samples 10 --max-seconds 0.2 --out $ev/correct9.json > $ev/correct9.txt 2>&1
echo "rc=$?" >> $log; grep -cE " ok$" $ev/correct9.txt >> $log; grep -E "FAIL|fail" $ev/correct9.txt | head >> $log; pack
LIMIT=150 one n_2 build
LIMIT=180 one a_2 bA
# paired: both builds in one process, interleaved
el=$(( $(date +%s) - t0 ))
if [ $el -le 215 ]; then
  echo "=== ab start t=${el}s" >> $log
  ./build/attnladder ab --base bA --head build --impl 07_hopper --shape 4,16,4096,128,1 --shape 2,32,8192,64,1 \
    --shape 16,32,1024,64,1 --shape 4,16,4096,128,0 --shape 1,16,16384,128,1 --out $ev/ab9.json > $ev/ab9.txt 2>&1
  echo "rc=$?" >> $log; tail -15 $ev/ab9.txt >> $log
fi
LIMIT=245 one n_3 build
kill $smi 2>/dev/null
pack
echo "total $(( $(date +%s) - t0 ))s" >> $log
