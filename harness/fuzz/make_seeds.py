#!/usr/bin/env python3
"""Seeds for the consumer fuzz targets (harness/fuzz/fuzz_consumer.c), from the committed
runs: each run cut to its headline rows, a few sweep rows and a few profile rows, with at
most 16 samples per timing (summaries and derived figures recomputed, so each seed agrees
with itself as the reader requires), so an input is a few tens of kilobytes (a mutation of an
860 kB run costs a parse the fuzzer would rather spend on mutations). Written with the
harness's own format (one-space indent, members in order).

usage: make_seeds.py [--one-per-build] OUTDIR RUN.json|RUN.json.gz...   (a seed is plain JSON either way)

--one-per-build: the first run of each folder (GPU) and build (the name's part after its
first '_') only. The runs of one build on one GPU are sessions of one `attnladder run`, the
same members in the same forms: the fuzzers replay their seeds before they mutate any, and
two more copies of each form cost the make test fuzzers a replay each (under the
sanitizers, 1-2 s a seed of a reference run) and found nothing the first did not.
"""
import gzip
import json
import os
import sys

MAX_SAMPLES = 16


def pct(x, p):
    """numpy's default (type 7) percentile of sorted x"""
    h = (len(x) - 1) * p
    lo = int(h)
    hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])


def cut_mode(mode):
    """at most MAX_SAMPLES samples, and the summaries of the ones kept: a seed must agree
    with itself, or the reader refuses it and the fuzzer never gets past validation"""
    s = mode.get("samples_us")
    if not (isinstance(s, list) and len(s) > MAX_SAMPLES):
        return
    s = s[:MAX_SAMPLES]
    mode["samples_us"] = s
    mode["n"] = len(s)
    x = sorted(s)
    for k, v in (("median_us", pct(x, .5)), ("p10_us", pct(x, .1)), ("p90_us", pct(x, .9)),
                 ("mean_us", sum(x) / len(x)), ("min_us", x[0]), ("max_us", x[-1])):
        mode[k] = round(v, 4)
    mode["ci_lo_us"] = min(max(mode["ci_lo_us"], x[0]), mode["median_us"])
    mode["ci_hi_us"] = max(min(mode["ci_hi_us"], x[-1]), mode["median_us"])


def shape_key(r):
    s = r["shape"]
    return (s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"], s["causal"])


def rederive(doc, rows):
    """derived figures from the cut graph medians, as the harness writes them"""
    ce = doc.get("ceilings") or {}
    graph = {}
    for r in rows:
        g = (r.get("timing") or {}).get("graph")
        if g:
            graph.setdefault((r["impl"], shape_key(r)), g["median_us"])
    for r in rows:
        d, g = r.get("derived"), (r.get("timing") or {}).get("graph")
        if not d or not g:
            continue
        m = g["median_us"]
        d["tflops"] = d["flops"] / (m * 1e-6) / 1e12
        d["gbps"] = d["bytes"] / (m * 1e-6) / 1e9
        if isinstance(d.get("frac_fp16_peak"), (int, float)) and ce.get("fp16_tflops"):
            d["frac_fp16_peak"] = d["tflops"] / ce["fp16_tflops"]
        if isinstance(d.get("frac_dram"), (int, float)) and ce.get("dram_gbps"):
            d["frac_dram"] = d["gbps"] / ce["dram_gbps"]
        ratio = d.get("ratio")
        if isinstance(ratio, dict) and ratio.get("method", "independent") == "independent":
            base = graph.get((ratio["baseline"], shape_key(r)))
            if base:
                ratio["median"] = m / base
                ratio["ci_lo"] = min(ratio["ci_lo"], ratio["median"])
                ratio["ci_hi"] = max(ratio["ci_hi"], ratio["median"])


def cut(doc):
    rows = doc.get("results", [])
    keep = [r for r in rows if r.get("tag") == "headline"]
    keep += [r for r in rows if r.get("tag") != "headline"][:6]
    for r in keep:
        for mode in (r.get("timing") or {}).values():
            cut_mode(mode)
    doc["results"] = keep
    rederive(doc, keep)
    for mode in ((doc.get("ceilings") or {}).get("launch_floor") or {}).values():
        cut_mode(mode)
    if "profile" in doc:
        # the first two rows, and two of the implementation whose build lists the most
        # kernels (rung 10's: namespaces within namespaces, bool template arguments), for
        # the report's matching of the kernels that ran against the build's
        prof = doc["profile"]
        listed = {i.get("name"): len((i.get("resources") or {}).get("kernels") or [])
                  for i in doc.get("implementations", [])}
        most = max(sorted(listed), key=lambda n: listed[n]) if listed else None
        doc["profile"] = prof[:2] + [p for p in prof[2:] if p.get("impl") == most][:2]
    return doc


def one_per_build(paths):
    seen, kept = set(), []
    for path in paths:
        name = os.path.basename(path)
        key = (os.path.dirname(path), name.split("_", 1)[-1].split(".", 1)[0])
        if key not in seen:
            seen.add(key)
            kept.append(path)
    return kept


def main():
    args = sys.argv[1:]
    first_only = bool(args) and args[0] == "--one-per-build"
    if first_only:
        args = args[1:]
    out, paths = args[0], args[1:]
    if first_only:
        paths = one_per_build(sorted(paths))
    os.makedirs(out, exist_ok=True)
    for path in paths:
        packed = path.endswith(".gz")
        with (gzip.open(path, "rt", encoding="utf-8") if packed else open(path)) as f:
            doc = json.load(f)
        seed = os.path.join(out, "seed_" + os.path.basename(path[:-3] if packed else path))
        with open(seed, "w") as f:
            json.dump(cut(doc), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
