#!/usr/bin/env python3
"""make_fixtures.py: synthetic, schema-valid evidence files for the unit tests of the gate,
`compare` and the reports (harness/tests/data/). Deterministic: rerunning it rewrites the
same bytes, so the committed fixtures and golden files stay valid.

usage: python3 ci/tools/make_fixtures.py [--out harness/tests/data]

The latency model is made up (a phase's latency is a fixed multiple of the baseline's,
which follows a simple roofline), and every sample set is built from fixed normal
quantiles around its median, so the medians, and therefore the gate's point estimates,
are exactly what each scenario asks for:

  gate/ref.json               the reference run (phases 01..06, sdpa_cudnn, two externals)
  gate/same.json              an A/A run: every median within +-1 % of ref
  gate/slow.json              05_warp_specialized 20 % slower everywhere -> slower
  gate/improved.json          05_warp_specialized 20 % faster everywhere -> improved
  gate/borderline.json        05_warp_specialized 6 % slower, 6 % noise, few samples -> inconclusive
  gate/over_bound.json        06_tiling at 1.1x the baseline -> over its 0.95 bound
  gate/incorrect.json         04_cp_async fails correctness on a ragged shape
  gate/missing_phase.json     05_warp_specialized absent
  gate/missing_baseline.json  sdpa_cudnn absent (bad input)
  gate/no_bound.json          an extra phase 07_new that ci/gate.json has no bound for
  gate/other_gpu.json         ref's numbers on another GPU (bad input for gate --against)
  gate/partial.json           an interrupted run
  evidence/<gpu>/...          two runs and a partial one of one GPU, one run of another,
                              accepted.txt (the older run) and reference.txt (the newer):
                              the report's input
  evidence_bad/<gpu>/...      one good run and one missing results[3].shape.head_dim
  phases/<name>/README.md     phase write-ups with the sections the report reads
"""
import argparse, json, math, os, random, shutil

GPU = {"name": "NVIDIA Test GPU", "slug": "nvidia-test-gpu", "sm_count": 100, "cc_major": 9,
       "cc_minor": 0, "l2_bytes": 52428800, "mem_bytes": 85899345920,
       "smem_per_block_optin": 232448, "clock_khz": 1980000, "mem_clock_khz": 2619000,
       "mem_bus_bits": 5120}
OTHER_GPU = dict(GPU, name="NVIDIA Other GPU", slug="nvidia-other-gpu", sm_count=58,
                 cc_major=8, cc_minor=9)

PHASES = [("01_scalar", "one thread per query row, fp32 scalar math", 60.0),
          ("02_cublas_hybrid", "cuBLAS GEMMs around a softmax kernel", 8.0),
          ("03_wmma", "fused kernel, WMMA tensor cores", 4.0),
          ("04_cp_async", "cp.async multi-buffered K/V", 2.5),
          ("05_warp_specialized", "producer/consumer warps", 2.0),
          ("06_tiling", "mma.sync flash attention, tuned tiles", 0.85)]
EXTERNALS = [("torch_flash", "PyTorch SDPA flash backend", 1.05),
             ("torch_cudnn", "PyTorch SDPA cudnn backend", 1.0)]
PEAK_TFLOPS, DRAM_GBPS, FLOOR_US = 500.0, 2000.0, 2.5


def f32(x):
    import struct
    return struct.unpack("f", struct.pack("f", x))[0]


def shape(b, h, sq, skv, d, c):
    return {"batch": b, "heads": h, "seq_q": sq, "seq_kv": skv, "head_dim": d, "causal": c,
            "scale": f32(1.0 / math.sqrt(d))}


