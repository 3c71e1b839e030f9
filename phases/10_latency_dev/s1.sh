#!/usr/bin/env bash
# f16x2 exponentials + row sums on the tensor core (N0), per-tile barriers (N1: S1 issued when K1 lands; N2: S1 after softmax0)
B=.dev/b
nvidia-smi -L
$B/ex2 | tee $OUT/ex2.txt
S=""
for sh in 1,8,512,64,0 1,8,512,64,1 1,8,512,128,1 1,8,512,128,0 2,8,77,64,0 2,8,77,128,1 1,8,256,64,0 1,8,300,129,64,1 1,4,512,64,1; do S="$S --shape $sh"; done
for r in 1 2; do
$B/attnladder run --build $B --impl O10,N0,N1,N2,09_tile_scheduling,sdpa_cudnn $S --modes graph --sweep-modes graph --no-ceilings --max-seconds 1 --out $OUT/m$r.json > $OUT/m$r.txt 2>&1
echo "run $r exit=$? $(grep -c 'check  PASS' $OUT/m$r.txt) pass $(grep -c FAIL $OUT/m$r.txt) fail"
done
python3 .dev/tab.py $OUT/m1.json $OUT/m2.json
python3 - <<'P' $OUT/m1.json
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  c=r.get('correctness') or {}
  if r['impl'] in ('O10','N0','N1','N2') and 'rel_l2' in c: print(r['impl'],r['shape']['seq_kv'],r['shape']['head_dim'],r['shape']['causal'],'rel_l2 %.2e max_abs %.2e'%(c['rel_l2'],c['max_abs']))
P
cuobjdump -sass $B/phases/N0.so | awk '/Function :/{f=($0 ~ /latency_attentionILi64/)} f' | grep -E "MUFU|HGMMA|WARPGROUP" | sort | uniq -c | head -20
