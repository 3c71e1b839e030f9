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


def unhooked_of(r):
    """The units plant_transform.py's run r names as holding no hooked kernel, in its order."""
    return [l.split(": ")[1][len("unit "):] for l in r.stdout.splitlines() if ": unit " in l]


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
        # the rung's include folders of its own, as the copy's: the Makefile's plant_includes
        inc = subprocess.run(["make", "-s", "--no-print-directory", "-C", root, "plant-includes-" + os.path.basename(d)],
                             capture_output=True, text=True, check=True).stdout.replace("<copy>", dst).split()
        r = subprocess.run([sys.executable, tool, d, dst] + inc, capture_output=True, text=True)
        hooked = sum(int(l.split(": ")[2].split()[0]) for l in r.stdout.splitlines() if "kernel(s) hooked" in l)
        cu = [f for f in os.listdir(dst) if f.endswith(".cu")]
        setters = sum(open(os.path.join(dst, f)).read().count("attn_plant_set_cycles_") for f in cu)
        check(f"{os.path.basename(d)}: exit 0 ({r.returncode}) and hooks ({hooked})", r.returncode == 0 and hooked >= 1)
        check(f"{os.path.basename(d)}: one setter per top-level .cu", setters == len(cu) >= 1)
        check(f"{os.path.basename(d)}: the rung's own files unchanged",
              all("ATTN_PLANT_HOOK" not in open(p).read() for p in glob.glob(os.path.join(d, "*.cu*"))))
        # the units no hook reaches (check-planted compiles them only to PTX at -O0): rung
        # 11's rung10.cu (rung 10 whole, included from the frozen rung), rung 13's
        # rung12.cu (rung 12 whole), rung 14's attention.cu (its entry: its path runs in
        # rung13.cu), rung 15's attention.cu and rung14.cu (its entry, and rung 14's
        # dispatch: its kernels are in q_ahead.cu), rung 16's attention.cu (its entry and rung
        # 15's dispatch: its other units reach the overlay's kernels through the rungs they
        # hold), rung 17's attention.cu and rung16.cu (its entry, and rung 16's dispatch:
        # the kernels it launches are in row_tail.cu) and rung 18's attention.cu and
        # rung17.cu (its entry, and rung 17's dispatch: its path's kernels are in
        # short_dynamic.cu) and rung 19's, 20's and 21's attention.cu (the entry and rung 18's
        # dispatch: their other units are the kernels' units of the rungs below, compiled
        # again), no other
        unhooked = unhooked_of(r)
        want = {"11_split_keys": ["rung10.cu"], "13_row_blocks": ["rung12.cu"], "14_short_keys": ["attention.cu"],
                "15_q_ahead": ["attention.cu", "rung14.cu"],
                "16_step_descriptors": ["attention.cu"],
                "17_row_tail": ["attention.cu", "rung16.cu"],
                "18_short_dynamic": ["attention.cu", "rung17.cu"],
                "19_staged_store": ["attention.cu"],
                "20_store_loads_first": ["attention.cu"],
                "21_dynamic_3wg": ["attention.cu"],
                "22_causal_rows": ["attention.cu"]}.get(os.path.basename(d), [])
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
    unhooked = sorted(unhooked_of(r))
    check(f"units: only b.cu without a hooked kernel ({unhooked})", r.returncode == 0 and unhooked == ["b.cu"])
    # --include: a unit that reaches the copy's hooked files only through a file outside it
    # (rung 16: another rung's unit, whose "NN_name/..." include the include folder
    # answers) is hooked; without the folder it is not; a folder outside the copy is refused
    inc = os.path.join(tmp, "inc")
    for name, text in {
        "30_over/attention.cu": '#include "31_held/unit.cu"\n',
        "30_over/plain.cu": '#include "31_held/plain.cu"\n',
        "30_over/ov/32_base/k.cuh": "__global__ void over(int x) { x++; }\n",
        "31_held/unit.cu": '#include "32_base/k.cuh"\n',
        "31_held/plain.cu": "int plain(void);\n",
        "32_base/k.cuh": "__global__ void base(int x) { x++; }\n",
    }.items():
        os.makedirs(os.path.dirname(os.path.join(inc, name)), exist_ok=True)
        open(os.path.join(inc, name), "w").write(text)
    out = os.path.join(tmp, "inc_out")
    for extra, want in (([], ["attention.cu", "plain.cu"]), (["--include", os.path.join(out, "ov")], ["plain.cu"])):
        r = subprocess.run([sys.executable, tool, os.path.join(inc, "30_over"), out] + extra, capture_output=True, text=True)
        unhooked = sorted(unhooked_of(r))
        check(f"--include {extra[1:]}: units without a hooked kernel {unhooked}, expected {want}",
              r.returncode == 0 and unhooked == want)
    r = subprocess.run([sys.executable, tool, os.path.join(inc, "30_over"), out, "--include", inc], capture_output=True, text=True)
    check(f"--include outside the copy: exit 2 ({r.returncode}), named", r.returncode == 2 and "not a folder inside" in r.stderr)
    r = subprocess.run([sys.executable, tool, os.path.join(inc, "30_over"), out, "--inc", "x"], capture_output=True, text=True)
    check(f"an unknown option: exit 2 ({r.returncode})", r.returncode == 2 and "--include DIR" in r.stderr)
    # a rung whose own files define no kernel (rung 13 runs rung 09's) is hooked through
    # the rung folders its attention.cu includes: each copied into the planted tree beside
    # it (a quoted include finds the copy first) with its kernels hooked, the original
    # untouched; a rung with kernels of its own copies no folder
    fake = os.path.join(tmp, "phases")
    for name, text in {
        "19_low/attention.cu": '#include "k.cuh"\n',
        "19_low/k.cuh": "__global__ void low(int x) { x++; }\n",
        "20_reuse/attention.cu": '#include <cstdio>\n#include "19_low/attention.cu"\n#include "20_reuse/none.h"\n',
        "20_reuse/second.cu": '#include "18_other/attention.cu"\n',
        "18_other/attention.cu": "__global__ void other(int x) { x++; }\n",
        "21_empty/attention.cu": '#include "22_nokernel/attention.cu"\n',
        "22_nokernel/attention.cu": "int f(void) { return 0; }\n",
        "23_outer/attention.cu": '#include "23_outer/rule.h"\n',
        "23_outer/rule.h": "int rule(void);\n",
        "23_outer/inner.cu": '#include "24_mid/mid.h"\n#include "24_mid/attention.cu"\n',
        "24_mid/attention.cu": '#include "mid.h"\n#include "19_low/attention.cu"\n',
        "24_mid/mid.h": "int mid(void);\n",
    }.items():
        os.makedirs(os.path.dirname(os.path.join(fake, name)), exist_ok=True)
        open(os.path.join(fake, name), "w").write(text)
    out = os.path.join(tmp, "reuse_out")
    r = subprocess.run([sys.executable, tool, os.path.join(fake, "20_reuse"), out], capture_output=True, text=True)
    check(f"reuse: exit 0 ({r.returncode}: {r.stderr.strip()})", r.returncode == 0)
    copied = os.path.join(out, "19_low", "k.cuh")
    check("reuse: the included rung's kernel hooked in the copy",
          os.path.isfile(copied) and "ATTN_PLANT_HOOK();" in open(copied).read())
    check("reuse: the included rung's own file unchanged",
          "ATTN_PLANT_HOOK" not in open(os.path.join(fake, "19_low", "k.cuh")).read())
    check("reuse: only attention.cu's rung folders copied", not os.path.exists(os.path.join(out, "18_other")))
    low_unit = os.path.join(out, "19_low", "attention.cu")
    check("reuse: no setter in the copied rung's unit",
          os.path.isfile(low_unit) and "attn_plant_set_cycles_" not in open(low_unit).read())
    unhooked = sorted(unhooked_of(r))
    check(f"reuse: second.cu alone without a hooked kernel ({unhooked})", unhooked == ["second.cu"])
    r = subprocess.run([sys.executable, tool, os.path.join(fake, "21_empty"), os.path.join(tmp, "e_out")],
                       capture_output=True, text=True)
    check("a rung whose included rungs hold no kernel either fails", r.returncode == 1 and "no kernel hooked" in r.stderr)
    check("units: a rung with kernels of its own copies no rung folder",
          not os.path.exists(os.path.join(tmp, "units_out", "10_latency")))
    # a rung with no kernel whose entry's unit includes no rung (rung 14: its path is in its
    # second unit, rung13.cu) is hooked through its other units, and through an included
    # rung with no kernel of its own (rung 13) the rung that one includes (rung 09), copied
    # beside the file that includes it, where its quoted include looks first
    out = os.path.join(tmp, "outer_out")
    r = subprocess.run([sys.executable, tool, os.path.join(fake, "23_outer"), out], capture_output=True, text=True)
    check(f"outer: exit 0 ({r.returncode}: {r.stderr.strip()})", r.returncode == 0)
    nested = os.path.join(out, "24_mid", "19_low", "k.cuh")
    check("outer: the rung under the kernel-less rung hooked in the copy beside it",
          os.path.isfile(nested) and "ATTN_PLANT_HOOK();" in open(nested).read())
    check("outer: nothing copied where no include looks", not os.path.exists(os.path.join(out, "19_low")))
    unhooked = sorted(unhooked_of(r))
    check(f"outer: attention.cu alone without a hooked kernel ({unhooked})", unhooked == ["attention.cu"])
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
