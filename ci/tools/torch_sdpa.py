#!/usr/bin/env python3
"""torch_sdpa.py: PyTorch's SDPA backends as external baselines, measured by the harness's
method, written in the JSON that `attnladder run --external FILE` imports.

usage: python3 ci/tools/torch_sdpa.py --shapes B,H,Sq,Skv,D,causal ... --out FILE
         [--inner N] [--min-samples a] [--max-samples b] [--max-seconds t]
         [--rel-ci-target r] [--seed s] [--backends flash,efficient,cudnn,math]
         [--abi build/kernels/sdpa_cudnn.so ...]

Each backend (torch.nn.attention.sdpa_kernel with FLASH_ATTENTION, EFFICIENT_ATTENTION,
CUDNN_ATTENTION, MATH) runs on fp16 BHSD inputs drawn uniformly from [-1, 1) and is timed
as the harness times a phase (harness/timing.c): two synchronised calls estimate the
time, inner = ceil(2000 us / estimate) clamped to [1, --inner] calls are captured in one
CUDA graph, the graph is replayed to warm up, then each replay is timed with CUDA events
and one sample is replay time / inner, until the stop rule (harness/stats.h) says noise,
max_samples or max_time. The harness recomputes every statistic from samples_us.
Before timing, each backend's output is checked once per shape against float64 math
(all rows, or a sample of rows on large shapes).

PyTorch's is_causal is top-left aligned and the ABI's causal mask bottom-right, so causal
shapes with Sq != Skv are recorded as unsupported with that reason.

--abi loads ABI v1 shared objects through ci/abi_check.py's ctypes types and measures
them the same way in this process, for comparisons printed at the end (not written to
--out: the harness measures those itself).

Without torch (or without a CUDA device) it prints one line and exits 0 without writing.
"""
import argparse, json, math, os, struct, sys, tempfile, time

BACKENDS = [("flash", "FLASH_ATTENTION"), ("efficient", "EFFICIENT_ATTENTION"),
            ("cudnn", "CUDNN_ATTENTION"), ("math", "MATH")]
GRAPH_TARGET_US = 2000.0   # harness/run_opts.c: graph_target_us
BOUNDS = {"rel_l2": 2e-3, "max_abs": 1e-2}
FULL_REF_FLOPS = 4e10      # larger shapes are checked on a sample of rows
SAMPLE_ROWS = 512


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def parse_shape(text):
    parts = text.split(",")
    if len(parts) != 6:
        raise SystemExit(f"torch_sdpa: shape '{text}' is not B,H,Sq,Skv,D,causal")
    b, h, sq, skv, d, c = map(int, parts)
    if min(b, h, sq, skv, d) < 1 or c not in (0, 1):
        raise SystemExit(f"torch_sdpa: shape '{text}' out of range")
    return {"batch": b, "heads": h, "seq_q": sq, "seq_kv": skv, "head_dim": d, "causal": c,
            "scale": f32(1.0 / math.sqrt(d))}


def shape_text(s):
    return "{batch}x{heads}x{seq_q}x{seq_kv}x{head_dim}{c}".format(
        c=" causal" if s["causal"] else "", **s)


# ---- statistics: the stop rule of harness/stats.h ----------------------------------------

def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def percentile(sorted_xs, p):
    """Hyndman-Fan type 7, numpy's default."""
    n = len(sorted_xs)
    h = (n - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, n - 1)
    return sorted_xs[lo] + (h - lo) * (sorted_xs[hi] - sorted_xs[lo])


def bootstrap_median_ci(xs, resamples, seed, conf=0.95):
    try:
        import numpy as np
        rng = np.random.default_rng(seed)
        a = np.asarray(xs)
        meds = np.median(a[rng.integers(0, len(a), size=(resamples, len(a)))], axis=1)
        lo, hi = np.percentile(meds, [50 * (1 - conf), 50 * (1 + conf)])
        return float(lo), float(hi)
    except ImportError:
        import random
        r = random.Random(seed)
        meds = sorted(median([xs[r.randrange(len(xs))] for _ in xs]) for _ in range(resamples))
        return percentile(meds, (1 - conf) / 2), percentile(meds, (1 + conf) / 2)


