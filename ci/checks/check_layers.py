#!/usr/bin/env python3
"""The harness's layering rule, checked by `make test`.

harness/ is the commands on top (harness/cmd/: one file per subcommand, and main.c)
and stages in folders below them, lowest first:

    include/ (the ABI) < core/ < measure/ < evidence/ < gate/ < report/ < cmd/

kernels/oracle/ (the CPU fp64 oracle) counts as core. A source file under harness/
outside these folders (and outside tests/, fuzz/ and planted/) has no stage and fails:
a command goes in cmd/, a stage's file in its folder. A file may use only its own stage
and the stages below it. Two ways of using are checked:

1. Includes. Every `#include "..."` in a .c or .h file is resolved against the include
   path (-Iharness -Iharness/include -Ikernels/oracle): its stage must not be above
   the including file's stage.
2. Symbols. From the built objects (`nm`): file A uses file B when A has an undefined
   symbol that B's object defines. A use of a higher stage fails, and so does every
   cycle of uses (two files that use each other, or a longer circle), so each stage's
   files form a one-way graph as well.

Usage: check_layers.py [--root DIR] [--objects DIR]
  --objects DIR  where the objects of harness/ and kernels/oracle/ are (default
                 build/obj); without objects only the include rule is checked and that
                 is said.
Exit 0 when the rule holds; 1 with one line per violation.
"""
import argparse
import os
import re
import subprocess
import sys

STAGES = ["include", "core", "measure", "evidence", "gate", "report", "cmd"]
RANK = {s: i for i, s in enumerate(STAGES)}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SKIP_DIRS = {"tests", "fuzz", "planted"}   # test code may use anything


def stage_of(rel):
    """rel: a path relative to the repository root."""
    parts = rel.split("/")
    if parts[0] == "kernels" and parts[1] == "oracle":
        return "core"
    if parts[0] != "harness" or len(parts) == 2:
        return None
    return parts[1] if parts[1] in RANK else None


def sources(root):
    out = []
    for base in ("harness", "kernels/oracle"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, base)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for f in sorted(filenames):
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return out


def resolve(root, including, name):
    """Where an include resolves on the harness's include path (None: a system header)."""
    for d in (os.path.dirname(including), "harness", "harness/include", "kernels/oracle"):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def check_includes(root, files):
    bad = []
    for rel in files:
        st = stage_of(rel)
        if st is None:
            if rel.startswith("harness/"):
                bad.append(f"{rel} is in no stage: a command belongs in harness/cmd/, "
                           "a stage's file in its folder")
            continue
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        for name in INCLUDE_RE.findall(text):
            target = resolve(root, rel, name)
            tst = stage_of(target) if target else None
            if tst is not None and RANK[tst] > RANK[st]:
                bad.append(f"{rel} ({st}) includes {name} -> {target} ({tst}), a stage above it")
    return bad


def symbols(objs):
    """{object: (defined, undefined)} from one `nm -A` over every object: one process, not
    one an object (78 here: 9.5 CPU s of starting nm before issue 53, 1.0 s now)."""
    res = subprocess.run(["nm", "-A", *objs], capture_output=True, text=True, check=True)
    out = {o: (set(), set()) for o in objs}
    for line in res.stdout.splitlines():
        obj, sep, rest = line.rpartition(":")   # C symbols hold no ":": the last one ends the path
        if not sep or obj not in out:
            raise SystemExit(f"check_layers: nm printed a line of no object asked for: {line!r}")
        defined, undefined = out[obj]
        f = rest.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "TDBR":   # global text, data, bss, read-only
            defined.add(f[2])
    return out


def check_uses(root, objdir, files):
    objs = {}
    for rel in files:
        if rel.endswith(".c") and stage_of(rel):   # a file in no stage is refused above
            o = os.path.join(objdir, rel[:-2] + ".o")
            if os.path.isfile(o):
                objs[rel] = o
    if not objs:
        return None, []
    defined_by, undef = {}, {}
    syms = symbols(sorted(objs.values()))
    for rel, o in objs.items():
        d, u = syms[o]
        undef[rel] = u
        for s in d:
            defined_by[s] = rel
    uses = {rel: sorted({defined_by[s] for s in u if s in defined_by and defined_by[s] != rel})
            for rel, u in undef.items()}
    bad = []
    for a, targets in sorted(uses.items()):
        for b in targets:
            if RANK[stage_of(b)] > RANK[stage_of(a)]:
                names = sorted(s for s in undef[a] if defined_by.get(s) == b)
                bad.append(f"{a} ({stage_of(a)}) uses {b} ({stage_of(b)}), a stage above it: "
                           + ", ".join(names[:5]))
    for cycle in cycles(uses):
        bad.append("files use each other in a circle: " + " -> ".join(cycle + [cycle[0]]))
    return len(objs), bad


def cycles(graph):
    """The strongly connected components with more than one file (Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--objects", default="build/obj")
    a = ap.parse_args()
    files = sources(a.root)
    bad = check_includes(a.root, files)
    n_objs, bad_uses = check_uses(a.root, os.path.join(a.root, a.objects)
                                  if not os.path.isabs(a.objects) else a.objects, files)
    bad += bad_uses
    for b in bad:
        print("check_layers: " + b, file=sys.stderr)
    if bad:
        return 1
    what = (f"{n_objs} objects: no use of a higher stage, no files using each other"
            if n_objs else "no objects built: symbol uses not checked")
    print(f"check_layers: {len(files)} files keep the stage order "
          f"({' < '.join(STAGES)}); {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
