"""The arguments every tree check takes (`check_names.py`, `check_doc_sizes.py`,
`check_ladder_table.py`): --root, the repository to check, and --self-test, the check run
on files it plants. One parser, so the checks agree on their usage; bad usage exits 2
(argparse)."""
import argparse


def parse(argv, doc):
    """(root, self_test) from argv; doc: the check's docstring, whose first paragraph is
    its description."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--root", default=".", help="the repository to check (default: .)")
    ap.add_argument("--self-test", action="store_true", help="check the checker on planted files")
    a = ap.parse_args(argv)
    return a.root, a.self_test
