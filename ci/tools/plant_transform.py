#!/usr/bin/env python3
"""Test-only: a copy of one phase's sources with a calibrated delay at the entry of every
kernel, for the A/B gate's planted-slowdown study (ci/tools/ab_planted.py). Never part of
what `make build` or `make run` builds: the rung's own files are read, not changed.

    plant_transform.py SRC_DIR DST_DIR [--include DIR]...

Copies every file of SRC_DIR into DST_DIR. In each .cu/.cuh file, the body of every
`__global__` function definition starts with `ATTN_PLANT_HOOK();` (harness/planted/
plant_hook.cuh, force-included by the planted build: every thread of every block spins a
number of SM cycles set at run time, so a planted head slows the implementation from
inside its own launches, with no extra launch). Each .cu file gets a setter,
`attn_plant_set_cycles_<i>`, that the test-only wrapper (harness/planted/
planted_wrapper.c) calls after the phase's init. Prints the hooks per file; exits 1 when a
`__global__` has no body it can find or no kernel was hooked at all, so a phase the
transformation does not understand fails loudly instead of planting nothing. Then names
each top-level .cu whose unit no hook reaches ("unit NAME: no hooked kernel in it or the
files it includes"; rung 11's rung10.cu, which holds rung 10 whole from the frozen rung):
make test's check-planted compiles such a unit to PTX at -O0 only (the Makefile says why).

A rung whose own files define no kernel (rung 13, which runs rung 09's kernels by a rule
of its own) would plant nothing: its planted copy is hooked through the rung folders its
attention.cu (the unit of its entry point) includes by a quoted "NN_name/..." path, or,
where that unit includes none, its other units do (rung 14: its path is in rung13.cu).
Each such folder, found beside SRC_DIR, is copied beside the file that includes it and its
kernels hooked; a quoted include looks in the including file's folder first, so the copy
is what the planted unit compiles, the rung folder itself unchanged. A copied rung with no
kernel of its own (rung 13 inside rung 14) is followed the same way, the rungs it
includes copied into its copy (rung 09 under 13_row_blocks/). Only there:
rungs with kernels of their own include the rungs below untransformed (the Makefile's
check-planted says what that saves).

--include DIR: an include folder of the planted compile inside DST_DIR (a rung whose own
build.mk puts a folder of its own on the include path, rung 16's overlay/, is compiled with
the copy's in its place: the Makefile's plant_flags). A unit's includes are then followed as
the compiler resolves them (the including file's folder, each DIR, SRC_DIR's parent), also
through files outside DST_DIR, so that a unit that reaches the copy's hooked files only
through another rung's files (rung 16's q_ahead.cu: rung 15's q_ahead.cu, rung 13's
attention.cu, then rung 09's folder in the overlay) is not called unhooked."""
import os
import re
import shutil
import sys

GLOBAL = re.compile(r"\b__global__\b")


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked (same length), so
    braces, parentheses and `__global__` inside them are not seen."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out[i:j] = " " * (j - i)
            i = j
        else:
            i += 1
    return "".join(out)


def hook(text):
    """(new text, number of hooked kernels); raises ValueError on a __global__ it cannot
    follow to a body or a declaration."""
    clean = strip_comments_and_strings(text)
    inserts = []
    for m in GLOBAL.finditer(clean):
        depth, i = 0, m.end()
        while i < len(clean):
            ch = clean[i]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth == 0 and ch == ";":
                break                       # a declaration: no body to hook
            elif depth == 0 and ch == "{":
                inserts.append(i + 1)
                break
            i += 1
        else:
            line = text.count("\n", 0, m.start()) + 1
            raise ValueError(f"line {line}: __global__ without a body or a ';'")
    for pos in reversed(inserts):
        text = text[:pos] + " ATTN_PLANT_HOOK();" + text[pos:]
    return text, len(inserts)


SETTER = """
/* appended by ci/tools/plant_transform.py (test-only planted build) */
extern "C" __attribute__((visibility("default"))) int attn_plant_set_cycles_{i}(unsigned long long cycles)
{{
    unsigned int c = cycles > 0xffffffffull ? 0xffffffffu : (unsigned int)cycles;
    return (int)cudaMemcpyToSymbol(attn_plant_cycles_, &c, sizeof c);
}}
"""


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(.*)$', re.M)
RUNG_INCLUDE_FILE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"(\d\d_[A-Za-z0-9_]+)/([^"]+)"', re.M)


def included_rungs(src, path):
    """The rung folders beside SRC that the file PATH includes ("NN_name/file"), in order,
    with the file of each it names: [(name, file)]."""
    parent, own = os.path.dirname(os.path.abspath(src)), os.path.basename(os.path.abspath(src))
    found = []
    for m in RUNG_INCLUDE_FILE.finditer(open(path, encoding="utf-8").read()):
        name, rest = m.group(1), m.group(2)
        if name != own and os.path.isdir(os.path.join(parent, name)) and (name, rest) not in found:
            found.append((name, rest))
    return found


def has_kernels(folder):
    """Whether a .cu/.cuh file directly in FOLDER defines a __global__ function."""
    for f in sorted(os.listdir(folder)):
        if f.endswith((".cu", ".cuh")):
            if GLOBAL.search(strip_comments_and_strings(open(os.path.join(folder, f), encoding="utf-8").read())):
                return True
    return False


