#!/usr/bin/env python3
"""The gates' reliability figures in evidence/STUDIES.md, computed from the committed evidence.

    python3 ci/tools/study_summary.py [--check] [--bin build/attnladder] [--readme FILE]
                                      [--drift DIR]

Reads every A/A study (evidence/*/studies/ab/), every planted study
(evidence/*/studies/planted/; compressed or not, ci/tools/evidence_files.py) and, through `attnladder gate --against accepted`, the
drift gate's verdict on every committed complete run; writes the markdown between the
markers <!-- study:begin --> and <!-- study:end --> of evidence/STUDIES.md (beside the
studies it summarises). Every verdict of
every file is counted; nothing is left out. --check (make test) exits 1 when the README's
block is not what the evidence gives. --drift DIR reads the drift gate's verdicts from
ci/checks/drift_runs.sh's output instead of running the gate on every run again."""
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evidence_files as ev  # noqa: E402  (the store's layout, one definition)

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
README = os.path.join(ROOT, "evidence", "STUDIES.md")
BEGIN, END = "<!-- study:begin -->", "<!-- study:end -->"


def binom_cdf(x, n, p):
    return sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(x + 1))


def upper95(x, n):
    """One-sided 95% Clopper-Pearson upper bound of a rate seen x times in n."""
    if n == 0:
        return 1.0
    if x >= n:
        return 1.0
    lo, hi = x / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if binom_cdf(x, n, mid) > 0.05:
            lo = mid
        else:
            hi = mid
    return hi


def rel(p):
    return os.path.relpath(p, ROOT)


