#!/usr/bin/env bash
# H100: (1) 06's headline mode hunt: N separate processes of 06 + cuDNN at the headline
# shapes, each process's medians kept; (2) two ladder processes of this commit (07 with two
# P buffers) at the headline and throughput shapes; (3) one process of 07 + cuDNN at the
# rung's target shapes.
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev.XXXXXX)
el() { echo $(( $(date +%s) - t0 )); }
tar -C .carry-main -xJf .carry-main/build.tar.xz
B=.carry-main/build
nvidia-smi -L >> $log; cat $B/gitinfo >> $log
pack() { (cd $ev && tar czf $out/ev.tgz .); }
mkdir -p $ev/modes
echo "=== 06 modes t=$(el)" >> $log
for i in $(seq 1 ${N06:-40}); do
  timeout -k 2 10 $B/attnladder run --build $B --impl 06_tiling,sdpa_cudnn --shape 1,8,512,64,0 --shape 1,8,512,64,1 \
    --modes graph --sweep-modes graph --no-ceilings --seed $((100 + i)) --out $ev/modes/m$i.json > $ev/modes/m$i.txt 2>&1 || echo "process $i rc=$?" >> $log
  [ $(el) -gt ${MODES_S:-80} ] && { echo "modes: stopped after $i processes (time)" >> $log; break; }
done
python3 - $ev/modes >> $log <<'PY'
import json,sys,glob,os
rows=[]
for f in sorted(glob.glob(sys.argv[1]+'/m*.json'), key=lambda p:int(os.path.basename(p)[1:-5])):
    d=json.load(open(f)); t={}
    for r in d['results']:
        if r.get('timing') and 'graph' in r['timing']:
            t[(r['impl'],r['shape']['causal'])]=r['timing']['graph']['median_us']
    print(os.path.basename(f), " ".join(f"{c}: 06 {t.get(('06_tiling',c),0):.3f} cudnn {t.get(('sdpa_cudnn',c),0):.3f} ratio {t.get(('06_tiling',c),0)/max(t.get(('sdpa_cudnn',c),1),1e-9):.4f}" for c in (0,1)))
PY
pack
SH="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0 --shape 4,16,4096,128,1"
for i in 1 2; do
  echo "=== ladder $i t=$(el)" >> $log
  timeout -k 5 60 $B/attnladder run --build $B $SH --modes graph --sweep-modes graph --no-ceilings --evidence $ev > $ev/ladder$i.txt 2>&1
  echo "rc=$?" >> $log; grep -E "^(07_hopper|06_tiling|sdpa_cudnn) " $ev/ladder$i.txt >> $log
  pack
done
echo "=== 07 targets t=$(el)" >> $log
timeout -k 5 60 $B/attnladder run --build $B --impl 07_hopper,sdpa_cudnn --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
  --shape 4,16,4096,128,1 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1 \
  --modes graph --sweep-modes graph --no-ceilings --out $ev/targets07.json > $ev/targets07.txt 2>&1
echo "rc=$?" >> $log; grep -E "^(07_hopper|sdpa_cudnn) " $ev/targets07.txt >> $log
pack
echo "total $(el)s" >> $log
