#!/usr/bin/env python3
"""tune_06.py: the tuning sweep behind phases/06_tiling/config_table.h.

For each shape it runs every candidate tile configuration of build/phases/06_tiling.so
(chosen through the ATTN06_CONFIG tuning override), checks each against PyTorch fp64,
times each as a CUDA graph of back-to-back launches (median of the replays), times the
table's own choice (no override) and PyTorch's cuDNN SDPA backend the same way, and writes
everything as JSON. With --final it also measures the table's choice against cuDNN in
interleaved samples and gives the ratio's 95% bootstrap CI.

usage: python3 ci/tune_06.py build/phases/06_tiling.so --out tuning.json
           [--groups headline,small,sweep] [--final SHAPE ...] [--budget SECONDS]
       python3 ci/tune_06.py SO --out X --check CONFIG|table ... --check-shapes SHAPE ...
       python3 ci/tune_06.py SO --out X --profile SHAPE CONFIG|table      (under ncu)
       python3 ci/tune_06.py SO --out X --derive TUNING_JSON   (the table; no GPU needed;
           the committed one: evidence/nvidia-h100-80gb-hbm3/studies/tuning/tuning_06_tiling.json.xz)
       SHAPE is B,H,Sq,Skv,D,causal; CONFIG is bm=,bn=,w=,st=,split=[,wn=].
"""
import argparse, ctypes, json, math, os, random, sys, time
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from abi_check import Shape, Args, Phase  # the ABI v1 structs, one definition

# Mirrors TILING_VARIANTS in phases/06_tiling/config_table.h: (D, BM, BN, WARPS, STAGES, WN).
VARIANTS = [
    (64, 16, 64, 1, 2, 1), (64, 32, 64, 2, 2, 1), (64, 64, 64, 4, 2, 1), (64, 64, 128, 4, 2, 1),
    (64, 64, 64, 2, 2, 1), (64, 128, 64, 4, 2, 1), (64, 128, 128, 4, 2, 1), (64, 128, 64, 4, 3, 1),
    (64, 16, 128, 4, 2, 4), (64, 32, 128, 4, 2, 2), (64, 32, 128, 8, 2, 4), (64, 64, 128, 8, 2, 2),
    (64, 64, 128, 16, 2, 4), (64, 64, 64, 8, 2, 2),
    (128, 32, 64, 2, 2, 1), (128, 64, 64, 4, 2, 1), (128, 64, 32, 4, 2, 1), (128, 128, 64, 8, 2, 1),
    (128, 128, 64, 4, 2, 1), (128, 128, 32, 4, 2, 1), (128, 128, 32, 4, 3, 1), (128, 128, 64, 4, 3, 1),
    (128, 16, 64, 4, 2, 4), (128, 32, 64, 4, 2, 2), (128, 64, 64, 8, 2, 2),
]
SPLITS = [1, 2, 3, 4, 6, 8]   # TILING_MAX_SPLIT is 8
BOUNDS = {"rel_l2": 2e-3, "max_abs": 1e-2}


