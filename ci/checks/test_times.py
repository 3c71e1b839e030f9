#!/usr/bin/env python3
"""Where `make test`'s time went: one line a check (and a line a kind of build), from the
recipe lines' times that ci/checks/timed_line.sh recorded, beside each check's budget.

  ci/checks/test_times.py --lines LINES.tsv --budget ci/checks/test_budget.tsv \
      --build BUILD [--out BUILD/test_times.tsv]
  ci/checks/test_times.py --self-test

A step's wall seconds are the sum of its recipe lines' wall times (the builds run two at
a time, so a build group's sum can exceed the span it covered, printed beside it as from-to
seconds after the first line started); its CPU seconds the user and system time of the
processes its lines ran. The budget is in CPU seconds: the build machine is shared, and a
busy neighbour stretches wall time far more than CPU time, so CPU time is what shows a
check grown costlier (not exactly: CPU seconds grow under heavy load too). A step over twice its budget gets a warning line, never a failure:
machines differ, and a slow machine must not keep a correct change from landing. A budget file that cannot be read, or a figure that is not a positive number, is
refused (exit 2) with the file, line and field named.
"""
import argparse
import os
import re
import sys
import tempfile

# (pattern on the target relative to the build directory, the step it counts toward)
BUILD_GROUPS = [
    (r"obj/phases/", "build: rungs and kernels (nvcc)"),   # a rung's objects (one a .cu)
    (r"(obj/.*|attnladder|gitinfo)$", "build: harness (gcc -O2)"),
    (r"(phases|kernels)/", "build: rungs and kernels (nvcc)"),
    (r"(asan/|asan-build$)", "build: harness and unit tests (ASan+UBSan)"),
    (r"(tests|fixtures)/", "build: unit tests and fixtures"),
    (r"fuzz/", "build: fuzz targets (clang)"),
    (r"testing/planted_check/", "check-planted"),
    (r"drift/", "drift runs (read by check-drift, check-study)"),
    (r"unit-tests$", "check-unit"),        # the checks whose recipe is another target's
    (r"kernel-checks$", "check-kernels"),
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


def cpu_seconds(text):
    """bash's `times` figure, e.g. 1m2.500s, in seconds."""
    m = re.fullmatch(r"(\d+)m([\d.]+)s", text)
    if not m:
        raise ValueError(text)
    return int(m.group(1)) * 60 + float(m.group(2))


def read_lines(path):
    """(target, start, end, cpu) per recipe line; a torn or foreign line is skipped."""
    rows = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 6:
                    continue
                try:
                    rows.append((fields[0], float(fields[1]), float(fields[2]),
                                 cpu_seconds(fields[4]) + cpu_seconds(fields[5])))
                except ValueError:
                    continue
    except FileNotFoundError:
        pass
    return rows


def summarise(rows, build):
    """step -> [wall seconds, first start, last end, CPU seconds]."""
    steps = {}
    for target, start, end, cpu in rows:
        s = steps.setdefault(step_of(target, build), [0.0, start, end, 0.0])
        s[0] += max(0.0, end - start)
        s[1] = min(s[1], start)
        s[2] = max(s[2], end)
        s[3] += cpu
    return steps


def table(steps, budget):
    """The printed lines: the table, then a warning a step over OVER times its budget."""
    if not steps:
        return ["make test: no timings recorded"], []
    t0 = min(s[1] for s in steps.values())
    t1 = max(s[2] for s in steps.values())
    order = sorted(steps, key=lambda k: (-steps[k][3], k))
    width = max(len(k) for k in order)
    cpu = sum(s[3] for s in steps.values())
    out = [f"make test: where the time went ({t1 - t0:.0f} s wall, {cpu:.0f} CPU s; "
           f"budgets in CPU s: ci/checks/test_budget.tsv)",
           f"  {'step':<{width}}  {'CPU s':>7}  {'wall s':>7}  {'from-to':>11}  {'budget':>6}"]
    warnings = []
    for k in order:
        wall, start, end, sec = steps[k]
        b = budget.get(k)
        out.append(f"  {k:<{width}}  {sec:7.1f}  {wall:7.1f}  {start - t0:5.0f}-{end - t0:<5.0f}  "
                   f"{'-' if b is None else f'{b:.0f}':>6}")
        if b is not None and sec > OVER * b:
            warnings.append(f"make test: warning: {k} took {sec:.0f} CPU s, more than twice its "
                            f"budget of {b:.0f} (ci/checks/test_budget.tsv; a slower machine, "
                            f"or the check grown costlier)")
    return out, warnings


def write_tsv(path, steps):
    """step<TAB>CPU s<TAB>wall s<TAB>from<TAB>to, through a temporary file renamed into place."""
    t0 = min((s[1] for s in steps.values()), default=0.0)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".test_times.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("step\tcpu_s\twall_s\tfrom\tto\n")
        for k in sorted(steps, key=lambda k: (-steps[k][3], k)):
            wall, start, end, sec = steps[k]
            f.write(f"{k}\t{sec:.1f}\t{wall:.1f}\t{start - t0:.1f}\t{end - t0:.1f}\n")
    os.replace(tmp, path)


def self_test():
    """A step over twice its budget warns, one under it does not; bad budgets refused."""
    import subprocess
    d = tempfile.mkdtemp()
    lines = os.path.join(d, "lines.tsv")
    with open(lines, "w") as f:
        f.write("check-a\t100.0\t130.0\t0\t0m25.000s\t0m5.000s\n"   # 30 CPU s, budget 10: warns
                "check-b\t100.0\t150.0\t0\t0m4.500s\t0m0.500s\n"    # 5 CPU s (50 wall): quiet
                "build/phases/06_tiling.so\t100.0\t130.0\t0\t1m0.000s\t0m0.000s\n"
                "build/obj/harness/cmd/ab.o\t100.0\t101.0\t0\t0m1.000s\t0m0.000s\n"
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
    assert len(warned) == 1 and "check-a took 30 CPU s" in warned[0], r.stdout
    assert "build: rungs and kernels (nvcc)" in r.stdout and "build: harness (gcc -O2)" in r.stdout, r.stdout
    tsv = open(os.path.join(d, "t.tsv")).read().splitlines()
    assert tsv[1].startswith("build: rungs and kernels (nvcc)\t60.0\t30.0\t"), tsv
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
