#!/usr/bin/env python3
"""A new rung's step over the rung below, point by point, from complete runs' rotation pairs.

    rung_step.py --head 19_staged_store --base 18_short_dynamic
                 [--twin 14_short_keys/13_row_blocks] [--mark TEXT] [--baseline sdpa_cudnn]
                 RUN [RUN ...]
    rung_step.py --self-test                                      (make check-names)

In a run's rotation every round times each implementation once, back to back, so the
quotient head/base of one round is paired: the clock the two saw is the same. Per point
(shape) this prints the median of those quotients with a 95% bootstrap interval (400
resamples of the rounds, seeded: the same run gives the same text), and head/baseline's
median quotient beside base/baseline's. Points are split by the head's init_note: those
whose note holds TEXT (the rung's note mark, default the head's name: the shapes its new
code takes) each get a line; the others run the base's code and only their range is shown,
beside the range of --twin (two rungs whose notes are equal at a point: the same code
measured twice). With several runs a last table puts each marked point's step side by
side. A step smaller than the twin's range is not told apart from noise.

Runs are untrusted: a run whose pairs are missing, of unequal length, not positive or
fewer than 2 rounds is refused with its name (exit 2); nothing is written but stdout."""
import argparse
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evidence_files as ev  # noqa: E402

RESAMPLES, LO, HI = 400, 10, 389  # 2.5% and 97.5% of 400 sorted resampled medians


class BadRun(Exception):
    pass


def rounds(res, name, key="impl_us"):
    p = res.get("paired") or {}
    xs = p.get(key)
    if not isinstance(xs, list) or len(xs) < 2 or not all(
            isinstance(x, (int, float)) and math.isfinite(x) and x > 0 for x in xs):
        raise BadRun(f"{name}: paired.{key} of {res.get('impl')} must be at least 2 positive numbers")
    return xs


def quotients(num, den, what):
    if len(num) != len(den):
        raise BadRun(f"{what}: {len(num)} rounds against {len(den)}: not one rotation")
    return [a / b for a, b in zip(num, den)]


def step(qs, seed=1):
    """Median quotient as a percent change, and its 95% bootstrap interval."""
    rnd = random.Random(seed)
    meds = sorted(statistics.median([rnd.choice(qs) for _ in qs]) for _ in range(RESAMPLES))
    return [100.0 * (x - 1.0) for x in (statistics.median(qs), meds[LO], meds[HI])]


def points(run, name):
    """{(shape, tag): {impl: result}} of a run's paired results."""
    if not isinstance(run, dict) or not isinstance(run.get("results"), list):
        raise BadRun(f"{name}: not a run (no results list)")
    if run.get("partial"):
        raise BadRun(f"{name}: a partial run (resume it first: attnladder run --resume)")
    out = {}
    for r in run["results"]:
        if isinstance(r, dict) and r.get("paired") and isinstance(r.get("impl"), str):
            try:
                key = (ev.shape_text(r.get("shape") or {}), str(r.get("tag")))
            except ValueError as e:
                raise BadRun(f"{name}: {e}")
            out.setdefault(key, {})[r["impl"]] = r
    return out


def fmt(s):
    return f"{s[0]:+.2f}% [{s[1]:+.2f}, {s[2]:+.2f}]"


def span(rows):
    if not rows:
        return "none"
    lo, hi = min(rows, key=lambda r: r[1][0]), max(rows, key=lambda r: r[1][0])
    return f"lowest {lo[0]} {fmt(lo[1])}, highest {hi[0]} {fmt(hi[1])}"


