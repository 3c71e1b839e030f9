#!/usr/bin/env python3
"""The verdict of one compute-sanitizer run of the harness (ci/workflow/sanitize.sh).

A log is split into records: a record opens with a line `========= Error: ...`,
`========= Warning: ...` or `========= Invalid ...` and continues with the indented
lines under it (`=========     at ...`). The banner (`========= COMPUTE-SANITIZER`) and the
summary lines are not records. A record is:
  - vendor:  it names a vendor library's kernel or library (cuDNN, cuBLAS), where the
             finding is not the project's to fix;
  - process: the tool's note that the application failed (`process didn't terminate
             successfully`, `Target application returned an error`): a consequence,
             judged through the exit status instead;
  - own:     anything else, the project's.

For a baseline run (`vendor_impl`: every kernel it launches is the vendor library's),
a record that names no location (e.g. the tool's own limit on tracked barriers) is
vendor as well.

The exit status of the run: 0, or 99 (the `--error-exitcode` the script passes) when the
tool found something. Any other status is the harness failing by itself (a failed check
is 1), which fails the verdict whatever the records say.

verdict: "clean" (no record, exit 0, the harness completed), "vendor" (every record is
vendor or process, exit 0 or 99, the harness completed: recorded, not blocking), or
"fail".
"""
import json
import re
import sys

VENDOR = re.compile(r"cudnn|cublas", re.I)
PROCESS = ("process didn't terminate successfully", "Target application returned an error",
           "The application may have hit an error")
OPENERS = ("Error:", "Warning:", "Invalid ")


def records(text):
    out, cur = [], None
    for line in text.splitlines():
        if not line.startswith("========="):
            continue
        body = line[len("========="):]
        head = body.strip()
        if body.startswith(" ") and not body.startswith("     ") and head.startswith(OPENERS):
            cur = [head]
            out.append(cur)
        elif body.startswith("     ") and cur is not None:
            cur.append(head)
        else:
            cur = None   # banner, summaries, blank separators
    return out


def kind(rec, vendor_impl=False):
    text = " ".join(rec)
    if any(p in text for p in PROCESS):
        return "process"
    return "vendor" if VENDOR.search(text) or vendor_impl else "own"


def verdict(text, exit_status, vendor_impl=False):
    recs = records(text)
    kinds = [kind(r, vendor_impl) for r in recs]
    completed = "evidence:" in text
    if not recs and exit_status == 0 and completed:
        v = "clean"
    elif completed and exit_status in (0, 99) and recs and all(k != "own" for k in kinds) \
            and "vendor" in kinds:
        v = "vendor"
    else:
        v = "fail"
    return {"verdict": v, "harness_completed": completed, "exit": exit_status,
            "records": [{"kind": k, "text": r[:3]} for k, r in zip(kinds, recs)][:8]}


if __name__ == "__main__":
    print(json.dumps(verdict(open(sys.argv[1], errors="replace").read(), int(sys.argv[2]),
                             len(sys.argv) > 3 and sys.argv[3] == "vendor"), indent=1))