def shape_groups(names):
    out = []
    if "headline" in names:
        out += [(1, 8, 512, 512, 64, 0), (1, 8, 512, 512, 64, 1)]
    if "small" in names:   # few query rows: where split-KV and small tiles matter
        for d in (64, 128):
            for c in (0, 1):
                for bh in ((1, 8), (1, 32), (4, 8)):
                    for s in (256, 512, 1024, 2048, 4096):
                        out.append((bh[0], bh[1], s, s, d, c))
    if "sweep" in names:   # harness/core/shapes.c: 16k tokens, model width 2048
        for d in (64, 128):
            for c in (0, 1):
                for s in (128, 256, 512, 1024, 2048, 4096, 8192, 16384):
                    out.append((16384 // s, 2048 // d, s, s, d, c))
    if "big" in names:
        out += [(4, 16, 4096, 4096, 128, 0), (4, 16, 4096, 4096, 128, 1),
                (1, 16, 16384, 16384, 128, 0), (1, 16, 16384, 16384, 128, 1)]
    seen, uniq = set(), []
    for s in out:
        if s not in seen:
            seen.add(s); uniq.append(s)
    return uniq


def flops(b, h, sq, skv, d, c):
    f = 4.0 * b * h * sq * skv * d
    return f / 2 if c else f


def candidates(shape, sm_count):
    b, h, sq, skv, d, c = shape
    out = []
    for (vd, bm, bn, w, st, wn) in VARIANTS:
        if vd != d:
            continue
        ctas = b * h * math.ceil(sq / bm)
        kv_tiles = math.ceil(skv / bn)
        for sp in SPLITS:
            if sp > 1 and (wn > 1 or ctas >= 2 * sm_count or sp > kv_tiles):
                continue
            out.append(f"bm={bm},bn={bn},w={w},st={st},split={sp},wn={wn}")
    return out


class Impl:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.ph = Phase.in_dll(self.lib, "attn_phase_entry")
        assert self.ph.abi_version == 1

    def prepare(self, sh, config):
        """init() under ATTN06_CONFIG=config (None: the table). Returns (state, ws, desc) or an error."""
        if config:
            os.environ["ATTN06_CONFIG"] = config
        else:
            os.environ.pop("ATTN06_CONFIG", None)
        try:
            ws_n = self.ph.workspace_bytes(ctypes.byref(sh))
            st = ctypes.c_void_p()
            rc = self.ph.init(ctypes.byref(st), ctypes.byref(sh))
            if rc:
                return None, None, self.ph.error_string(rc).decode()
            desc = self.ph.error_string(0).decode()
        finally:
            os.environ.pop("ATTN06_CONFIG", None)
        ws = torch.empty(max(ws_n, 1), dtype=torch.uint8, device="cuda")
        return st, (ws, ws_n), desc

    def launcher(self, st, ws, q, k, v, o):
        ws_t, ws_n = ws
        def launch():
            a = Args(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                     ws_t.data_ptr() if ws_n else None, torch.cuda.current_stream().cuda_stream)
            rc = self.ph.run(st, ctypes.byref(a))
            if rc:
                raise RuntimeError(self.ph.error_string(rc).decode())
        return launch


def graph_times(fn, reps, inner=None, target_us=1000.0):
    """Per-launch microseconds of `reps` replays of a graph of `inner` launches. Without
    `inner`, it is chosen from the replay time of a one-launch graph so that a graph takes
    about target_us (at most 20 launches)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    if inner is None:
        g1 = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g1):
            fn()
        one = []
        for _ in range(3):
            e0.record(); g1.replay(); e1.record(); e1.synchronize()
            one.append(e0.elapsed_time(e1) * 1e3)
        del g1
        inner = int(max(1, min(20, round(target_us / max(min(one), 1e-3)))))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(inner):
            fn()
    for _ in range(2):
        g.replay()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        e0.record(); g.replay(); e1.record(); e1.synchronize()
        out.append(e0.elapsed_time(e1) * 1e3 / inner)
    return out, inner, g


def median(xs):
    s = sorted(xs); n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


class Reference:
    """fp64 oracle on all rows when small, else on sampled query rows (all heads)."""
    def __init__(self, q, k, v, causal, scale):
        b, h, sq, d = q.shape
        skv = k.shape[2]
        if b * h * sq * skv <= (1 << 27):
            self.rows = None
            qs = q.double()
        else:
            per = max(8, (1 << 26) // (b * h * skv))
            rng = random.Random(sq * 31 + skv)
            rows = set(range(min(4, sq))) | set(range(max(0, sq - 4), sq))
            rows |= set(rng.sample(range(sq), min(sq, per)))
            self.rows = torch.tensor(sorted(rows), device=q.device)
            qs = q[:, :, self.rows].double()
        s = scale * qs @ k.double().transpose(-1, -2)
        if causal:
            i = (self.rows if self.rows is not None else torch.arange(sq, device=q.device))[:, None]
            j = torch.arange(skv, device=q.device)[None, :]
            s = s.masked_fill(j > i + (skv - sq), float("-inf"))
        self.ref = (torch.softmax(s, dim=-1).nan_to_num(0.0) @ v.double())
        del s

    def error(self, o):
        out = (o if self.rows is None else o[:, :, self.rows]).double()
        nonfinite = int((~torch.isfinite(out)).sum())
        err = (out - self.ref).nan_to_num(float("inf"))
        rel = float(err.norm() / self.ref.norm().clamp_min(1e-30))
        mx = float(err.abs().max())
        ok = nonfinite == 0 and rel <= BOUNDS["rel_l2"] and mx <= BOUNDS["max_abs"]
        return rel, mx, nonfinite, ok


def inputs(shape, seed=1234):
    b, h, sq, skv, d, c = shape
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = (torch.rand(b, h, sq, d, device="cuda", generator=g) * 2 - 1).half()
    k = (torch.rand(b, h, skv, d, device="cuda", generator=g) * 2 - 1).half()
    v = (torch.rand(b, h, skv, d, device="cuda", generator=g) * 2 - 1).half()
    return q, k, v


def cudnn_fn(q, k, v, causal, scale):
    from torch.nn.attention import sdpa_kernel, SDPBackend
    def fn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale)
    return fn


def reps_for(us):
    return 15 if us < 200 else 7 if us < 3000 else 4


def tune_shape(impl, shape, sm_count, log):
    b, h, sq, skv, d, c = shape
    scale = 1.0 / math.sqrt(d)
    sh = Shape(b, h, sq, skv, d, c, scale)
    q, k, v = inputs(shape)
    ref = Reference(q, k, v, c, scale)
    o = torch.empty_like(q)
    rec = {"shape": list(shape), "flop": flops(*shape), "candidates": []}

    try:
        fn = cudnn_fn(q, k, v, c, scale)
        fn(); torch.cuda.synchronize()
        ts, inner, _ = graph_times(fn, 9)
        rec["cudnn"] = {"median_us": median(ts), "inner": inner, "samples_us": ts}
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        rec["cudnn"] = {"error": str(e)[:300]}
    cud = rec["cudnn"].get("median_us")

    for cfg in [None] + candidates(shape, sm_count):
        st, ws, desc = impl.prepare(sh, cfg)
        entry = {"config": cfg or "table", "desc": desc}
        if st is None:
            entry["error"] = desc
            (rec["candidates"] if cfg else rec.setdefault("table_errors", [])).append(entry)
            continue
        try:
            run = impl.launcher(st, ws, q, k, v, o)
            o.fill_(float("nan"))
            run(); torch.cuda.synchronize()
            rel, mx, nf, ok = ref.error(o)
            entry.update(rel_l2=rel, max_abs=mx, nonfinite=nf, ok=ok)
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            run(); e0.record(); run(); e1.record(); e1.synchronize()
            ts, inner, g = graph_times(run, reps_for(e0.elapsed_time(e1) * 1e3))
            del g
            entry.update(median_us=median(ts), inner=inner, samples_us=ts,
                         tflops=rec["flop"] / median(ts) * 1e-6)
            # The output after the timed replays must still be right (no stale counters).
            rel2, mx2, nf2, ok2 = ref.error(o)
            entry["ok_after_replay"] = ok2
        except Exception as e:  # noqa: BLE001
            entry["error"] = str(e)[:300]
        finally:
            impl.ph.fini(st)
        if cfg is None:
            rec["table"] = entry
        else:
            rec["candidates"].append(entry)
    good = [x for x in rec["candidates"] if x.get("ok") and x.get("ok_after_replay") and "median_us" in x]
    if good:
        best = min(good, key=lambda x: x["median_us"])
        rec["best"] = {"config": best["config"], "median_us": best["median_us"]}
    t = rec.get("table", {})
    bad = [x["config"] for x in rec["candidates"] if not (x.get("ok") and x.get("ok_after_replay"))]
    log(f"{'x'.join(map(str, shape[:5]))}{' causal' if c else '':7s} cudnn {cud or float('nan'):9.2f} us"
        f" | table {t.get('config', '?')} {t.get('median_us', float('nan')):9.2f} us"
        f" ({t.get('desc', t.get('error', ''))[:40]})"
        f" | best {rec.get('best', {}).get('config')} {rec.get('best', {}).get('median_us', float('nan')):9.2f} us"
        f"{' | FAILED: ' + ';'.join(bad) if bad else ''}")
    return rec


# The table's key: how many CTAs the shape makes at 128 query rows per CTA (B * H * ceil(Sq/128)),
# bucketed; one row per (head_dim, causal, bucket). Mirrored by choose_config().
BUCKET_BOUNDS = [16, 32, 64, 128, 256]


def bucket_of(shape):
    b, h, sq, skv, d, c = shape
    t = b * h * math.ceil(sq / 128)
    for i, hi in enumerate(BUCKET_BOUNDS):
        if t <= hi:
            return i
    return len(BUCKET_BOUNDS)


def derive_table(shapes):
    """For each (head_dim, causal, bucket): the configuration with the smallest geometric mean of
    (its time / the shape's best time) over the bucket's tuned shapes, among configurations that
    were correct and timed on all of them."""
    groups = {}
    for rec in shapes:
        key = (rec["shape"][4], rec["shape"][5], bucket_of(rec["shape"]))
        groups.setdefault(key, []).append(rec)
    table = []
    for key in sorted(groups):
        recs = groups[key]
        timed = []
        for rec in recs:
            ok = {c["config"]: c["median_us"] for c in rec["candidates"]
                  if c.get("ok") and c.get("ok_after_replay") and "median_us" in c}
            if ok:
                timed.append((rec["shape"], ok, min(ok.values())))
        if not timed:
            continue
        common = set.intersection(*(set(ok) for _, ok, _ in timed))
        score = {cfg: math.exp(sum(math.log(ok[cfg] / best) for _, ok, best in timed) / len(timed))
                 for cfg in common}
        choice = min(score, key=score.get)
        table.append({"head_dim": key[0], "causal": key[1], "bucket": key[2],
                      "ctas_at_bm128_max": BUCKET_BOUNDS[key[2]] if key[2] < len(BUCKET_BOUNDS) else None,
                      "config": choice, "geomean_over_best": score[choice],
                      "shapes": [{"shape": sh, "us": ok[choice], "best_us": best} for sh, ok, best in timed]})
    return table


def bootstrap_ratio(a, b, n=2000, seed=7):
    rng = random.Random(seed)
    rs = []
    for _ in range(n):
        ra = [a[rng.randrange(len(a))] for _ in a]
        rb = [b[rng.randrange(len(b))] for _ in b]
        rs.append(median(ra) / median(rb))
    rs.sort()
    return rs[int(0.025 * n)], rs[int(0.975 * n) - 1]


def final_shape(impl, shape, samples, log):
    """Table choice vs cuDNN, samples interleaved so that drift hits both alike."""
    b, h, sq, skv, d, c = shape
    scale = 1.0 / math.sqrt(d)
    sh = Shape(b, h, sq, skv, d, c, scale)
    q, k, v = inputs(shape)
    o = torch.empty_like(q)
    st, ws, desc = impl.prepare(sh, None)
    if st is None:
        return {"shape": list(shape), "error": desc}
    run = impl.launcher(st, ws, q, k, v, o)
    run(); torch.cuda.synchronize()
    ref = Reference(q, k, v, c, scale)
    rel, mx, nf, ok = ref.error(o)
    fn = cudnn_fn(q, k, v, c, scale)
    fn(); torch.cuda.synchronize()
    _, inner_p, gp = graph_times(run, 1)
    _, inner_c, gc = graph_times(fn, 1)
    inner = max(inner_p, inner_c)
    _, _, gp = graph_times(run, 1, inner)
    _, _, gc = graph_times(fn, 1, inner)
    e = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
    tp, tc = [], []
    for _ in range(samples):
        e[0].record(); gp.replay(); e[1].record()
        e[2].record(); gc.replay(); e[3].record()
        e[3].synchronize()
        tp.append(e[0].elapsed_time(e[1]) * 1e3 / inner)
        tc.append(e[2].elapsed_time(e[3]) * 1e3 / inner)
    impl.ph.fini(st)
    lo, hi = bootstrap_ratio(tp, tc)
    fl = flops(*shape)
    rec = {"shape": list(shape), "config": desc, "inner": inner, "samples": samples,
           "rel_l2": rel, "max_abs": mx, "ok": ok,
           "phase_median_us": median(tp), "cudnn_median_us": median(tc),
           "phase_tflops": fl / median(tp) * 1e-6, "cudnn_tflops": fl / median(tc) * 1e-6,
           "ratio": median(tp) / median(tc), "ratio_ci95": [lo, hi],
           "phase_samples_us": tp, "cudnn_samples_us": tc}
    log(f"FINAL {'x'.join(map(str, shape[:5]))}{' causal' if c else '':7s} phase {median(tp):9.2f} us "
        f"({rec['phase_tflops']:6.1f} TFLOP/s) cudnn {median(tc):9.2f} us ({rec['cudnn_tflops']:6.1f}) "
        f"ratio {rec['ratio']:.3f} [{lo:.3f}, {hi:.3f}] {'ok' if ok else 'WRONG'} | {desc}")
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--out", required=True)
    ap.add_argument("--groups", default="headline,small,sweep")
    ap.add_argument("--shapes", nargs="*", default=[])
    ap.add_argument("--final", nargs="*", default=[])
    ap.add_argument("--final-samples", type=int, default=41)
    ap.add_argument("--budget", type=float, default=1e9, help="stop tuning after this many seconds")
    ap.add_argument("--derive", metavar="JSON", help="only print the table derived from a tuning JSON")
    ap.add_argument("--check", nargs="*", default=[], metavar="CONFIG",
                    help="only check these configurations ('table' for the table's) on --check-shapes")
    ap.add_argument("--check-shapes", nargs="*", default=[])
    ap.add_argument("--profile", nargs=2, metavar=("SHAPE", "CONFIG"),
                    help="only launch CONFIG ('table' for the table's) on SHAPE three times (for ncu)")
    a = ap.parse_args()
    if a.derive:
        # the committed sweep is xz-compressed (evidence/README.md)
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
        from evidence_files import load as load_study
        table = derive_table(load_study(a.derive)["shapes"])
        for row in table:
            print(f"D={row['head_dim']:3d} causal={row['causal']} ctas@128<={row['ctas_at_bm128_max']!s:5s} "
                  f"{row['config']:38s} geomean/best {row['geomean_over_best']:.3f} over "
                  + ", ".join("x".join(map(str, r["shape"][:3])) + f" {r['us']:.1f}/{r['best_us']:.1f}"
                              for r in row["shapes"]))
        # The same as config_table.h's initialiser, buckets without data repeating the one below.
        print("TILING_TABLE rows (D, causal):")
        for d in (64, 128):
            for c in (0, 1):
                rows, last = [], None
                for bkt in range(len(BUCKET_BOUNDS) + 1):
                    hit = [r for r in table if (r["head_dim"], r["causal"], r["bucket"]) == (d, c, bkt)]
                    last = hit[0]["config"] if hit else last
                    kv = dict(x.split("=") for x in last.split(",")) if last else None
                    rows.append("{ %d, %s, %s, %s, %s, %s, %s }" % (d, kv["bm"], kv["bn"], kv["w"], kv["st"],
                                                                   kv["split"], kv["wn"]) if kv else "?")
                print(f"  D={d} causal={c}: " + ", ".join(rows))
        return
    if a.check:
        impl = Impl(a.lib)
        fails = 0
        for text in a.check_shapes:
            shape = tuple(map(int, text.split(",")))
            b, h, sq, skv, d, c = shape
            sh = Shape(b, h, sq, skv, d, c, 1.0 / math.sqrt(d))
            q, k, v = inputs(shape, seed=99)
            ref = Reference(q, k, v, c, sh.scale)
            o = torch.empty_like(q)
            for cfg in a.check:
                if cfg != "table" and not any(vd == d and f"bm={bm},bn={bn},w={w},st={st}," in cfg + ","
                                              for (vd, bm, bn, w, st, wn) in VARIANTS):
                    continue   # a configuration of the other head_dim
                st, ws, desc = impl.prepare(sh, None if cfg == "table" else cfg)
                if st is None:
                    print(f"{text:22s} {cfg:40s} INIT FAILED {desc}"); fails += 1; continue
                run = impl.launcher(st, ws, q, k, v, o)
                res = []
                for _ in range(2):   # twice: the second launch finds the counters the first left
                    o.fill_(float("nan")); run(); torch.cuda.synchronize()
                    res.append(ref.error(o))
                impl.ph.fini(st)
                good = all(r[3] for r in res)
                fails += not good
                print(f"{text:22s} {cfg:40s} rel_l2={res[1][0]:.2e} max_abs={res[1][1]:.2e} "
                      f"nonfinite={res[1][2]} {'PASS' if good else 'FAIL'}", flush=True)
        sys.exit(1 if fails else 0)
    if a.profile:
        shape = tuple(map(int, a.profile[0].split(",")))
        b, h, sq, skv, d, c = shape
        impl = Impl(a.lib)
        sh = Shape(b, h, sq, skv, d, c, 1.0 / math.sqrt(d))
        st, ws, desc = impl.prepare(sh, None if a.profile[1] == "table" else a.profile[1])
        if st is None:
            sys.exit(f"profile: {desc}")
        q, k, v = inputs(shape)
        o = torch.empty_like(q)
        run = impl.launcher(st, ws, q, k, v, o)
        for _ in range(3):
            run()
        torch.cuda.synchronize()
        print(f"profiled {a.profile[0]}: {desc}")
        return

    torch.backends.cuda.matmul.allow_tf32 = False
    prop = torch.cuda.get_device_properties(0)
    impl = Impl(a.lib)
    out = {"tool": "ci/tune_06.py", "gpu": prop.name, "sm_count": prop.multi_processor_count,
           "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
           "method": {"timing": "CUDA graph of `inner` launches (inner adapted to ~300 us a graph, "
                                "at most 20), per-launch time = graph time / inner, median of replays",
                      "reference": "torch fp64 on the same fp16 inputs (sampled query rows above "
                                   "2^27 score elements)", "bounds": BOUNDS,
                      "baseline": "torch SDPA, SDPBackend.CUDNN_ATTENTION, same graph method"},
           "shapes": [], "final": []}
    log_lines = []
    def log(s):
        print(s, flush=True); log_lines.append(s)
    def save():
        out["log"] = log_lines
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, a.out)

    # The per-launch time of a trivial kernel under the same graph method: the launch floor.
    x = torch.zeros(1, device="cuda")
    ts, inner, _ = graph_times(lambda: x.add_(1.0), 15, 20)
    out["trivial_kernel_us"] = median(ts)
    log(f"trivial kernel (one-element add) in a graph of {inner}: {median(ts):.2f} us per launch")

    t0 = time.time()
    shapes = shape_groups(a.groups.split(",")) if a.groups else []
    shapes += [tuple(map(int, s.split(","))) for s in a.shapes]
    for shape in shapes:
        if time.time() - t0 > a.budget:
            log(f"budget reached; skipped from {shape}"); break
        out["shapes"].append(tune_shape(impl, shape, prop.multi_processor_count, log))
        torch.cuda.empty_cache()
        save()
    out["derived_table"] = derive_table(out["shapes"])
    for s in a.final:
        out["final"].append(final_shape(impl, tuple(map(int, s.split(","))), a.final_samples, log))
        save()
    save()
    bad = [s["shape"] for s in out["shapes"] if not s.get("table", {}).get("ok")]
    bad += [s["shape"] for s in out["final"] if not s.get("ok")]
    log(f"done in {time.time() - t0:.0f} s; table choice wrong or failed on: {bad or 'none'}")
    save()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
