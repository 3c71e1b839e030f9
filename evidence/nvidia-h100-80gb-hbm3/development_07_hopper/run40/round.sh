#!/usr/bin/env bash
# Run 40: round 22 (a warpgroup skips the key tiles none of its rows sees): SASS (HGMMA/HMMA,
# where the new spill sits), correctness beside cuDNN on every path that skips (causal 3wg,
# the dynamic pingpong at D=64 and 128, the plain non-causal kernels, persistent 3wg, rows
# past seq_q, rows that see no key), paired ab against the committed build's 07 (B/, 2cfe4c1),
# two target processes, sanitizers.
#   bash round.sh "$OUT"   (build/ = this commit's build)
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev40.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
timeout 60 $co -sass build/phases/07_hopper.so > /tmp/sass40.txt 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /HMMA/ && $0 !~ /HGMMA/) m[fn]++; if ($0 ~ / STL/) sl[fn]++; if ($0 ~ / LDL/) ll[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d HMMA %d STL %d LDL %d\n", f, h[f], m[f], sl[f], ll[f] }' /tmp/sass40.txt \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
# Where the spill sits: every STL/LDL of the sm_90a kernels with the 12 lines before it.
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" { buf[NR%13]=$0; if ($0 ~ / (STL|LDL)/) { print "== " fn " line " NR; for (i=NR-12;i<=NR;i++) print buf[i%13] } }' \
  /tmp/sass40.txt | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' > "$ev/sass_spills.txt"
python3 ci/tools/sass_loops.py /tmp/sass40.txt > "$ev/sass_loops.txt" 2>&1
# the 3wg causal kernel's SASS whole, for reading the spill's place against its loops
awk '/Function :/{p=($3 ~ /ILi64ELi3ELb1ELb1ELb0ELi128ELi128ELb0E/)} /arch = /{a=$3} p && a=="sm_90a"' /tmp/sass40.txt | xz -9 > "$ev/sass_3wg_causal.txt.xz"
echo "sass t=$(el): kernels $(grep -c hopper_attention "$ev/sass_count.txt"), with HGMMA $(awk '$3>0' "$ev/sass_count.txt" | grep -c hopper_attention), with HMMA $(awk '$5>0' "$ev/sass_count.txt" | grep -c hopper_attention), with STL $(awk '$7>0' "$ev/sass_count.txt" | grep -c hopper_attention)" >> "$log"; pack
R="--modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2"
chk() {   # name env... -- shapes
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
SH="--shape 1,8,300,129,128,1 --shape 1,8,1500,1000,128,1 --shape 1,8,1000,1500,128,1 --shape 2,8,1000,128,1 --shape 2,16,1100,128,0 --shape 1,8,1300,1001,128,0"
chk pingpong128 ATTN07_VARIANT=pingpong ATTN07_FIRST=0
chk pp176_plain ATTN07_VARIANT=pingpong-176 ATTN07_FIRST=0
SH="--shape 1,8,300,129,64,1 --shape 1,8,1500,1000,64,1 --shape 2,8,1000,64,1 --shape 1,8,1300,1001,64,0"
chk pingpong64 ATTN07_VARIANT=pingpong ATTN07_FIRST=0
timeout -k 5 200 ./build/attnladder ab --base B --head build --impl 07_hopper --shape 2,32,8192,64,1 --shape 4,32,4096,64,1 \
  --shape 2,32,2048,64,1 --shape 4,16,4096,128,1 --shape 16,32,1024,64,1 --shape 4,16,4096,128,0 --shape 4,32,4096,64,0 \
  --shape 1,8,512,64,0 --shape 1,8,512,64,1 --out "$ev/ab.json" > "$ev/ab.txt" 2>&1
echo "ab rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab.txt" >> "$log"; pack
TG="--shape 4,16,4096,128,0 --shape 4,16,4096,128,1 --shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1"
for i in 1 2; do
  timeout -k 5 120 ./build/attnladder run --impl 07_hopper,sdpa_cudnn $TG --modes graph --sweep-modes graph --no-ceilings \
    --out "$ev/targets$i.json" > "$ev/targets$i.txt" 2>&1
  echo "targets $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets$i.txt" >> "$log"; pack
done
for tool in memcheck racecheck synccheck; do
  ATTN07_VARIANT=3wg ATTN07_PERSIST=1 timeout -k 5 80 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --impl 07_hopper \
    --shape 1,8,300,129,64,1 --shape 1,4,700,500,64,1 --shape 1,2,1000,64,0 --modes single --sweep-modes single \
    --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? t=$(el) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
