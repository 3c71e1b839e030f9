#!/usr/bin/env bash
# Run 13 (phases/07_hopper/README.md, "What is left" 3: 176-key tiles), prepared, not run.
# Layout after unpacking, in a fresh directory: build/ = the default build (attnladder,
# phases, kernels), N/ = a copy of build/phases and build/kernels with phases/07_hopper.so
# compiled with -DATTN07_AUTO176=1 (`make -s nvcc-command-07_hopper`, <build> -> N, plus
# the flag). Every step has its own time limit; each step's output is packed as it ends.
#   bash round.sh "$OUT"
out=$1; ev=$(mktemp -d /tmp/ev13.XXXXXX); log=$out/log.txt; t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
# 0. SASS of N's 07 (sm_90a): HGMMA per kernel (the 176-key kernel's S wgmma is one
#    m64n176k16 per k-step, so its count differs from the 128-key kernels'), MUFU.EX2 for
#    the softmax's exponentials
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
timeout 60 $co -sass N/phases/07_hopper.so > "$ev/sass_n.txt" 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /MUFU.EX2/) e[fn]++; if ($0 ~ /USETMAXREG/) r[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-110s HGMMA %3d MUFU.EX2 %3d USETMAXREG %d\n", f, h[f], e[f], r[f] }' "$ev/sass_n.txt" \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count_n.txt"
xz -9 "$ev/sass_n.txt"
echo "=== sass N t=$(el)" >> "$log"; cat "$ev/sass_count_n.txt" >> "$log"; pack
# 1. correctness of the 176-key kernel (non-causal D=128: ragged tails both ways, the
#    headline sweep's D=128 points, a throughput shape), beside cuDNN
echo "=== correct N t=$(el)" >> "$log"
timeout -k 5 120 ./build/attnladder run --build N --impl 07_hopper,sdpa_cudnn --ragged \
  --shape 2,16,2001,1999,128,0 --shape 2,16,1999,2001,128,0 --shape 2,16,2048,1100,128,0 --shape 2,16,1999,128,0 \
  --shape 2,16,1000,128,0 --shape 1,8,300,129,128,0 --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
  --modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2 --out "$ev/correct_n.json" > "$ev/correct_n.txt" 2>&1
echo "rc=$? t=$(el); 07 PASS $(grep -cE '07_hopper .* check +PASS' "$ev/correct_n.txt") FAIL $(grep -cE '07_hopper .* check +FAIL' "$ev/correct_n.txt")" >> "$log"
grep -E "pingpong-176|FAIL" "$ev/correct_n.txt" | head -5 >> "$log"; pack
# 2. timing: paired ab N vs the default build, then alternated processes B N N B
echo "=== ab N vs B t=$(el)" >> "$log"
timeout -k 5 90 ./build/attnladder ab --base build --head N --impl 07_hopper --shape 4,16,4096,128,0 --shape 1,16,16384,128,0 \
  --shape 4,16,4096,128,1 --out "$ev/ab_n_vs_b.json" > "$ev/ab_n_vs_b.txt" 2>&1
echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab_n_vs_b.txt" >> "$log"; pack
SH="--shape 4,16,4096,128,0 --shape 1,16,16384,128,0 --shape 4,16,4096,128,1"
for r in b_1:build n_1:N n_2:N b_2:build; do
  name=${r%%:*} dir=${r#*:}
  echo "=== $name ($dir) t=$(el)" >> "$log"
  timeout -k 5 60 ./build/attnladder run --build "$dir" --impl 07_hopper,sdpa_cudnn $SH --modes graph --sweep-modes graph \
    --no-ceilings --out "$ev/$name.json" > "$ev/$name.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/$name.txt" >> "$log"; pack
done
# 4. sanitizers (last: they matter only if the timing keeps the variant) on N (two non-causal D=128 shapes, one ragged), each tool its own limit
SAN="--shape 2,16,1000,128,0 --shape 2,16,1999,2001,128,0"
for tool in memcheck racecheck synccheck initcheck; do
  timeout -k 5 60 $cs --tool $tool --print-limit 20 --error-exitcode 99 ./build/attnladder run --build N --impl 07_hopper \
    $SAN --modes single --sweep-modes single --min-samples 1 --max-samples 1 --no-ceilings --out "$ev/san_$tool.json" > "$ev/san_$tool.log" 2>&1
  echo "sanitize $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$ev/san_$tool.log" | tail -1)" >> "$log"; pack
done
echo "total $(el)s" >> "$log"
