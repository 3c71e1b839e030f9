#!/usr/bin/env python3
"""Where `make test`'s time went: one line a check (and a line a kind of build), from the
recipe lines' times that ci/checks/timed_line.sh recorded, beside each check's budget.

  ci/checks/test_times.py --lines LINES.tsv --budget ci/checks/test_budget.tsv \
      --build BUILD [--out BUILD/test_times.tsv]
  ci/checks/test_times.py --self-test

A step's seconds are the sum of its recipe lines' wall times (the builds run two at a
time, so a build group's sum can exceed the span it covered, printed beside it as from-to
seconds after the first line started). A step over twice its budget gets a warning line,
never a failure: machines differ, and a slow machine must not keep a correct change from
landing. A budget file that cannot be read, or a figure that is not a positive number, is
refused (exit 2) with the file, line and field named.
"""
import argparse
import os
import re
import sys
import tempfile

# (pattern on the target relative to the build directory, the step it counts toward)
BUILD_GROUPS = [
    (r"(obj/.*|attnladder|gitinfo)$", "build: harness (gcc -O2)"),
    (r"(phases|kernels)/", "build: rungs and kernels (nvcc)"),
    (r"asan-build$", "build: harness and unit tests (ASan+UBSan)"),
    (r"(tests|fixtures)/", "build: unit tests and fixtures"),
    (r"fuzz/", "build: fuzz targets (clang)"),
    (r"testing/planted_check/", "check-planted"),
    (r"drift/", "drift runs (read by check-drift, check-study)"),
]
OVER = 2.0   # a step over OVER times its budget gets a warning line


def step_of(target, build):
    """The step a target's time counts toward: a check is its own step."""
    if target.startswith("check-"):
        return target
    rel = target[len(build) + 1:] if target.startswith(build + "/") else target
    for pattern, step in BUILD_GROUPS:
        if re.match(pattern, rel):
            return step
    return "other: " + target


def fail(msg):
    print("test_times: " + msg, file=sys.stderr)
    sys.exit(2)


def read_budget(path):
    """name -> seconds; comments (#) and blank lines skipped; anything else refused."""
    budget = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"{path}: cannot be read ({e})")
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0]:
            fail(f"{path}:{n}: want name<TAB>seconds<TAB>note")
        try:
            sec = float(fields[1])
        except ValueError:
            sec = -1.0
        if not sec > 0 or sec != sec or sec == float("inf"):
            fail(f"{path}:{n}: field seconds of {fields[0]!r} is not a positive number: {fields[1]!r}")
        if fields[0] in budget:
            fail(f"{path}:{n}: {fields[0]!r} has a budget already")
        budget[fields[0]] = sec
    return budget


def read_lines(path):
    """(target, start, end) per recipe line; a torn or foreign line is skipped."""
    rows = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 4:
                    continue
                try:
                    rows.append((fields[0], float(fields[1]), float(fields[2])))
                except ValueError:
                    continue
    except FileNotFoundError:
        pass
    return rows


def summarise(rows, build):
    """step -> [seconds, first start, last end, lines]."""
    steps = {}
    for target, start, end in rows:
        s = steps.setdefault(step_of(target, build), [0.0, start, end, 0])
        s[0] += max(0.0, end - start)
        s[1] = min(s[1], start)
        s[2] = max(s[2], end)
        s[3] += 1
    return steps


def table(steps, budget):
    """The printed lines: the table, then a warning a step over OVER times its budget."""
    if not steps:
        return ["make test: no timings recorded"], []
    t0 = min(s[1] for s in steps.values())
    t1 = max(s[2] for s in steps.values())
    order = sorted(steps, key=lambda k: (-steps[k][0], k))
    width = max(len(k) for k in order)
    out = [f"make test: where the time went ({t1 - t0:.0f} s wall; budgets: ci/checks/test_budget.tsv)",
           f"  {'step':<{width}}  {'seconds':>8}  {'from-to':>11}  {'budget':>6}"]
    warnings = []
    for k in order:
        sec, start, end, _ = steps[k]
        b = budget.get(k)
        out.append(f"  {k:<{width}}  {sec:8.1f}  {start - t0:5.0f}-{end - t0:<5.0f}  "
                   f"{'-' if b is None else f'{b:.0f}':>6}")
        if b is not None and sec > OVER * b:
            warnings.append(f"make test: warning: {k} took {sec:.0f} s, more than twice its "
                            f"budget of {b:.0f} s (ci/checks/test_budget.tsv; a slow or busy "
                            f"machine, or a regression in test time)")
    return out, warnings


def write_tsv(path, steps):
    """step<TAB>seconds<TAB>from<TAB>to, through a temporary file renamed into place."""
    t0 = min((s[1] for s in steps.values()), default=0.0)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".test_times.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("step\tseconds\tfrom\tto\n")
        for k in sorted(steps, key=lambda k: (-steps[k][0], k)):
            sec, start, end, _ = steps[k]
            f.write(f"{k}\t{sec:.1f}\t{start - t0:.1f}\t{end - t0:.1f}\n")
    os.replace(tmp, path)


def self_test():
    """A step over twice its budget warns, one under it does not; bad budgets refused."""
    import subprocess
    d = tempfile.mkdtemp()
    lines = os.path.join(d, "lines.tsv")
    with open(lines, "w") as f:
        f.write("check-a\t100.0\t130.0\t0\n"        # 30 s against a budget of 10: warns
                "check-b\t100.0\t105.0\t0\n"        # 5 s against 10: quiet
                "build/phases/06_tiling.so\t100.0\t160.0\t0\n"
                "build/obj/harness/cmd/ab.o\t100.0\t101.0\t0\n"
                "torn line\n")
    good = os.path.join(d, "budget.tsv")
    with open(good, "w") as f:
        f.write("# comment\ncheck-a\t10\tx\ncheck-b\t10\tx\n")

    def run(budget):
        return subprocess.run([sys.executable, __file__, "--lines", lines, "--budget", budget,
                               "--build", "build", "--out", os.path.join(d, "t.tsv")],
                              capture_output=True, text=True)
    r = run(good)
    assert r.returncode == 0, r.stderr
    warned = [ln for ln in r.stdout.splitlines() if "warning" in ln]
    assert len(warned) == 1 and "check-a took 30 s" in warned[0], r.stdout
    assert "build: rungs and kernels (nvcc)" in r.stdout and "build: harness (gcc -O2)" in r.stdout, r.stdout
    tsv = open(os.path.join(d, "t.tsv")).read().splitlines()
    assert tsv[1].startswith("build: rungs and kernels (nvcc)\t60.0\t"), tsv
    for bad, field in (("check-a\tten\tx\n", "seconds"), ("check-a\t-3\tx\n", "seconds"),
                       ("check-a\tnan\tx\n", "seconds"), ("check-a\n", "want name"),
                       ("check-a\t1\tx\ncheck-a\t2\tx\n", "budget already")):
        with open(good, "w") as f:
            f.write(bad)
        r = run(good)
        assert r.returncode == 2 and field in r.stderr and good in r.stderr, (bad, r.stderr)
    print("test_times: self-test passed (a step over twice its budget warns, 5 bad budgets refused)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines")
    ap.add_argument("--budget")
    ap.add_argument("--build", default="build")
    ap.add_argument("--out")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.lines or not a.budget:
        fail("--lines and --budget are required")
    budget = read_budget(a.budget)
    steps = summarise(read_lines(a.lines), a.build.rstrip("/"))
    out, warnings = table(steps, budget)
    print("\n".join(out + warnings))
    if a.out and steps:
        write_tsv(a.out, steps)


if __name__ == "__main__":
    main()