def aa_section(out):
    files = ev.study_files("ab", ROOT)
    out.append("**A/A** (`ci/tools/ab_study.sh`: one build against a copy of itself, separate processes; "
               "every phase and the baseline at `attnladder ab`'s default set: the headline shapes and "
               "4x16x4096x128, both masks, and since the gate times every code path, each phase at one more "
               "shape per path those do not reach, counted under \"at path shapes\"):\n")
    out.append("| study | GPU | processes | comparisons | at path shapes | unchanged | regressed | improved | inconclusive | other |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    tot = {"n": 0, "regressed": 0}
    phases_n = phases_fa = 0
    for f in files:
        d = ev.load(f)
        c = dict(d.get("counts", {}))
        n = sum(v for k, v in c.items() if k != "no_result")
        other = sum(v for k, v in c.items() if k not in ("unchanged", "regressed", "improved", "inconclusive"))
        gpu = ev.gpu_of(f)
        at_paths = sum(r.get("selected") == "path" for run in d.get("runs", []) for r in run.get("rows", []))
        out.append(f"| `{ev.stem(f)}` | {gpu} | {d.get('processes')} | {n} | {at_paths} | {c.get('unchanged', 0)} | "
                   f"{c.get('regressed', 0)} | {c.get('improved', 0)} | {c.get('inconclusive', 0)} | {other} |")
        if ev.stem(f) == "ab_study_20261123T074505Z":
            continue   # before the buffer-set fix: shown, not pooled (see the text)
        tot["n"] += n
        tot["regressed"] += c.get("regressed", 0)
        for run in d.get("runs", []):
            for r in run.get("rows", []):
                if r.get("impl") != "sdpa_cudnn":
                    phases_n += 1
                    phases_fa += r.get("verdict") == "regressed"
    # the baseline's A/A verdicts inside the planted studies (the baseline is never planted)
    base = {}
    for f in ev.study_files("planted", ROOT):
        for k, v in ev.load(f).get("baseline_aa_verdicts", {}).items():
            base[k] = base.get(k, 0) + v
    nb = sum(base.values())
    fb = base.get("regressed", 0)
    out.append("")
    out.append(f"After the buffer-set fix (every study but `ab_study_20261123T074505Z`): {tot['regressed']} false alarms "
               f"in {tot['n']} A/A comparisons ({phases_fa} in {phases_n} of the phases); the false-alarm rate's "
               f"one-sided 95% upper bound is {upper95(tot['regressed'], tot['n']):.2%} "
               f"(phases alone {upper95(phases_fa, phases_n):.2%}). The baseline is never planted, so each planted "
               f"study's process is also an A/A comparison of it at its series' shapes: "
               + ", ".join(f"{v} {k}" for k, v in sorted(base.items()))
               + f". All A/A verdicts together: {tot['regressed'] + fb} false alarms in {tot['n'] + nb}, "
               f"95% upper bound {upper95(tot['regressed'] + fb, tot['n'] + nb):.2%}.\n")


def planted_section(out):
    """The planted studies' tables; returns every in-kernel verdict by (gpu, phase, shape)."""
    files = ev.study_files("planted", ROOT)
    seen = {}   # (gpu, phase, shape) -> [(change, verdict)] over every in-kernel trial
    for f in files:
        d = ev.load(f)
        name = ev.stem(f)
        gpu = ev.gpu_of(f)
        if d.get("schema_version", 1) < 2:
            rows = d.get("rows", [])
            det = sum(1 for r in rows if r.get("verdict") == "regressed")
            out.append(f"**`{name}`** (a spin kernel launched after each run: the launch gap is part of "
                       f"the plant): {det} of {len(rows)} planted comparisons detected.\n")
            continue
        # (series, trial); the first schema-2 files named no series (they were the headline's)
        trials = [(t.get("series") or "headline", t) for t in d.get("trials", [])]
        out.append(f"**`{name}`** ({d.get('plant')}; base: {d.get('base', 'the unchanged build')}; "
                   f"{len(trials)} processes). A size is a percent of the phase's time at the series' "
                   f"first shape, where it is calibrated; at the other shape the same cycles move the "
                   f"phase by the change shown. Cells: detected / verdicts, and the median change the "
                   f"A/B measurement itself saw; the zero column is the plant at 0 cycles against the base:\n")
        for series in dict.fromkeys(sr for sr, _ in trials):
            ts = [t for sr, t in trials if sr == series]
            phases = sorted({p for p in d.get("calibration", {}).get(series, {})} or
                            {r["impl"] for t in ts for r in t.get("rows", []) if r["impl"] != "sdpa_cudnn"})
            shapes = list(dict.fromkeys(r["shape"] for t in ts for r in t.get("rows", [])))
            sizes = sorted({t["planted_pct"] for t in ts if t["kind"] == "planted"})
            cell = {}
            for t in ts:
                for r in t.get("rows", []):
                    if r["impl"] not in phases:
                        continue
                    ch = r["change"]["median"] - 1 if r.get("change") else None
                    if ch is not None:
                        seen.setdefault((gpu, r["impl"], r["shape"]), []).append((ch, r.get("verdict")))
                    key = "zero" if t["kind"] == "zero" else t["planted_pct"] if t["kind"] == "planted" else None
                    if key is not None:
                        cell.setdefault((r["impl"], r["shape"], key), []).append((ch, r.get("verdict")))
            out.append(f"| {series}: phase | shape | at 0 cycles | " + " | ".join(f"planted {s:g}%" for s in sizes) + " |")
            out.append("| --- | --- | ---: | " + " | ".join("---:" for _ in sizes) + " |")
            for p in phases:
                for i, sh in enumerate(shapes):
                    cells = []
                    for key in ["zero"] + sizes:
                        v = cell.get((p, sh, key))
                        if not v:
                            cells.append("-")
                            continue
                        ch = sorted(c for c, _ in v if c is not None)
                        med = f"{ch[len(ch) // 2]:+.1%}" if ch else "-"
                        det = sum(1 for _, vd in v if vd == "regressed")
                        cells.append(med if key == "zero" and det == 0 else f"{det}/{len(v)} ({med})")
                    out.append(f"| {p} | {sh}{' (calibrated)' if i == 0 else ''} | " + " | ".join(cells) + " |")
            nr = d.get("not_run", {}).get(series) if isinstance(d.get("not_run"), dict) else d.get("not_run")
            if nr:
                out.append(f"\n{len(nr)} planned trials of this series were not run (the deadline): {nr}")
            out.append("")
    return seen


def detectable_section(out, seen):
    """The smallest slowdown each phase's A/B verdict catches, from every in-kernel verdict."""
    out.append("**Smallest slowdown caught** (every verdict of the in-kernel studies above, zero and "
               "probe trials included, ordered by the change the A/B measurement itself saw; the rule "
               "cannot flag a phase below +1%): the largest change not flagged, and the change from "
               "which every verdict was `regressed`:\n")
    out.append("| GPU | phase | shape | verdicts | largest not flagged | every one flagged from |")
    out.append("| --- | --- | --- | ---: | ---: | ---: |")
    for (gpu, p, sh), v in sorted(seen.items()):
        v = sorted(v)
        missed = [c for c, vd in v if vd != "regressed"]
        top = max(missed) if missed else None
        above = [c for c, vd in v if vd == "regressed" and (top is None or c > top)]
        frm = f"+{min(above):.2%} ({len(above)} of {len(above)})" if above else "-"
        out.append(f"| {gpu} | {p} | {sh} | {len(v)} | {f'{top:+.2%}' if top is not None else '-'} | {frm} |")
    out.append("")


def drift_results(binary, drift_dir):
    """(gpu, gate --json document) for every committed complete run: read from drift_dir
    (ci/checks/drift_runs.sh's output, which make test computes once), else computed here."""
    if drift_dir:
        index = os.path.join(drift_dir, "index.txt")
        if not os.path.exists(index):
            raise SystemExit(f"study_summary: {index} does not exist (ci/checks/drift_runs.sh writes it)")
        for line in open(index):
            gpu, run, _ = line.split()
            j = os.path.join(drift_dir, gpu, ev.run_stem(run) + ".json")
            if os.path.exists(j):
                yield gpu, json.load(open(j))
        return
    with tempfile.TemporaryDirectory() as tmp:
        for acc in sorted(glob.glob(os.path.join(ROOT, "evidence", "*", "accepted.txt"))):
            for run in ev.run_files(os.path.dirname(acc)):   # plain or compressed, not partial
                j = os.path.join(tmp, "g.json")
                subprocess.run([binary, "gate", run, "--against", "accepted", "--json", j],
                               capture_output=True, text=True, cwd=ROOT)
                if not os.path.exists(j):
                    continue
                doc = json.load(open(j))
                os.remove(j)
                yield os.path.basename(os.path.dirname(acc)), doc


def drift_kind(s):
    """The column of a drift row: the headline, the throughput shape, or the rest of the sweep."""
    if (s["batch"], s["heads"], s["seq_q"], s["seq_kv"]) == (1, 8, 512, 512):
        return "headline"
    if (s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"]) == (4, 16, 4096, 4096, 128):
        return "throughput"
    return "sweep"


def drift_section(out, binary, drift_dir=None):
    rows = {}
    verdicts = {}      # judged runs: the gate's verdicts
    unjudged = {}      # runs whose set is smaller than drift.min_runs: what the rule would say
    runs = runs_unjudged = moved = 0
    for gpu, doc in drift_results(binary, drift_dir):
        d = doc.get("drift") or {}
        runs += 1
        moved += (d.get("counts") or {}).get("moved_with_shape", 0)
        judged = bool(d.get("judged"))
        runs_unjudged += not judged
        count = verdicts if judged else unjudged
        for r in d.get("rows", []):
            count[r["verdict"]] = count.get(r["verdict"], 0) + 1
            if not judged:
                continue
            key = (gpu, r["phase"], drift_kind(r["shape"]))
            rows.setdefault(key, []).append((r["tolerance"], math.expm1(d.get("k_sigma", 4) * r["spread"])))
    n, m = sum(verdicts.values()), sum(unjudged.values())

    def listed(v):
        return ", ".join(f"{c} {k}" for k, c in sorted(v.items())) or "none"
    out.append(f"**Drift** (`attnladder gate RUN --against accepted` on each of the {runs} committed complete runs, "
               f"a member of the set against the others, every phase row the run and the set share): judged "
               f"({runs - runs_unjudged} runs): {n} rows, {listed(verdicts)}; false alarms (slower) "
               f"{verdicts.get('slower', 0)} of {n} ({moved} within by their shape's move, "
               "harness/gate/README.md). " +
               (f"Not judged ({runs_unjudged} runs, a member of a set smaller than drift.min_runs against the "
                f"others): {m} rows, {listed(unjudged)}; the rule would have called {unjudged.get('slower', 0)} of "
                "them slower. " if runs_unjudged else "") +
               "The smallest drift each phase's row can flag "
               "in the judged runs (its tolerance), and in brackets the part that comes from the runs' spread "
               "(k_sigma x s) before the floor:\n")
    out.append("| GPU | phase | headline | 4x16x4096x128 | the other sweep rows |")
    out.append("| --- | --- | --- | --- | --- |")
    for (gpu, phase) in sorted({(g, p) for g, p, _ in rows}):
        def rng(kind):
            t = rows.get((gpu, phase, kind))
            if not t:
                return "-"
            tol, ks = [x for x, _ in t], [y for _, y in t]
            return f"{min(tol):.0%} - {max(tol):.0%} ({min(ks):.1%} - {max(ks):.1%})"
        out.append(f"| {gpu} | {phase} | {rng('headline')} | {rng('throughput')} | {rng('sweep')} |")
    out.append("")


def main(argv):
    check = "--check" in argv
    binary = os.path.join(ROOT, "build", "attnladder")
    if "--bin" in argv:
        binary = os.path.abspath(argv[argv.index("--bin") + 1])
    # --readme: another copy of the README (the tests check a tampered one)
    readme = os.path.abspath(argv[argv.index("--readme") + 1]) if "--readme" in argv else README
    text = open(readme).read()
    if BEGIN not in text or END not in text:
        print(f"study_summary: {rel(readme)} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    out = [BEGIN, "<!-- generated by ci/tools/study_summary.py from the evidence; make test checks it -->", ""]
    aa_section(out)
    detectable_section(out, planted_section(out))
    # --drift DIR: the drift gate's results as ci/checks/drift_runs.sh left them
    drift_dir = os.path.abspath(argv[argv.index("--drift") + 1]) if "--drift" in argv else None
    drift_section(out, binary, drift_dir)
    out.append(END)
    block = "\n".join(out)
    new = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    if check:
        if new != text:
            print(f"study_summary: the study block of {rel(readme)} does not match the evidence; "
                  "run python3 ci/tools/study_summary.py", file=sys.stderr)
            return 1
        print(f"study_summary: {rel(readme)} matches the evidence")
        return 0
    with open(readme + ".tmp", "w") as fh:
        fh.write(new)
    os.replace(readme + ".tmp", readme)
    print(f"study_summary: wrote the study block of {rel(readme)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
