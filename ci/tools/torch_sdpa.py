#!/usr/bin/env python3
"""torch_sdpa.py: PyTorch's SDPA backends as external baselines, timed in rotation with the
C baseline (sdpa_cudnn) in one process, written in the JSON that `attnladder run --external
FILE` imports.

usage: python3 ci/tools/torch_sdpa.py --shapes B,H,Sq,Skv,D,causal ... --out FILE
         [--abi build/kernels/sdpa_cudnn.so build/phases/10_latency.so ...] [--bridge NAME]
         [--backends flash,efficient,cudnn,math]
         [--inner N] [--min-rounds a] [--max-rounds b] [--max-seconds t]
         [--rel-ci-target r] [--min-gpu-seconds g] [--seed s]

Each backend (torch.nn.attention.sdpa_kernel with FLASH_ATTENTION, EFFICIENT_ATTENTION,
CUDNN_ATTENTION, MATH) runs on fp16 BHSD inputs drawn uniformly from [-1, 1) and its output
is checked once per shape against float64 math (all rows, or a sample of rows on large
shapes). --abi loads ABI v1 shared objects through ci/abi_check.py's ctypes types; they are
checked the same way.

The bridge (--bridge NAME, one of the --abi objects: a rung, whose machine code does not
depend on cuDNN). In this process sdpa_cudnn binds to the cuDNN PyTorch loaded first
(PyTorch's own, 9.19 with PyTorch 2.11), not the machine's that the harness's run loads
(9.14 on the GPU machines): a ratio to it here is a ratio to another library than the
run's baseline. With --bridge every ratio here is to the bridge, which the run also times
in rotation with its baseline; `attnladder run --external` multiplies the two paired
ratios (harness/core/stats.h, stats_bridged_ratio_ci: both processes' rounds
bootstrapped). sdpa_cudnn is then written as one more external result,
`sdpa_cudnn_torch` (the C baseline on PyTorch's cuDNN), so the run shows both cuDNNs
against its own baseline. Without --bridge the denominator is sdpa_cudnn on PyTorch's
cuDNN, as before.

Timing (the rotation): at each shape every implementation that passed its check gets one
CUDA graph of its own `inner` calls (two synchronised calls estimate a call's time, inner =
ceil(2000 us / estimate) clamped to [1, --inner]; libraries allocate and pick kernels, and
an ABI object initialises, outside the capture; an ABI `run` is enqueued on the capture
stream). After warm-up rounds, each round replays every graph once, in an order drawn from
a seeded RNG, each replay between two CUDA events and synchronised; a sample is replay time
/ inner. The ratio of an implementation to sdpa_cudnn is the median of the per-round
quotients with a 95% percentile-bootstrap CI over rounds (2000 resamples, seeded). Rounds
stop after at least --min-rounds and --min-gpu-seconds of timed GPU time (all graphs) once
every ratio's CI is at most --rel-ci-target of its median (checked every 5 rounds):
"noise"; or at --max-rounds ("max_samples") or after --max-seconds of the shape's rotation
("max_time"). A clock swing inside a round moves both sides of its quotient alike.

Where no sdpa_cudnn object is given, or it is unsupported or failed at a shape, the backends
are timed one at a time there as the harness times a phase (harness/measure/timing.c: the same
graphs, replayed until the stop rule of harness/core/stats.h), with no `paired` block; the
printed line says so.

Output: results[] of the PyTorch backends only (the harness measures the ABI objects
itself), each timed one with timing.graph = {inner, samples_us, stop, regime: "rotation" |
"separate", gpu_s, wall_s} and, in rotation, paired = {baseline, design, inner, n, stop,
gpu_s, wall_s, impl_us, baseline_us, impl_first} (evidence/SCHEMA.md, results[].paired);
paired.baseline is the bridge when there is one. context.cudnn and context.cudnn_path name
the cuDNN loaded in this process (read from /proc/self/maps once it is loaded), and each
implementation that runs on it carries library = {name, version, path, of}.

PyTorch's is_causal is top-left aligned and the ABI's causal mask bottom-right, so causal
shapes with Sq != Skv are recorded as unsupported with that reason.

Without torch (or without a CUDA device) it prints one line and exits 0 without writing.
"""
import argparse, json, math, os, random, struct, sys, tempfile, time

