#!/usr/bin/env bash
# ci/tools/sass_loops.py (`make test`): on a made-up `cuobjdump -sass` listing, each
# attention kernel's innermost loop of at least 8 HGMMA is found and counted (an outer loop
# and a kernel whose loops hold fewer HGMMA are not reported); bad arguments exit 2.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
expect "no listing" 2 "usage" python3 ci/tools/sass_loops.py
expect "missing file" 2 "cannot read" python3 ci/tools/sass_loops.py "$tmp/none.txt"
[ "$fail" = 0 ] && echo "test_sass_loops: $cases cases passed"
exit $fail
