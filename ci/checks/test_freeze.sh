#!/usr/bin/env bash
# Proves the freeze check can fail: in a scratch copy of the tree, freeze a phase,
# check (must pass), change one byte of a header it includes and of its source (each
# must fail), add a new include (must fail), change how it is built (the Makefile's
# optimisation level; another directory's build.mk setting its flags: each must fail); and
# --recompile, of a phase compiled another way and of one made of another phase's object.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ci/frozen" "$tmp/phases/99_probe" "$tmp/harness/include"
cp ci/freeze.sh "$tmp/ci/"
mkdir -p "$tmp/ci/tools"; cp ci/tools/same_code.py "$tmp/ci/tools/"
cp Makefile "$tmp/"
mkdir -p "$tmp/phases/98_other"
cp harness/include/attn_phase.h "$tmp/harness/include/"
printf '#pragma once\nstatic __device__ int probe_one() { return 1; }\n' > "$tmp/harness/include/probe.cuh"
printf '#pragma once\nstatic __device__ int probe_two() { return 2; }\n' > "$tmp/harness/include/probe2.cuh"
printf '#include "attn_phase.h"\n#include "probe.cuh"\n__global__ void k(int *o) { *o = probe_one(); }\n' \
  > "$tmp/phases/99_probe/probe.cu"
echo "# probe" > "$tmp/phases/99_probe/README.md"
# nvcc -M answered again from memory where nothing it read can have changed: 11 of the
# test's 17 closures are of the probe.cu and headers nvcc last read (the cases change the
# Makefile, a build.mk or a file no source includes), and each nvcc -M preprocessed
# cuda_runtime.h twice (0.45 CPU s; the test 16.8 -> 13.7-15.6 CPU s at load 8). The
# memory is keyed by nvcc's arguments and kept with the SHA-256 of every file of the tree
# its answer named (the source among them); a changed byte in any of them asks nvcc again.
# A header added where it would shadow one the answer named is not seen: no case here adds
# one. --version and every other call go to nvcc itself. freeze.sh reads nvcc from NVCC
# (make's nvcc-command prints it, so the commands pinned here name this stand-in, in every
# manifest of the scratch tree alike). Planted in ci/freeze.sh (nvcc's headers left out of
# the closure): failed ("edited shared header"), as without the memory.
real_nvcc=${NVCC:-${CUDA:-/usr/local/cuda}/bin/nvcc}
mkdir -p "$tmp/nvcc_memo"
cat > "$tmp/nvcc_memo/nvcc" <<SH
#!/usr/bin/env bash
[ "\$1" = -M ] || exec "$real_nvcc" "\$@"
memo=$tmp/nvcc_memo/\$(printf '%s\n' "\$PWD" "\$@" | sha256sum | cut -c1-16)
if [ -f "\$memo.answer" ] && sha256sum --status -c "\$memo.files" 2>/dev/null; then
  cat "\$memo.answer"; exit 0
fi
"$real_nvcc" "\$@" > "\$memo.answer" || { st=\$?; rm -f "\$memo.answer"; exit \$st; }
sed '1s/^[^:]*://' "\$memo.answer" | tr ' \\\\' '\n\n' | grep -v '^\$' | grep -v '^/' | sort -u | xargs -r sha256sum > "\$memo.files"
cat "\$memo.answer"
SH
chmod +x "$tmp/nvcc_memo/nvcc"
export NVCC=$tmp/nvcc_memo/nvcc
fail=0
check() {  # expected-status what
  (cd "$tmp" && bash ci/freeze.sh --check >/dev/null 2>&1); got=$?
  if [ "$got" != "$1" ]; then echo "test_freeze: $2: expected $1, got $got" >&2; fail=1; fi
}
(cd "$tmp" && bash ci/freeze.sh 99_probe >/dev/null) || { echo "test_freeze: freezing failed" >&2; exit 1; }
# After each planted change the tree is put back and compared, byte for byte, with the tree
# as frozen (which "unchanged tree" checks), not checked again: each check runs nvcc -M, and
# the six checks of restored trees cost 23.5 -> 18.6 CPU s. A restore that left the
# change in place fails here instead. Planted in ci/freeze.sh (the closure without nvcc's
# headers; without the phase directory's files; the nvcc command not pinned): each failed.
mkdir -p "$tmp/frozen_tree" && cp -r "$tmp/phases/99_probe" "$tmp/harness/include" "$tmp/Makefile" "$tmp/frozen_tree/"
restored() {  # what: the phase, the headers and the Makefile are as frozen
  diff -r "$tmp/frozen_tree/99_probe" "$tmp/phases/99_probe" >/dev/null \
    && diff -r "$tmp/frozen_tree/include" "$tmp/harness/include" >/dev/null \
    && cmp -s "$tmp/frozen_tree/Makefile" "$tmp/Makefile" \
    || { echo "test_freeze: $1: the tree is not the one frozen" >&2; fail=1; }
}
grep -q 'harness/include/probe.cuh' "$tmp/ci/frozen/99_probe.sha256" \
  || { echo "test_freeze: the manifest lacks the included header" >&2; fail=1; }
