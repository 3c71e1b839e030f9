#!/usr/bin/env python3
"""The table of the A/B gate's held-out study of shape-rule changes
(ci/tools/plant_rules_study.sh): for each plant, the rung, what changed, the points whose
choice it moved, the worst change with its CI, and which layer blocks it.

    plant_rules_summary.py OUT [--evidence DIR] [--gate ci/gate.json]

DIR: the GPU's evidence folder whose reference and accepted runs the derived layers read
(default: the H100's, evidence/nvidia-h100-80gb-hbm3/).

Reads OUT/plants.tsv and OUT/<plant>.json or .json.gz (`attnladder ab --out`); writes
OUT/summary.md and OUT/summary.json (every row's change, CI, verdict and why it was timed;
no samples, so that it fits the evidence store's budget). Exit 0, or 2 on input it cannot read (the file and field named).

The layers:
- A/B: measured. Blocks when a row of the plant's rung is regressed, failed or throttled.
- ladder (derived): the committed reference run's ratio to the baseline at each row the
  ladder gate bounds (headline, throughput, decode shapes of ci/gate.json), multiplied by
  the A/B change, against the bound. Not a measurement of the planted build.
- drift (derived): the A/B change's CI against the drift tolerance of the accepted set at
  that row, max(floor, exp(k_sigma x sd) - 1), floor the set's paired floor, or
  floor_other_gpu at a row timed on inputs cold in L2 (as the gate takes it), sd the spread
  of the set's paired ratios there (the pooled-sd refinement of the gate left out); "today" at the rows the
  drift gate judges now (headline and throughput shapes), "every row" at every row, as
  issue 50's part 2 asks. A stand-in: a later run's own CI would be wider than ab's.
A plant "slows a point" when some row's A/B change is above +3% with its CI above +1%
(the A/B tolerance), "slows nothing" when every row's CI reaches below +3%."""
import argparse
import gzip
import json
import math
import os
import sys

SLOW = 1.03


def fail(msg):
    print(f"plant_rules_summary: {msg}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read: {e}")


def shape_text(b, h, sq, skv, d, causal):
    """harness/core/shapes.c's shape_format."""
    core = f"{b}x{h}x{sq}x{d}" if sq == skv else f"{b}x{h}x{sq}:{skv}x{d}"
    return core + (" causal" if causal else "")


def shape_of_dict(s):
    return shape_text(s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"], s["causal"])


def run_ratios(run, path):
    """{(impl, shape text): ratio median} of one run's results."""
    out = {}
    for i, r in enumerate(run.get("results") or []):
        try:
            med = r["derived"]["ratio"]["median"]
            key = (r["impl"], shape_of_dict(r["shape"]))
        except (KeyError, TypeError):
            continue
        if isinstance(med, (int, float)) and math.isfinite(med) and med > 0:
            out[key] = float(med)
    if not out:
        fail(f"{path}: results[]: no ratio to the baseline")
    return out


def read_list(path):
    try:
        with open(path, encoding="utf-8") as f:
            names = [x.strip() for x in f if x.strip()]
    except OSError as e:
        fail(f"{path}: {e}")
    for n in names:
        if "/" in n or n.startswith("."):
            fail(f"{path}: '{n}' is not a file name of that folder")
    return names


def bounds_of(gate, slug=None):
    """{(impl, shape text): (bound, which)} of the ladder gate for the GPU `slug` (its
    evidence folder's name): at the decode shapes its own list (decode_ratio_max_gpu) where
    the gate has one, as the gate judges that GPU's runs, else decode_ratio_max."""
    out = {}
    shapes = {k: [shape_text(*s) for s in gate.get(k, [])] for k in ("headline", "throughput", "decode")}
    for impl, b in gate.get("bounds", {}).items():
        for s in shapes["headline"]:
            if "ratio_max" in b:
                out[(impl, s)] = (b["ratio_max"], "headline")
        for s in shapes["throughput"]:
            if "throughput_ratio_max" in b:
                out[(impl, s)] = (b["throughput_ratio_max"], "throughput")
        own = (b.get("decode_ratio_max_gpu") or {}).get(slug) if slug else None
        for s, m in zip(shapes["decode"], own if own is not None else b.get("decode_ratio_max", [])):
            if m is not None:
                out[(impl, s)] = (m, "decode")
    return out, set(shapes["headline"]) | set(shapes["throughput"])


def row_change(row):
    c = row.get("change") or {}
    vals = [c.get(k) for k in ("median", "ci_lo", "ci_hi")]
    if all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in vals):
        return vals
    return None


