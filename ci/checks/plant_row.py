#!/usr/bin/env python3
"""Plant a slowdown in one row of a committed run, as a run that slow would have written it
(the drift gate's tests, no GPU):
  python3 ci/checks/plant_row.py [--set KEY.KEY=JSON ...] SRC IMPL SHAPE FACTOR [IMPL SHAPE FACTOR ...] DST
SHAPE is BxHxSQxSKVxD, or BxHxSxD for seq_q == seq_kv, with a trailing 'c' for causal
(1x8x1x1024x128, 1x8x512x64c). Every time of IMPL at SHAPE is multiplied by FACTOR: the
graph samples and their statistics, the rotation's rounds (so the per-round quotients the
reader recomputes the ratio from are FACTOR times slower), the stored ratio (its median
recomputed from the rounded rounds) and what is derived from the time (TF/s, GB/s and
their fractions). The baseline and every other row are left as they were. Several rows
(IMPL SHAPE FACTOR again) are planted in one copy, SRC read once: a complete run is ~100 MB
of JSON, 2-3 CPU s to read and write. SRC may be gzipped; DST is written plain. Exit 2 when
a row is not in SRC. --set puts a JSON value at a path of objects in the same copy
(--set context.gpu.uuid='"GPU-1"', --set context.versions.cudnn=91900), as a run of
another GPU or library would have recorded it."""
import gzip
import json
import os
import re
import sys

TIMES = ("median_us", "ci_lo_us", "ci_hi_us", "mean_us", "min_us", "max_us", "p10_us", "p90_us")


def parse_shape(text):
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)(?:x(\d+))?x(\d+)(c?)", text)
    if not m:
        raise ValueError(f"shape '{text}': expected BxHxSQxSKVxD or BxHxSxD, 'c' for causal")
    b, h, sq, skv, d, c = m.groups()
    return int(b), int(h), int(sq), int(skv or sq), int(d), 1 if c else 0


def key(shape):
    return (shape["batch"], shape["heads"], shape["seq_q"], shape["seq_kv"], shape["head_dim"],
            int(shape.get("causal", 0)))


def median(xs):
    q = sorted(xs)
    m = len(q) // 2
    return q[m] if len(q) % 2 else (q[m - 1] + q[m]) / 2


def scale_timing(timing, f):
    for mode in timing.values():
        if not isinstance(mode, dict) or "samples_us" not in mode:
            continue
        mode["samples_us"] = [round(x * f, 4) for x in mode["samples_us"]]
        for k in TIMES:
            if isinstance(mode.get(k), (int, float)):
                mode[k] = round(mode[k] * f, 4)


def scale_derived(r, f):
    dv = r.get("derived") or {}
    for k in ("tflops", "gbps", "frac_fp16_peak", "frac_dram"):
        if isinstance(dv.get(k), (int, float)):
            dv[k] /= f
    ratio = dv.get("ratio")
    if isinstance(ratio, dict):
        for k in ("median", "ci_lo", "ci_hi"):
            if isinstance(ratio.get(k), (int, float)):
                ratio[k] *= f
    pb = r.get("paired")
    if isinstance(pb, dict) and isinstance(pb.get("impl_us"), list):
        pb["impl_us"] = [round(x * f, 4) for x in pb["impl_us"]]
        if isinstance(ratio, dict) and ratio.get("method") == "paired":
            ratio["median"] = median([a / b for a, b in zip(pb["impl_us"], pb["baseline_us"])])


def plant(d, impl, shape, f):
    n = 0
    for r in d["results"]:
        if r["impl"] != impl or key(r["shape"]) != shape:
            continue
        scale_timing(r.get("timing") or {}, f)
        scale_derived(r, f)
        n += 1
    return n


def main(argv):
    args, sets = [argv[0]], []
    it = iter(argv[1:])
    for a in it:
        if a == "--set":
            sets.append(next(it, ""))
        else:
            args.append(a)
    if len(args) < 6 or (len(args) - 3) % 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst, rows = args[1], args[-1], args[2:-1]
    try:
        plants = [(rows[i], rows[i + 1], parse_shape(rows[i + 1]), float(rows[i + 2])) for i in range(0, len(rows), 3)]
        values = [(s.split("=", 1)[0].split("."), json.loads(s.split("=", 1)[1])) for s in sets]
    except (ValueError, IndexError) as e:
        print(f"plant_row: {e}", file=sys.stderr)
        return 2
    with (gzip.open(src, "rt") if src.endswith(".gz") else open(src)) as fh:
        d = json.load(fh)
    for impl, shape_text, shape, f in plants:
        if plant(d, impl, shape, f) == 0:
            print(f"plant_row: {src} has no result of {impl} at {shape_text}", file=sys.stderr)
            return 2
    for keys, value in values:
        node = d
        for k in keys[:-1]:
            node = node.get(k) if isinstance(node, dict) else None
        if not isinstance(node, dict) or keys[-1] not in node:
            print(f"plant_row: {src} has no {'.'.join(keys)}", file=sys.stderr)
            return 2
        node[keys[-1]] = value
    with open(dst + ".tmp", "w") as fh:
        json.dump(d, fh)
    os.replace(dst + ".tmp", dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