grep -q 'attn_phase.h' "$tmp/ci/frozen/99_probe.sha256" \
  || { echo "test_freeze: the manifest lacks the ABI header" >&2; fail=1; }
check 0 "unchanged tree"
cp "$tmp/harness/include/probe.cuh" "$tmp/h.bak"
echo "// edit" >> "$tmp/harness/include/probe.cuh"; check 1 "edited shared header"
cp "$tmp/h.bak" "$tmp/harness/include/probe.cuh"; restored "header restored"
echo "// edit" >> "$tmp/phases/99_probe/probe.cu"; check 1 "edited phase source"
sed -i '$d' "$tmp/phases/99_probe/probe.cu"; restored "source restored"
sed -i '1i #include "probe2.cuh"' "$tmp/phases/99_probe/probe.cu"; check 1 "new include"
sed -i '1d' "$tmp/phases/99_probe/probe.cu"; restored "include removed"
echo x > "$tmp/phases/99_probe/notes.txt"; check 1 "new file in the phase directory"
rm "$tmp/phases/99_probe/notes.txt"; restored "file removed"
grep -q '^nvcc-command .*-O3 .*phases/99_probe/probe.cu' "$tmp/ci/frozen/99_probe.sha256" \
  || { echo "test_freeze: the manifest lacks the resolved nvcc command" >&2; fail=1; }
grep -q '^nvcc-release [0-9][0-9]*\.[0-9]' "$tmp/ci/frozen/99_probe.sha256" \
  || { echo "test_freeze: the manifest lacks the nvcc release" >&2; fail=1; }
cp "$tmp/Makefile" "$tmp/mk.bak"
sed -i 's/^NVCCFLAGS ?= -O3/NVCCFLAGS ?= -O1/' "$tmp/Makefile"; check 1 "Makefile builds with -O1"
cp "$tmp/mk.bak" "$tmp/Makefile"; restored "Makefile restored"
echo 'NVCCFLAGS_99_probe := -O0' > "$tmp/phases/98_other/build.mk"; check 1 "another directory's build.mk sets the frozen phase's flags"
echo 'NVCCFLAGS := -O0' > "$tmp/phases/98_other/build.mk"; check 1 "a build.mk sets a shared variable"
echo '$(BUILD)/phases/99_probe.so: EXTRA := 1' > "$tmp/phases/98_other/build.mk"; check 1 "a build.mk adds to another directory's target"
echo 'NVCCFLAGS_98_other := --threads 0' > "$tmp/phases/98_other/build.mk"; check 0 "a build.mk that keeps to its own directory"
echo 'LDLIBS_99_probe := -lm' > "$tmp/phases/99_probe/build.mk"; check 1 "the frozen phase's own build.mk changed"
# A name that is no phase directory (a typo, an option) is refused, and no manifest is written.
for bad in 97_missing --help ../phases/99_probe; do
  (cd "$tmp" && bash ci/freeze.sh "$bad" >/dev/null 2>&1); got=$?
  [ "$got" = 2 ] || { echo "test_freeze: freeze.sh '$bad': expected exit 2, got $got" >&2; fail=1; }
  [ -z "$(ls "$tmp/ci/frozen" | grep -v '^99_probe.sha256$')" ] \
    || { echo "test_freeze: freeze.sh '$bad' wrote $(ls "$tmp/ci/frozen" | grep -v '^99_probe.sha256$')" >&2; fail=1; }
  find "$tmp/ci/frozen" -type f ! -name 99_probe.sha256 -delete
done
# --recompile re-pins how a frozen phase is compiled only where its files are unchanged and
# the two builds hold the same code (here host code: gcc objects, no nvcc needed).
rm -f "$tmp/phases/99_probe/build.mk"; restored "the frozen phase's build.mk removed"
so() { printf 'int f(void) { return %s; }\n' "$2" | gcc -shared -fPIC -O2 -x c - -o "$tmp/$1.so"; }
so one 1; so one_again 1; so two 2
recompile() {  # expected-status what OLD NEW
  (cd "$tmp" && bash ci/freeze.sh --recompile 99_probe "$3.so" "$4.so" >/dev/null 2>&1); got=$?
  if [ "$got" != "$1" ]; then echo "test_freeze: --recompile, $2: expected $1, got $got" >&2; fail=1; fi
}
cp "$tmp/ci/frozen/99_probe.sha256" "$tmp/manifest.bak"
sed -i 's/^NVCCFLAGS ?= -O3 -lineinfo/NVCCFLAGS ?= -O3 -lineinfo -DPROBE_UNUSED/' "$tmp/Makefile"; check 1 "Makefile's command changed"
recompile 1 "the two builds' code differs" one two
cmp -s "$tmp/manifest.bak" "$tmp/ci/frozen/99_probe.sha256" && [ ! -e "$tmp/ci/frozen/99_probe.recompiled.txt" ] \
  || { echo "test_freeze: --recompile wrote though the code differs" >&2; fail=1; }
