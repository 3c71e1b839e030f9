#!/usr/bin/env python3
"""The README's ladder table is the ladder (`make test`): the table under "## The ladder"
in README.md holds one row for every rung directory under phases/ (NN_name), in order, each
row's number the directory's NN and its link that directory, and no row for a directory
that is not there. A rung whose directory has no freeze manifest (ci/frozen/NAME.sha256)
says "not frozen" in its row, and a frozen one does not: the first screen a reader sees
must not promise what the tree does not hold. Rows for things other than rungs (the
baseline, whose first cell is "-") are not judged.

usage: check_ladder_table.py [--root DIR] [--self-test]   exit 0 when the table matches,
1 otherwise (each mismatch printed), 2 on bad usage."""
import os
import re
import sys

import check_args

RUNG_DIR = re.compile(r"^(\d\d)_[a-z0-9_]+$")
ROW = re.compile(r"^\|\s*(\d\d)\s*\|\s*\[`phases/([^`]+)`\]\(phases/([^)]+)\)\s*\|(.*)\|\s*$")


def rung_dirs(root):
    """Sorted rung directory names under phases/."""
    d = os.path.join(root, "phases")
    return sorted(n for n in os.listdir(d) if RUNG_DIR.match(n) and os.path.isdir(os.path.join(d, n)))


def table_rows(readme_text):
    """[(number, linked name, link target, idea text)] of the ladder table's rung rows."""
    rows, inside = [], False
    for line in readme_text.splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## The ladder"
            continue
        m = ROW.match(line) if inside else None
        if m:
            rows.append((m.group(1), m.group(2), m.group(3), m.group(4)))
    return rows


def mismatches(root):
    """Each way the README's table and the tree disagree, as a sentence."""
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        rows = table_rows(f.read())
    dirs = rung_dirs(root)
    bad = []
    named = [r[1] for r in rows]
    for n in dirs:
        if n not in named:
            bad.append(f"phases/{n} has no row in README.md's ladder table")
    for num, name, target, idea in rows:
        if name != target:
            bad.append(f"row {num}: shows phases/{name} but links phases/{target}")
        if name not in dirs:
            bad.append(f"row {num}: phases/{name} is not a rung directory of the tree")
            continue
        if num != name[:2]:
            bad.append(f"row {num}: phases/{name} is rung {name[:2]}")
        frozen = os.path.exists(os.path.join(root, "ci", "frozen", name + ".sha256"))
        says = "not frozen" in idea
        if frozen and says:
            bad.append(f"row {num}: says 'not frozen', but ci/frozen/{name}.sha256 freezes it")
        if not frozen and not says:
            bad.append(f"row {num}: phases/{name} has no ci/frozen/{name}.sha256; its row must say 'not frozen'")
    if named != sorted(named):
        bad.append("the rows are not in rung order")
    if len(set(named)) != len(named):
        bad.append("a rung has more than one row")
    return bad


def self_test():
    import tempfile
    head = "# x\n\n## The ladder\n\n| rung | directory | one idea |\n| --- | --- | --- |\n"
    ok = ("| 01 | [`phases/01_a`](phases/01_a) | one |\n"
          "| 02 | [`phases/02_b`](phases/02_b) | two (not frozen: one GPU) |\n"
          "| - | [`kernels/base`](kernels/base) | the baseline |\n")
    cases = [
        (ok, []),
        ("| 01 | [`phases/01_a`](phases/01_a) | one |\n",
         ["phases/02_b has no row in README.md's ladder table"]),
        (ok.replace("two (not frozen: one GPU)", "two"),
         ["row 02: phases/02_b has no ci/frozen/02_b.sha256; its row must say 'not frozen'"]),
        (ok.replace("| one |", "| one (not frozen) |"),
         ["row 01: says 'not frozen', but ci/frozen/01_a.sha256 freezes it"]),
        (ok + "| 03 | [`phases/03_c`](phases/03_c) | gone (not frozen) |\n",
         ["row 03: phases/03_c is not a rung directory of the tree"]),
        (ok.replace("| 02 | [`phases/02_b`](phases/02_b)", "| 03 | [`phases/02_b`](phases/02_b)"),
         ["row 03: phases/02_b is rung 02"]),
    ]
    with tempfile.TemporaryDirectory() as d:
        for n in ("01_a", "02_b", "README_not_a_rung"):
            os.makedirs(os.path.join(d, "phases", n))
        os.makedirs(os.path.join(d, "ci", "frozen"))
        open(os.path.join(d, "ci", "frozen", "01_a.sha256"), "w").close()
        for i, (table, want) in enumerate(cases):
            with open(os.path.join(d, "README.md"), "w", encoding="utf-8") as f:
                f.write(head + table + "\n## Two commands\n\n| 09 | [`phases/09_z`](phases/09_z) | not a ladder row |\n")
            got = mismatches(d)
            if got != want:
                print(f"check_ladder_table: self-test case {i}: got {got}, want {want}")
                return 1
    return 0


def main(argv):
    root, self_testing = check_args.parse(argv, __doc__)   # bad usage: exit 2
    if self_testing:
        return self_test()
    if not os.path.isdir(os.path.join(root, "phases")) or not os.path.exists(os.path.join(root, "README.md")):
        print(f"check_ladder_table: {root}: no README.md and phases/ there; --root names the repository's top folder",
              file=sys.stderr)
        return 2
    bad = mismatches(root)
    for b in bad:
        print(f"check_ladder_table: README.md: {b}")
    if bad:
        return 1
    print(f"check_ladder_table: README.md's ladder table lists the {len(rung_dirs(root))} rungs of phases/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
