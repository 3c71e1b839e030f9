#!/usr/bin/env python3
"""GPU machine, test-only: the A/B gate's detection study with fine planted slowdowns.

For every phase at the headline shapes, head builds made slower from inside the phase's
own kernels (`make planted-phases`: every kernel spins a number of SM cycles at entry,
set at run time through harness/testing/planted_wrapper.c; no extra launch, so 1-2% of a
6 us rung can be planted), each compared with the unchanged build by `attnladder ab` in
one process per trial. Every phase is planted in the same head build (each by its own
amount), and the baseline is left alone in it, so every trial also gives one A/A verdict
of the baseline per shape.

  1. zero:  every phase planted at 0 cycles (the hook's own cost);
  2. probe: every phase at about 5% of its time (cycles from its base median and the SM
     clock), which gives cycles per percent for each phase;
  3. for each size in SIZES (percent of the phase's own time at 1x8x512x64), REPS trials
     (REPS_AT_2 at 2%, the gate's target), each a fresh process with its own seed.

Every verdict is kept with the change the A/B measurement itself saw. A trial the
deadline (DEADLINE_S, default 520 s of this script) does not leave time for is listed as
not run, never counted. Writes OUT/ab_planted_<stamp>.json.

  BUILD=build SIZES="1 2 3 5 8" REPS=2 REPS_AT_2=8 python3 ci/tools/ab_planted.py [OUT]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HEADLINE = ["1,8,512,64,0", "1,8,512,64,1"]


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


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


def ab(bin_, build, head, impls, seed, out):
    t0 = time.time()
    r = sh([bin_, "ab", "--base", build, "--head", head, "--impl", ",".join(impls),
            "--shape", HEADLINE[0], "--shape", HEADLINE[1], "--seed", str(seed), "--out", out])
    wall = time.time() - t0
    if not os.path.exists(out):
        return None, wall, (r.stdout + r.stderr)[-1500:]
    return json.load(open(out)), wall, ""


def main():
    build = os.environ.get("BUILD", "build")
    sizes = [float(x) for x in os.environ.get("SIZES", "1 2 3 5 8").split()]
    reps = int(os.environ.get("REPS", "2"))
    reps2 = int(os.environ.get("REPS_AT_2", "8"))
    deadline = float(os.environ.get("DEADLINE_S", "520"))
    bin_ = os.path.join(build, "attnladder")
    if sh(["nvidia-smi", "-L"]).returncode != 0:
        print("ab_planted: no GPU; nothing measured")
        return 3
    if not os.path.exists(os.path.join(build, "testing", "planted_wrapper.so")):
        print("ab_planted: make planted-phases first", file=sys.stderr)
        return 2
    phases = [l.split()[0] for l in sh([bin_, "list", "--build", build]).stdout.splitlines()
              if len(l.split()) > 1 and l.split()[1] == "phase"]
    missing = [p for p in phases if not os.path.exists(os.path.join(build, "testing", "planted", f"{p}.so"))]
    if not phases or missing:
        print(f"ab_planted: no planted build of {missing or 'any phase'} (make planted-phases)", file=sys.stderr)
        return 2
    impls = phases + ["sdpa_cudnn"]
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join("evidence", gpu_slug())
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp()
    start = time.time()
    trials, seed = [], 5000

    def trial(kind, size, cycles):
        nonlocal seed
        seed += 1
        head = make_head(build, work, f"head_{seed}", cycles)
        doc, wall, log = ab(bin_, build, head, impls, seed, os.path.join(work, f"ab_{seed}.json"))
        shutil.rmtree(head, ignore_errors=True)
        t = {"kind": kind, "planted_pct": size, "seed": seed, "wall_s": round(wall, 2),
             "cycles": {p: int(c) for p, c in cycles.items()}}
        if doc is None:
            t["error"] = log
        else:
            t["loaded_first"] = doc.get("loaded_first")
            t["rows"] = [{k: r.get(k) for k in ("impl", "shape", "verdict", "change", "pairs", "correct", "clock")}
                         for r in doc["rows"]]
            for r in doc["rows"]:
                r_side = r.get("base") or {}
                t.setdefault("base_us", {})[f'{r["impl"]} {r["shape"]}'] = r_side.get("median_us")
        trials.append(t)
        print(f"ab_planted: {kind} {size}% seed {seed}: {wall:.0f} s, "
              + ("error" if doc is None else " ".join(f'{r["impl"][:2]}:{(r.get("verdict") or "-")[:4]}'
                                                      for r in doc["rows"] if r["shape"] == "1x8x512x64")), flush=True)
        return t

    def change(t, p, shape="1x8x512x64"):
        for r in t.get("rows", []):
            if r["impl"] == p and r["shape"] == shape and r.get("change"):
                return r["change"]["median"] - 1
        return None

    zero = trial("zero", 0.0, {p: 0 for p in phases})
    est = zero["wall_s"]
    # ~5% of each phase's own time in cycles: time (us) x clock (MHz) for a grid of one wave;
    # more waves only make the plant larger, which the probe measures
    probe_cycles = {}
    for p in phases:
        us = (zero.get("base_us") or {}).get(f"{p} 1x8x512x64") or 10.0
        probe_cycles[p] = max(64, int(0.05 * us * 1700))
    probe = trial("probe", 5.0, probe_cycles)
    cal = {}
    for p in phases:
        a0, a1 = change(zero, p), change(probe, p)
        slope = (a1 - (a0 or 0)) / probe_cycles[p] if a1 is not None else None
        if not slope or slope <= 0:
            slope = 0.05 / probe_cycles[p]      # the nominal guess when the probe said nothing
        cal[p] = {"hook_cost": a0, "probe_cycles": probe_cycles[p], "probe_change": a1,
                  "change_per_cycle": slope}
    plan = []
    for s in sizes:
        plan += [s] * (reps2 if s == 2 else reps)
    not_run = []
    for s in plan:
        if time.time() - start + est * 1.5 > deadline:
            not_run.append(s)
            continue
        cyc = {p: max(0.0, (s / 100 - (cal[p]["hook_cost"] or 0))) / cal[p]["change_per_cycle"] for p in phases}
        trial("planted", s, cyc)

    # every verdict of every planted trial, per phase and size (both headline shapes)
    table = {}
    for t in trials:
        if t["kind"] != "planted":
            continue
        for r in t.get("rows", []):
            if r["impl"] not in phases:
                continue
            e = table.setdefault(r["impl"], {}).setdefault(f'{t["planted_pct"]:g}', {"verdicts": {}, "changes": []})
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
    doc = {"schema": "attnladder-ab-planted", "schema_version": 2, "plant": "in-kernel cycles",
           "shapes": HEADLINE, "sizes_pct": sizes, "reps": reps, "reps_at_2": reps2,
           "calibration": cal, "trials": trials, "table": table,
           "baseline_aa_verdicts": baseline, "not_run": not_run,
           "wall_s": round(time.time() - start, 1)}
    with open(dest + ".tmp", "w") as fh:
        json.dump(doc, fh, indent=1)
    os.replace(dest + ".tmp", dest)
    shutil.rmtree(work, ignore_errors=True)
    print(f"ab_planted: {len(trials)} processes, {len(not_run)} planned trials not run; {dest}")
    for p, v in table.items():
        print(f"  {p:22s} " + "  ".join(
            f"{k}%: {v2['verdicts'].get('regressed', 0)}/{sum(v2['verdicts'].values())} "
            f"(med {sorted(v2['changes'])[len(v2['changes']) // 2] if v2['changes'] else float('nan'):+.2%})"
            for k, v2 in v.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