def shapes(seqs):
    out = [(shape(1, 8, 512, 512, 64, 0), "headline"), (shape(1, 8, 512, 512, 64, 1), "headline")]
    for d in (64, 128):
        for c in (0, 1):
            for s in seqs:
                out.append((shape(16384 // s, 2048 // d, s, s, d, c), "sweep"))
    out += [(shape(2, 8, 77, 77, 64, 0), "ragged"), (shape(1, 8, 1, 300, 64, 0), "ragged"),
            (shape(1, 8, 129, 257, 128, 1), "ragged"), (shape(2, 8, 1000, 1000, 128, 1), "ragged")]
    return out


def flops(s):
    f = 4.0 * s["batch"] * s["heads"] * s["seq_q"] * s["seq_kv"] * s["head_dim"]
    return f / 2 if s["causal"] else f


def nbytes(s):
    return s["batch"] * s["heads"] * s["head_dim"] * 2.0 * (2.0 * s["seq_q"] + 2.0 * s["seq_kv"])


def base_us(s):
    """The baseline: 60 % of the fp16 ceiling or the DRAM roof, plus launch overhead."""
    return max(flops(s) / (0.6 * PEAK_TFLOPS * 1e12), nbytes(s) / (0.8 * DRAM_GBPS * 1e9)) * 1e6 + 4.0


def inv_norm(p):
    """Acklam's rational approximation of the normal quantile (enough for fixtures)."""
    a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
         1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
    b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
         6.680131188771972e+01, -1.328068155692299e+01]
    c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
         -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
    d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q+c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q+1)
    if p > 1 - 0.02425:
        return -inv_norm(1 - p)
    q = p - 0.5
    r = q * q
    return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r+a[5])*q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r+1)


def samples(rng, median, n, spread):
    """n samples whose median is exactly `median` (n odd), spread = relative sigma."""
    z = [inv_norm((i + 0.5) / n) for i in range(n)]
    rng.shuffle(z)
    return [round(median * (1.0 + spread * zi), 4) for zi in z]


def pct(sorted_x, p):
    pos = p * (len(sorted_x) - 1)
    i = int(math.floor(pos))
    f = pos - i
    return sorted_x[i] + f * (sorted_x[i + 1] - sorted_x[i]) if i + 1 < len(sorted_x) else sorted_x[i]


def median(x):
    return pct(sorted(x), 0.5)


def boot_ci(rng, x, reps=200, conf=0.95):
    meds = sorted(median([x[rng.randrange(len(x))] for _ in x]) for _ in range(reps))
    return pct(meds, (1 - conf) / 2), pct(meds, 1 - (1 - conf) / 2)


def timing(rng, xs, inner):
    s = sorted(xs)
    lo, hi = boot_ci(rng, xs)
    r4 = lambda v: round(v, 4)
    return {"inner": inner, "n": len(xs), "samples_us": xs, "median_us": r4(median(xs)),
            "p10_us": r4(pct(s, 0.1)), "p90_us": r4(pct(s, 0.9)), "ci_lo_us": r4(lo),
            "ci_hi_us": r4(hi), "mean_us": r4(sum(xs) / len(xs)), "min_us": s[0], "max_us": s[-1],
            "stop": "noise"}


def ratio_ci(rng, a, b, reps=200, conf=0.95):
    rs = sorted(median([a[rng.randrange(len(a))] for _ in a]) /
                median([b[rng.randrange(len(b))] for _ in b]) for _ in range(reps))
    return median(a) / median(b), pct(rs, (1 - conf) / 2), pct(rs, 1 - (1 - conf) / 2)


def resources(regs, smem):
    return {"arch": "sm_90", "registers": regs, "smem_static": smem, "stack_bytes": 0,
            "spill_stores": 0, "spill_loads": 0,
            "kernels": [{"name": "attn_kernel", "registers": regs, "smem_static": smem,
                         "stack_bytes": 0, "spill_stores": 0, "spill_loads": 0}]}