# ci/abi_check.py (the ABI's ctypes types) sits one directory up, whatever the caller's
# working directory; it imports torch, so it is imported once torch is known to be there.
CI_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
if CI_DIR not in sys.path:
    sys.path.insert(0, CI_DIR)

BACKENDS = [("flash", "FLASH_ATTENTION"), ("efficient", "EFFICIENT_ATTENTION"),
            ("cudnn", "CUDNN_ATTENTION"), ("math", "MATH")]
BASELINE = "sdpa_cudnn"     # the C baseline: the ratios' denominator when there is no bridge
ON_TORCH_CUDNN = "sdpa_cudnn_torch"   # the C baseline's result here, on PyTorch's cuDNN
GRAPH_TARGET_US = 2000.0    # harness/measure/run_options.c: graph_target_us
CHECK_EVERY = 5             # rounds between two looks at the ratios' CIs
RESAMPLES = 2000            # bootstrap resamples of a ratio's CI
CONF = 0.95
BOUNDS = {"rel_l2": 2e-3, "max_abs": 1e-2}
FULL_REF_FLOPS = 4e10       # larger shapes are checked on a sample of rows
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


def cudnn_library(maps_text):
    """The path of the cuDNN library mapped into a process, from its /proc/<pid>/maps text
    (libcudnn.so.N itself, not libcudnn_graph or the engine libraries), or None."""
    for row in maps_text.splitlines():
        path = row.split(None, 5)[5].strip() if len(row.split(None, 5)) == 6 else ""
        if os.path.basename(path).startswith("libcudnn.so"):
            return path
    return None


def cudnn_text(v):
    """cuDNN's version number (91900) as text (9.19.0)."""
    return f"{v // 10000}.{v % 10000 // 100}.{v % 100}" if v else "unavailable"


def abi_types():
    """(Phase, Shape, Args) of ci/abi_check.py; needs torch importable (abi_check imports it)."""
    import abi_check
    return abi_check.Phase, abi_check.Shape, abi_check.Args


# ---- statistics --------------------------------------------------------------------------

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


def bootstrap_median_ci(xs, resamples, seed, conf=CONF):
    """Percentile-bootstrap CI of the median of xs (numpy when there, else the same in
    Python; each is deterministic for a seed)."""
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        rng = np.random.default_rng(seed)
        a = np.asarray(xs, dtype=float)
        meds = np.median(a[rng.integers(0, len(a), size=(resamples, len(a)))], axis=1)
        lo, hi = np.percentile(meds, [50 * (1 - conf), 50 * (1 + conf)])
        return float(lo), float(hi)
    r = random.Random(seed)
    n = len(xs)
    meds = sorted(median(r.choices(xs, k=n)) for _ in range(resamples))
    return percentile(meds, (1 - conf) / 2), percentile(meds, (1 + conf) / 2)


def paired_ratio(impl_us, base_us, seed, resamples=RESAMPLES, conf=CONF):
    """The paired ratio impl / baseline: the median of the per-round quotients
    impl_us[i] / base_us[i], and the percentile-bootstrap CI of that median over rounds."""
    if len(impl_us) != len(base_us) or not impl_us:
        raise ValueError("paired_ratio: need two equally long, non-empty series")
    q = [a / b for a, b in zip(impl_us, base_us)]
    lo, hi = bootstrap_median_ci(q, resamples, seed, conf)
    return median(q), lo, hi


def should_stop(xs, elapsed, rule, seed):
    """The separate measurement's stop rule (harness/core/stats.h)."""
    n = len(xs)
    if n < rule["min_rounds"] and elapsed < rule["max_seconds"]:
        return None
    if n >= 3:
        lo, hi = bootstrap_median_ci(xs, 200, seed)
        m = median(xs)
        if m > 0 and (hi - lo) / m <= rule["rel_ci_target"]:
            return "noise"
    if n >= rule["max_rounds"]:
        return "max_samples"
    if elapsed >= rule["max_seconds"]:
        return "max_time"
    return None


