#!/usr/bin/env python3
"""Long functions of the harness say why they are long; checked by `make test`.

A function of harness/ (the commands and the stages; not tests/, fuzz/ or planted/, nor
kernels/oracle/) over MAX_LINES lines, from its first line to its closing brace, needs a
comment just above it that starts "Longer than a harness function should be" and says
why it stays whole (one cleanup path its stages share, a loop whose state each part would
need, ...). Split such a function instead where its parts do one thing each.

A function is found as the C files are written here: its definition starts in column 0
(not a `#`, not a declaration ending in `;`), its body opens with `{` and closes with a
`}` in column 0.

Usage: check_long_functions.py [--root DIR] [--list] [--max N]
  --list  print every function over the limit, with its length, commented or not
Exit 0 when every long function says why; 1 with one line per one that does not.
"""
import argparse
import os
import re
import sys

MAX_LINES = 80
MARK = "Longer than a harness function should be"
SKIP_DIRS = {"tests", "fuzz", "planted"}
NAME_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def sources(root):
    base = os.path.join(root, "harness")
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for f in sorted(filenames):
            if f.endswith(".c"):
                yield os.path.join(dirpath, f)


def functions(lines):
    """(name, first line index, last line index, the comment above it) of each function."""
    out = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        starts = line[:1] not in ("", " ", "\t", "#", "/", "*", "{", "}") and "(" in line
        if not starts or line.rstrip().endswith(";") or line.startswith(("typedef", "struct", "enum")):
            i += 1
            continue
        # the signature runs to the line whose end opens the body, or to a `{` line
        j = i
        while j < n and not lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith(";"):
            j += 1
        if j >= n or lines[j].rstrip().endswith(";") or "=" in "".join(lines[i:j + 1]).split("(")[0]:
            i += 1
            continue
        k = j + 1
        while k < n and not lines[k].startswith("}"):
            k += 1
        m = NAME_RE.search(line)
        name = m.group(1) if m else "?"
        if m and name in ("static", "const"):
            name = "?"
        # the comment block just above the signature
        c = i - 1
        comment = []
        while c >= 0 and (lines[c].lstrip().startswith(("/*", "*")) or lines[c].rstrip().endswith("*/")):
            comment.insert(0, lines[c])
            c -= 1
        out.append((name, i, k, " ".join(x.strip(" /*\n") for x in comment)))
        i = k + 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--max", type=int, default=MAX_LINES)
    a = ap.parse_args()
    bad, long_ = [], 0
    for path in sources(a.root):
        rel = os.path.relpath(path, a.root)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        for name, first, last, comment in functions(lines):
            length = last - first + 1
            if length <= a.max:
                continue
            long_ += 1
            says = MARK in re.sub(r"\s+", " ", comment)
            if a.list:
                print(f"{rel}:{first + 1}: {name}: {length} lines{'' if says else ', no comment saying why'}")
            if not says:
                bad.append(f"{rel}:{first + 1}: {name} is {length} lines (over {a.max}) and no comment above "
                           f"it says why (\"{MARK}: ...\"): split it or say why it stays whole")
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        return 1
    print(f"check_long_functions: {long_} functions of harness/ over {a.max} lines, each says why")
    return 0


if __name__ == "__main__":
    sys.exit(main())
