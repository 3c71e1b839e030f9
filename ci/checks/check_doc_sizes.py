#!/usr/bin/env python3
"""What readers open stays a guide, not a notebook (`make test`): each rung's README at
most RUNG_README_MAX bytes (technique, prediction and outcome; a rung's history is in git),
ci/README.md at most CI_README_MAX (its generated study block lives beside the studies, in
evidence/STUDIES.md). Bytes, not characters: the limit is what a reader's first screens and
the repository's size see.

usage: check_doc_sizes.py [--root DIR] [--self-test]   exit 0 within the limits, 1 otherwise
(each file over its limit printed with its size and the limit), 2 on bad usage."""
import glob
import os
import sys

import check_args

RUNG_README_MAX = 15000
CI_README_MAX = 12000


def limits(root):
    """[(path relative to root, limit)] of every file the rule covers that is there."""
    out = [(os.path.relpath(p, root), RUNG_README_MAX)
           for p in sorted(glob.glob(os.path.join(root, "phases", "*", "README.md")))]
    if os.path.exists(os.path.join(root, "ci", "README.md")):
        out.append((os.path.join("ci", "README.md"), CI_README_MAX))
    return out


def over(root):
    """[(path, size, limit)] of the covered files larger than their limit."""
    bad = []
    for rel, lim in limits(root):
        size = os.path.getsize(os.path.join(root, rel))
        if size > lim:
            bad.append((rel, size, lim))
    return bad


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for rel, size in (("phases/01_a/README.md", RUNG_README_MAX), ("phases/02_b/README.md", RUNG_README_MAX + 1),
                          ("ci/README.md", CI_README_MAX + 1), ("harness/README.md", 10 * RUNG_README_MAX)):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "wb") as f:
                f.write(b"x" * size)
        got = over(d)
    want = [("phases/02_b/README.md", RUNG_README_MAX + 1, RUNG_README_MAX),
            ("ci/README.md", CI_README_MAX + 1, CI_README_MAX)]
    if got != want:
        print(f"check_doc_sizes: self-test: got {got}, want {want}")
        return 1
    return 0


def main(argv):
    root, self_testing = check_args.parse(argv, __doc__)   # bad usage: exit 2
    if self_testing:
        return self_test()
    if not limits(root):  # a wrong root would otherwise pass on nothing
        print(f"check_doc_sizes: {root}: no phases/*/README.md or ci/README.md there; "
              "--root names the repository's top folder", file=sys.stderr)
        return 2
    bad = over(root)
    for rel, size, lim in bad:
        print(f"check_doc_sizes: {rel}: {size} bytes, over its limit of {lim}")
    if bad:
        return 1
    print(f"check_doc_sizes: {len(limits(root))} READMEs within their limits")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