def summarise(run, name, a):
    """(text, {shape: step}) of one run."""
    marked, unmarked, twin, above = [], [], [], []
    base_above = 0
    for (shape, _tag), impls in sorted(points(run, name).items()):
        h, b = impls.get(a.head), impls.get(a.base)
        if h is None or b is None:
            continue
        s = step(quotients(rounds(h, name), rounds(b, name), f"{name} {shape}"))
        rh = statistics.median(quotients(rounds(h, name), rounds(h, name, "baseline_us"), name))
        rb = statistics.median(quotients(rounds(b, name), rounds(b, name, "baseline_us"), name))
        base_above += rb > 1.0
        if rh > 1.0:
            above.append(f"{shape} {rh:.3f} ({rb:.3f})")
        if a.mark in (h.get("init_note") or ""):
            marked.append((shape, s, rh, rb))
        else:
            unmarked.append((shape, s))
        if a.twin:
            t1, t0 = (impls.get(x) for x in a.twin)
            if t1 and t0 and t1.get("init_note") == t0.get("init_note"):
                twin.append((shape, step(quotients(rounds(t1, name), rounds(t0, name), name))))
    n = len(marked) + len(unmarked)
    if n == 0:
        raise BadRun(f"{name}: no point pairs {a.head} with {a.base}")
    bl = a.baseline
    lines = [f"{name}: {a.head} over {a.base}, per-round quotient in the rotation "
             f"(median, 95% bootstrap CI, {RESAMPLES} resamples)",
             f"  taken by the new code (init_note holds '{a.mark}'), {len(marked)} points:"]
    for shape, s, rh, rb in sorted(marked, key=lambda m: m[1][0]):
        lines.append(f"    {shape:<26}{fmt(s):<26}head/{bl} {rh:.3f}  base/{bl} {rb:.3f}")
    lines.append(f"  the base's code (unmarked), {len(unmarked)} points: {span(unmarked)}")
    if a.twin:
        lines.append(f"  the same code twice, {a.twin[0]} over {a.twin[1]} at the {len(twin)} points "
                     f"whose notes are equal: {span(twin)}")
    lines.append(f"  head/{bl} above 1.00 (base beside it): {'; '.join(above) or 'none'}")
    lines.append(f"  at or below 1.00: {n - len(above)} of {n} points (base: {n - base_above})")
    return "\n".join(lines), {m[0]: m[1] for m in marked}


def side_by_side(names, steps):
    shapes = sorted({s for st in steps for s in st}, key=lambda s: min(st[s][0] for st in steps if s in st))
    lines = ["", "marked points, the step in each run:", f"  {'shape':<26}" + "".join(f"{n:>26}" for n in names)]
    for s in shapes:
        lines.append(f"  {s:<26}" + "".join(f"{(f'{st[s][0]:+.2f}%' if s in st else '-'):>26}" for st in steps))
    return lines


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--head"), p.add_argument("--base")
    p.add_argument("--twin", help="NEWER/OLDER: two rungs whose equal notes mean the same code")
    p.add_argument("--mark"), p.add_argument("--baseline", default="sdpa_cudnn")
    p.add_argument("--self-test", action="store_true")
    p.add_argument("runs", nargs="*")
    a = p.parse_args(argv)
    if a.self_test:
        return self_test()
    if not a.head or not a.base or not a.runs:
        p.error("give --head, --base and at least one run")
    if a.twin:
        parts = a.twin.split("/")
        if len(parts) != 2 or not all(parts):
            p.error(f"--twin {a.twin!r}: give NEWER/OLDER, e.g. 14_short_keys/13_row_blocks")
        a.twin = parts
    a.mark = a.mark or a.head
    texts, steps, names = [], [], []
    for path in a.runs:
        name = ev.run_stem(path)
        try:
            t, st = summarise(ev.load(path), name, a)
        except (OSError, ValueError) as e:
            print(f"rung_step: {path}: cannot read it: {e}", file=sys.stderr)
            return 2
        except BadRun as e:
            print(f"rung_step: {e}", file=sys.stderr)
            return 2
        texts.append(t), steps.append(st), names.append(name)
    out = "\n\n".join(texts).split("\n")
    if len(steps) > 1:
        out += side_by_side(names, steps)
    print("\n".join(out))
    return 0


