#!/usr/bin/env bash
# Run 15: the ladder after round 12 (two processes of every phase and cuDNN at the headline
# and throughput shapes, evidence for the accepted set), and the SASS of this build's 07:
# HGMMA and HMMA per sm_90a kernel (the main loops must issue HGMMA, never HMMA).
#   bash round.sh "$OUT"   (build/ = this commit's build)
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev15.XXXXXX)
el() { echo $(( $(date +%s) - t0 )); }
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
timeout 60 $co -sass build/phases/07_hopper.so > "$ev/sass.txt" 2>&1
awk '/arch = /{arch=$3} /Function :/{fn=$3} arch=="sm_90a" && fn!="" {
       if ($0 ~ /HGMMA/) h[fn]++; if ($0 ~ /HMMA/) m[fn]++; seen[fn]=1 }
     END { for (f in seen) printf "%-100s HGMMA %3d HMMA %d\n", f, h[f], m[f] }' "$ev/sass.txt" \
  | sed 's/_ZN45_GLOBAL__N__[0-9a-f]*_12_attention_cu_[0-9a-f]*//' | sort > "$ev/sass_count.txt"
xz -9 "$ev/sass.txt"
echo "=== sass t=$(el)" >> "$log"; cat "$ev/sass_count.txt" >> "$log"; pack
SH="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0 --shape 4,16,4096,128,1"
for i in 1 2; do
  echo "=== ladder $i t=$(el)" >> "$log"
  timeout -k 5 90 ./build/attnladder run $SH --modes graph --sweep-modes graph --no-ceilings --evidence "$ev" > "$ev/ladder$i.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^(07_hopper|06_tiling|sdpa_cudnn) " "$ev/ladder$i.txt" >> "$log"; pack
done
echo "total $(el)s" >> "$log"
