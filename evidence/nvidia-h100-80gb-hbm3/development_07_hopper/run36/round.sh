#!/usr/bin/env bash
# Run 36: the headline regression of run 35 (+2.5% / +1.5% against round 16's 07 with the
# 1wg kernels' PTX unchanged since round 18): is it the 16 bytes of barrier area round 21
# added to every kernel (1wg-overlap D=64: 107,672 -> 107,688 B)? H1 = this commit's build
# (round 21 as committed at 5b18d5b), H2 = the same with the per-warpgroup Q barriers'
# bytes only in the three-warpgroup kernels, B = round 16's 07 (40a3619). Paired ab.
#   bash round.sh "$OUT"
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev36.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
mkdir -p H2/kernels && cp build/kernels/*.so H2/kernels/
HS="--shape 1,8,512,64,0 --shape 1,8,512,64,1"
for pair in "B build" "B H2" "build H2" "B build"; do
  set -- $pair
  echo "=== ab $1 -> $2 t=$(el)" >> "$log"
  timeout -k 5 100 ./build/attnladder ab --base $1 --head $2 --impl 07_hopper $HS --out "$ev/ab_$1_$2_$(el).json" > "$ev/ab_$1_$2.txt" 2>&1
  echo "rc=$?" >> "$log"; grep -E "^07_hopper" "$ev/ab_$1_$2.txt" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack

# Three more calls on warm machines followed (their files: ev/ab_<base>_<head>.json), each
#   ./build/attnladder ab --base BASE --head HEAD --impl 07_hopper --shape 1,8,512,64,0 \
#     --shape 1,8,512,64,1 [--shape 2,16,1100,128,0 | --shape 4,32,4096,64,0]
# with B18 = round 18's 07 (2f2f207, sm_90a only), C2 = round 20's (cea3ecc with
# -DATTN07_QPREFETCH=1, sm_90a only), H3 = round 20 with the trace switch (1d19371's sources,
# sm_90a only): pairs B -> B18, B18 -> build, B -> build; B18 -> C2, C2 -> build; C2 -> H3,
# B18 -> H3, H3 -> build.
