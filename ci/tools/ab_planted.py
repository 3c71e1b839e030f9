#!/usr/bin/env python3
"""GPU machine, test-only: the A/B gate's detection study with fine planted slowdowns.

For every phase at the headline shapes (series `headline`; `headline_causal`: the causal
one alone, calibrated there) and at 4x16x4096x128 (`throughput`), head builds made slower from inside the phase's own kernels (`make
planted-phases`: every thread spins a number of SM cycles as it leaves each kernel,
set at run time through harness/planted/planted_wrapper.c; no extra launch, so 1-2% of a
6 us rung can be planted), each compared with the unchanged build by `attnladder ab` in
one process per trial. Every phase is planted in the same head build (each by its own
amount), and the baseline is left alone in it, so every trial also gives one A/A verdict
of the baseline per shape.

  1. zero:   every phase planted at 0 cycles (the hook's own cost);
  2. probes: every phase at about 5% of its time (cycles from its base median and the SM
     clock), then at 3% by that first slope; a line through the three points gives
     cycles per percent for each phase;
  3. for each size in <SERIES>_SIZES (percent of the phase's own time at the series'
     first shape), <SERIES>_REPS trials (<SERIES>_REPS_AT_2 at 2%, the gate's target),
     each a fresh process with its own seed.

Every verdict is kept with the change the A/B measurement itself saw. A trial the
deadline (DEADLINE_S, default 520 s of this script) does not leave time for is listed as
not run, never counted. Writes OUT/ab_planted_<stamp>.json (OUT: first argument, default
evidence/<gpu>/studies/planted; .json.xz when it is large, ci/tools/evidence_files.py).

  (PHASES=a,b: only those phases; THROUGHPUT_START_CYCLES: the first throughput probe;
  PLANT_BASE=planted0: the base is the planted build at 0 cycles instead of the unchanged
  build, so the hook's own cost (a different register allocation: 04 and 07 cost 16% and
  5.5% at zero at 4x16x4096x128, 07's static two-consumer kernels spill 12-48 bytes in the
  planted build) is in both arms and only the cycles differ; every size is then a change of
  the instrumented rung, which the evidence says in "base")
  (SERIES=paths PATHS_SHAPES="4,32,4096,64,0 ...": a series at the shapes ab adds for a
  rung's other code paths, calibrated on the first)
  BUILD=build SERIES="headline throughput" HEADLINE_REPS=3 HEADLINE_REPS_AT_2=12 \
    THROUGHPUT_SIZES="1 2 5" THROUGHPUT_REPS=2 python3 ci/tools/ab_planted.py [OUT]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evidence_files  # noqa: E402  (where a study goes, and how a large one is written)

def sh(cmd, **kw):
    # a command that is not installed (no nvidia-smi: no GPU) fails like one that ran and failed
    try:
        return subprocess.run(cmd, capture_output=True, text=True, **kw)
    except FileNotFoundError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


def gpu_slug():
    name = sh(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]).stdout.splitlines()[0]
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def make_head(build, work, tag, cycles):
    """A head build directory: the base's objects, every phase in `cycles` replaced by the
    wrapper over its planted build at that many cycles."""
    head = os.path.join(work, tag)
    shutil.rmtree(head, ignore_errors=True)
    os.makedirs(os.path.join(head, "phases"))
    shutil.copytree(os.path.join(build, "kernels"), os.path.join(head, "kernels"))
    for f in os.listdir(os.path.join(build, "phases")):
        if f.endswith(".so"):
            shutil.copy(os.path.join(build, "phases", f), os.path.join(head, "phases", f))
    if os.path.exists(os.path.join(build, "gitinfo")):
        shutil.copy(os.path.join(build, "gitinfo"), head)
    for p, c in cycles.items():
        real = os.path.join(head, f"planted_{p}.so")
        shutil.copy(os.path.join(build, "testing", "planted", f"{p}.so"), real)
        shutil.copy(os.path.join(build, "testing", "planted_wrapper.so"), os.path.join(head, "phases", f"{p}.so"))
        with open(os.path.join(head, "phases", f"{p}.plant"), "w") as fh:
            fh.write(f"{os.path.abspath(real)} {int(c)} cycles\n")
    return head


def ab(bin_, build, head, impls, shapes, seed, out):
    t0 = time.time()
    r = sh([bin_, "ab", "--base", build, "--head", head, "--impl", ",".join(impls)]
           + [a for sp in shapes for a in ("--shape", sp)] + ["--seed", str(seed), "--out", out])
    wall = time.time() - t0
    if not os.path.exists(out):
        return None, wall, (r.stdout + r.stderr)[-1500:]
    return json.load(open(out)), wall, ""


# Every series is calibrated on its first shape; the plant's cycles are the same at the
# others. Where a phase's response differs by shape (07 at the causal headline moves ~2.3x
# as much as at the non-causal for the same cycles: its causal blocks run fewer key tiles,
# so an exit delay is a larger part of each), a one-shape series calibrates it there.
SERIES = {"headline": ["1,8,512,64,0", "1,8,512,64,1"],
          "headline_causal": ["1,8,512,64,1"],
          "throughput": ["4,16,4096,128,0", "4,16,4096,128,1"],
          # the shapes `attnladder ab` adds to reach a rung's other code paths
          # (ab --list-paths), given as PATHS_SHAPES="B,H,S,D,causal ..."
          "paths": []}


def run_series(name, shapes, sizes, reps, reps2, deadline, start, ctx):
    """One study series at a pair of shapes: zero, two calibration probes, the trials."""
    bin_, base, phases, impls, work = ctx["bin"], ctx["base"], ctx["phases"], ctx["impls"], ctx["work"]
    build = ctx["build"]
    first = shape_text(shapes[0])
    trials = []

    def trial(kind, size, cycles):
        ctx["seed"] += 1
        seed = ctx["seed"]
        head = make_head(build, work, f"head_{seed}", cycles)
        doc, wall, log = ab(bin_, base, head, impls, shapes, seed, os.path.join(work, f"ab_{seed}.json"))
        shutil.rmtree(head, ignore_errors=True)
        t = {"series": name, "kind": kind, "planted_pct": size, "seed": seed, "wall_s": round(wall, 2),
             "cycles": {p: int(c) for p, c in cycles.items()}}
        if doc is None:
            t["error"] = log
        else:
            t["loaded_first"] = doc.get("loaded_first")
            t["rows"] = [{k: r.get(k) for k in ("impl", "shape", "verdict", "change", "pairs", "correct", "clock")}
                         for r in doc["rows"]]
            t["base_us"] = {f'{r["impl"]} {r["shape"]}': (r.get("base") or {}).get("median_us") for r in doc["rows"]}
        trials.append(t)
        print(f"ab_planted: {name} {kind} {size}% seed {seed}: {wall:.0f} s, "
              + ("error" if doc is None else " ".join(f'{r["impl"][:2]}:{(r.get("verdict") or "-")[:4]}'
                                                      for r in doc["rows"] if r["shape"] == first)), flush=True)
        return t

    def change(t, p):
        for r in t.get("rows", []):
            if r["impl"] == p and r["shape"] == first and r.get("change"):
                return r["change"]["median"] - 1
        return None

    zero = trial("zero", 0.0, {p: 0 for p in phases})
    # The first probe: at the headline about 5% of each phase's own time in cycles (time
    # x ~1.7 GHz: one wave of blocks, each delayed once); where there are many waves (the
    # throughput shape) each wave adds its own delay, so it starts at a few hundred cycles
    # and grows x8 (at most three probes) until the phase moves by 0.5%.
    if name.startswith("headline"):
        cyc1 = {p: max(64, int(0.05 * ((zero.get("base_us") or {}).get(f"{p} {first}") or 10.0) * 1700))
                for p in phases}
    else:
        cyc1 = {p: int(os.environ.get("THROUGHPUT_START_CYCLES", "256")) for p in phases}
    a0 = {p: change(zero, p) or 0.0 for p in phases}
    for attempt in range(3):
        probe1 = trial("probe", 5.0 if name.startswith("headline") else 0.0, cyc1)
        low = [p for p in phases if (change(probe1, p) or 0.0) - a0[p] < 0.005]
        if name.startswith("headline") or not low or attempt == 2:
            break
        cyc1 = {p: c * 8 if p in low else c for p, c in cyc1.items()}
    cal = {}
    for p in phases:
        a1 = change(probe1, p)
        slope = (a1 - a0[p]) / cyc1[p] if a1 is not None else 0
        cal[p] = {"hook_cost": a0[p], "probe1_cycles": cyc1[p], "probe1_change": a1,
                  "change_per_cycle": slope if slope > 0 else 0.05 / cyc1[p]}
    # the second probe at 3% by the first slope; the slope then from the two probes
    cyc2 = {p: max(0.0, 0.03 - cal[p]["hook_cost"]) / cal[p]["change_per_cycle"] for p in phases}
    probe2 = trial("probe", 3.0, cyc2)
    for p in phases:
        a2 = change(probe2, p)
        cal[p].update({"probe2_cycles": int(cyc2[p]), "probe2_change": a2})
        pts = [(0, cal[p]["hook_cost"]), (cyc1[p], cal[p]["probe1_change"]), (cyc2[p], a2)]
        pts = [(c, a) for c, a in pts if a is not None]
        # least squares through the points: cycles -> change
        n = len(pts)
        mc, ma = sum(c for c, _ in pts) / n, sum(a for _, a in pts) / n
        var = sum((c - mc) ** 2 for c, _ in pts)
        slope = sum((c - mc) * (a - ma) for c, a in pts) / var if var > 0 else 0
        if slope > 0:
            cal[p]["change_per_cycle"] = slope
            cal[p]["intercept"] = ma - slope * mc
        else:
            cal[p]["intercept"] = cal[p]["hook_cost"]
    # every (cycles, change) seen per phase: the zero trial, the probes, then each trial as
    # it comes; the cycles for a size are interpolated between the points around it (the
    # response need not be a line: a launch overlapped with the previous one hides part
    # of a short delay), extrapolated from the fitted line beyond the last one
    pts = {p: [(0, cal[p]["hook_cost"]), (cyc1[p], cal[p]["probe1_change"]), (cyc2[p], cal[p]["probe2_change"])]
           for p in phases}

    def cycles_for(p, target):
        q = sorted((c, a) for c, a in pts[p] if a is not None)
        for (c0, a0_), (c1, a1) in zip(q, q[1:]):
            if a0_ <= target <= a1 and a1 > a0_:
                return c0 + (target - a0_) * (c1 - c0) / (a1 - a0_)
        if q and target < q[0][1]:
            return 0.0
        top = max(q, key=lambda x: x[0]) if q else (0, 0.0)
        return max(0.0, top[0] + (target - top[1]) / cal[p]["change_per_cycle"])

    plan = []
    for s in sizes:
        plan += [s] * (reps2 if s == 2 else reps)
    not_run = []
    for s in plan:
        if time.time() - start + max(t["wall_s"] for t in trials) * 1.3 > deadline:
            not_run.append(s)
            continue
        cyc = {p: cycles_for(p, s / 100) for p in phases}
        t = trial("planted", s, cyc)
        for p in phases:
            pts[p].append((cyc[p], change(t, p)))
    return trials, cal, not_run


def shape_text(spec):
    b, h, s, d, c = spec.split(",")
    return f"{b}x{h}x{s}x{d}" + (" causal" if c == "1" else "")


def main():
    build = os.environ.get("BUILD", "build")
    series = os.environ.get("SERIES", "headline").split()
    deadline = float(os.environ.get("DEADLINE_S", "520"))
    bin_ = os.path.join(build, "attnladder")
    if any(s not in SERIES for s in series):
        print(f"ab_planted: SERIES must name some of {', '.join(SERIES)}", file=sys.stderr)
        return 2
    if "paths" in series:
        SERIES["paths"] = os.environ.get("PATHS_SHAPES", "").split()
        if not SERIES["paths"] or not all(re.fullmatch(r"\d{1,5}(,\d{1,5}){3},[01]", s) for s in SERIES["paths"]):
            print("ab_planted: SERIES=paths needs PATHS_SHAPES=\"B,H,S,D,causal ...\" (ab --list-paths' added shapes)",
                  file=sys.stderr)
            return 2
    plant_base = os.environ.get("PLANT_BASE", "unchanged")
    if plant_base not in ("unchanged", "planted0"):
        print("ab_planted: PLANT_BASE must be 'unchanged' (the default) or 'planted0'", file=sys.stderr)
        return 2
    if sh(["nvidia-smi", "-L"]).returncode != 0:
        print("ab_planted: no GPU; nothing measured")
        return 3
    if not os.path.exists(os.path.join(build, "testing", "planted_wrapper.so")):
        print("ab_planted: make planted-phases first", file=sys.stderr)
        return 2
    phases = [l.split()[0] for l in sh([bin_, "list", "--build", build]).stdout.splitlines()
              if len(l.split()) > 1 and l.split()[1] == "phase"]
    if os.environ.get("PHASES"):
        # a subset (the slowest rungs take a minute a process at the throughput shape)
        want = os.environ["PHASES"].split(",")
        phases = [p for p in phases if p in want]
    missing = [p for p in phases if not os.path.exists(os.path.join(build, "testing", "planted", f"{p}.so"))]
    if not phases or missing:
        print(f"ab_planted: no planted build of {missing or 'any phase'} (make planted-phases)", file=sys.stderr)
        return 2
    out_dir = sys.argv[1] if len(sys.argv) > 1 else evidence_files.study_dir("evidence", gpu_slug(), "planted")
    os.makedirs(out_dir, exist_ok=True)
    ctx = {"bin": bin_, "build": build, "base": build, "phases": phases, "impls": phases + ["sdpa_cudnn"],
           "work": tempfile.mkdtemp(), "seed": 5000}
    if plant_base == "planted0":
        ctx["base"] = make_head(build, ctx["work"], "base_planted0", {p: 0 for p in phases})
    start = time.time()
    trials, cal, not_run = [], {}, {}
    for name in series:
        env = name.upper()
        sizes = [float(x) for x in os.environ.get(f"{env}_SIZES", "1 2 3 5 8").split()]
        reps = int(os.environ.get(f"{env}_REPS", "3"))
        reps2 = int(os.environ.get(f"{env}_REPS_AT_2", "12"))
        t, c, nr = run_series(name, SERIES[name], sizes, reps, reps2, deadline, start, ctx)
        trials += t
        cal[name] = c
        not_run[name] = nr
    phases = ctx["phases"]
    # every verdict of every planted trial, per series, phase and size (both shapes)
    table = {}
    for t in trials:
        if t["kind"] != "planted":
            continue
        for r in t.get("rows", []):
            if r["impl"] not in phases:
                continue
            e = (table.setdefault(t["series"], {}).setdefault(r["impl"], {})
                 .setdefault(f'{t["planted_pct"]:g}', {"verdicts": {}, "changes": []}))
            e["verdicts"][r["verdict"]] = e["verdicts"].get(r["verdict"], 0) + 1
            if r.get("change"):
                e["changes"].append(round(r["change"]["median"] - 1, 5))
    baseline = {}
    for t in trials:
        for r in t.get("rows", []):
            if r["impl"] == "sdpa_cudnn":
                baseline[r["verdict"]] = baseline.get(r["verdict"], 0) + 1
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    dest = os.path.join(out_dir, f"ab_planted_{stamp}.json")
    doc = {"schema": "attnladder-ab-planted", "schema_version": 2, "plant": "in-kernel cycles at exit",
           "base": "the planted build at 0 cycles" if plant_base == "planted0" else "the unchanged build",
           "series": {n: SERIES[n] for n in series}, "calibration": cal, "trials": trials, "table": table,
           "baseline_aa_verdicts": baseline, "not_run": not_run, "wall_s": round(time.time() - start, 1)}
    dest = evidence_files.write(dest, doc)
    shutil.rmtree(ctx["work"], ignore_errors=True)
    print(f"ab_planted: {len(trials)} processes, not run: {not_run}; {dest}")
    for sname, ph in table.items():
        for p, v in ph.items():
            print(f"  {sname:10s} {p:20s} " + "  ".join(
                f"{k}%: {v2['verdicts'].get('regressed', 0)}/{sum(v2['verdicts'].values())} "
                f"(med {sorted(v2['changes'])[len(v2['changes']) // 2] if v2['changes'] else float('nan'):+.2%})"
                for k, v2 in v.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
