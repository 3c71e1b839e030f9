#!/usr/bin/env python3
"""ci/workflow/judge_verdict.py fails closed (run by ci/checks/test_judge.sh): only an
explicit 0 from every check passes. Each check's status (the measurement's run and A/B,
the ladder and drift gate, the A/B gate, the freeze) is set in turn to a crash (139,
SIGSEGV), a kill (137), a timeout (124), 130 (interrupted), -1, garbage, an empty file,
a missing file, a directory, a link and an oversize file; each must give a failing
verdict (exit 1 or 2), `pass: false` in verdict.json and a comment whose first line says
FAIL and names the cause. Statuses 1 and 2 keep their meaning (failed, could not run).

    python3 ci/checks/test_judge_verdict.py"""
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERDICT = os.path.join(ROOT, "ci", "workflow", "judge_verdict.py")
# the status files each check of the judge leaves in OUT (judge.sh measure and decide)
CHECKS = {"run": "run.status", "ab measure": "ab_measure.status", "gate": "gate.status", "ab": "ab.status",
          "freeze": "freeze.status"}
fails = 0
cases = 0


def note(msg):
    global fails
    fails += 1
    print(f"test_judge_verdict: {msg}", file=sys.stderr)


def out_dir(tmp, overrides):
    """A judge's OUT with every status 0, then the overrides: name -> content, or a
    callable that makes the file itself, or None for no file."""
    d = tempfile.mkdtemp(dir=tmp)
    for f in list(CHECKS.values()) + ["config.status", "review.status"]:
        with open(os.path.join(d, f), "w") as fh:
            fh.write("0\n")
    with open(os.path.join(d, "needs_review.json"), "w") as fh:
        fh.write("[]\n")
    for f, v in overrides.items():
        p = os.path.join(d, f)
        if os.path.lexists(p):
            os.unlink(p)
        if v is None:
            continue
        if callable(v):
            v(p)
        else:
            with open(p, "w") as fh:
                fh.write(v)
    return d


def verdict(d):
    """judge_verdict.main on OUT=d, in this process: its exit, verdict.json, the comment's
    first line, the comment, what it printed."""
    spec = importlib.util.spec_from_file_location("judge_verdict", VERDICT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            rc = mod.main(["judge_verdict.py", d, "a" * 40, "b" * 40])
        except Exception as e:  # a traceback is a failing job too, but not the verdict asked for
            rc = f"traceback: {e!r}"
    try:
        doc = json.load(open(os.path.join(d, "verdict.json")))
    except (OSError, ValueError):
        doc = None
    try:
        first = open(os.path.join(d, "comment.md")).read().splitlines()[0]
        comment = open(os.path.join(d, "comment.md")).read()
    except (OSError, IndexError):
        first, comment = "", ""
    return rc, doc, first, comment, buf.getvalue()


def link_to_zero(p):
    with open(p + ".target", "w") as fh:
        fh.write("0\n")
    os.symlink(os.path.basename(p) + ".target", p)


def big(p):
    with open(p, "w") as fh:
        fh.write("0" + " " * (1 << 20) + "\n")


BAD = [  # content, what the comment must say about it
    ("139\n", "SIGSEGV"), ("137\n", "SIGKILL"), ("124\n", "timed out"), ("130\n", "interrupted"),
    ("-1\n", "exit -1"), ("0x\n", "no status"), ("\n", "no status"), ("pass\n", "no status"),
    (None, "no status"), (os.mkdir, "no status"), (link_to_zero, "no status"), (big, "no status"),
    ("0\n0\n", "no status"), ("00\n", "no status"),
]


def main():
    global cases
    with tempfile.TemporaryDirectory() as tmp:
        cases += 1
        rc, doc, first, comment, log = verdict(out_dir(tmp, {}))
        if rc != 0 or not doc or doc.get("pass") is not True or not first.startswith("**Verdict: PASS**"):
            note(f"every status 0: expected a pass, got exit {rc}, {doc and doc.get('pass')}, {first!r}: {log}")
        for check, f in CHECKS.items():
            for content, why in BAD:
                cases += 1
                label = f"{check} ({f}) = {content!r}" if not callable(content) else f"{check} ({f}) = {content.__name__}"
                rc, doc, first, comment, log = verdict(out_dir(tmp, {f: content}))
                if rc not in (1, 2):
                    note(f"{label}: the verdict exits {rc}, expected 1 or 2 (a failure): {log.strip()}")
                if not doc or doc.get("pass") is not False:
                    note(f"{label}: verdict.json does not say pass: false ({doc and doc.get('pass')})")
                if not first.startswith("**Verdict: FAIL**"):
                    note(f"{label}: the comment's first line is {first!r}")
                if why not in comment:
                    note(f"{label}: the comment does not name the cause ({why!r})")
            for content, want in (("1\n", 1), ("2\n", 2)):
                cases += 1
                rc, doc, *_ = verdict(out_dir(tmp, {f: content}))
                if rc != want or not doc or doc.get("pass") is not False:
                    note(f"{check} = {content.strip()}: exit {rc}, expected {want}")
        # the list of what needs review could not be made: said so, the verdict unchanged
        cases += 1
        rc, doc, first, comment, log = verdict(out_dir(tmp, {"review.status": "128\n"}))
        if rc != 0 or not doc or not doc.get("needs_review_unknown") or "could not be listed" not in comment:
            note(f"review.status 128: exit {rc}, needs_review_unknown {doc and doc.get('needs_review_unknown')!r}")
        # a failure and a crash together: the failure's status, still failing
        cases += 1
        rc, *_ = verdict(out_dir(tmp, {"gate.status": "1\n", "freeze.status": "139\n"}))
        if rc != 1:
            note(f"gate 1 and freeze 139: exit {rc}, expected 1")
    if fails == 0:
        print(f"test_judge_verdict: {cases} cases passed: only an explicit 0 from every check passes")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
