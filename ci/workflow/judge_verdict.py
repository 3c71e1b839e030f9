#!/usr/bin/env python3
"""The judge's verdict (judge.sh decide, last step): every check's exit status and table
in OUT, gathered into OUT/verdict.json and OUT/comment.md, and the job's exit status.

    python3 ci/workflow/judge_verdict.py OUT BASE_SHA HEAD_SHA

The verdict counts the base's checks only: the measurement (the base's harness running the
pull request's rungs: the ladder run, run, and the A/B pairs, ab_measure), the ladder gate
with the drift gate (gate), the A/B gate (ab) and the freeze (freeze). The pull request's
own verdicts (head_*) are shown beside them and never counted. The comment's first line is
the verdict this exits with, so the comment, the job and the check on the pull request
say the same thing.

It fails closed: a check passes only on an explicit 0 in its OUT/<check>.status (a
regular file of at most a few bytes holding "0"). Any other status is a failure: 1 the
check failed; 2 it could not run, and so does every other value (a crash, 139 from
SIGSEGV; a kill, 137; a timeout, 124; an interruption, 130), a missing, unreadable or
garbled status file, which are named in the comment as what they are.
Exit: 0 pass, 1 a check failed, 2 a check could not run (bad input, nothing measured, a
crash, a kill, a timeout, no status)."""
import json
import os
import signal
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from comment_text import block, code, inert, printable, review_line  # noqa: E402  (the one escaping rule)

CHECKS = [  # name, what it is, the base's file, the head's status name (None: the base's alone)
    ("run", "the measurement: the ladder run (the base's harness, the pull request's rungs)", "ladder.txt", None),
    ("ab_measure", "the measurement: the A/B pairs (the base's harness, both builds)", "ab.txt", None),
    ("gate", "ladder gate (bounds, correctness) and drift against the accepted runs", "gate.txt", "head_gate"),
    ("ab", "A/B against the base build", "ab_judged.txt", "head_ab"),
    ("freeze", "freeze (the base's manifests)", "freeze.txt", "head_freeze"),
]
MAX_LINES = 40
MAX_STATUS_BYTES = 16
MAX_TEXT_BYTES = 4 << 20


def read_regular(path, limit):
    """The bytes of PATH if it is a regular file (not a link) of at most LIMIT bytes, else
    None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def read(out, name, default=""):
    data = read_regular(os.path.join(out, name), MAX_TEXT_BYTES)
    return default if data is None else data.decode("utf-8", errors="replace")


def status(out, name):
    """A check's exit status: an int when its status file holds one decimal number (as
    `echo $?` writes it), else None (missing, not a regular file, too long, garbled)."""
    data = read_regular(os.path.join(out, name + ".status"), MAX_STATUS_BYTES)
    if data is None:
        return None
    s = data.decode("ascii", errors="replace")
    s = s[:-1] if s.endswith("\n") else s
    if s == "0":
        return 0
    if s.lstrip("-").isdigit() and not s.lstrip("-").startswith("0"):
        return int(s)
    return None


def blocking(s):
    """0 only for an explicit pass; 1 a failure; 2 anything else (could not run)."""
    return 0 if s == 0 else 1 if s == 1 else 2


def word(s):
    """What a status means, for the table: a crash, a kill and a timeout by name."""
    if s is None:
        return "**no status** (missing, unreadable or not a number: counted as could not run)"
    if s in (0, 1, 2):
        return {0: "pass", 1: "**FAIL**", 2: "**could not run**"}[s]
    if s == 124:
        return "**timed out** (exit 124)"
    if 128 < s < 128 + 65:
        try:
            name = signal.Signals(s - 128).name
        except ValueError:
            name = f"signal {s - 128}"
        what = {"SIGINT": "interrupted", "SIGTERM": "terminated"}.get(name, "crashed" if name in (
            "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT") else "killed")
        return f"**{what}** ({name}, exit {s})"
    return f"**exit {s}** (counted as could not run)"


def shown(s):
    """The pull request's own status, shown beside: not run is a dash."""
    return "-" if s is None else word(s)


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
    head = {h: status(out, h) for *_, h in CHECKS if h}
    counted = [blocking(s) for s in st.values()]
    verdict = 1 if 1 in counted else 2 if 2 in counted else 0
    review, review_error = [], None
    try:
        review = [p["path"] for p in json.loads(read(out, "needs_review.json"))]
        if not all(isinstance(p, str) for p in review):
            raise TypeError("a path that is not a string")
    except (ValueError, KeyError, TypeError) as e:
        review_error = f"needs_review.json: {type(e).__name__}"
    if status(out, "review") != 0:
        review_error = "the changed files could not be listed: " + " ".join(read(out, "review.txt").split())[:200]
    new_bounds = [l for l in read(out, "config.txt").splitlines() if "taken from the pull request" in l]
    doc = {"schema": "attnladder-verdict", "schema_version": 1, "judge": base_sha, "head": head_sha,
           "pass": verdict == 0, "exit": verdict, "checks": st, "pull_request_own": head,
           "needs_review": review, "needs_review_unknown": review_error,
           "bounds_from_pull_request": new_bounds}
    tmp = os.path.join(out, "verdict.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, os.path.join(out, "verdict.json"))

    md = [f"**Verdict: {'PASS' if verdict == 0 else 'FAIL'}** (the job's; judged by the base "
          f"`{base_sha[:10]}`: its harness, its `ci/gate.json`, its accepted runs and its freeze manifests)", ""]
    for line in (review_line(review), review_line([], error=review_error) if review_error else None):
        if line:
            md += [line, ""]
    for l in new_bounds:
        md += ["- " + code(l.replace("judge_config: ", "", 1)), ""]
    md += ["| check | the base's rules (counted) | the pull request's own rules (shown) |", "| --- | --- | --- |"]
    for c, what, _, h in CHECKS:
        md.append(f"| {what} | {word(st[c])} | {shown(head[h]) if h else '-'} |")
    md.append("")
    for c, what, fname, _ in CHECKS:
        if st[c] != 0:
            lines = findings(c, read(out, fname)) if st[c] in (1, 2) and c in ("gate", "ab", "freeze") else []
            if not lines:   # a crash, a kill, a timeout: the end of what it wrote
                lines = read(out, fname).splitlines()[-12:]
            if lines:
                md += [f"{what}:", "", *block(lines), ""]
    ab = read(out, "ab_judged.txt")
    if ab:
        md += ["<details><summary>A/B rows (the base's rule)</summary>", "", *block(ab.rstrip().splitlines()),
               "", "</details>", ""]
    compare = read(out, "compare.md")
    if compare:   # the base's compare escapes what it takes from evidence; no raw HTML past it either
        md += [inert(compare.rstrip()), ""]
    tmp = os.path.join(out, "comment.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(md))
    os.replace(tmp, os.path.join(out, "comment.md"))
    print(f"judge: {'pass' if verdict == 0 else 'FAIL'} (run {st['run']}, ab_measure {st['ab_measure']}, "
          f"gate {st['gate']}, ab {st['ab']}, freeze {st['freeze']}; "
          f"the pull request's own: gate {head['head_gate']}, ab {head['head_ab']}, freeze {head['head_freeze']})"
          + (f"; needs a maintainer's review: {' '.join(printable(p) for p in review)}" if review else "")
          + (f"; needs a maintainer's review: {printable(review_error)}" if review_error else ""))
    return verdict


if __name__ == "__main__":
    sys.exit(main(sys.argv))