def rotation_stop(n, gpu_s, wall_s, widths, rule):
    """Why the rotation stops after round n, or None. gpu_s: timed GPU time of all graphs so
    far; wall_s: the rotation's host time; widths(): each ratio's relative CI width (called
    only on a look: every CHECK_EVERY rounds once min_rounds and min_gpu_s are reached)."""
    if (n >= rule["min_rounds"] and gpu_s >= rule["min_gpu_s"]
            and n % rule.get("check_every", CHECK_EVERY) == 0
            and all(w <= rule["rel_ci_target"] for w in widths())):
        return "noise"
    if n >= rule["max_rounds"]:
        return "max_samples"
    if wall_s >= rule["max_seconds"] and n >= 2:
        return "max_time"
    return None


def draw_order(rng, names):
    """One round's order: a permutation of names drawn from rng (random.Random)."""
    order = list(names)
    rng.shuffle(order)
    return order


def rotate(names, inner, replay, baseline, rule, seed, warm_rounds=2, clock=time.monotonic):
    """The rotation at one shape. names: the implementations with a graph, baseline among
    them; inner[name]: calls per replay; replay(name): replays that graph once, timed, and
    returns the replay's GPU time in us. Warm-up rounds first (untimed), then rounds in an
    order drawn from random.Random(seed) until rotation_stop. Returns {"n", "stop",
    "wall_s", "gpu_s" (per name), "inner", "samples" (per name: per-call us, rounded to 4
    decimals), "impl_first" (per name other than the baseline: 1 where it ran before the
    baseline in that round), "order" (each round's order)}."""
    if baseline not in names or len(set(names)) != len(names):
        raise ValueError("rotate: names must be distinct and hold the baseline")
    others = [x for x in names if x != baseline]
    for _ in range(warm_rounds):
        for x in names:
            replay(x)
    rng = random.Random(seed)
    samples = {x: [] for x in names}
    first = {x: [] for x in others}
    gpu = {x: 0.0 for x in names}
    orders = []
    t0 = clock()
    n, stop = 0, None

    def widths():
        out = []
        for x in others:
            m, lo, hi = paired_ratio(samples[x], samples[baseline], seed)
            out.append((hi - lo) / m)
        return out
    while stop is None:
        order = draw_order(rng, names)
        for x in order:
            t = replay(x)
            per = round(t / inner[x], 4) if isinstance(t, (int, float)) and math.isfinite(t) else 0
            if not per > 0:
                raise RuntimeError(f"{x}: replay time {t!r} us is not a finite time > 0")
            samples[x].append(per)
            gpu[x] += t * 1e-6
        pos = {x: i for i, x in enumerate(order)}
        for x in others:
            first[x].append(int(pos[x] < pos[baseline]))
        orders.append(order)
        n += 1
        stop = rotation_stop(n, sum(gpu.values()), clock() - t0, widths, rule)
    return {"n": n, "stop": stop, "wall_s": clock() - t0, "gpu_s": gpu, "inner": dict(inner),
            "samples": samples, "impl_first": first, "order": orders}


def rotation_timing(rot, name, baseline):
    """A rotated implementation's result blocks: (timing, paired) as written to --out."""
    graph = {"inner": rot["inner"][name], "samples_us": list(rot["samples"][name]),
             "stop": rot["stop"], "regime": "rotation",
             "gpu_s": rot["gpu_s"][name], "wall_s": rot["wall_s"]}
    paired = {"baseline": baseline, "design": "rotation", "inner": rot["inner"][name],
              "baseline_inner": rot["inner"][baseline], "n": rot["n"], "stop": rot["stop"],
              "gpu_s": rot["gpu_s"][name] + rot["gpu_s"][baseline], "wall_s": rot["wall_s"],
              "impl_us": list(rot["samples"][name]),
              "baseline_us": list(rot["samples"][baseline]),
              "impl_first": list(rot["impl_first"][name])}
    return {"graph": graph}, paired


# ---- measuring on the GPU -------------------------------------------------------------------

def capture(torch, fn, inner_max):
    """One CUDA graph of `inner` back-to-back calls of fn (a callable that enqueues one call
    on the current stream): {"graph", "inner", "est_us"}."""
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
    torch.cuda.synchronize()
    return {"graph": graph, "inner": inner, "est_us": est_us}


def event_replay(torch, caps):
    """replay(name) for rotate: one replay of caps[name]'s graph between two CUDA events,
    synchronised; returns its time in us."""
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)

    def replay(name):
        stream = torch.cuda.current_stream()
        e0.record(stream)
        caps[name]["graph"].replay()
        e1.record(stream)
        e1.synchronize()
        return e0.elapsed_time(e1) * 1e3
    return replay


