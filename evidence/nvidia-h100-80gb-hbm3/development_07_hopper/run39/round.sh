#!/usr/bin/env bash
# Run 39: the review's mend (the producer's written-out copies of item_of() replaced by the
# function): paired ab against the build before it (B/, the 07 of 1f4d544), correctness
# beside cuDNN on split shapes, SASS counts (HGMMA/HMMA, spills) of the new build.
#   bash round.sh "$OUT"   (build/ = this commit's build)
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev39.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
cuobjdump -sass build/phases/07_hopper.so > /tmp/sass39.txt 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /HMMA/ && $0 !~ /HGMMA/) m[fn]++; if ($0 ~ / STL/) sl[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d HMMA %d STL %d\n", f, h[f], m[f], sl[f] }' /tmp/sass39.txt \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
python3 ci/tools/sass_loops.py /tmp/sass39.txt > "$ev/sass_loops.txt" 2>&1
echo "sass: kernels $(grep -c hopper_attention "$ev/sass_count.txt"), with HGMMA $(awk '$3>0' "$ev/sass_count.txt" | grep -c hopper_attention), with HMMA $(awk '$5>0' "$ev/sass_count.txt" | grep -c hopper_attention), with STL $(awk '$7>0' "$ev/sass_count.txt" | grep -c hopper_attention)" >> "$log"; pack
timeout -k 5 200 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 4,16,4096,128,0 --shape 4,32,4096,64,0 \
  --shape 2,16,1100,128,0 --shape 1,8,512,64,0 --shape 1,8,512,64,1 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "ab rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
CS="--shape 4,16,4096,128,0 --shape 2,16,1100,128,0 --shape 1,17,1000,1000,128,0 --shape 2,16,700,2100,128,0 --shape 4,32,4096,64,0 --shape 2,16,1300,1001,64,0 --shape 1,67,384,300,64,0"
timeout -k 5 200 ./build/attnladder run --impl 07_hopper,sdpa_cudnn --ragged $CS \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct.json" > "$ev/correct.txt" 2>&1
echo "correct rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct.txt")" >> "$log"; pack
