#!/usr/bin/env python3
"""Writes copies of an evidence run with one field edited, each under its own evidence
root, for ci/checks/test_bad_input.sh: OUT/<id>/<gpu-dir>/<file>. Prints one line per copy:
"<id>\t<the JSON path the refusal must name, as an extended regex>\t<what was edited>".

usage: bad_evidence.py RUN.json|RUN.json.gz OUT [TRAVERSAL_TARGET]
(a compressed run's copies are plain JSON, named without .gz)
(TRAVERSAL_TARGET: the directory a path-traversing GPU slug aims at, default /tmp/x)
"""
import gzip
import json
import os
import re
import sys

# the row every timing edit goes to: the first result timed in all three modes (the
# baseline at the first headline shape; its index depends on the run's shape order)
TIMED = 0
R = f"results[{TIMED}]"
G = f"{R}.timing.graph"


def choose_timed(doc):
    global TIMED, R, G
    for i, r in enumerate(doc.get("results", [])):
        if all(m in (r.get("timing") or {}) for m in ("graph", "single", "cold")):
            TIMED = i
            break
    R = f"results[{TIMED}]"
    G = f"{R}.timing.graph"


def edits(doc, target):
    """(path, value, the path the refusal names)"""
    e = []
    for v in ["/../../../../../.." + target + "/PWNED", "..", ".hidden", "a/b", "", "x" * 200, "a b",
              "x\ny", "caf\u00e9", "C:\\x", "$(id)", "a`id`"]:
        e.append(("context.gpu.slug", v, "context.gpu.slug"))
    for v in ["H100\nset output '/tmp/x'", "\x1b[31mred", "del\x7f", "tab\there"]:
        e.append(("context.gpu.name", v, "context.gpu.name"))
    for v in ["../../x", "..", "a/b", "", ".hidden", "a`id`", "x" * 129, "a;b"]:
        e.append(("implementations[3].name", v, "implementations[3].name"))
    e.append((f"{R}.impl", "../x", f"{R}.impl"))
    e.append((f"{R}.impl", "not_listed", R))
    for v in ["../x", "a b"]:
        e.append(("method.baseline", v, "method.baseline"))
    for v in [0, 1, 1.5, -0.5]:
        e.append(("method.ci_level", v, "method.ci_level"))
    for v in ["not a date", "", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
              "2026-11-22 10:30:00Z", "2026-11-22T25:00:00Z", "99999-11-22T10:30:00Z",
              "2026-11-22T10:30:00+01:00", "1969-12-31T23:59:59Z"]:
        e.append(("created_utc", v, "created_utc"))
    for k, v in [("fp16_tflops", 0), ("fp16_tflops", -1), ("dram_gbps", -3000.0)]:
        e.append((f"ceilings.{k}", v, f"ceilings.{k}"))
    for k, v in [("head_dim", -64), ("head_dim", 0), ("seq_q", 0), ("seq_q", -5), ("batch", 0),
                 ("heads", -1), ("causal", 2), ("causal", -1), ("batch", 100000)]:
        e.append((f"{R}.shape.{k}", v, f"{R}.shape"))
    for k, v in [("seq_kv", 2 ** 31), ("head_dim", 2 ** 40)]:
        e.append((f"{R}.shape.{k}", v, f"{R}.shape.{k}"))
    for k, v, named in [("median_us", 0, "median_us"), ("median_us", -5, "median_us"),
                        ("median_us", 1e308, "median_us"), ("median_us", 1e-300, "median_us"),
                        ("ci_lo_us", 1e6, "median_us"), ("ci_hi_us", 1e-3, "median_us"),
                        ("min_us", -1, "min_us"), ("p10_us", 1e6, "p10_us"),
                        ("p90_us", 1e9, "p90_us"), ("n", 0, "n"), ("n", -1, "n"),
                        ("n", 100000, "n"), ("inner", 0, "inner"), ("inner", -3, "inner"),
                        ("mean_us", 0, "mean_us"), ("max_us", -2, "max_us")]:
        e.append((f"{G}.{k}", v, f"{G}.{named}"))
    e.append((f"{G}.samples_us[0]", 0, f"{G}.samples_us[0]"))
    e.append((f"{G}.samples_us[1]", -1.5, f"{G}.samples_us[1]"))
    for mode in ["single", "cold"]:
        e.append((f"{R}.timing.{mode}.median_us", 0, f"{R}.timing.{mode}.median_us"))
    e.append(("ceilings.launch_floor.graph.median_us", -1, "ceilings.launch_floor.graph.median_us"))
    for k, v in [("tflops", -1), ("flops", -1), ("frac_dram", -0.5)]:
        e.append((f"{R}.derived.{k}", v, f"{R}.derived.{k}"))
    e.append((f"{R}.derived.ratio.median", -1, f"{R}.derived.ratio.median"))
    e.append((f"{R}.derived.ratio.ci_lo", 5.0, f"{R}.derived.ratio.median"))
    for k in ["rel_l2", "max_abs"]:
        e.append((f"{R}.correctness.{k}", -1, f"{R}.correctness.{k}"))
    e.append(("schema", "other", "schema"))
    e.append(("schema_version", 2, "schema_version"))
    e.append(("partial", "yes", "partial"))
    if doc.get("profile"):
        e.append(("profile[0].impl", "../x", "profile[0].impl"))
        e.append(("profile[0].shape.head_dim", -1, "profile[0].shape"))
    return e