def warm_round_count(caps):
    """Untimed rounds before the rotation: about 10 ms of replays, 2 to 50 rounds."""
    round_us = sum(c["est_us"] * c["inner"] for c in caps.values())
    return max(2, min(50, math.ceil(10e3 / (round_us + 1.0))))


def time_separate(torch, cap, rule, seed):
    """harness/measure/timing.c, graph mode: cap's graph replayed alone until the stop rule."""
    replay = event_replay(torch, {"x": cap})
    for _ in range(warm_round_count({"x": cap})):
        replay("x")
    samples, stop, gpu_s = [], None, 0.0
    t0 = time.monotonic()
    while stop is None:
        t = replay("x")
        gpu_s += t * 1e-6
        samples.append(round(t / cap["inner"], 4))
        stop = should_stop(samples, time.monotonic() - t0, rule, seed + len(samples))
    return {"inner": cap["inner"], "samples_us": samples, "stop": stop, "regime": "separate",
            "gpu_s": gpu_s, "wall_s": time.monotonic() - t0}


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


# ---- the implementations at a shape: check, then capture ----------------------------------

def torch_backend_prepare(torch, F, sdpa_kernel, backend, s, q, k, v, ref, rows, ref_kind, args):
    """(result, capture or None): the backend's check and, when it passed, its graph."""
    import warnings
    res = {"supported": False, "reason": None}
    if s["causal"] and s["seq_q"] != s["seq_kv"]:
        res["reason"] = ("PyTorch's is_causal is top-left aligned; the ABI's causal mask is "
                         "bottom-right, so only causal shapes with Sq == Skv compare")
        return res, None

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
        return res, None
    res["supported"] = True
    res["correctness"] = compare(torch, out, ref, rows, ref_kind)
    del out
    if not res["correctness"]["pass"]:
        return res, None
    try:
        with sdpa_kernel(backend):
            cap = capture(torch, call, args.inner)
    except RuntimeError as e:
        torch.cuda.empty_cache()
        return timing_failed(res, e), None
    return res, cap


def timing_failed(res, e):
    res["supported"] = False
    res["reason"] = "timing failed: " + (str(e).splitlines() or [""])[0][:500]
    res.pop("correctness", None)
    res.pop("timing", None)
    return res


def abi_prepare(torch, lib, s, q, k, v, ref, rows, ref_kind, args, types, cleanup):
    """(result, capture or None) of an ABI object: unsupported(), init (outside any
    capture), one checked run, then its graph with `run` enqueued on the capture stream.
    Appends the object's fini to cleanup (called once its graph is gone)."""
    import ctypes
    _, Shape, Args = types
    ph = lib.ph
    sh = Shape(s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"], s["causal"],
               s["scale"])
    why = ph.unsupported(ctypes.byref(sh))
    if why:
        return {"supported": False, "reason": why.decode()}, None
    ws_n = ph.workspace_bytes(ctypes.byref(sh))
    ws = torch.empty(max(ws_n, 1), dtype=torch.uint8, device="cuda")
    st = ctypes.c_void_p()
    rc = ph.init(ctypes.byref(st), ctypes.byref(sh))
    if rc:
        return ({"supported": False,
                 "reason": f"init failed ({rc}): {ph.error_string(rc).decode()}"}, None)
    note = ph.error_string(0).decode()
    o = torch.full_like(q, float("nan"))

    def fini(st=st, keep=(ws, o)):
        torch.cuda.synchronize()
        ph.fini(st)
    cleanup.append(fini)

    def call():
        a = Args(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                 ws.data_ptr() if ws_n else None, torch.cuda.current_stream().cuda_stream)
        r = ph.run(st, ctypes.byref(a))
        if r:
            raise RuntimeError(f"run failed ({r}): {ph.error_string(r).decode()}")
    try:
        call()
        torch.cuda.synchronize()
    except RuntimeError as e:
        return {"supported": False, "reason": str(e)[:600], "init_note": note}, None
    res = {"supported": True, "reason": None, "init_note": note,
           "correctness": compare(torch, o, ref, rows, ref_kind)}
    if not res["correctness"]["pass"]:
        return res, None
    try:
        return res, capture(torch, call, args.inner)
    except RuntimeError as e:
        return timing_failed(res, e), None