echo "// edit" >> "$tmp/phases/99_probe/probe.cu"; recompile 1 "the phase's source changed as well" one one_again
sed -i '$d' "$tmp/phases/99_probe/probe.cu"
recompile 0 "the same code, the files unchanged" one one_again; check 0 "command re-pinned"
grep -q '^new nvcc-command .*-DPROBE_UNUSED' "$tmp/ci/frozen/99_probe.recompiled.txt" \
  || { echo "test_freeze: --recompile kept no proof of the re-pinned command" >&2; fail=1; }
sed -i 's/^NVCCFLAGS ?= -O3 -lineinfo -DPROBE_UNUSED/NVCCFLAGS ?= -O1 -lineinfo -DPROBE_UNUSED/' "$tmp/Makefile"; check 1 "re-pinned, then -O1"
# A phase made of another's object alone (the Makefile's PHASE_ONLY_LINKS_: rung 10 is rung
# 11's rung10.o): its closure gains that source and what it includes, which --recompile
# accepts only where another frozen phase pins each added file with the same hash; the code
# is then compared kernel by kernel, names taken out (same_code.py --kernels: a shared object
# with a made-up cubin, its kernel under another name).
cp "$tmp/frozen_tree/Makefile" "$tmp/Makefile"; cp "$tmp/manifest.bak" "$tmp/ci/frozen/99_probe.sha256"
rm -f "$tmp/ci/frozen/99_probe.recompiled.txt" "$tmp/phases/98_other/build.mk"
# other.cu holds the probe whole in a namespace, as rung10.cu holds rung 10 (only nvcc -M reads it)
printf '#include "attn_phase.h"\n#include "probe2.cuh"\nnamespace other {\n#include "99_probe/probe.cu"\n}\n' \
  > "$tmp/phases/98_other/other.cu"
echo 'PHASE_ONLY_LINKS_99_probe := phases/98_other/other.cu' >> "$tmp/Makefile"; check 1 "the phase now links another's object"
# two shared objects of one made-up cubin each, its kernel under two names (same_code.py's
# self-test checks that other code fails --kernels; "the two builds' code differs" above, that
# a failed comparison re-pins nothing)
python3 -B - "$tmp" <<'PY'
import subprocess, sys
sys.path.insert(0, "ci/tools")
import same_code
for name, kernel in (("dev_old", "_ZN3old1kEv"), ("dev_new", "_ZN6rung103old1kEv")):
    out = f"{sys.argv[1]}/{name}"
    cubin = same_code.fake_cubin([{"name": kernel, "text": bytes(range(64)), "regs": 32, "shared": 0,
                                   "params": 8, "relocs": []}])
    with open(out + ".fatbin", "wb") as f:
        f.write(same_code.fake_entry_fatbin([(2, 90, False, cubin, False)], b"a.cu".ljust(8, b"\0")))
    subprocess.run(["gcc", "-shared", "-fPIC", "-x", "c", "-o", out + ".so", "-"], input=b"int f(void) { return 1; }\n", check=True)
    subprocess.run(["objcopy", "--add-section", ".nv_fatbin=" + out + ".fatbin", out + ".so"], check=True)
PY
recompile 1 "a file added that no frozen phase pins" dev_old dev_new
(cd "$tmp" && bash ci/freeze.sh 98_other >/dev/null) || { echo "test_freeze: freezing 98_other failed" >&2; fail=1; }
recompile 0 "linked, the same device code under other names" dev_old dev_new; check 0 "linked phase re-pinned"
grep -q 'phases/98_other/other.cu' "$tmp/ci/frozen/99_probe.sha256" && grep -q 'harness/include/probe2.cuh' "$tmp/ci/frozen/99_probe.sha256" \
  || { echo "test_freeze: the linked phase's closure lacks the linked source or its include" >&2; fail=1; }
grep -q '^compared: same_code.py --kernels' "$tmp/ci/frozen/99_probe.recompiled.txt" \
  || { echo "test_freeze: the linked phase's proof does not say it compared kernel by kernel" >&2; fail=1; }
[ $fail = 0 ] && echo "test_freeze: the freeze check catches edits, new includes, new files, other build flags and build.mk files outside their directory, refuses a name that is no phase, re-pins a command only with the same code, and a phase of another's object only with files frozen there"
exit $fail
