#!/usr/bin/env bash
# Round 8 on the H100 (phases/07_hopper/README.md, eighth round): configurations
# (build directory, ATTN07_* variables) alternated over processes, 07_hopper and sdpa_cudnn
# in every process, graph mode; nvidia-smi logs clocks/power/throttle beside them.
# Run from .carry07/ (the carried builds): bash round.sh "$OUT"
out=$1; ev=/tmp/ev; mkdir -p $ev
log=$out/log.txt
q=clocks_event_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,$q --format=csv >/dev/null 2>&1 || q=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,$q --format=csv -lms 100 > $out/smi.csv 2>&1 &
smi=$!
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv >> $log 2>&1
SHAPES="--shape 4,16,4096,128,0 --shape 4,16,4096,128,1 --shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 --shape 1,8,512,64,0 --shape 1,8,512,64,1"
IMPL=07_hopper,sdpa_cudnn
t0=$(date +%s)
one() {   # name builddir [VAR=value]...
  local name=$1 dir=$2; shift 2
  local el=$(( $(date +%s) - t0 ))
  if [ $el -gt ${LIMIT:-225} ]; then echo "skip $name at ${el}s" >> $log; return; fi
  echo "=== $name dir=$dir env=[$*] start $(date +%H:%M:%S.%N) t=${el}s" >> $log
  env "$@" ./build/attnladder run --build $dir --impl $IMPL $SHAPES --modes graph --sweep-modes graph \
      --no-ceilings --out $ev/$name.json > $ev/$name.txt 2>&1
  echo "rc=$? end $(date +%H:%M:%S.%N)" >> $log
  grep -E "07_hopper|sdpa_cudnn|06_tiling" $ev/$name.txt | grep -v "^evidence" >> $log
  (cd /tmp && tar czf $out/ev.tgz ev)
}
for r in 1 2; do
  if [ $r = 1 ]; then order="A Bd Bs C D"; else order="D C Bs Bd A"; fi
  for c in $order; do
    case $c in
      A)  one a_$r bA ;;
      Bd) one bdyn_$r build ATTN07_SCHED=dynamic ;;
      Bs) one bstat_$r build ;;
      C)  one c3stage_$r bC ATTN07_SCHED=dynamic ;;
      D)  one dpoly_$r bD ATTN07_SCHED=dynamic ;;
    esac
  done
done
# the headline beside 06 (build B; the headline's one-warpgroup path has no switch)
IMPL=06_tiling,07_hopper,sdpa_cudnn SHAPES="--shape 1,8,512,64,0 --shape 1,8,512,64,1" LIMIT=275 one headline06 build
kill $smi 2>/dev/null
(cd /tmp && tar czf $out/ev.tgz ev)
echo "total $(( $(date +%s) - t0 ))s" >> $log