def measure_shape(torch, caps, results, baseline_why, args, seed):
    """Times the captured graphs of one shape: in rotation when the denominator (the bridge,
    else the baseline) has a graph and something else does too, else each alone. Fills
    results[name]["timing"] (and ["paired"]); returns the rotation's ratios {name: (median,
    lo, hi, n)}."""
    ratios = {}
    den = args.denominator
    if den in caps and len(caps) > 1:
        names = list(caps)
        try:
            rot = rotate(names, {x: caps[x]["inner"] for x in names}, event_replay(torch, caps),
                         den, args.rot_rule, seed, warm_rounds=warm_round_count(caps))
        except RuntimeError as e:
            for x in names:
                timing_failed(results[x], e)
            return ratios
        for x in names:
            if x == den:
                results[x]["timing"] = {"graph": {
                    "inner": rot["inner"][x], "samples_us": rot["samples"][x],
                    "stop": rot["stop"], "regime": "rotation", "gpu_s": rot["gpu_s"][x],
                    "wall_s": rot["wall_s"]}}
                continue
            results[x]["timing"], results[x]["paired"] = rotation_timing(rot, x, den)
            m, lo, hi = paired_ratio(rot["samples"][x], rot["samples"][den], seed)
            ratios[x] = (m, lo, hi, rot["n"])
        return ratios
    for x, cap in caps.items():
        try:
            results[x]["timing"] = {"graph": time_separate(torch, cap, args.sep_rule, seed)}
        except RuntimeError as e:
            timing_failed(results[x], e)
            continue
        if x != den:
            results[x]["separate_why"] = baseline_why
    return ratios


# ---- output --------------------------------------------------------------------------

def summary(graph, seed):
    xs = graph["samples_us"]
    lo, hi = bootstrap_median_ci(xs, RESAMPLES, seed)
    return median(xs), lo, hi, len(xs)


def line(name, s, res, seed, ratio=None, den=BASELINE):
    """The printed line of one implementation at one shape; ratio: (median, lo, hi, n) of
    its paired ratio to den (the bridge, else the baseline)."""
    if not res["supported"]:
        return f"{name:16s} {shape_text(s):28s} unsupported: {res['reason']}"
    c = res["correctness"]
    text = (f"{name:16s} {shape_text(s):28s} rel_l2={c['rel_l2']:.2e} max_abs={c['max_abs']:.2e} "
            f"{'PASS' if c['pass'] else 'FAIL'}")
    if "timing" in res:
        g = res["timing"]["graph"]
        m, lo, hi, n = summary(g, seed)
        flops = 4.0 * s["batch"] * s["heads"] * s["seq_q"] * s["seq_kv"] * s["head_dim"]
        if s["causal"]:
            flops /= 2
        text += (f"  {m:10.3f} us [{lo:.3f}, {hi:.3f}] n={n} inner={g['inner']} ({g['stop']})"
                 f"  {flops / m / 1e6:7.1f} TFLOP/s")
        if ratio:
            r, rlo, rhi, rn = ratio
            text += f"  / {den} {r:.3f} [{rlo:.3f}, {rhi:.3f}] n={rn} (rotation)"
        elif name != den:
            text += f"  separate, no paired ratio: {res.get('separate_why') or 'no baseline'}"
    return text


def ratio_table(names, compared, den=BASELINE):
    """The end-of-run table: each implementation / den (the bridge, else the baseline) at
    each shape, from the rotation's paired ratios; compared: [(shape, {name: (median, lo,
    hi, n)})]."""
    shown = [x for x in names if any(x in r for _, r in compared)]
    if not shown:
        return [f"torch_sdpa: no paired ratio to {den} (no rotation ran)"]
    w = 26
    out = [f"{'paired ratio / ' + den:28s} " + " ".join(f"{x:>{w}s}" for x in shown)]
    for s, r in compared:
        cells = []
        for x in shown:
            if x in r:
                m, lo, hi, n = r[x]
                cells.append(f"{f'{m:.3f} [{lo:.3f},{hi:.3f}] n={n}':>{w}s}")
            else:
                cells.append(f"{'-':>{w}s}")
        out.append(f"{shape_text(s):28s} " + " ".join(cells))
    return out


