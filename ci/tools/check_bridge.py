#!/usr/bin/env python3
"""check_bridge.py: what a run says of its two cuDNNs, read from its evidence (a run of
`make run` with ci/tools/torch_sdpa.py --bridge; evidence/SCHEMA.md, "External baselines
through a bridge"). For every shape where PyTorch's process timed the bridge:

  - the bridge's paired ratio to the run's baseline (the machine's cuDNN), in the run;
  - sdpa_cudnn_torch (the C baseline on PyTorch's cuDNN) and torch_cudnn against the run's
    baseline through the bridge, and the two cuDNNs' difference;
  - each rung's ratio to PyTorch's cuDNN as the reports read it (its ratio to the baseline
    over torch_cudnn's), to set beside a one-process rotation of the same rung and
    PyTorch's cuDNN (issue 51's target: within 1%).

It recomputes every figure from the pairs (the medians of per-round quotients; the
product through the bridge) and checks that derived.ratio says "bridged" and names the
bridge. Exit 0 when every external row with pairs is bridged, 1 when one is not (a run of
the old method, or the bridge missing from the run), 2 on bad usage.

With --direct LOG (the session's torch_sdpa.log, whose rotation timed the rung beside the
bridge and PyTorch's cuDNN in one process): the rung's direct ratio to PyTorch's cuDNN
there (the quotient of their paired ratios to the bridge in that table), the bridged one
beside it, their difference, and a count of the shapes within 1%.

usage: python3 ci/tools/check_bridge.py RUN.json[.gz] [--rung 11_split_keys] [--direct LOG]"""
import argparse
import gzip
import re
import json
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def key(shape):
    return tuple(shape[k] for k in ("batch", "heads", "seq_q", "seq_kv", "head_dim", "causal"))


def text(k):
    b, h, sq, skv, d, c = k
    return f"{b}x{h}x{sq}" + (f":{skv}" if skv != sq else "") + f"x{d}" + (" causal" if c else "")


def paired_median(res):
    p = res.get("paired") or {}
    q = [a / b for a, b in zip(p.get("impl_us", []), p.get("baseline_us", []))]
    return statistics.median(q) if q else None


def direct_ratios(log, rung):
    """{shape key: the rung's ratio to torch_cudnn} from the final table of a torch_sdpa.py
    log ("paired ratio / BRIDGE" then one line a shape: its text, then "m [lo,hi] n=N" a
    column). Shapes print as BxHxSQxSKVxD[ causal]."""
    lines = log.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("paired ratio / ")]
    if not head:
        raise SystemExit("check_bridge: --direct: no 'paired ratio / ...' table in the log")
    cols = lines[head[-1]].split()[4:]
    if rung not in cols or "torch_cudnn" not in cols:
        raise SystemExit(f"check_bridge: --direct: the log's table has no {rung} or torch_cudnn column: {cols}")
    out = {}
    for l in lines[head[-1] + 1:]:
        m = re.match(r"^(\d+)x(\d+)x(\d+)x(\d+)x(\d+)( causal)?\s+(.*)$", l)
        if not m:
            break
        vals = re.findall(r"(\d+\.\d+) \[[\d.]+,[\d.]+\] n=\d+", m.group(7))
        if len(vals) != len(cols):
            raise SystemExit(f"check_bridge: --direct: {len(vals)} values for {len(cols)} columns: {l!r}")
        v = dict(zip(cols, map(float, vals)))
        k = tuple(int(m.group(i)) for i in range(1, 6)) + (1 if m.group(6) else 0,)
        out[k] = v[rung] / v["torch_cudnn"]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--rung", default="11_split_keys", help="the rung read against PyTorch's cuDNN")
    ap.add_argument("--direct", help="the session's torch_sdpa.log: the rung timed in PyTorch's process")
    a = ap.parse_args(argv)
    direct = None
    if a.direct:
        with open(a.direct) as f:
            direct = direct_ratios(f.read(), a.rung)
    within = compared = 0
    doc = load(a.run)
    base = doc["method"]["baseline"]
    kinds = {i["name"]: i.get("kind") for i in doc["implementations"]}
    rows = {}
    for r in doc["results"]:
        rows[(r["impl"], key(r["shape"]))] = r
    ver = doc["context"].get("versions", {})
    print(f"{a.run}: baseline {base} on cuDNN {ver.get('cudnn')} ({ver.get('cudnn_path')})")
    for i in doc["implementations"]:
        if i.get("library"):
            print(f"  {i['name']}: {i['library']}")
    bad = 0
    shapes = sorted({k for (impl, k) in rows if kinds.get(impl) == "external"})
    for k in shapes:
        out = []
        ratios = {}
        for impl in ("torch_cudnn", "sdpa_cudnn_torch", "torch_flash"):
            r = rows.get((impl, k))
            if not r or not r.get("paired"):
                continue
            bridge = r["paired"]["baseline"]
            d = (r.get("derived") or {}).get("ratio") or {}
            if bridge == base or kinds.get(bridge) != "phase":
                out.append(f"{impl}: not bridged (paired with {bridge}: the old method)")
                bad = 1
                continue
            b = rows.get((bridge, k))
            mb = paired_median(b) if b else None
            if mb is None:
                out.append(f"{impl}: {bridge} not timed in the run here")
                bad = 1
                continue
            q = paired_median(r) * mb
            ratios[impl] = q
            ok = d.get("method") == "bridged" and d.get("bridge") == bridge and abs(d.get("median", 0) / q - 1) < 1e-6
            bad |= not ok
            out.append(f"{impl} {q:.3f} (to {bridge} {paired_median(r):.3f} x {bridge}/{base} {mb:.3f})"
                       + ("" if ok else f"  derived.ratio disagrees: {d}"))
        if "sdpa_cudnn_torch" in ratios:
            out.append(f"cuDNNs differ {100 * (ratios['sdpa_cudnn_torch'] - 1):+.1f}%")
        rung = rows.get((a.rung, k))
        if rung and "torch_cudnn" in ratios and paired_median(rung):
            bridged = paired_median(rung) / ratios["torch_cudnn"]
            out.append(f"{a.rung} / torch_cudnn {bridged:.3f}")
            if direct is not None and k in direct:
                diff = bridged / direct[k] - 1
                compared += 1
                within += abs(diff) <= 0.01
                out.append(f"direct {direct[k]:.3f} ({100 * diff:+.1f}%)")
        print(f"{text(k):26s} " + "; ".join(out))
    if direct is not None:
        print(f"{a.rung}: bridged within 1% of the direct one-process ratio at {within} of {compared} shapes")
    if not shapes:
        print("no external rows: the run was made without --external")
        bad = 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
