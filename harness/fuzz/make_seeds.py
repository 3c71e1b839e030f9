#!/usr/bin/env python3
"""Seeds for the consumer fuzz targets (harness/fuzz/fuzz_consumer.c), from the committed
runs: each run cut to its headline rows, a few sweep rows and two profile rows, with at
most 16 samples per timing, so an input is a few tens of kilobytes (a mutation of an
860 kB run costs a parse the fuzzer would rather spend on mutations). Written with the
harness's own format (one-space indent, members in order).

usage: make_seeds.py OUTDIR RUN.json...
"""
import json
import os
import sys

MAX_SAMPLES = 16


def cut_mode(mode):
    s = mode.get("samples_us")
    if isinstance(s, list) and len(s) > MAX_SAMPLES:
        mode["samples_us"] = s[:MAX_SAMPLES]
        mode["n"] = MAX_SAMPLES


def cut(doc):
    rows = doc.get("results", [])
    keep = [r for r in rows if r.get("tag") == "headline"]
    keep += [r for r in rows if r.get("tag") != "headline"][:6]
    for r in keep:
        for mode in (r.get("timing") or {}).values():
            cut_mode(mode)
    doc["results"] = keep
    for mode in ((doc.get("ceilings") or {}).get("launch_floor") or {}).values():
        cut_mode(mode)
    if "profile" in doc:
        doc["profile"] = doc["profile"][:2]
    return doc


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        seed = os.path.join(out, "seed_" + os.path.basename(path))
        with open(seed, "w") as f:
            json.dump(cut(doc), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
