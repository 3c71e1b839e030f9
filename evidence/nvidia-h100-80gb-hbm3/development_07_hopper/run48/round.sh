#!/usr/bin/env bash
# Run 48: round 26 (the pingpong-176 twins split the register file 40 / 232: no spill left).
# SASS counts; paired ab against round 25's build (B5/, the 07 of 2e1e5b8); correctness beside
# cuDNN on the split shapes and the ragged points; sanitizers; three ladder processes and
# three target processes of the build to freeze.
#   bash round.sh "$OUT" [a|b]   (build/ = this commit's build; two device calls, since the
#   tree and both builds do not fit one copy: a = SASS, ab, correctness, sanitizers with the
#   rung's build and B5/; b = the ladder and targets with every rung built)
part=${2:-a}
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev48.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
D=evidence/nvidia-h100-80gb-hbm3/development_07_hopper
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
if [ "$part" = a ]; then
timeout 60 $co -sass build/phases/07_hopper.so > /tmp/sass_build.txt 2>&1
python3 $D/run42/turns.py /tmp/sass_build.txt > "$ev/turns_build.txt" 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /HMMA/ && $0 !~ /HGMMA/) m[fn]++; if ($0 ~ / STL/) sl[fn]++; if ($0 ~ / LDL/) ll[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d HMMA %d STL %d LDL %d\n", f, h[f], m[f], sl[f], ll[f] }' /tmp/sass_build.txt \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
python3 ci/tools/sass_loops.py /tmp/sass_build.txt > "$ev/sass_loops.txt" 2>&1
echo "sass t=$(el): kernels $(grep -c hopper_attention "$ev/sass_count.txt"), with HGMMA $(awk '$3>0' "$ev/sass_count.txt" | grep -c hopper_attention), with HMMA $(awk '$5>0' "$ev/sass_count.txt" | grep -c hopper_attention), with STL $(awk '$7>0' "$ev/sass_count.txt" | grep -c hopper_attention), with LDL $(awk '$9>0' "$ev/sass_count.txt" | grep -c hopper_attention)" >> "$log"; pack
timeout -k 5 200 ./build/attnladder ab --base B5 --head build --impl 07_hopper --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
  --shape 2,16,1100,128,0 --shape 4,16,1880,128,0 --shape 2,16,8192,128,0 --shape 4,32,4096,64,0 --shape 4,16,4096,128,1 \
  --shape 1,8,512,64,0 --shape 1,8,512,64,1 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "ab rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
R="--modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2"
timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged --shape 4,16,4096,128,0 --shape 2,16,1100,128,0 \
  --shape 4,16,1880,128,0 --shape 1,17,1000,1000,128,0 --shape 1,17,1000,1500,128,0 --shape 2,16,700,2100,128,0 \
  --shape 5,7,2001,1000,128,0 --shape 1,67,700,2100,128,0 --shape 1,16,16384,128,0 --shape 1,7,333,129,128,0 \
  --shape 64,16,256,100,128,0 $R --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "correct rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"; pack
for tool in memcheck racecheck synccheck initcheck; do
  timeout -k 5 100 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 2,16,1100,128,0 --shape 1,7,333,129,128,0 --shape 1,17,1000,1500,128,0 --modes single --sweep-modes single \
    --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
fi
if [ "$part" = b ]; then
SH="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0 --shape 4,16,4096,128,1"
TG="--shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1"
for i in 1 2 3; do
  timeout -k 5 90 ./build/attnladder run $SH --modes graph --sweep-modes graph --no-ceilings --evidence "$ev" > "$ev/ladder$i.txt" 2>&1
  echo "ladder $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|06_tiling|sdpa_cudnn) " "$ev/ladder$i.txt" >> "$log"; pack
  timeout -k 5 90 ./build/attnladder run --impl 07_hopper,sdpa_cudnn $TG --modes graph --sweep-modes graph --no-ceilings \
    --out "$ev/targets$i.json" > "$ev/targets$i.txt" 2>&1
  echo "targets $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets$i.txt" >> "$log"; pack
done
fi
echo "total $(el)s" >> "$log"; pack