def make_run(seed, created, commit, gpu=GPU, factors=None, drop=(), extra_phases=(),
             spreads=None, jitter=0.0, incorrect=None, partial=False, n_headline=21, n_sweep=9,
             unsupported=None, seqs=(256, 1024)):
    """factors: phase -> multiple of the baseline (default PHASES); spreads: impl -> noise."""
    rng = random.Random(seed)
    fac = {name: f for name, _, f in PHASES + EXTERNALS}
    fac.update({name: f for name, _, f in extra_phases})
    fac.update(factors or {})
    spreads = spreads or {}
    impls = []
    for i, (name, title, _) in enumerate(PHASES + list(extra_phases)):
        if name in drop:
            continue
        impls.append({"name": name, "title": title, "kind": "phase",
                      "path": "build/phases/%s.so" % name,
                      "resources": resources(32 + 24 * i, 0 if i == 0 else 8192 * (i + 1))})
    if "sdpa_cudnn" not in drop:
        impls.append({"name": "sdpa_cudnn", "title": "cuDNN fused attention (backend API)",
                      "kind": "baseline", "path": "build/kernels/sdpa_cudnn.so", "resources": None})
    impls.append({"name": "launch_floor", "title": "empty kernel", "kind": "floor",
                  "path": "build/kernels/launch_floor.so", "resources": resources(8, 0)})
    for name, title, _ in EXTERNALS:
        if name not in drop:
            impls.append({"name": name, "title": title, "kind": "external"})
    results = []
    unsupported = unsupported or {}
    for s, tag in shapes(seqs):
        n = n_headline if tag == "headline" else n_sweep
        base = None
        rows = []
        for im in impls:
            name = im["name"]
            if im["kind"] == "floor":
                continue
            if im["kind"] == "external" and (tag == "ragged"):
                continue
            res = {"impl": name, "shape": s, "tag": "external" if im["kind"] == "external" else tag}
            why = unsupported.get((name, s["seq_q"], s["seq_kv"], s["head_dim"]))
            if why:
                res.update({"supported": False, "reason": why})
                rows.append(res)
                continue
            med = base_us(s) * (1.0 if name == "sdpa_cudnn" else fac[name])
            med *= 1.0 + 0.08 * math.log2(s["seq_kv"] / 512.0) * (0.1 if name == "sdpa_cudnn" else 0.3)
            if jitter:
                med *= 1.0 + jitter * (2 * rng.random() - 1)
            med = round(med, 4)
            res.update({"supported": True, "reason": None})
            bad = incorrect and incorrect == (name, s["seq_q"], s["seq_kv"], s["head_dim"], s["causal"])
            rel = round(1e-4 + 3e-4 * rng.random(), 7)
            res["correctness"] = {"pass": not bad, "nonfinite": 0,
                                  "max_abs": 0.25 if bad else round(rel * 8, 7),
                                  "rel_l2": 0.031 if bad else rel,
                                  "checked": s["batch"] * s["heads"] * s["seq_q"] * s["head_dim"],
                                  "reference": "cpu-fp64", "rows_checked": s["batch"] * s["heads"] * s["seq_q"]}
            if not bad:
                xs = samples(rng, med, n, spreads.get(name, 0.01))
                res["timing"] = {"graph": timing(rng, xs, 20)}
            rows.append(res)
            if name == "sdpa_cudnn":
                base = res
        for res in rows:
            g = res.get("timing", {}).get("graph")
            if not g:
                continue
            fl, by, us = flops(res["shape"]), nbytes(res["shape"]), g["median_us"]
            tf, gb = fl / (us * 1e-6) / 1e12, by / (us * 1e-6) / 1e9
            der = {"flops": fl, "bytes": by, "tflops": round(tf, 6), "gbps": round(gb, 6),
                   "frac_fp16_peak": round(tf / PEAK_TFLOPS, 6), "frac_dram": round(gb / DRAM_GBPS, 6),
                   "ratio": None}
            bg = base and base.get("timing", {}).get("graph")
            if bg:
                r, lo, hi = ratio_ci(rng, g["samples_us"], bg["samples_us"])
                der["ratio"] = {"baseline": "sdpa_cudnn", "median": round(r, 6), "ci_lo": round(lo, 6),
                                "ci_hi": round(hi, 6)}
            res["derived"] = der
        results += rows
    floor = timing(rng, samples(rng, FLOOR_US, 31, 0.01), 100)
    doc = {
        "schema": "attnladder-evidence", "schema_version": 1, "partial": partial,
        "created_utc": created,
        "context": {
            "gpu": gpu,
            "versions": {"driver": "580.00.00", "cuda_driver": 13000, "cuda_runtime": 13000,
                         "cublas": 130100, "cudnn": 91400, "nvcc": "13.0.88"},
            "git": {"commit": commit, "dirty": False, "source": "git"},
            "host": "fixture", "argv": ["attnladder", "run", "--sweep"],
            "clocks_before": {"sm_mhz": 1980, "mem_mhz": 2619, "temp_c": 40, "power_w": 100.0,
                              "throttle_mask": 0, "throttle": []},
            "clocks_after": {"sm_mhz": 1980, "mem_mhz": 2619, "temp_c": 45, "power_w": 300.0,
                             "throttle_mask": 0, "throttle": []},
            "throttled": False, "nvml": "ok"},
        "method": {"modes": ["graph"], "sweep_modes": ["graph"], "inner": 20, "min_samples": 10,
                   "max_samples": 200, "max_seconds": 1.0, "rel_ci_target": 0.02,
                   "bootstrap_resamples": 2000, "ci_level": 0.95, "seed": 1234,
                   "bounds": {"rel_l2": 2e-3, "max_abs": 1e-2}, "l2_scrub_bytes": 104857600,
                   "baseline": "sdpa_cudnn"},
        "ceilings": {"dram_gbps": DRAM_GBPS, "fp16_tflops": PEAK_TFLOPS, "gemm_shape": [8192, 8192, 8192],
                     "copy_bytes": 2147483648, "launch_floor": {"graph": floor}},
        "implementations": impls,
        "results": results,
        "profile": [profile_entry(name, i) for i, name in enumerate(("04_cp_async", "06_tiling"))
                    if name not in drop],
    }
    return doc


