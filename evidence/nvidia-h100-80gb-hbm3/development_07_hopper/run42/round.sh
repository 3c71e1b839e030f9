#!/usr/bin/env bash
# Run 42: round 22 as kept (H3: the skip in the three-warpgroup kernel only; build/ = this
# commit's build). SASS counts and turn windows; paired ab against the committed 07 (B/,
# 2cfe4c1) and, for attribution, H4 against B (H4: H3 with mine() returning the block's
# count, so nothing is skipped but the counts still pass the shuffle; built from this
# commit's attention.cu after
#   sed 's/return __shfl_sync(0xffffffffu, end > 0 ? min(nt, (end + KN - 1) \/ KN) : 0, 0);/(void)end; return __shfl_sync(0xffffffffu, nt, 0);/');
# correctness beside cuDNN; sanitizers; two ladder processes (the first profiled with ncu)
# and two target processes.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev42.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
for b in build H4; do
  timeout 60 $co -sass $b/phases/07_hopper.so > /tmp/sass_$b.txt 2>&1
  python3 evidence/nvidia-h100-80gb-hbm3/development_07_hopper/run42/turns.py /tmp/sass_$b.txt > "$ev/turns_$b.txt" 2>&1
done
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /HMMA/ && $0 !~ /HGMMA/) m[fn]++; if ($0 ~ / STL/) sl[fn]++; if ($0 ~ / LDL/) ll[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d HMMA %d STL %d LDL %d\n", f, h[f], m[f], sl[f], ll[f] }' /tmp/sass_build.txt \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
python3 ci/tools/sass_loops.py /tmp/sass_build.txt > "$ev/sass_loops.txt" 2>&1
echo "sass t=$(el): kernels $(grep -c hopper_attention "$ev/sass_count.txt"), with HGMMA $(awk '$3>0' "$ev/sass_count.txt" | grep -c hopper_attention), with HMMA $(awk '$5>0' "$ev/sass_count.txt" | grep -c hopper_attention), with STL $(awk '$7>0' "$ev/sass_count.txt" | grep -c hopper_attention)" >> "$log"; pack
timeout -k 5 200 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 2,32,8192,64,1 --shape 4,32,4096,64,1 \
  --shape 2,32,2048,64,1 --shape 4,16,4096,128,1 --shape 16,32,1024,64,1 --shape 4,16,4096,128,0 --shape 4,32,4096,64,0 \
  --shape 2,16,1100,128,0 --shape 1,8,512,64,0 --shape 1,8,512,64,1 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "ab rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
timeout -k 5 120 ./build/attnladder ab --base B --head H4 --impl 07_hopper --shape 2,32,8192,64,1 --shape 4,32,4096,64,1 \
  --shape 2,32,2048,64,1 --out "$ev/ab_H4.json" > "$ev/ab_H4.txt" 2>&1
echo "ab H4 rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab_H4.txt" >> "$log"; pack
R="--modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2"
chk() {   # name env... (shapes in SH)
  local name=$1; shift
  env "$@" timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn $EXTRA $SH $R --out "$ev/correct_$name.json" > "$ev/correct_$name.txt" 2>&1
  echo "correct $name rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct_$name.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct_$name.txt")" >> "$log"; pack
}
SH="--shape 2,32,8192,64,1 --shape 4,32,4096,64,1 --shape 2,32,2048,64,1 --shape 1,8,1000,1500,64,1 --shape 1,8,1500,1000,64,1 --shape 3,5,2000,64,1 --shape 2,16,1000,128,1 --shape 1,8,1500,1000,128,1 --shape 16,32,1024,64,1"
EXTRA=--ragged chk default ATTN07_X=0
EXTRA=
SH="--shape 1,8,1000,1500,64,1 --shape 1,8,1500,1000,64,1 --shape 1,8,300,129,64,1 --shape 3,5,2000,64,1 --shape 1,4,700,64,1 --shape 2,4,4096,64,0 --shape 1,8,1300,1001,64,0"
chk 3wg ATTN07_VARIANT=3wg ATTN07_FIRST=0
chk 3wg_persist ATTN07_VARIANT=3wg ATTN07_PERSIST=1 ATTN07_FIRST=0
for tool in memcheck racecheck synccheck initcheck; do
  ATTN07_VARIANT=3wg ATTN07_PERSIST=1 timeout -k 5 80 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 1,8,300,129,64,1 --shape 1,4,700,500,64,1 --shape 1,2,1000,64,0 --modes single --sweep-modes single \
    --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
SH="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0 --shape 4,16,4096,128,1"
TG="--shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1"
for i in 1 2; do
  timeout -k 5 90 ./build/attnladder run $SH --modes graph --sweep-modes graph --no-ceilings --evidence "$ev" > "$ev/ladder$i.txt" 2>&1
  echo "ladder $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|06_tiling|sdpa_cudnn) " "$ev/ladder$i.txt" >> "$log"; pack
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn $TG --modes graph --sweep-modes graph --no-ceilings \
    --out "$ev/targets$i.json" > "$ev/targets$i.txt" 2>&1
  echo "targets $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets$i.txt" >> "$log"; pack
done
f=$(ls "$ev"/*/*.json | head -1)
timeout -k 5 150 ./build/attnladder profile --into "$f" --impl 07_hopper,sdpa_cudnn --shape 1,8,512,64,0 --shape 4,16,4096,128,0 \
  --shape 2,32,8192,64,1 > "$ev/profile.txt" 2>&1
echo "profile rc=$? t=$(el)" >> "$log"; tail -12 "$ev/profile.txt" >> "$log"
echo "total $(el)s" >> "$log"; pack
