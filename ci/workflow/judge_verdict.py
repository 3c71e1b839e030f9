#!/usr/bin/env python3
"""The judge's verdict (judge.sh decide, last step): every check's exit status and table
in OUT, gathered into OUT/verdict.json and OUT/comment.md, and the job's exit status.

    python3 ci/workflow/judge_verdict.py OUT BASE_SHA HEAD_SHA

The verdict counts the base's checks only: the ladder gate with the drift gate (gate), the
A/B gate (ab) and the freeze (freeze). The pull request's own verdicts (head_*) are shown
beside them and never counted. The comment's first line is the verdict this exits with,
so the comment, the job and the check on the pull request say the same thing.
Exit: 0 pass, 1 a check failed, 2 a check could not run (bad input, nothing measured)."""
import json
import os
import sys

CHECKS = [  # name, what it is, the base's file, the head's status name
    ("gate", "ladder gate (bounds, correctness) and drift against the accepted runs", "gate.txt", "head_gate"),
    ("ab", "A/B against the base build", "ab_judged.txt", "head_ab"),
    ("freeze", "freeze (the base's manifests)", "freeze.txt", "head_freeze"),
]
MAX_LINES = 40


def read(out, name, default=""):
    try:
        with open(os.path.join(out, name), errors="replace") as f:
            return f.read()
    except OSError:
        return default


def status(out, name):
    s = read(out, name + ".status", "none").strip()
    return int(s) if s.lstrip("-").isdigit() else None


def word(s):
    return {0: "pass", 1: "**FAIL**", 2: "**could not run**"}.get(s, "-" if s is None else f"exit {s}")


def findings(check, text):
    """The lines of a check's table that say why it failed."""
    keys = {"gate": ("FAIL", "slower", "missing", "no bound"), "ab": ("regressed", "failed", "throttled"),
            "freeze": ("freeze:", "    ")}[check]
    lines = [l for l in text.splitlines() if any(k in l for k in keys)]
    return lines[:MAX_LINES]


def main(argv):
    if len(argv) != 4:
        print("usage: judge_verdict.py OUT BASE_SHA HEAD_SHA", file=sys.stderr)
        return 2
    out, base_sha, head_sha = argv[1:]
    st = {c: status(out, c) for c, *_ in CHECKS}
    head = {h: status(out, h) for *_, h in CHECKS}
    blocking = [s if s is not None else 2 for s in st.values()]
    verdict = 1 if 1 in blocking else 2 if 2 in blocking else 0
    review = [l.split()[0] for l in read(out, "needs_review.txt").splitlines() if l.strip()]
    new_bounds = [l for l in read(out, "config.txt").splitlines() if "taken from the pull request" in l]
    doc = {"schema": "attnladder-verdict", "schema_version": 1, "judge": base_sha, "head": head_sha,
           "pass": verdict == 0, "exit": verdict, "checks": st, "pull_request_own": head,
           "needs_review": review, "bounds_from_pull_request": new_bounds}
    tmp = os.path.join(out, "verdict.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, os.path.join(out, "verdict.json"))

    md = [f"**Verdict: {'PASS' if verdict == 0 else 'FAIL'}** (the job's; judged by the base "
          f"`{base_sha[:10]}`: its harness, its `ci/gate.json`, its accepted runs and its freeze manifests)", ""]
    if review:
        md += ["**Needs a maintainer's review:** this pull request changes what judges it "
               "(CODEOWNERS): " + ", ".join(f"`{p}`" for p in review[:30])
               + (f" and {len(review) - 30} more" if len(review) > 30 else ""), ""]
    for l in new_bounds:
        md += [l.replace("judge_config: ", "- "), ""]
    md += ["| check | the base's rules (counted) | the pull request's own rules (shown) |", "| --- | --- | --- |"]
    for c, what, _, h in CHECKS:
        md.append(f"| {what} | {word(st[c])} | {word(head[h])} |")
    md.append("")
    for c, what, fname, _ in CHECKS:
        if st[c] not in (0, None) or c == "ab":
            lines = findings(c, read(out, fname)) if st[c] else []
            if lines:
                md += [f"{what}:", "", "```text", *lines, "```", ""]
    ab = read(out, "ab_judged.txt")
    if ab:
        md += ["<details><summary>A/B rows (the base's rule)</summary>", "", "```text", ab.rstrip(), "```",
               "", "</details>", ""]
    compare = read(out, "compare.md")
    if compare:
        md += [compare.rstrip(), ""]
    tmp = os.path.join(out, "comment.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(md))
    os.replace(tmp, os.path.join(out, "comment.md"))
    print(f"judge: {'pass' if verdict == 0 else 'FAIL'} (gate {st['gate']}, ab {st['ab']}, freeze {st['freeze']}; "
          f"the pull request's own: gate {head['head_gate']}, ab {head['head_ab']}, freeze {head['head_freeze']})"
          + (f"; needs a maintainer's review: {' '.join(review)}" if review else ""))
    return verdict


if __name__ == "__main__":
    sys.exit(main(sys.argv))