def summarize_plant(name, rung, what, out, ctx):
    path = os.path.join(out, f"{name}.json")
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    st_path = os.path.join(out, f"{name}.status")
    status = open(st_path).read().strip() if os.path.exists(st_path) else "not run"
    res = {"plant": name, "rung": rung, "what": what, "ab_exit": status}
    if not os.path.exists(path):
        res["ran"] = False
        return res
    doc = load_json(path)
    if doc.get("schema") != "attnladder-ab" or not isinstance(doc.get("rows"), list):
        fail(f"{path}: schema: expected an attnladder-ab file with rows")
    rows = [r for r in doc["rows"] if isinstance(r, dict) and r.get("impl") == rung]
    res["ran"] = True
    res["rows"] = len(rows)
    res["timed_as"] = {}
    for r in rows:
        res["timed_as"][r.get("selected", "fixed")] = res["timed_as"].get(r.get("selected", "fixed"), 0) + 1
    res["wall_s"] = round(sum(r.get("wall_s", 0) or 0 for r in rows), 1)
    touched, worst, blocked, slowed, detail = [], None, [], [], []
    ladder, drift_today, drift_all = [], [], []
    for r in rows:
        shape = r.get("shape", "?")
        if r.get("base_note") != r.get("head_note"):
            touched.append(shape)
        v = r.get("verdict")
        if v in ("regressed", "failed", "throttled"):
            blocked.append(f"{shape} {v}")
        ch = row_change(r)
        if not ch:
            continue
        m, lo, hi = ch
        detail.append({"shape": shape, "selected": r.get("selected"), "verdict": v, "change": m, "ci": [lo, hi],
                       "choice_moved": r.get("base_note") != r.get("head_note")})
        if worst is None or m > worst["change"]:
            worst = detail[-1]
        if m > SLOW and lo > 1.01:
            slowed.append(shape)
        key = (rung, shape)
        if key in ctx["bounds"] and key in ctx["ref"]:
            bound, which = ctx["bounds"][key]
            derived = ctx["ref"][key] * m
            if derived > bound:
                ladder.append(f"{shape}: {ctx['ref'][key]:.3f} x {m:.3f} = {derived:.3f} > {bound} ({which})")
        tol = ctx["tol"].get(key)
        if tol is not None and lo > 1 + tol:
            drift_all.append(f"{shape}: CI low {lo:.3f} > 1 + {tol:.3f}")
            if shape in ctx["drift_today"]:
                drift_today.append(drift_all[-1])
    res.update(points_touched=touched, worst=worst, ab_blocks=blocked, slows=slowed, ladder_blocks=ladder,
               drift_today_blocks=drift_today, drift_every_row_blocks=drift_all, rows_detail=detail)
    res["layers"] = [n for n, x in (("A/B", blocked), ("ladder*", ladder), ("drift today*", drift_today),
                                    ("drift every row*", drift_all)) if x]
    ok = bool(blocked or ladder or drift_today) if slowed else not (blocked or ladder or drift_today)
    res["as_required"] = ok
    return res


COLD_STATES = ("rotated", "cold_by_size")


def run_cold(run):
    """The (impl, shape text) rows of one run timed on inputs cold in L2 (timing.l2.state)."""
    out = set()
    for r in run.get("results") or []:
        try:
            if r["timing"]["l2"]["state"] in COLD_STATES:
                out.add((r["impl"], shape_of_dict(r["shape"])))
        except (KeyError, TypeError):
            continue
    return out


def drift_tolerances(evidence, gate):
    """{(impl, shape text): tolerance} of the accepted set, as the drift gate takes it: the
    paired floor, or the other-GPU floor at a row any accepted run timed on cold inputs
    (harness/gate/drift_spread.c, drift_params_for_results)."""
    drift = gate.get("drift", {})
    k, floor = float(drift.get("k_sigma", 4.0)), float(drift.get("floor_paired", 0.03))
    floor_cold = max(floor, float(drift.get("floor_other_gpu", floor)))
    docs = [(load_json(os.path.join(evidence, n)), os.path.join(evidence, n))
            for n in read_list(os.path.join(evidence, "accepted.txt"))]
    runs = [run_ratios(d, path) for d, path in docs]
    cold = set().union(*(run_cold(d) for d, _ in docs))
    tol = {}
    for key in set().union(*runs) if runs else set():
        vals = [math.log(r[key]) for r in runs if key in r]
        if len(vals) < 2:
            continue
        mean = sum(vals) / len(vals)
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
        tol[key] = max(floor_cold if key in cold else floor, math.exp(k * sd) - 1)
    return tol


