#!/usr/bin/env bash
# Run 41: why round 22 slowed kernels that skip nothing. Builds: B (the committed 07, 2cfe4c1),
# H0 (round 22 as run 40 measured it, build/), H1 (H0 with the tile counts of mine() through a
# shuffle from lane 0, so ptxas sees them warp-uniform; built from this commit), H2 (H0's
# sources with -DATTN07_SKIP=0). SASS of each: per kernel's main loops, how many
# instructions lie between a turn's BAR.SYNC and its first HGMMA, and the turn's length;
# paired ab of H1 and H2 against B; H1's correctness beside cuDNN and two target processes.
#   bash round.sh "$OUT"   (build/ = H0; H1/, H2/ = build/ with their 07_hopper.so)
out=$1; log=$out/log.txt; t0=$(date +%s); ev=$(mktemp -d /tmp/ev41.XXXXXX)
pack() { (cd "$ev" && tar czf "$out/ev.tgz" .); }
el() { echo $(( $(date +%s) - t0 )); }
co=cuobjdump; command -v $co >/dev/null || co=/usr/local/cuda/bin/cuobjdump
nvidia-smi -L >> "$log"; cat build/gitinfo >> "$log"
cat > /tmp/turns.py <<'PY'
import re, sys
# For each sm_90a hopper_attention kernel: every backward branch whose body holds >= 8 HGMMA
# (a main loop), and in it each ping-pong turn: (instructions from the named BAR.SYNC to the
# first HGMMA, to the BAR.ARV); plus R2UR and STL/LDL counts in the loop.
cur = arch = None; ins = {}
for l in open(sys.argv[1]):
    if 'arch = ' in l: arch = l.split('arch = ')[1].strip()
    m = re.search(r'Function : (\S+)', l)
    if m: cur = m.group(1); continue
    m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+([^;]*);', l)
    if m and cur and arch == 'sm_90a' and 'hopper_attention' in cur:
        ins.setdefault(cur, []).append((int(m.group(1), 16), m.group(2).strip()))
for k, v in sorted(ins.items()):
    name = re.search(r'hopper_attentionI(\w+?)EEv', k).group(1)
    for a, t in v:
        m = re.search(r'BRA (?:`\(\.L_x_\d+\) )?0x([0-9a-f]+)', t)
        if not m or int(m.group(1), 16) >= a: continue
        body = [x for x in v if int(m.group(1), 16) <= x[0] <= a]
        if sum('HGMMA' in x[1] for x in body) < 8 or len(body) > 1400: continue
        turns = []; s = first = None
        for j, (b, tt) in enumerate(body):
            if 'BAR.SYNC' in tt and 'BAR.SYNC.DEFER_BLOCKING 0x0 ' not in tt: s, first = j, None
            if s is not None and first is None and 'HGMMA' in tt: first = j - s
            if 'BAR.ARV' in tt and s is not None: turns.append((first, j - s)); s = None
        cnt = lambda w: sum(w in x[1] for x in body)
        print(f"{name:42s} n={len(body):5d} R2UR={cnt('R2UR'):3d} STL={cnt('STL')} LDL={cnt('LDL')} turns(first HGMMA, BAR.ARV)={turns}")
PY
for b in B build H1 H2; do
  timeout 60 $co -sass $b/phases/07_hopper.so > /tmp/sass_$b.txt 2>&1
  python3 /tmp/turns.py /tmp/sass_$b.txt > "$ev/turns_$b.txt" 2>&1
done
xz -9 -c /tmp/sass_H1.txt > "$ev/sass_H1.txt.xz"
echo "sass t=$(el)" >> "$log"; pack
A="--shape 2,32,8192,64,1 --shape 4,32,4096,64,1 --shape 2,32,2048,64,1 --shape 4,16,4096,128,1 --shape 16,32,1024,64,1 --shape 4,16,4096,128,0"
timeout -k 5 200 ./build/attnladder ab --base B --head H1 --impl 07_hopper $A --out "$ev/ab_H1.json" > "$ev/ab_H1.txt" 2>&1
echo "ab H1 rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab_H1.txt" >> "$log"; pack
timeout -k 5 200 ./build/attnladder ab --base B --head H2 --impl 07_hopper --shape 2,32,8192,64,1 --shape 4,16,4096,128,1 \
  --shape 16,32,1024,64,1 --out "$ev/ab_H2.json" > "$ev/ab_H2.txt" 2>&1
echo "ab H2 rc=$? t=$(el)" >> "$log"; grep -E "^07_hopper" "$ev/ab_H2.txt" >> "$log"; pack
R="--modes graph --sweep-modes graph --no-ceilings --max-samples 10 --max-seconds 0.2"
chk() {   # name env... (shapes in SH)
  local name=$1; shift
  env "$@" timeout -k 5 200 ./build/attnladder run --build H1 --impl 07_hopper,sdpa_cudnn $EXTRA $SH $R --out "$ev/correct_$name.json" > "$ev/correct_$name.txt" 2>&1
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
TG="--shape 4,16,4096,128,0 --shape 4,16,4096,128,1 --shape 1,16,16384,128,0 --shape 1,16,16384,128,1 --shape 4,32,4096,64,0 --shape 2,32,8192,64,1"
for i in 1 2; do
  timeout -k 5 120 ./build/attnladder run --build H1 --impl 07_hopper,sdpa_cudnn $TG --modes graph --sweep-modes graph --no-ceilings \
    --out "$ev/targets$i.json" > "$ev/targets$i.txt" 2>&1
  echo "targets $i rc=$? t=$(el)" >> "$log"; grep -E "^(07_hopper|sdpa_cudnn) " "$ev/targets$i.txt" >> "$log"; pack
done
echo "total $(el)s" >> "$log"; pack
