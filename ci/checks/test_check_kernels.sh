#!/usr/bin/env bash
# ci/checks/check_kernels.sh (`make test`): on a loader fixture's shared object with made-up
# ptxas reports beside it, a clean report passes (warpgroup.arrive injected, C7519, is
# allowed: rung 09's kernels carry it); every ptxas note that wgmma was serialised (C7509-
# C7516, by code or by its words), that a warpgroup.wait was injected (C7517) or that
# setmaxnreg was ignored (C7508) fails, naming the code; so does missing sm_89 code.
#   ci/checks/test_check_kernels.sh [BUILD]
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0
note() { echo "test_check_kernels: $*" >&2; fail=1; }
. ci/checks/expect.sh

# The object: the good fixture (one symbol, attn_phase_entry), built here if make has not.
so=$tmp/99_fixture.so
if [ -f "$build/fixtures/good_phase.so" ]; then
  cp "$build/fixtures/good_phase.so" "$so"
else
  cc -O2 -std=c11 -Iharness -Iharness/include -fPIC -shared -fvisibility=hidden -o "$so" \
    harness/tests/fixtures/good_phase.c || { echo "test_check_kernels: cannot build the fixture" >&2; exit 1; }
fi
fn=_ZN12_GLOBAL__N_116hopper_attentionILi64ELi3EEEvv
report() {   # the per-arch lines of a clean report, then any extra note lines given
  for arch in sm_80 sm_89 sm_90 sm_90a; do
    echo "ptxas info    : Compiling entry function '$fn' for '$arch'"
    echo "ptxas info    : Function properties for $fn"
    echo "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    echo "ptxas info    : Used 168 registers, used 16 barriers"
  done
  echo "ptxas info    : (C7519) warpgroup.arrive is injected in around line 100 by compiler to allow use of registers in GMMA in function '$fn'"
  printf '%s\n' "$@"
}
check() { bash ci/checks/check_kernels.sh "$build" "$so"; }

report > "$tmp/99_fixture.ptxas.txt"
expect "a clean report (C7519 only)" 0 "1 shared objects ok" check

serial="ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions reading accumulator registers of  a wgmma between start and end of the pipeline stage in the function '$fn'"
report "$serial" > "$tmp/99_fixture.ptxas.txt"
expect "wgmma serialised (C7514)" 1 "C7514" check

report "ptxas info    : (C7517) warpgroup.wait is injected in around line 178428 by compiler to allow use of registers defined by GMMA in function '$fn'" \
  > "$tmp/99_fixture.ptxas.txt"
expect "a warpgroup.wait injected (C7517)" 1 "C7517" check

report "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to the presence of Extern calls in the function '$fn'" \
  > "$tmp/99_fixture.ptxas.txt"
expect "wgmma serialised (C7515)" 1 "C7515" check

report "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized due to insufficient register resources for the wgmma pipeline in the function '$fn'" \
  > "$tmp/99_fixture.ptxas.txt"
expect "wgmma serialised (C7510)" 1 "C7510" check

report "ptxas warning : Potential Performance Loss: wgmma.mma_async instructions are serialized due to a new reason in the function '$fn'" \
  > "$tmp/99_fixture.ptxas.txt"
expect "wgmma serialised, no code" 1 "serialized" check

report "ptxas warning : (C7508) Potential Performance Loss: setmaxnreg ignored; unable to determine register count at entry in the function '$fn'" \
  > "$tmp/99_fixture.ptxas.txt"
expect "setmaxnreg ignored (C7508)" 1 "C7508" check

report | grep -v "for 'sm_89'" > "$tmp/99_fixture.ptxas.txt"
expect "no sm_89 code" 1 "no sm_89 machine code" check

[ $fail = 0 ] && echo "test_check_kernels: $cases cases pass (a clean report; serialised wgmma by code and by words, injected waits, ignored setmaxnreg and a missing architecture fail)"
exit $fail