def copy_included_rungs(src, dst, unit, counts, hooked, walked):
    """Copies and hooks the rung folders that the file UNIT (in DST) includes, each beside
    the including file (where its quoted include looks first); through a copied rung that
    defines no kernel of its own (rung 13 inside rung 14), the rungs it includes in turn.
    False when a __global__ cannot be followed."""
    parent = os.path.dirname(os.path.abspath(src))
    for name, rest in included_rungs(src, unit):
        here = os.path.join(os.path.dirname(unit), name)
        if not os.path.exists(here):
            shutil.copytree(os.path.join(parent, name), here)
            print(f"plant_transform: {os.path.relpath(here, dst)}/: copied from the rung it includes, to hook its kernels")
            if not hook_tree(dst, here, counts, hooked):
                return False
        # each file of a copied rung is walked once (a rung's files may include each other)
        inner = os.path.normpath(os.path.join(here, rest))
        if inner in walked or has_kernels(here) or not os.path.isfile(inner):
            continue
        walked.add(inner)
        if not copy_included_rungs(src, dst, inner, counts, hooked, walked):
            return False
    return True


def hook_tree(dst, top, counts, hooked):
    """Hooks every .cu/.cuh under TOP (a folder of DST); a setter in each .cu directly in
    DST. counts: [kernels, setters]. False when a __global__ cannot be followed."""
    for root, _, files in os.walk(top):
        for f in sorted(files):
            if not f.endswith((".cu", ".cuh")):
                continue
            p = os.path.join(root, f)
            text = open(p, encoding="utf-8").read()
            try:
                new, k = hook(text)
            except ValueError as e:
                print(f"plant_transform: {p}: {e}", file=sys.stderr)
                return False
            if f.endswith(".cu") and root == dst:
                new += SETTER.format(i=counts[1])
                counts[1] += 1
            open(p, "w", encoding="utf-8").write(new)
            counts[0] += k
            if k:
                hooked.add(os.path.relpath(p, dst))
            print(f"plant_transform: {os.path.relpath(p, dst)}: {k} kernel(s) hooked")
    return True


def unhooked_units(dst, hooked, includes=(), src=None):
    """The top-level .cu files of DST whose unit holds no hooked kernel: neither the file
    nor a file of DST it includes (followed through DST's files) was hooked. An include
    is followed wherever it could resolve to a file of DST (every #include line, whatever
    #if holds it, relative to the including file's folder or DST's); an #include that is
    not a quoted or bracketed name counts as a hooked file, so a unit is never called
    unhooked by an include this does not follow."""
    out = []
    for f in sorted(os.listdir(dst)):
        if not f.endswith(".cu"):
            continue
        seen, todo, hit = set(), [os.path.join(dst, f)], False
        while todo and not hit:
            p = os.path.normpath(todo.pop())
            if p in seen:
                continue
            seen.add(p)
            if os.path.relpath(p, dst) in hooked:
                hit = True
                break
            for m in INCLUDE.finditer(open(p, encoding="utf-8").read()):
                arg = m.group(1).strip()
                if not arg or arg[0] not in "\"<" or arg[-1] not in "\">":
                    hit = True
                    break
                name = arg[1:-1]
                if includes:
                    # as the compiler resolves it: the first folder that holds the file
                    bases = [os.path.dirname(p), *includes, os.path.dirname(os.path.abspath(src))]
                    q = next((os.path.join(b, name) for b in bases if os.path.isfile(os.path.join(b, name))), None)
                    if q:
                        todo.append(q)
                    continue
                for base in (os.path.dirname(p), dst):
                    q = os.path.join(base, name)
                    if os.path.isfile(q) and os.path.realpath(q).startswith(os.path.realpath(dst) + os.sep):
                        todo.append(q)
        if not hit:
            out.append(f)
    return out


def main(argv):
    usage = "usage: plant_transform.py SRC_DIR DST_DIR [--include DIR]..."
    if len(argv) < 3 or len(argv) % 2 == 0 or any(a != "--include" for a in argv[3::2]):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print(usage, file=sys.stderr)
        return 2
    src, dst, includes = argv[1], argv[2], argv[4::2]
    outside = [d for d in includes if not os.path.abspath(d).startswith(os.path.abspath(dst) + os.sep)]
    if outside:
        print(f"plant_transform: --include {outside[0]}: not a folder inside {dst}", file=sys.stderr)
        return 2
    if not os.path.isdir(src):
        print(f"plant_transform: {src}: not a directory", file=sys.stderr)
        return 2
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    counts, hooked = [0, 0], set()
    if not hook_tree(dst, dst, counts, hooked):
        return 1
    if counts[0] == 0:
        # no kernel of its own: the rungs its units include, hooked in copies; the entry's
        # unit (attention.cu) first, then the others, until one holds a hooked kernel
        units = sorted(f for f in os.listdir(dst) if f.endswith(".cu"))
        units.sort(key=lambda f: f != "attention.cu")
        for f in units:
            if not copy_included_rungs(src, dst, os.path.join(dst, f), counts, hooked, set()):
                return 1
            if counts[0]:
                break
    total, unit = counts
    if total == 0 or unit == 0:
        print(f"plant_transform: {src}: no kernel hooked ({total}) or no .cu file ({unit})",
              file=sys.stderr)
        return 1
    for f in unhooked_units(dst, hooked, includes, src):
        print(f"plant_transform: unit {f}: no hooked kernel in it or the files it includes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