def fmt_change(w):
    if not w:
        return "-"
    m, (lo, hi) = w["change"], w["ci"]
    return f"{(m - 1) * 100:+.1f}% [{(lo - 1) * 100:+.1f}, {(hi - 1) * 100:+.1f}] at {w['shape']} ({w['selected']})"


def write_md(out, results, evidence, ref_name):
    lines = ["# Held-out study of the A/B gate: planted shape-rule changes", "",
             "Generated by `ci/tools/plant_rules_summary.py` from this folder's `ab` files "
             "(`ci/tools/plant_rules_study.sh`). A/B is measured; the columns marked * are derived: "
             f"the A/B change applied to `{evidence}/{ref_name}`'s ratios (ladder: against `ci/gate.json`'s "
             "bounds; drift: the A/B CI against the accepted set's tolerance at that row, today's rows and "
             "every row). Not runs of the planted builds.", "",
             "| plant | rung | what changed | rows (fixed/path/moved/sweep) | points whose choice moved | worst change [95% CI] "
             "| A/B | ladder* | drift today* | drift every row* | as required |",
             "| --- | --- | --- | --- | ---: | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        if not r.get("ran"):
            lines.append(f"| {r['plant']} | {r['rung']} | {r['what']} | not run ({r['ab_exit']}) | | | | | | | |")
            continue
        t = r["timed_as"]
        rows = f"{r['rows']} ({t.get('fixed', 0)}/{t.get('path', 0)}/{t.get('moved', 0)}/{t.get('sweep', 0)})"
        if t.get("probe"):   # rule probes off the sweep (harness/gate/README.md), since they exist
            rows += f" + {t['probe']} probe"

        def cell(x):
            return f"blocks ({len(x)})" if x else "passes"
        req = ("yes" if r["as_required"] else "**no**") + (" (slows a point)" if r["slows"] else " (slows nothing)")
        lines.append(f"| {r['plant']} | {r['rung']} | {r['what']} | {rows} | {len(r['points_touched'])} | "
                     f"{fmt_change(r['worst'])} | {cell(r['ab_blocks'])} | {cell(r['ladder_blocks'])} | "
                     f"{cell(r['drift_today_blocks'])} | {cell(r['drift_every_row_blocks'])} | {req} |")
    lines += ["", "Slowed points (A/B regressed, with the change and CI):", ""]
    for r in results:
        for d in r.get("rows_detail", []):
            if d["verdict"] == "regressed":
                lines.append(f"- {r['plant']}: {r['rung']} {d['shape']} ({d['selected']}) "
                             f"{(d['change'] - 1) * 100:+.1f}% [{(d['ci'][0] - 1) * 100:+.1f}, "
                             f"{(d['ci'][1] - 1) * 100:+.1f}]")
    walls = [f"{r['plant']} {r['wall_s']} s over {r['rows']} rows" for r in results if r.get("ran")]
    lines += ["", "Wall time of the rows (inputs, checks, graphs, pairs): " + "; ".join(walls) + ".", ""]
    tmp = os.path.join(out, "summary.md.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, os.path.join(out, "summary.md"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--evidence", default="evidence/nvidia-h100-80gb-hbm3")
    ap.add_argument("--gate", default="ci/gate.json")
    a = ap.parse_args()
    gate = load_json(a.gate)
    ref_name = read_list(os.path.join(a.evidence, "reference.txt"))[0]
    ref = run_ratios(load_json(os.path.join(a.evidence, ref_name)), os.path.join(a.evidence, ref_name))
    bounds, today = bounds_of(gate, os.path.basename(os.path.normpath(a.evidence)))
    ctx = {"ref": ref, "bounds": bounds, "drift_today": today, "tol": drift_tolerances(a.evidence, gate)}
    plants = []
    try:
        with open(os.path.join(a.out, "plants.tsv"), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 4 or not parts[0].replace("_", "").isalnum():
                    fail(f"{a.out}/plants.tsv: line {n}: expected name, rung, file, what")
                plants.append(parts)
    except OSError as e:
        fail(f"{a.out}/plants.tsv: {e}")
    results = [summarize_plant(p[0], p[1], p[3], a.out, ctx) for p in plants]
    tmp = os.path.join(a.out, "summary.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        # compact: the store's budget is tight; every row's change and CI, no samples (those
        # are in the ab files)
        json.dump({"schema": "attnladder-plant-rules-study", "schema_version": 1, "evidence": a.evidence,
                   "reference": ref_name, "plants": results}, f, separators=(",", ":"))
    os.replace(tmp, os.path.join(a.out, "summary.json"))
    write_md(a.out, results, a.evidence, ref_name)
    print(open(os.path.join(a.out, "summary.md"), encoding="utf-8").read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