def fake_run(head_factor, rounds_n=40, note="x 19_new y", base_twin_note="same"):
    """A run of two points: 'new' (head = base * head_factor, marked) and 'old' (equal)."""
    rnd = random.Random(7)
    res = []
    for shape, f, hn in (({"batch": 2, "heads": 4, "seq_q": 64, "seq_kv": 64, "head_dim": 64, "causal": 1},
                          head_factor, note),
                         ({"batch": 1, "heads": 8, "seq_q": 1, "seq_kv": 300, "head_dim": 128, "causal": 0},
                          1.0, "old code")):
        clock = [1.0 + 0.2 * rnd.random() for _ in range(rounds_n)]  # the clock moves both alike
        base = [10.0 * c for c in clock]
        for impl, us, n in (("new", [x * f for x in base], hn), ("old", base, "old code"),
                            ("t1", base, base_twin_note), ("t0", base, "same")):
            res.append({"impl": impl, "shape": shape, "tag": "sweep", "init_note": n,
                        "paired": {"impl_us": us, "baseline_us": [11.0 * c for c in clock]}})
    return {"results": res}


def self_test():
    class A:
        head, base, mark, baseline, twin = "new", "old", "19_new", "sdpa_cudnn", ["t1", "t0"]
    bad = 0

    def check(what, ok):
        nonlocal bad
        if not ok:
            print(f"rung_step: self-test FAILED: {what}", file=sys.stderr)
            bad += 1
    text, st = summarise(fake_run(0.97), "r", A)
    check("a 3% step reads -3.00% with a zero-width interval", fmt(st["2x4x64x64 causal"]) == "-3.00% [-3.00, -3.00]")
    check("only the marked point is listed", list(st) == ["2x4x64x64 causal"])
    check("unmarked point in the range", "1x8x1:300x128 +0.00%" in text)
    check("head/baseline beside base/baseline", "head/sdpa_cudnn 0.882  base/sdpa_cudnn 0.909" in text)
    check("twin counted where notes are equal", "at the 2 points" in text)
    _, st2 = summarise(fake_run(0.97, base_twin_note="other"), "r", A)
    check("same steps whatever the twin", st2 == st)
    text3, _ = summarise(fake_run(0.97, base_twin_note="other"), "r", A)
    check("twin left out where notes differ", "at the 0 points" in text3)
    _, st4 = summarise(fake_run(1.0, note="no mark"), "r", A)
    check("an unmarked head lists no point", st4 == {})
    run = fake_run(0.97)
    run["results"][0]["paired"]["impl_us"] = run["results"][0]["paired"]["impl_us"][:-1]
    try:
        summarise(run, "r", A)
        check("unequal rounds refused", False)
    except BadRun as e:
        check("unequal rounds named", "not one rotation" in str(e))
    for poison in (0.0, float("nan"), "1"):
        run = fake_run(0.97)
        run["results"][1]["paired"]["impl_us"][3] = poison
        try:
            summarise(run, "r", A)
            check(f"rounds with {poison!r} refused", False)
        except BadRun:
            pass
    run = fake_run(0.97)
    run["results"][0]["shape"]["batch"] = "two"
    try:
        summarise(run, "r", A)
        check("a shape that is not integers refused", False)
    except BadRun as e:
        check("a bad shape named", "must be integers" in str(e))
    try:
        summarise({"results": [], "partial": True}, "r", A)
        check("a partial run refused", False)
    except BadRun as e:
        check("a partial run named", "partial" in str(e))
    # bootstrap: noisy quotients give an interval around the median, the same each time
    noisy = [1.0 + 0.01 * ((i * 37) % 11 - 5) for i in range(60)]
    s1, s2 = step(noisy), step(noisy)
    check("bootstrap is seeded", s1 == s2)
    check("interval holds the median", s1[1] <= s1[0] <= s1[2] and s1[1] < s1[2])
    if bad == 0:
        print("rung_step: self-test passed (a known step, the mark, the twin, bad rounds, bad shapes, partial runs, bootstrap)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