def profile_entry(name, i):
    return {"impl": name, "shape": {k: v for k, v in shape(1, 8, 512, 512, 64, 0).items() if k != "scale"},
            "tool": "ncu",
            "kernels": [{"kernel": "attn_kernel", "metrics": {
                "gpu__time_duration.sum": 20.5 - 8 * i,
                "sm__warps_active.avg.pct_of_peak_sustained_active": 30.25 + 10 * i,
                "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": 21.5 + 25 * i,
                "dram__throughput.avg.pct_of_peak_sustained_elapsed": 12.0 + i,
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 0,
                "launch__registers_per_thread": 128, "launch__grid_size": 64, "launch__block_size": 128},
                "stall_top": [{"reason": "long_scoreboard", "per_issue": 3.5 - i},
                              {"reason": "barrier", "per_issue": 1.25},
                              {"reason": "math_pipe_throttle", "per_issue": 0.5 + i}]}]}


def dumps(doc):
    """Compact, one array element per line for the long arrays (readable diffs, small files)."""
    c = lambda v: json.dumps(v, separators=(",", ":"))
    parts = []
    for k, v in doc.items():
        if isinstance(v, list) and k in ("implementations", "results", "profile"):
            parts.append("%s:[\n%s]" % (c(k), ",\n".join(c(x) for x in v)))
        else:
            parts.append("%s:%s" % (c(k), c(v)))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(dumps(doc))


