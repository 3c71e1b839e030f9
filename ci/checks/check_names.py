#!/usr/bin/env python3
"""No two files under harness/ share a base name (`make test`): a name alone says which
file to open. A file's base name is its name up to the first dot, so that `cmd/ab.c` and
`gate/ab.c`, or `cmd/accepted.c` and `report/accepted.h`, clash; a module's own files in
one folder (`cmd/compare.c` and `cmd/compare.h`) are one module and do not.

What is read: the files under harness/ that git tracks or would (a new file is judged
before it is added; one git ignores, such as a build output, is not), that are present,
less the READMEs (one per folder, by convention) and harness/tests/data/ (made-up
evidence and rungs, laid out and named as evidence/ and phases/ are).
ci/checks/test_names.sh plants duplicates in a scratch tree.

usage: check_names.py [--root DIR] [--self-test]   exit 0 when no name is shared, 1
otherwise (each shared name printed with its files), 2 on bad usage."""
import os
import subprocess
import sys

import check_args

NOT_READ = ("harness/tests/data/",)


def tracked(root):
    """The files of harness/ in the index or new and not ignored, that exist on disk."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard", "--", "harness"],
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"check_names: {root}: not a git work tree ({out.stderr.strip()})")
    return sorted({f for f in out.stdout.split("\0")
                   if f and os.path.lexists(os.path.join(root, f))})


def clashes(paths):
    """{base name: sorted paths} for each base name held by files of more than one folder."""
    by_base = {}
    for p in paths:
        name = os.path.basename(p)
        if name == "README.md" or p.startswith(NOT_READ):
            continue
        by_base.setdefault(name.split(".", 1)[0], []).append(p)
    return {b: sorted(ps) for b, ps in sorted(by_base.items())
            if len({os.path.dirname(p) for p in ps}) > 1}


def self_test():
    got = clashes(["harness/cmd/ab.c", "harness/gate/ab.c", "harness/cmd/compare.c",
                   "harness/cmd/compare.h", "harness/README.md", "harness/gate/README.md",
                   "harness/x/accepted.c", "harness/cmd/accepted.h",
                   "harness/tests/data/a/r.json", "harness/tests/data/b/r.json"])
    want = {"ab": ["harness/cmd/ab.c", "harness/gate/ab.c"],
            "accepted": ["harness/cmd/accepted.h", "harness/x/accepted.c"]}
    if got != want:
        print(f"check_names: self-test: got {got}, want {want}")
        return 1
    return 0


def main(argv):
    root, self_testing = check_args.parse(argv, __doc__)   # bad usage: exit 2
    if self_testing:
        return self_test()
    paths = tracked(root)
    bad = clashes(paths)
    for base, ps in bad.items():
        print(f"check_names: base name '{base}' is shared: {', '.join(ps)}")
    if bad:
        return 1
    print(f"check_names: {len(paths)} files under harness/, no base name shared")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
