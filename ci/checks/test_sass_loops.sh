#!/usr/bin/env bash
# ci/tools/sass_loops.py (`make test`): on a made-up `cuobjdump -sass` listing, each
# attention kernel's innermost loop of at least 8 HGMMA is found and counted (an outer loop
# and a kernel whose loops hold fewer HGMMA are not reported), with its R2UR and spill
# counts and each ping-pong turn's window (named BAR.SYNC to the first HGMMA and to the
# BAR.ARV); bad arguments exit 2.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/python_once.sh" && python_once "$tmp/bin"   # python3 started once per call, not its shim
fail=0 cases=0
note() { echo "test_sass_loops: $*" >&2; fail=1; }
. "$(dirname "$0")/expect.sh"
python3 - "$tmp/sass.txt" <<'PY'
import sys
lines = []
def fn(name, body):
    lines.append(f"\t\tFunction : {name}")
    for i, ins in enumerate(body):
        lines.append(f"        /*{16 * i:04x}*/                   {ins} ;")
# kernel A: an outer loop (0x0010..) around an inner one (0x0030..): the inner has 8 HGMMA,
# 2 MOV, 1 MUFU.EX2 and one WARPGROUP.DEPBAR
inner = ["HGMMA.64x128x16.F32 R24, gdesc[UR4], R24"] * 8 + ["MOV R1, R2", "MOV R3, R4", "MUFU.EX2 R5, R5",
         "WARPGROUP.DEPBAR.LE gsb0, 0x0", "@P0 BRA 0x30"]
fn("_ZN45_GLOBAL__N__0_12_attention_cu_016hopper_attentionILi128EEEv",
   ["NOP", "MOV R0, R0", "NOP"] + inner + ["HGMMA.64x128x16.F32 R24, gdesc[UR4], R24", "@P1 BRA 0x10", "EXIT"])
# kernel B: a loop of 4 HGMMA only
fn("_ZN45_GLOBAL__N__0_12_attention_cu_016hopper_attentionILi64EEEv",
   ["NOP"] + ["HGMMA.64x64x16.F32 R24, gdesc[UR4], R24"] * 4 + ["@P0 BRA 0x10", "EXIT"])
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
cases=$((cases + 1))
out=$(python3 ci/tools/sass_loops.py "$tmp/sass.txt" 2>&1) || note "exit $? on a good listing: $out"
[ "$(grep -c . <<< "$out")" = 1 ] || note "expected one kernel's line, got: $out"
for want in "ILi128E" "loop    13" "HGMMA   8" "DEPBAR  1" "MOV   2" "MUFU   1"; do
  grep -qF -- "$want" <<< "$out" || note "no '$want' in: $out"
done
# kernel C: a ping-pong turn inside the loop: the named barrier, an R2UR, the first HGMMA two
# instructions after the barrier, its BAR.ARV ten after; a spill store and load. The block-wide
# BAR.SYNC 0x0 before the loop is not a turn.
python3 - "$tmp/turn.txt" <<'PY'
import sys
body = (["BAR.SYNC.DEFER_BLOCKING 0x0", "NOP", "NOP", "BAR.SYNC.DEFER_BLOCKING R5, 0x100", "R2UR UR4, R6"]
        + ["HGMMA.64x128x16.F32 R24, gdesc[UR4], R24"] * 8
        + ["BAR.ARV R7, 0x100", "STL [R1], R2", "LDL R2, [R1]", "@P0 BRA 0x30", "EXIT"])
lines = ["\t\tFunction : _ZN45_GLOBAL__N__0_12_attention_cu_016hopper_attentionILi96EEEv"]
lines += [f"        /*{16 * i:04x}*/                   {ins} ;" for i, ins in enumerate(body)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
cases=$((cases + 1))
out=$(python3 ci/tools/sass_loops.py "$tmp/turn.txt" 2>&1) || note "exit $? on a listing with a turn: $out"
for want in "ILi96E" "loop    14" "HGMMA   8" "R2UR   1" "STL 1" "LDL 1" "turns 2/10"; do
  grep -qF -- "$want" <<< "$out" || note "no '$want' in: $out"
done
expect "no listing" 2 "usage" python3 ci/tools/sass_loops.py
expect "missing file" 2 "cannot read" python3 ci/tools/sass_loops.py "$tmp/none.txt"
[ "$fail" = 0 ] && echo "test_sass_loops: $cases cases passed"
exit $fail