PHASE_README = """# {name}: {title}

One idea, used by the report fixtures.

## Technique

- {title}.
- A second line with `code` and a [link](../README.md).

## Hypothesis (written before measuring)

{name} should be {pred} the previous rung.

## Outcome

Measured: as predicted, within 10 %.

## Profiler numbers

Not parsed by the report.
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="harness/tests/data")
    out = ap.parse_args().out
    for sub in ("gate", "evidence", "evidence_bad", "phases"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    t06, t05 = "06_tiling", "05_warp_specialized"
    g = lambda name: os.path.join(out, "gate", name)
    ref = make_run(1, "2026-01-01T00:00:00Z", "a" * 40)
    write(g("ref.json"), ref)
    write(g("same.json"), make_run(2, "2026-01-02T00:00:00Z", "b" * 40, jitter=0.01))
    write(g("slow.json"), make_run(3, "2026-01-03T00:00:00Z", "c" * 40, factors={t05: 2.0 * 1.2}))
    write(g("improved.json"), make_run(4, "2026-01-04T00:00:00Z", "d" * 40, factors={t05: 2.0 / 1.2}))
    write(g("borderline.json"), make_run(5, "2026-01-05T00:00:00Z", "e" * 40, factors={t05: 2.0 * 1.06},
                                         spreads={t05: 0.06, "sdpa_cudnn": 0.06}, n_headline=11, n_sweep=7))
    write(g("over_bound.json"), make_run(6, "2026-01-06T00:00:00Z", "f" * 40, factors={t06: 1.1}))
    write(g("incorrect.json"), make_run(7, "2026-01-07T00:00:00Z", "1" * 40,
                                        incorrect=("04_cp_async", 1, 300, 64, 0)))
    write(g("missing_phase.json"), make_run(8, "2026-01-08T00:00:00Z", "2" * 40, drop=("05_warp_specialized",)))
    write(g("missing_baseline.json"), make_run(9, "2026-01-09T00:00:00Z", "3" * 40, drop=("sdpa_cudnn",)))
    write(g("no_bound.json"), make_run(10, "2026-01-10T00:00:00Z", "4" * 40,
                                       extra_phases=[("07_new", "an unbounded new phase", 0.8)]))
    write(g("other_gpu.json"), make_run(1, "2026-01-11T00:00:00Z", "5" * 40, gpu=OTHER_GPU))
    write(g("partial.json"), make_run(12, "2026-01-12T00:00:00Z", "6" * 40, partial=True))

    full = (128, 256, 512, 1024, 2048, 4096)
    ev = os.path.join(out, "evidence")
    d1 = os.path.join(ev, GPU["slug"])
    write(os.path.join(d1, "20260101T000000Z_aaaaaaa.json"),
          make_run(21, "2026-01-01T00:00:00Z", "a" * 40, seqs=full, factors={t06: 0.95, "05_warp_specialized": 2.2}))
    write(os.path.join(d1, "20260201T000000Z_bbbbbbb.json"),
          make_run(22, "2026-02-01T00:00:00Z", "b" * 40, seqs=full,
                   unsupported={("01_scalar", 4096, 4096, 128): "workspace of 4294967296 bytes does not fit in device memory"}))
    write(os.path.join(d1, "20260215T000000Z_ccccccc.partial.json"),
          make_run(23, "2026-02-15T00:00:00Z", "c" * 40, factors={t06: 5.0}, partial=True))
    with open(os.path.join(d1, "accepted.txt"), "w") as f:
        f.write("20260101T000000Z_aaaaaaa.json\n")
    with open(os.path.join(d1, "reference.txt"), "w") as f:
        f.write("20260201T000000Z_bbbbbbb.json\n")
    d2 = os.path.join(ev, OTHER_GPU["slug"])
    write(os.path.join(d2, "20260110T000000Z_ddddddd.json"),
          make_run(24, "2026-01-10T00:00:00Z", "d" * 40, gpu=OTHER_GPU, seqs=full,
                   factors={"04_cp_async": 2.0, "05_warp_specialized": 1.8, t06: 0.9}))

    bad = os.path.join(out, "evidence_bad", GPU["slug"])
    write(os.path.join(bad, "20260101T000000Z_aaaaaaa.json"), make_run(31, "2026-01-01T00:00:00Z", "a" * 40))
    broken = make_run(32, "2026-02-01T00:00:00Z", "b" * 40)
    broken["results"][3]["shape"] = {k: v for k, v in broken["results"][3]["shape"].items() if k != "head_dim"}
    write(os.path.join(bad, "20260201T000000Z_bbbbbbb.json"), broken)

    for name, title, f in PHASES:
        pred = "faster than" if f < 60 else "the slowest rung, not faster than"
        path = os.path.join(out, "phases", name, "README.md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(PHASE_README.format(name=name, title=title, pred=pred))


if __name__ == "__main__":
    main()
