#!/usr/bin/env bash
# The record of what each rung and kernel was built from (ci/tools/record_sources.sh,
# written by the compile recipe) and its check (ci/checks/check_build_sources.sh), run by
# every GPU session before it measures: a build folder carried to a GPU machine once held a
# rung's binary from an earlier version of its source, newer by date than the source, so
# make kept it, and a reference run measured it under the tree's commit. Here, on a scratch
# tree and build folder: fresh records pass; a binary, a source, an added or a removed
# source, a missing record each fail, naming the implementation and the cause.
#   ci/checks/test_build_sources.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
record=$root/ci/tools/record_sources.sh
check=$root/ci/checks/check_build_sources.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 cases=0
note() { fails=$((fails + 1)); echo "test_build_sources: $*"; }
. "$root/ci/checks/expect.sh"

# a scratch tree: one rung, one kernel, the ABI header; a build folder with their binaries
build_tree() {
  rm -rf "$tmp/t" && mkdir -p "$tmp/t/phases/01_fake" "$tmp/t/kernels/base" "$tmp/t/harness/include" "$tmp/t/b/phases" "$tmp/t/b/kernels"
  echo 'extern "C" int a;' > "$tmp/t/phases/01_fake/attention.cu"
  echo '#define K 1' > "$tmp/t/phases/01_fake/kernel.cuh"
  echo 'extern "C" int b;' > "$tmp/t/kernels/base/base.cu"
  echo '/* abi */' > "$tmp/t/harness/include/attn_phase.h"
  head -c 4096 /dev/urandom > "$tmp/t/b/phases/01_fake.so"
  head -c 4096 /dev/urandom > "$tmp/t/b/kernels/base.so"
  # nvcc's dependency file: the rung includes a header of another rung, and system headers
  mkdir -p "$tmp/t/phases/00_below" && echo '#define B 1' > "$tmp/t/phases/00_below/below.cuh"
  printf '%s\n' 'b/phases/01_fake.so : phases/01_fake/attention.cu \' '    /usr/include/stdio.h phases/00_below/below.cuh \' \
    '    phases/01_fake/kernel.cuh' > "$tmp/t/b/phases/01_fake.d"
  (cd "$tmp/t" && bash "$record" b/phases/01_fake.so b/phases/01_fake.d phases/01_fake/attention.cu phases/01_fake/kernel.cuh harness/include/attn_phase.h \
     && bash "$record" b/kernels/base.so b/kernels/none.d kernels/base/base.cu harness/include/attn_phase.h) || note "record_sources.sh failed"
}
# Built and recorded once; each case starts from a copy (two processes, where building it
# again took about forty: 9.9 -> 6.2 CPU s). Planted, each failed the copied trees: a
# source added since the build not looked for (check_build_sources.sh: source_added,
# kernel_source_added); the dependency file not read (record_sources.sh: included_header_changed).
build_tree && cp -a "$tmp/t" "$tmp/pristine"
make_tree() { rm -rf "$tmp/t" && cp -a "$tmp/pristine" "$tmp/t"; }
run_check() { (cd "$tmp/t" && bash "$check" b); }

make_tree
expect fresh 0 "2 binaries built from the tree's sources" run_check

make_tree; head -c 4096 /dev/urandom > "$tmp/t/b/phases/01_fake.so"
expect binary_replaced 1 "b/phases/01_fake.so is not the binary built" run_check

make_tree; echo '#define K 2' > "$tmp/t/phases/01_fake/kernel.cuh"
expect source_changed 1 "phases/01_fake/kernel.cuh changed since" run_check

make_tree; echo '#define B 2' > "$tmp/t/phases/00_below/below.cuh"
expect included_header_changed 1 "phases/00_below/below.cuh changed since" run_check

make_tree; grep -q '/usr/include' "$tmp/t/b/phases/01_fake.sources.sha256" && note "a system header was recorded"
cases=$((cases + 1))

make_tree; echo '/* abi 2 */' > "$tmp/t/harness/include/attn_phase.h"
expect abi_changed 1 "harness/include/attn_phase.h changed since" run_check

make_tree; echo '#define L 1' > "$tmp/t/phases/01_fake/extra.cuh"
expect source_added 1 "phases/01_fake/extra.cuh is not in the record" run_check

make_tree; rm "$tmp/t/phases/01_fake/kernel.cuh"
expect source_removed 1 "phases/01_fake/kernel.cuh" run_check

make_tree; echo 'int c;' > "$tmp/t/kernels/base/more.c"
expect kernel_source_added 1 "kernels/base/more.c is not in the record" run_check

make_tree; rm "$tmp/t/b/phases/01_fake.so.sha256"
expect record_missing 1 "no record of the sources b/phases/01_fake.so was built from" run_check

make_tree; printf '%s\n' '0000  ../../etc/passwd' > "$tmp/t/b/phases/01_fake.sources.sha256"
expect record_bad 1 "b/phases/01_fake.sources.sha256" run_check

make_tree; rm -f "$tmp/t/b/phases/"* "$tmp/t/b/kernels/"*
expect empty 2 "no phase or kernel binaries" run_check
expect usage 2 "usage" bash "$check"
expect not_a_folder 2 "not a build folder" bash "$check" "$tmp/nowhere"

# the compile recipes write the record (the Makefile's rules, not only this script)
for so in phases/01_scalar.so kernels/sdpa_cudnn.so; do
  cases=$((cases + 1))
  make -s -n -C "$root" BUILD="$tmp/mk" "$tmp/mk/$so" 2>&1 | grep -q 'record_sources.sh' \
    || note "the recipe of $so does not call record_sources.sh"
done

[ $fails = 0 ] && echo "test_build_sources: ok ($cases cases)"
exit $((fails > 0))
