#!/usr/bin/env python3
"""Tests of ci/tools/plant_transform.py (`make test`): the hook lands first in the body
of every kernel definition and nowhere else (not in declarations, comments or strings,
not inside __launch_bounds__ or template arguments), a __global__ it cannot follow
fails, and every phase of the ladder gets at least one hook and one setter; the units it
names as holding no hooked kernel (check-planted does not assemble them) are those alone."""
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import plant_transform as pt  # noqa: E402

fails = []


def check(name, cond):
    if not cond:
        fails.append(name)


src = '''
// __global__ void in_a_comment() { }
/* __global__ void in_a_block_comment() { } */
const char *s = "__global__ void in_a_string() { }";
__global__ void declared(int);
template <int N, bool B>
__global__ void __launch_bounds__(N * 32, (B ? 2 : 1)) kernel_a(const float *p, int n)
{
    if (n) return;
}
extern "C" __global__ void kernel_b(int x) { x++; }
__global__ void kernel_c(int (*f)[4]) {
}
'''
out, k = pt.hook(src)
check("three kernels hooked", k == 3)
check("hook count in text", out.count("ATTN_PLANT_HOOK();") == 3)
check("comment untouched", "in_a_comment() { }" in out and "in_a_block_comment() { }" in out)
check("string untouched", 'in_a_string() { }"' in out)
check("declaration untouched", "__global__ void declared(int);" in out)
check("body of kernel_a", "kernel_a(const float *p, int n)\n{ ATTN_PLANT_HOOK();" in out)
check("body of kernel_b", "kernel_b(int x) { ATTN_PLANT_HOOK(); x++; }" in out)
check("body of kernel_c", "kernel_c(int (*f)[4]) { ATTN_PLANT_HOOK();" in out)
try:
    pt.hook("__global__ void broken(int x")
    check("unterminated __global__ refused", False)
except ValueError:
    pass

# every phase: hooks and a setter, and the tool fails on a phase with no kernel
root = os.path.join(os.path.dirname(__file__), "..", "..")
tool = os.path.join(root, "ci", "tools", "plant_transform.py")
with tempfile.TemporaryDirectory() as tmp:
    for d in sorted(glob.glob(os.path.join(root, "phases", "[0-9][0-9]_*"))):
        dst = os.path.join(tmp, os.path.basename(d))
        r = subprocess.run([sys.executable, tool, d, dst], capture_output=True, text=True)
        hooked = sum(int(l.split(": ")[2].split()[0]) for l in r.stdout.splitlines() if "kernel(s) hooked" in l)
        cu = [f for f in os.listdir(dst) if f.endswith(".cu")]
        setters = sum(open(os.path.join(dst, f)).read().count("attn_plant_set_cycles_") for f in cu)
        check(f"{os.path.basename(d)}: exit 0 ({r.returncode}) and hooks ({hooked})", r.returncode == 0 and hooked >= 1)
        check(f"{os.path.basename(d)}: one setter per top-level .cu", setters == len(cu) >= 1)
        check(f"{os.path.basename(d)}: the rung's own files unchanged",
              all("ATTN_PLANT_HOOK" not in open(p).read() for p in glob.glob(os.path.join(d, "*.cu*"))))
        # the units no hook reaches (check-planted compiles them only to PTX at -O0): rung
        # 11's rung10.cu (rung 10 whole, included from the frozen rung), no other
        unhooked = [l.split(": ")[1][len("unit "):] for l in r.stdout.splitlines() if ": unit " in l]
        want = ["rung10.cu"] if os.path.basename(d) == "11_split_keys" else []
        check(f"{os.path.basename(d)}: units without a hooked kernel {unhooked}, expected {want}", unhooked == want)
    # a unit is unhooked only when no file of the copy it includes (at any depth, under any
    # #if) holds a hook, and an include it cannot follow counts as a hooked one
    units = os.path.join(tmp, "units")
    os.makedirs(os.path.join(units, "sub"))
    files = {
        "k.cuh": "__global__ void k(int x) { x++; }\n",
        "sub/deep.cuh": '#include "../k.cuh"\n',
        "h.h": "int h(void);\n",
        "a.cu": '#include "k.cuh"\n',
        "b.cu": '#include "h.h"\n#include <cstdio>\n#include "10_latency/attention.cu"\n',
        "c.cu": '#if 0\n#include "sub/deep.cuh"\n#endif\n',
        "d.cu": "#define F \"h.h\"\n#include F\n",
    }
    for name, text in files.items():
        open(os.path.join(units, name), "w").write(text)
    r = subprocess.run([sys.executable, tool, units, os.path.join(tmp, "units_out")], capture_output=True, text=True)
    unhooked = sorted(l.split(": ")[1][len("unit "):] for l in r.stdout.splitlines() if ": unit " in l)
    check(f"units: only b.cu without a hooked kernel ({unhooked})", r.returncode == 0 and unhooked == ["b.cu"])
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    open(os.path.join(empty, "a.cu"), "w").write("int f(void) { return 0; }\n")
    r = subprocess.run([sys.executable, tool, empty, os.path.join(tmp, "empty_out")], capture_output=True, text=True)
    check("a phase without kernels fails", r.returncode == 1 and "no kernel hooked" in r.stderr)

if fails:
    for f in fails:
        print(f"test_plant_transform: FAILED: {f}", file=sys.stderr)
    sys.exit(1)
print("test_plant_transform: all passed")