def should_stop(xs, elapsed, rule, seed):
    n = len(xs)
    if n < rule["min_samples"] and elapsed < rule["max_seconds"]:
        return None
    if n >= 3:
        lo, hi = bootstrap_median_ci(xs, 200, seed)
        m = median(xs)
        if m > 0 and (hi - lo) / m <= rule["rel_ci_target"]:
            return "noise"
    if n >= rule["max_samples"]:
        return "max_samples"
    if elapsed >= rule["max_seconds"]:
        return "max_time"
    return None


# ---- measuring ------------------------------------------------------------------------

def time_graph(torch, fn, rule, inner_max, seed):
    """harness/timing.c, graph mode, for a Python callable that enqueues one call."""
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    stream = torch.cuda.current_stream()
    est_us = 0.0
    for _ in range(2):
        e0.record(stream)
        fn()
        e1.record(stream)
        e1.synchronize()
        est_us = e0.elapsed_time(e1) * 1e3
    inner = math.ceil(GRAPH_TARGET_US / max(est_us, 0.1))
    inner = max(1, min(inner_max, inner))
    # libraries allocate and pick kernels on first use: do that outside the capture
    side = torch.cuda.Stream()
    side.wait_stream(stream)
    with torch.cuda.stream(side):
        fn()
    stream.wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(inner):
            fn()
    warm = max(2, min(50, math.ceil(10e3 / (est_us * inner + 1.0))))
    for _ in range(warm):
        graph.replay()
    torch.cuda.synchronize()
    samples, stop = [], None
    t0 = time.monotonic()
    while stop is None:
        e0.record(stream)
        graph.replay()
        e1.record(stream)
        e1.synchronize()
        samples.append(e0.elapsed_time(e1) * 1e3 / inner)
        stop = should_stop(samples, time.monotonic() - t0, rule, seed + len(samples))
    del graph
    return {"inner": inner, "samples_us": [round(x, 4) for x in samples], "stop": stop}


# ---- inputs and reference --------------------------------------------------------------