def write_atomic(path, obj):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".torch_sdpa.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=["1,8,512,512,64,0", "1,8,512,512,64,1"])
    ap.add_argument("--inner", type=int, default=20, help="most calls in one graph")
    ap.add_argument("--min-rounds", "--min-samples", dest="min_rounds", type=int, default=30)
    ap.add_argument("--max-rounds", "--max-samples", dest="max_rounds", type=int, default=400)
    ap.add_argument("--max-seconds", type=float, default=3.0, help="per shape's rotation")
    ap.add_argument("--min-gpu-seconds", type=float, default=0.25,
                    help="timed GPU time of a rotation (all graphs) before it may stop on noise")
    ap.add_argument("--rel-ci-target", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--backends", default="flash,efficient,cudnn,math",
                    help="comma-separated subset of flash,efficient,cudnn,math (or none)")
    ap.add_argument("--abi", nargs="*", default=[],
                    help=f"ABI v1 .so files timed in the rotation ({BASELINE} is the baseline)")
    ap.add_argument("--bridge", default=None,
                    help="name of an --abi object (a rung) every ratio here is taken to; the run "
                         "times it against its own baseline")
    ap.add_argument("--out", help="JSON file to write")
    args = ap.parse_args(argv)
    args.shape_list = [parse_shape(t) for t in args.shapes]
    args.chosen = [b for b in args.backends.split(",") if b and b != "none"]
    unknown = set(args.chosen) - {n for n, _ in BACKENDS}
    if unknown:
        ap.error(f"unknown backends {sorted(unknown)}")
    if args.inner < 1 or args.min_rounds < 1 or args.max_rounds < args.min_rounds:
        ap.error("need --inner >= 1 and 1 <= --min-rounds <= --max-rounds")
    if not (args.max_seconds > 0 and args.min_gpu_seconds >= 0 and args.rel_ci_target > 0):
        ap.error("need --max-seconds > 0, --min-gpu-seconds >= 0, --rel-ci-target > 0")
    for p in args.abi:
        if not os.path.isfile(p):
            ap.error(f"--abi {p}: no such file (build it first: make kernels)")
    if args.bridge is not None and (not args.bridge or args.bridge == BASELINE):
        ap.error(f"--bridge must name a rung among the --abi objects, not {args.bridge!r}")
    args.denominator = args.bridge or BASELINE
    args.rot_rule = {"min_rounds": args.min_rounds, "max_rounds": args.max_rounds,
                     "max_seconds": args.max_seconds, "min_gpu_s": args.min_gpu_seconds,
                     "rel_ci_target": args.rel_ci_target, "check_every": CHECK_EVERY}
    args.sep_rule = {"min_rounds": args.min_rounds, "max_rounds": args.max_rounds,
                     "max_seconds": args.max_seconds, "rel_ci_target": args.rel_ci_target}
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import sdpa_kernel, SDPBackend
    except Exception as e:   # ImportError, or a broken install
        print(f"torch_sdpa: skipped (no torch: {type(e).__name__}: {e})")
        return 0
    types = abi_types() if args.abi else None
    if not torch.cuda.is_available():
        print(f"torch_sdpa: skipped (no torch: torch {torch.__version__} sees no CUDA device)")
        return 0

    import ctypes
    libs = []
    for path in args.abi:
        lib = ctypes.CDLL(os.path.abspath(path))
        lib.ph = types[0].in_dll(lib, "attn_phase_entry")
        if lib.ph.abi_version != 1:
            raise SystemExit(f"torch_sdpa: {path}: abi_version {lib.ph.abi_version}, not 1")
        lib.path = path
        libs.append(lib)
    abi_names = [lib.ph.name.decode() for lib in libs]
    if len(set(abi_names)) != len(abi_names):
        raise SystemExit(f"torch_sdpa: --abi names an implementation twice: {abi_names}")
    den = args.denominator
    if args.bridge and args.bridge not in abi_names:
        raise SystemExit(f"torch_sdpa: --bridge {args.bridge}: not among the --abi objects {abi_names}")
    has_base = den in abi_names
    bridged = bool(args.bridge) and BASELINE in abi_names

    try:   # torch refuses a cuDNN other than its own (e.g. one put first by LD_PRELOAD)
        cudnn_v = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        cudnn_t = cudnn_text(cudnn_v)
    except RuntimeError as e:
        cudnn_v, cudnn_t = None, "unusable: " + " ".join(str(e).split())[:200]
    # the library this process loaded (torch's version call above loads it), by its mapping
    try:
        with open("/proc/self/maps") as f:
            cudnn_path = cudnn_library(f.read())
    except OSError:
        cudnn_path = None
    torch_short = torch.__version__.split("+")[0]
    library = {"name": "cuDNN", "version": cudnn_v, "path": cudnn_path,
               "of": f"PyTorch {torch_short}'s"}
    context = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": cudnn_v,
               "cudnn_path": cudnn_path,
               "device": torch.cuda.get_device_name(), "argv": sys.argv,
               "method": {"design": "rotation" if has_base else "separate",
                          "baseline": BASELINE if BASELINE in abi_names else None,
                          "bridge": args.bridge if has_base and args.bridge else None,
                          "abi": [{"name": nm, "path": lib.path} for nm, lib in zip(abi_names, libs)],
                          "inner": args.inner, "graph_target_us": GRAPH_TARGET_US,
                          **args.rot_rule, "bootstrap_resamples": RESAMPLES, "conf": CONF,
                          "seed": args.seed, "bounds": BOUNDS}}
    print(f"torch_sdpa: torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {cudnn_t}"
          f" ({cudnn_path or 'path not found'}), {context['device']}; "
          + (f"in rotation with {den}" if has_base else f"separate (no --abi {den})"),
          flush=True)
    impls = []
    for name, _ in BACKENDS:
        if name in args.chosen:
            extra = f", cuDNN {cudnn_t}" if name == "cudnn" else ""
            impl = {"name": f"torch_{name}", "kind": "external",
                    "title": f"PyTorch SDPA {name} backend (torch {torch.__version__}{extra})"}
            if name == "cudnn":
                impl["library"] = library
            impls.append(impl)
    if bridged:
        impls.append({"name": ON_TORCH_CUDNN, "kind": "external", "library": library,
                      "title": f"the C baseline on cuDNN {cudnn_t} (PyTorch {torch_short}'s)"})
    out_results, compared = [], []
    order = [f"torch_{n}" for n, _ in BACKENDS if n in args.chosen] + abi_names
    for si, s in enumerate(args.shape_list):
        seed = args.seed + si
        q, k, v = make_inputs(torch, s, seed)
        rows, ref_kind = check_rows(torch, s, seed)
        ref = reference_rows(torch, q, k, v, s, rows)
        results, caps, cleanup = {}, {}, []
        for name, enum_name in BACKENDS:
            if name not in args.chosen:
                continue
            res, cap = torch_backend_prepare(torch, F, sdpa_kernel, getattr(SDPBackend, enum_name),
                                             s, q, k, v, ref, rows, ref_kind, args)
            results[f"torch_{name}"] = res
            if cap:
                caps[f"torch_{name}"] = cap
        for lib, nm in zip(libs, abi_names):
            res, cap = abi_prepare(torch, lib, s, q, k, v, ref, rows, ref_kind, args, types,
                                   cleanup)
            results[nm] = res
            if cap:
                caps[nm] = cap
        if not has_base:
            why = f"no --abi {den}"
        elif den not in caps:
            b = results[den]
            why = (f"{den} unsupported here: {b['reason']}" if not b["supported"] else
                   f"{den} failed its check")
        else:
            why = None
        ratios = measure_shape(torch, caps, results, why, args, seed)
        caps.clear()
        for f in cleanup:
            f()
        for nm in order:
            res = results[nm]
            print(line(nm, s, res, args.seed, ratios.get(nm), den), flush=True)
            if res.get("init_note"):
                print(f"{'':16s} init_note: {res['init_note']}", flush=True)
            if nm.startswith("torch_") or (bridged and nm == BASELINE):
                res.pop("separate_why", None)
                out_results.append({"impl": ON_TORCH_CUDNN if nm == BASELINE else nm, "shape": s, **res})
        compared.append((s, ratios))
        del q, k, v, ref, rows
        torch.cuda.empty_cache()

    for text in ratio_table([x for x in order if x != den], compared, den):
        print(text)
    if args.out:
        write_atomic(args.out, {"implementations": impls, "results": out_results,
                                "context": context})
        print(f"torch_sdpa: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
