#!/usr/bin/env python3
"""Checks a run of the test-only faulty implementation (harness/planted/faulty_skip_tile.c)
against where it is wrong: the correctness check must fail it on every point where it is
wrong and pass it where it is not. `make test` runs this on the committed evidence of
that run (evidence/<gpu>/studies/faulty/faulty_skip_tile_*.json, xz-compressed when large);
ci/checks/test_faulty_tile.sh makes it on the GPU.

The faulty implementation overwrites query rows [64, min(128, Sq)) of the middle
(batch, head) with its rows [0, 64). That changes the output unless Sq <= 64, or the rows
involved all see no key (causal with min(128, Sq) <= Sq - Skv: zeros copied over zeros).

usage: check_faulty_tile.py FILE...   exit 0 when every verdict is the expected one."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import evidence_files  # noqa: E402  (opens a compressed study as every study tool does)

NAME = "99_faulty_skip_tile"


def wrong(s):
    sq, skv = s["seq_q"], s["seq_kv"]
    if sq <= 64:
        return False
    return not (s["causal"] and min(128, sq) <= sq - skv)


def check(path):
    doc = evidence_files.load(path)
    rows = [r for r in doc.get("results", []) if r.get("impl") == NAME and r.get("supported")]
    bad, counts = [], {"wrong_failed": 0, "right_passed": 0}
    for r in rows:
        s = r["shape"]
        passed = bool(r.get("correctness", {}).get("pass"))
        text = f'{s["batch"]}x{s["heads"]}x{s["seq_q"]}:{s["seq_kv"]}x{s["head_dim"]}{" causal" if s["causal"] else ""}'
        if wrong(s) and passed:
            bad.append(f"{text}: wrong there but the check passed it")
        elif not wrong(s) and not passed:
            bad.append(f"{text}: right there but the check failed it")
        else:
            counts["wrong_failed" if wrong(s) else "right_passed"] += 1
    if not rows:
        bad.append(f"no supported result of {NAME}")
    return rows, counts, bad


def main(paths):
    status = 0
    for p in paths:
        rows, counts, bad = check(p)
        for b in bad:
            print(f"check_faulty_tile: {p}: {b}", file=sys.stderr)
        if bad:
            status = 1
        else:
            print(f"check_faulty_tile: {p}: {len(rows)} points: failed on all {counts['wrong_failed']} "
                  f"where it is wrong, passed on the {counts['right_passed']} where it is not")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else 2)
