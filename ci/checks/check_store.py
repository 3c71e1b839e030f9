#!/usr/bin/env python3
"""The evidence store stays small and in its layout (`make test`; evidence/README.md says
what is where and why the budget is what it is).

Fails (exit 1, each finding printed) when, over the tracked files:
  - evidence/ holds more than EVIDENCE_BUDGET bytes, or the whole tree more than
    TREE_BUDGET;
  - a study file (evidence/<gpu>/studies/<kind>/...) over COMPRESS_ABOVE_BYTES is not
    compressed (.xz or .gz); a run over RUN_COMPRESS_ABOVE_BYTES is not compressed
    (.json.gz, ci/tools/compress_run.sh), or a run is there in both forms;
  - evidence/<gpu>/ holds anything but runs (<stamp>_<commit>.json, .partial.json, each
    possibly .gz),
    accepted.txt, reference.txt and studies/; or evidence/ anything but README.md,
    SCHEMA.md and the GPUs' folders; or a study lies deeper than studies/<kind>/<file>;
  - reference.txt is not one line naming a complete run of its folder, or accepted.txt
    names a run that is not there.

usage: check_store.py [--root DIR] [--evidence-budget BYTES] [--tree-budget BYTES]
exit 0 within budget and layout, 1 otherwise, 2 on bad usage."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from evidence_files import COMPRESS_ABOVE_BYTES  # noqa: E402  (the writers' threshold)

MB = 1000 * 1000
# Why these two numbers: evidence/README.md, "Budget".
EVIDENCE_BUDGET = 6 * MB
TREE_BUDGET = 12 * MB
RUN_NAME = re.compile(r"^\d{8}T\d{6}Z_[0-9a-f]{7,40}(\.partial)?\.json(\.gz)?$")
# A run larger than this is committed gzip-compressed (evidence/README.md, "Compression"):
# a complete reference run is about 4 MB of JSON and 0.5 MB compressed.
RUN_COMPRESS_ABOVE_BYTES = 1 * MB
GPU_FILES = ("accepted.txt", "reference.txt")
TOP_FILES = ("README.md", "SCHEMA.md")


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"check_store: {root}: not a git work tree ({out.stderr.strip()})")
    files = {}
    for f in out.stdout.split("\0"):
        p = os.path.join(root, f)
        if f and os.path.isfile(p):   # a file deleted but not yet staged is not in the tree
            files[f] = os.path.getsize(p)
    return files


def names_in(path):
    with open(path, encoding="utf-8") as fh:
        return [l.strip() for l in fh if l.strip() and not l.strip().startswith("#")]


def check(root, files, evidence_budget, tree_budget):
    bad = []
    ev = {f: s for f, s in files.items() if f.startswith("evidence/")}
    ev_bytes, tree_bytes = sum(ev.values()), sum(files.values())
    if ev_bytes > evidence_budget:
        big = sorted(ev.items(), key=lambda kv: -kv[1])[:5]
        bad.append(f"evidence/ holds {ev_bytes / MB:.2f} MB, over its budget of {evidence_budget / MB:.2f} MB "
                   f"(largest: {', '.join(f'{f} {s / MB:.2f} MB' for f, s in big)}); retire superseded runs "
                   f"to git history (evidence/README.md says how)")
    if tree_bytes > tree_budget:
        bad.append(f"the tracked tree holds {tree_bytes / MB:.2f} MB, over its budget of {tree_budget / MB:.2f} MB")
    gpus = set()
    for f, size in sorted(ev.items()):
        parts = f.split("/")
        if len(parts) == 2:
            if parts[1] not in TOP_FILES:
                bad.append(f"{f}: evidence/ holds README.md, SCHEMA.md and one folder per GPU, nothing else")
            continue
        gpus.add(parts[1])
        if len(parts) == 3:
            if not (RUN_NAME.match(parts[2]) or parts[2] in GPU_FILES):
                bad.append(f"{f}: not a run, accepted.txt or reference.txt; a study goes in "
                           f"evidence/{parts[1]}/studies/<kind>/")
            elif parts[2].endswith(".json"):
                if f + ".gz" in files:
                    bad.append(f"{f} and {parts[2]}.gz: one run in two forms; a run is stored in one "
                               f"(the harness refuses both)")
                elif size > RUN_COMPRESS_ABOVE_BYTES:
                    bad.append(f"{f}: {size / MB:.2f} MB uncompressed; a run over "
                               f"{RUN_COMPRESS_ABOVE_BYTES / MB:.0f} MB is committed compressed "
                               f"(ci/tools/compress_run.sh {f})")
            continue
        if parts[2] != "studies" or len(parts) != 5:
            bad.append(f"{f}: below evidence/<gpu>/ only studies/<kind>/<file> (development material "
                       f"lives in git history, not here)")
            continue
        if size > COMPRESS_ABOVE_BYTES and not f.endswith((".xz", ".gz")):
            bad.append(f"{f}: {size / 1000:.0f} KB uncompressed; a study over {COMPRESS_ABOVE_BYTES // 1024} KB "
                       f"is stored as .json.xz (ci/tools/evidence_files.py compress_if_large)")
    for g in sorted(gpus):
        d = f"evidence/{g}"
        ref = f"{d}/reference.txt"
        if ref in files:
            with open(os.path.join(root, ref), encoding="utf-8") as fh:
                lines = fh.read().splitlines()
            name = lines[0].strip() if lines else ""
            if len(lines) != 1 or not RUN_NAME.match(name) or name.endswith((".partial.json", ".partial.json.gz")):
                bad.append(f"{ref}: must be one line, the file name of a complete run of {d}/")
            elif f"{d}/{name}" not in files:
                bad.append(f"{ref}: names {name}, which is not a tracked file of {d}/")
        acc = f"{d}/accepted.txt"
        if acc in files:
            for name in names_in(os.path.join(root, acc)):
                if f"{d}/{name}" not in files:
                    bad.append(f"{acc}: names {name}, which is not a tracked file of {d}/")
    return bad, ev_bytes, tree_bytes


def main(argv):
    root, eb, tb = ".", EVIDENCE_BUDGET, TREE_BUDGET
    try:
        while argv:
            opt, val = argv[0], argv[1]
            argv = argv[2:]
            if opt == "--root":
                root = val
            elif opt == "--evidence-budget":
                eb = int(val)
            elif opt == "--tree-budget":
                tb = int(val)
            else:
                raise ValueError(opt)
    except (IndexError, ValueError):
        print("usage: " + __doc__.split("usage: ")[1], file=sys.stderr)
        return 2
    files = tracked(root)
    bad, ev_bytes, tree_bytes = check(root, files, eb, tb)
    for b in bad:
        print(f"check_store: {b}", file=sys.stderr)
    n_ev = sum(1 for f in files if f.startswith("evidence/"))
    print(f"check_store: evidence/ {ev_bytes / MB:.2f} MB in {n_ev} files (budget {eb / MB:.2f} MB), "
          f"tracked tree {tree_bytes / MB:.2f} MB in {len(files)} files (budget {tb / MB:.2f} MB); "
          f"{len(bad)} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