def set_path(doc, path, value):
    """Sets the field at PATH to VALUE; returns a function that puts back what was there."""
    parts = []
    for tok in path.split("."):
        name, _, rest = tok.partition("[")
        parts.append(name)
        for idx in filter(None, rest.split("[")):
            parts.append(int(idx.rstrip("]")))
    x = doc
    for p in parts[:-1]:
        x = x[p]
    key = parts[-1]
    had = isinstance(x, list) or key in x
    old = x[key] if had else None
    x[key] = value

    def restore():
        if had:
            x[key] = old
        else:
            del x[key]
    return restore


def write(out, ident, gpu_dir, name, doc):
    d = os.path.join(out, ident, gpu_dir)
    os.makedirs(d, exist_ok=True)
    # json.dumps without indent is json's C encoder; json.dump (and any indent) its
    # pure-Python one, which took most of this script's 51 CPU seconds on the 8 MB run
    # (the same document either way).
    with open(os.path.join(d, name), "w") as f:
        f.write(json.dumps(doc))


def main():
    src, out = sys.argv[1], sys.argv[2]
    target = sys.argv[3] if len(sys.argv) > 3 else "/tmp/x"
    packed = src.endswith(".gz")   # a run committed compressed: its copies are plain JSON
    with (gzip.open(src, "rt", encoding="utf-8") if packed else open(src)) as f:
        base = json.load(f)
    choose_timed(base)
    gpu_dir = os.path.basename(os.path.dirname(os.path.abspath(src)))
    name = os.path.basename(src[:-3] if packed else src)
    n = 0
    # Each edit is made on the one parsed run, written, and undone: a deep copy of the run
    # per edit cost more than writing it.
    for path, value, named in edits(base, target):
        restore = set_path(base, path, value)
        ident = f"e{n:03d}"
        write(out, ident, gpu_dir, name, base)
        restore()
        print(f"{ident}\t{re.escape(named)}\t{path} = {json.dumps(value)[:40]}")
        n += 1
    # rows repeated: one, and two thousand
    # (the repeated rows are the same objects: json writes each occurrence in full)
    rows = base["results"]
    first = len(rows)
    for count in (1, 2000):
        rows.extend(rows[k % first] for k in range(count))
        ident = f"e{n:03d}"
        write(out, ident, gpu_dir, name, base)
        del rows[first:]
        print(f"{ident}\t{re.escape(f'results[{first}]')}\t{count} result rows repeated")
        n += 1


if __name__ == "__main__":
    main()