def make_inputs(torch, s, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    b, h, sq, skv, d = s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"]
    q = (torch.rand(b, h, sq, d, device="cuda", generator=g) * 2 - 1).half()
    k = (torch.rand(b, h, skv, d, device="cuda", generator=g) * 2 - 1).half()
    v = (torch.rand(b, h, skv, d, device="cuda", generator=g) * 2 - 1).half()
    return q, k, v


def reference_rows(torch, q, k, v, s, rows):
    """float64 attention for the given (b, h, i) rows, bottom-right causal; rows that see
    no key are zeros. rows: LongTensor (N, 3) on the device."""
    out = torch.empty(rows.shape[0], s["head_dim"], dtype=torch.float64, device="cuda")
    skv, sq = s["seq_kv"], s["seq_q"]
    chunk = max(1, int(2 ** 27 // (skv * s["head_dim"])))   # ~1 GiB of K per chunk
    j = torch.arange(skv, device="cuda")
    for c0 in range(0, rows.shape[0], chunk):
        r = rows[c0:c0 + chunk]
        bi, hi, ii = r[:, 0], r[:, 1], r[:, 2]
        qs = q[bi, hi, ii].double()                                  # (n, d)
        ks = k[bi, hi].double()                                      # (n, skv, d)
        vs = v[bi, hi].double()
        sc = torch.einsum("nd,nkd->nk", qs, ks) * s["scale"]
        if s["causal"]:
            allowed = j[None, :] <= (ii[:, None] + (skv - sq))
            sc = sc.masked_fill(~allowed, float("-inf"))
        p = torch.softmax(sc, dim=-1).nan_to_num(0.0)
        out[c0:c0 + chunk] = torch.einsum("nk,nkd->nd", p, vs)
    return out


def check_rows(torch, s, seed):
    """All rows when the float64 reference is cheap enough, else a seeded sample that
    includes the first and last row of every head it touches."""
    b, h, sq = s["batch"], s["heads"], s["seq_q"]
    flops = 4.0 * b * h * sq * s["seq_kv"] * s["head_dim"]
    if flops <= FULL_REF_FLOPS:
        bb, hh, ii = torch.meshgrid(torch.arange(b), torch.arange(h), torch.arange(sq),
                                    indexing="ij")
        return torch.stack([bb.flatten(), hh.flatten(), ii.flatten()], 1).cuda(), "torch-fp64"
    g = torch.Generator().manual_seed(seed)
    n = SAMPLE_ROWS // 2
    bh = torch.randint(0, b * h, (n,), generator=g)
    first_last = torch.stack([bh // h, bh % h, torch.where(torch.arange(n) % 2 == 0, 0, sq - 1)], 1)
    rnd = torch.stack([torch.randint(0, b, (n,), generator=g), torch.randint(0, h, (n,), generator=g),
                       torch.randint(0, sq, (n,), generator=g)], 1)
    rows = torch.unique(torch.cat([first_last, rnd]), dim=0)
    return rows.cuda(), "torch-fp64-sampled"


def compare(torch, out, ref, rows, ref_kind):
    got = out[rows[:, 0], rows[:, 1], rows[:, 2]].double()
    nonfinite = int((~torch.isfinite(got)).sum())
    err = (got - ref).nan_to_num(float("inf"))
    rel = float(err.norm() / ref.norm().clamp_min(1e-30))
    mx = float(err.abs().max())
    ok = nonfinite == 0 and rel <= BOUNDS["rel_l2"] and mx <= BOUNDS["max_abs"]
    res = {"pass": bool(ok), "max_abs": mx, "rel_l2": rel, "nonfinite": nonfinite,
           "reference": ref_kind}
    if ref_kind.endswith("sampled"):
        res["rows_checked"] = int(rows.shape[0])
    return res


# ---- PyTorch backends ----------------------------------------------------------------

def torch_backend_point(torch, F, sdpa_kernel, backend, s, q, k, v, ref, rows, ref_kind, args):
    import warnings
    res = {"supported": False, "reason": None}
    if s["causal"] and s["seq_q"] != s["seq_kv"]:
        res["reason"] = ("PyTorch's is_causal is top-left aligned; the ABI's causal mask is "
                         "bottom-right, so only causal shapes with Sq == Skv compare")
        return res

    def call():
        return F.scaled_dot_product_attention(q, k, v, is_causal=bool(s["causal"]),
                                              scale=s["scale"])
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with sdpa_kernel(backend):
                out = call()
            torch.cuda.synchronize()
    except RuntimeError as e:   # includes torch.cuda.OutOfMemoryError
        why = []
        for w in caught:   # PyTorch says why a backend declined in UserWarnings
            text = " ".join(str(w.message).split())
            if text not in why:
                why.append(text)
        res["reason"] = "; ".join(why + [str(e).splitlines()[0]])[:600]
        torch.cuda.empty_cache()
        return res
    res["supported"] = True
    res["correctness"] = compare(torch, out, ref, rows, ref_kind)
    del out
    if not res["correctness"]["pass"]:
        return res
    with sdpa_kernel(backend):
        try:
            res["timing"] = {"graph": time_graph(torch, call, args.rule, args.inner,
                                                 args.seed)}
        except RuntimeError as e:
            res["supported"] = False
            res["reason"] = "timing failed: " + str(e).splitlines()[0][:500]
            res.pop("correctness", None)
    torch.cuda.empty_cache()
    return res


# ---- ABI shared objects (comparison only) ----------------------------------------------

def abi_point(torch, lib, s, q, k, v, ref, rows, ref_kind, args):
    import ctypes
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # ci/abi_check.py
    from abi_check import Shape, Args
    ph = lib.ph
    sh = Shape(s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"], s["causal"],
               s["scale"])
    why = ph.unsupported(ctypes.byref(sh))
    if why:
        return {"supported": False, "reason": why.decode()}
    ws_n = ph.workspace_bytes(ctypes.byref(sh))
    ws = torch.empty(max(ws_n, 1), dtype=torch.uint8, device="cuda")
    st = ctypes.c_void_p()
    rc = ph.init(ctypes.byref(st), ctypes.byref(sh))
    if rc:
        return {"supported": False, "reason": f"init failed ({rc}): {ph.error_string(rc).decode()}"}
    note = ph.error_string(0).decode()
    o = torch.full_like(q, float("nan"))

    def call():
        a = Args(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                 ws.data_ptr() if ws_n else None, torch.cuda.current_stream().cuda_stream)
        r = ph.run(st, ctypes.byref(a))
        if r:
            raise RuntimeError(f"run failed ({r}): {ph.error_string(r).decode()}")
    try:
        call()
        torch.cuda.synchronize()
        res = {"supported": True, "init_note": note,
               "correctness": compare(torch, o, ref, rows, ref_kind)}
        if res["correctness"]["pass"]:
            res["timing"] = {"graph": time_graph(torch, call, args.rule, args.inner, args.seed)}
    except RuntimeError as e:
        res = {"supported": False, "reason": str(e)[:600], "init_note": note}
    finally:
        torch.cuda.synchronize()
        ph.fini(st)
    return res


# ---- output --------------------------------------------------------------------------

def summary(timing, seed):
    xs = timing["graph"]["samples_us"]
    lo, hi = bootstrap_median_ci(xs, 2000, seed)
    return median(xs), lo, hi, len(xs)


def ratio_ci(a, b, seed, resamples=2000):
    import random
    r = random.Random(seed)
    rs = sorted(median([a[r.randrange(len(a))] for _ in a]) /
                median([b[r.randrange(len(b))] for _ in b]) for _ in range(resamples))
    return median(a) / median(b), percentile(rs, 0.025), percentile(rs, 0.975)


def line(name, s, res, seed):
    if not res["supported"]:
        return f"{name:16s} {shape_text(s):28s} unsupported: {res['reason']}"
    c = res["correctness"]
    text = (f"{name:16s} {shape_text(s):28s} rel_l2={c['rel_l2']:.2e} max_abs={c['max_abs']:.2e} "
            f"{'PASS' if c['pass'] else 'FAIL'}")
    if "timing" in res:
        m, lo, hi, n = summary(res["timing"], seed)
        g = res["timing"]["graph"]
        flops = 4.0 * s["batch"] * s["heads"] * s["seq_q"] * s["seq_kv"] * s["head_dim"]
        if s["causal"]:
            flops /= 2
        text += (f"  {m:10.3f} us [{lo:.3f}, {hi:.3f}] n={n} inner={g['inner']} ({g['stop']})"
                 f"  {flops / m / 1e6:7.1f} TFLOP/s")
    return text


def write_atomic(path, obj):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".torch_sdpa.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=["1,8,512,512,64,0", "1,8,512,512,64,1"])
    ap.add_argument("--inner", type=int, default=20)
    ap.add_argument("--min-samples", type=int, default=10)
    ap.add_argument("--max-samples", type=int, default=200)
    ap.add_argument("--max-seconds", type=float, default=1.0)
    ap.add_argument("--rel-ci-target", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--backends", default="flash,efficient,cudnn,math",
                    help="comma-separated subset of flash,efficient,cudnn,math (or none)")
    ap.add_argument("--abi", nargs="*", default=[], help="ABI v1 .so files to compare")
    ap.add_argument("--out", help="JSON file to write")
    args = ap.parse_args()
    shapes = [parse_shape(t) for t in args.shapes]
    chosen = [b for b in args.backends.split(",") if b and b != "none"]
    unknown = set(chosen) - {n for n, _ in BACKENDS}
    if unknown:
        raise SystemExit(f"torch_sdpa: unknown backends {sorted(unknown)}")
    if args.inner < 1 or args.min_samples < 1 or args.max_samples < args.min_samples:
        raise SystemExit("torch_sdpa: need inner >= 1 and 1 <= min-samples <= max-samples")
    args.rule = {"min_samples": args.min_samples, "max_samples": args.max_samples,
                 "max_seconds": args.max_seconds, "rel_ci_target": args.rel_ci_target}

    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import sdpa_kernel, SDPBackend
    except Exception as e:   # ImportError, or a broken install
        print(f"torch_sdpa: skipped (no torch: {type(e).__name__}: {e})")
        return 0
    if not torch.cuda.is_available():
        print(f"torch_sdpa: skipped (no torch: torch {torch.__version__} sees no CUDA device)")
        return 0

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    libs = []
    for path in args.abi:
        import ctypes
        from abi_check import Phase
        lib = ctypes.CDLL(os.path.abspath(path))
        lib.ph = Phase.in_dll(lib, "attn_phase_entry")
        lib.path = path
        libs.append(lib)

    try:   # torch refuses a cuDNN other than its own (e.g. one put first by LD_PRELOAD)
        cudnn_v = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        cudnn_text = (f"{cudnn_v // 10000}.{cudnn_v % 10000 // 100}.{cudnn_v % 100}"
                      if cudnn_v else "unavailable")
    except RuntimeError as e:
        cudnn_v, cudnn_text = None, "unusable: " + " ".join(str(e).split())[:200]
    context = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": cudnn_v,
               "device": torch.cuda.get_device_name(), "argv": sys.argv,
               "method": {"inner": args.inner, "graph_target_us": GRAPH_TARGET_US, **args.rule,
                          "seed": args.seed, "bounds": BOUNDS}}
    print(f"torch_sdpa: torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {cudnn_text},"
          f" {context['device']}", flush=True)
    impls = []
    for name, _ in BACKENDS:
        if name in chosen:
            extra = f", cuDNN {cudnn_text}" if name == "cudnn" else ""
            impls.append({"name": f"torch_{name}", "kind": "external",
                          "title": f"PyTorch SDPA {name} backend (torch {torch.__version__}{extra})"})
    results, compared = [], []
    for si, s in enumerate(shapes):
        seed = args.seed + si
        q, k, v = make_inputs(torch, s, seed)
        rows, ref_kind = check_rows(torch, s, seed)
        ref = reference_rows(torch, q, k, v, s, rows)
        per_shape = {}
        for name, enum_name in BACKENDS:
            if name not in chosen:
                continue
            res = torch_backend_point(torch, F, sdpa_kernel, getattr(SDPBackend, enum_name), s,
                                      q, k, v, ref, rows, ref_kind, args)
            results.append({"impl": f"torch_{name}", "shape": s, **res})
            per_shape[f"torch_{name}"] = res
            print(line(f"torch_{name}", s, res, args.seed), flush=True)
        for lib in libs:
            res = abi_point(torch, lib, s, q, k, v, ref, rows, ref_kind, args)
            nm = lib.ph.name.decode()
            per_shape[nm] = res
            print(line(nm, s, res, args.seed), flush=True)
            if res.get("init_note"):
                print(f"{'':16s} init_note: {res['init_note']}", flush=True)
        compared.append((s, per_shape))
        del q, k, v, ref, rows
        torch.cuda.empty_cache()

    for lib in libs:
        nm = lib.ph.name.decode()
        for s, per in compared:
            a, b = per.get(nm, {}), per.get("torch_cudnn", {})
            if "timing" in a and "timing" in b:
                r, lo, hi = ratio_ci(a["timing"]["graph"]["samples_us"],
                                     b["timing"]["graph"]["samples_us"], args.seed)
                print(f"ratio {nm} / torch_cudnn  {shape_text(s):28s} {r:.3f} [{lo:.3f}, {hi:.3f}]")
    if args.out:
        write_atomic(args.out, {"implementations": impls, "results": results, "context": context})
        print(f"torch_sdpa: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
