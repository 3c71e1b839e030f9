#!/usr/bin/env python3
"""Tests of ci/tools/torch_sdpa.py without a GPU (`make test`): `--abi` finds ci/abi_check.py
from any working directory and reaches the no-torch / no-CUDA exit cleanly (a fake `torch`
package on PYTHONPATH stands in for PyTorch); the paired ratio is the median of per-round
quotients with its bootstrap CI; the rotation's stop rule; each round's order is a
permutation drawn from the seed; and the rotation, driven by a fake replay whose GPU clock
swings by +-30%, recovers planted ratios and writes `timing.graph` / `paired` blocks of the
schema (evidence/SCHEMA.md, results[].paired)."""
import contextlib
import io
import json
import math
import statistics
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TOOL = os.path.join(ROOT, "ci", "tools", "torch_sdpa.py")
sys.path.insert(0, os.path.join(ROOT, "ci", "tools"))   # not ci/: the tool must find that itself
import torch_sdpa as ts  # noqa: E402

fails = []
cases = 0


def check(name, cond, detail=""):
    global cases
    cases += 1
    if not cond:
        fails.append(f"{name}{': ' + str(detail) if detail else ''}")


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


# ---- a fake torch: importable, no CUDA device (or, "broken", not importable) ---------------

tmp = tempfile.mkdtemp(prefix="test_torch_sdpa.")
FAKE = os.path.join(tmp, "fake")
BROKEN = os.path.join(tmp, "broken")
files = {
    "torch/__init__.py": ("__version__ = '0.0+fake'\n"
                          "class cuda:\n"
                          "    @staticmethod\n"
                          "    def is_available():\n"
                          "        return False\n"),
    "torch/nn/__init__.py": "",
    "torch/nn/functional.py": "def scaled_dot_product_attention(*a, **k):\n    raise RuntimeError('fake')\n",
    "torch/nn/attention/__init__.py": ("import contextlib, enum\n"
                                       "class SDPBackend(enum.Enum):\n"
                                       "    FLASH_ATTENTION = 0\n    EFFICIENT_ATTENTION = 1\n"
                                       "    CUDNN_ATTENTION = 2\n    MATH = 3\n"
                                       "@contextlib.contextmanager\n"
                                       "def sdpa_kernel(b):\n    yield\n"),
}
for rel, text in files.items():
    p = os.path.join(FAKE, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
os.makedirs(os.path.join(BROKEN, "torch"))
with open(os.path.join(BROKEN, "torch", "__init__.py"), "w") as f:
    f.write("raise ImportError('no torch here (test)')\n")
SO = os.path.join(tmp, "sdpa_cudnn.so")   # only its existence is checked before torch
open(SO, "w").close()


def run_tool(args, pythonpath):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    p = subprocess.run([sys.executable, TOOL] + args, cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


out_json = os.path.join(tmp, "out", "torch.json")
base_args = ["--shapes", "1,8,512,512,64,0", "--out", out_json]
rc, text = run_tool(["--abi", SO] + base_args, FAKE)
check("--abi with torch but no CUDA: exit 0", rc == 0, f"rc {rc}: {text[-400:]}")
check("--abi with torch but no CUDA: says so", "sees no CUDA device" in text, text[-400:])
check("--abi: abi_check resolves (no ModuleNotFoundError)", "abi_check" not in text, text[-400:])
rc, text = run_tool(["--abi", SO] + base_args, BROKEN)
check("--abi without torch: exit 0", rc == 0, f"rc {rc}: {text[-400:]}")
check("--abi without torch: says so", "skipped (no torch" in text, text[-400:])
rc, text = run_tool(["--abi", os.path.join(tmp, "missing.so")] + base_args, FAKE)
check("--abi of a missing file: exit 2", rc == 2, f"rc {rc}: {text[-400:]}")
check("--abi of a missing file: named", "missing.so: no such file" in text, text[-400:])
rc, text = run_tool(["--backends", "flash,bogus"] + base_args, FAKE)
check("an unknown backend: exit 2", rc == 2 and "bogus" in text, f"rc {rc}: {text[-400:]}")
check("no GPU, nothing written", not os.path.exists(out_json))

# in this process: the module put ci/ on sys.path itself, and abi_check's types load
sys.path.insert(0, FAKE)
check("ci/ on sys.path from the module", os.path.isfile(os.path.join(ts.CI_DIR, "abi_check.py"))
      and ts.CI_DIR in sys.path, ts.CI_DIR)
try:
    Phase, Shape, Args = ts.abi_types()
    check("abi_types: Phase's fields", [f[0] for f in Phase._fields_][:2] == ["abi_version", "name"]
          and "run" in [f[0] for f in Phase._fields_])
    check("abi_types: Args ends with the stream", Args._fields_[-1][0] == "stream")
except Exception as e:   # noqa: BLE001 (any failure to import is the failure under test)
    check("abi_types imports ci/abi_check.py", False, f"{type(e).__name__}: {e}")

a = ts.parse_args(["--abi", SO, "--min-samples", "7", "--max-samples", "9", "--shapes",
                   "2,3,77,77,64,1"])
check("parse_args: --abi list, sample aliases, rules",
      a.abi == [SO] and a.rot_rule["min_rounds"] == 7 and a.rot_rule["max_rounds"] == 9
      and a.rot_rule["min_gpu_s"] == 0.25 and a.rot_rule["max_seconds"] == 3.0
      and a.rot_rule["rel_ci_target"] == 0.02 and a.rot_rule["check_every"] == 5
      and a.shape_list[0]["causal"] == 1, vars(a))
a = ts.parse_args([])
check("parse_args: defaults 30 / 400 rounds", a.rot_rule["min_rounds"] == 30
      and a.rot_rule["max_rounds"] == 400 and a.inner == 20, a.rot_rule)

# ---- the paired ratio: median of per-round quotients, bootstrap CI -------------------------

m, lo, hi = ts.paired_ratio([1.0, 10.0, 2.0], [1.0, 5.0, 4.0], seed=1)
check("ratio = median of quotients (1, 2, 0.5), not of medians (2 / 4)", close(m, 1.0), m)
m, _, _ = ts.paired_ratio([1.0, 4.0, 9.0, 16.0], [1.0, 2.0, 3.0, 4.0], seed=1)
check("even count: mean of the middle two quotients", close(m, 2.5), m)
m, lo, hi = ts.paired_ratio([110.0 * (1 + i % 7 / 10) for i in range(40)],
                            [100.0 * (1 + i % 7 / 10) for i in range(40)], seed=3)
check("a constant quotient: median and CI all 1.1", close(m, 1.1) and close(lo, 1.1)
      and close(hi, 1.1), (m, lo, hi))
# quotients 1, 2, 3: a bootstrap median is 1 with probability 7/27, 3 likewise
m, lo, hi = ts.paired_ratio([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], seed=5)
check("quotients 1, 2, 3: median 2, 95% CI [1, 3]", (m, lo, hi) == (2.0, 1.0, 3.0), (m, lo, hi))
g = random.Random(11)
q = [1.0 + 0.01 * g.gauss(0, 1) for _ in range(400)]
m, lo, hi = ts.paired_ratio(q, [1.0] * 400, seed=7)
# the median's standard error: 1.2533 * 0.01 / sqrt(400); a 95% CI about 3.9 of them wide
want = 2 * 1.96 * 1.2533 * 0.01 / 20
check("400 quotients, sd 1%: CI width near the median's 95% width",
      0.6 * want < hi - lo < 1.5 * want and lo < m < hi, (lo, m, hi, want))
check("the CI is deterministic from its seed", ts.paired_ratio(q, [1.0] * 400, seed=7) == (m, lo, hi))
check("another seed, another CI", ts.paired_ratio(q, [1.0] * 400, seed=8)[1:] != (lo, hi))
try:
    ts.paired_ratio([1.0, 2.0], [1.0], seed=1)
    check("unequal series refused", False)
except ValueError:
    check("unequal series refused", True)

# ---- the stop rule ---------------------------------------------------------------------

RULE = {"min_rounds": 30, "max_rounds": 400, "max_seconds": 3.0, "min_gpu_s": 0.25,
        "rel_ci_target": 0.02, "check_every": 5}
looks = []


def narrow():
    looks.append(1)
    return [0.01, 0.019]


def wide():
    looks.append(1)
    return [0.01, 0.05]


check("stop: before min_rounds, narrow CIs: go on", ts.rotation_stop(25, 1.0, 0.5, narrow, RULE) is None)
check("stop: min_rounds, too little GPU time: go on", ts.rotation_stop(30, 0.2, 0.5, narrow, RULE) is None)
check("stop: no look at the CIs before both minima", not looks, len(looks))
check("stop: both minima, narrow CIs: noise", ts.rotation_stop(30, 0.25, 0.5, narrow, RULE) == "noise")
check("stop: looks only every 5 rounds", ts.rotation_stop(31, 0.3, 0.5, narrow, RULE) is None
      and ts.rotation_stop(35, 0.3, 0.5, narrow, RULE) == "noise")
check("stop: one ratio's CI too wide: go on", ts.rotation_stop(35, 0.3, 0.5, wide, RULE) is None)
check("stop: max_rounds", ts.rotation_stop(400, 0.3, 0.5, wide, RULE) == "max_samples")
check("stop: max_seconds, even before min_rounds", ts.rotation_stop(12, 0.1, 3.0, wide, RULE) == "max_time")
check("stop: never on time with one round", ts.rotation_stop(1, 0.1, 9.0, wide, RULE) is None)
check("stop: under max_seconds, wide: go on", ts.rotation_stop(399, 9.0, 2.9, wide, RULE) is None)

# ---- the order of a round ----------------------------------------------------------------

NAMES = ["torch_flash", "torch_cudnn", "sdpa_cudnn", "torch_math"]
r1, r2, r3 = random.Random(42), random.Random(42), random.Random(43)
o1 = [ts.draw_order(r1, NAMES) for _ in range(300)]
o2 = [ts.draw_order(r2, NAMES) for _ in range(300)]
o3 = [ts.draw_order(r3, NAMES) for _ in range(300)]
check("order: every implementation once a round", all(sorted(o) == sorted(NAMES) for o in o1))
check("order: the same from the same seed", o1 == o2)
check("order: another from another seed", o1 != o3)
check("order: every implementation at every place",
      all({o[i] for o in o1} == set(NAMES) for i in range(len(NAMES))))
check("order: the caller's list untouched", NAMES == ["torch_flash", "torch_cudnn", "sdpa_cudnn", "torch_math"])


# ---- the rotation, with a fake GPU ---------------------------------------------------------

class FakeGPU:
    """replay(name) returns inner calls of the planted per-call time, scaled by a clock that
    swings +-30% with the fake time, with seeded noise; the clock advances by each replay
    and a host overhead per replay."""
    def __init__(self, per_call, inner, noise, seed=99, swing=0.3, period_s=1.0, bad=None):
        self.per_call, self.inner, self.noise = per_call, inner, noise
        self.rng = random.Random(seed)
        self.t, self.swing, self.period = 0.0, swing, period_s
        self.calls, self.returned = [], []
        self.bad = bad

    def clock(self):
        return self.t

    def replay(self, name):
        f = 1.0 + self.swing * math.sin(2 * math.pi * self.t / self.period)
        us = self.per_call[name] * self.inner[name] * f * (1 + self.noise * self.rng.gauss(0, 1))
        if self.bad and len(self.calls) == self.bad[0]:
            us = self.bad[1]
        self.t += us * 1e-6 + 20e-6
        self.calls.append(name)
        self.returned.append(us)
        return us


PER = {"sdpa_cudnn": 100.0, "torch_cudnn": 110.0, "torch_flash": 95.0, "torch_math": 400.0}
INNER = {"sdpa_cudnn": 20, "torch_cudnn": 18, "torch_flash": 20, "torch_math": 5}
gpu = FakeGPU(PER, INNER, noise=0.003)
rot = ts.rotate(NAMES, INNER, gpu.replay, "sdpa_cudnn", RULE, seed=7, warm_rounds=3,
                clock=gpu.clock)
n = rot["n"]
k = len(NAMES)
check("rotation: stops on noise", rot["stop"] == "noise", rot["stop"])
check("rotation: at least min_rounds, at a look", n >= 30 and n % 5 == 0, n)
check("rotation: at least min_gpu_s", sum(rot["gpu_s"].values()) >= 0.25, rot["gpu_s"])
check("rotation: warm-up rounds of every graph, untimed",
      len(gpu.calls) == (3 + n) * k and all(sorted(gpu.calls[i * k:(i + 1) * k]) == sorted(NAMES)
                                            for i in range(3)), len(gpu.calls))
timed = gpu.calls[3 * k:]
check("rotation: each round one replay of every graph, in the recorded order",
      [timed[i * k:(i + 1) * k] for i in range(n)] == rot["order"])
check("rotation: every round a permutation", all(sorted(o) == sorted(NAMES) for o in rot["order"]))
i0 = 3 * k
first = gpu.calls[i0]
check("rotation: sample = replay time / inner, 4 decimals",
      rot["samples"][first][0] == round(gpu.returned[i0] / INNER[first], 4),
      (rot["samples"][first][0], gpu.returned[i0]))
check("rotation: gpu_s = the timed replays' time", close(
    sum(rot["gpu_s"].values()), sum(gpu.returned[i0:]) * 1e-6, 1e-9))
gpu2 = FakeGPU(PER, INNER, noise=0.003)
rot2 = ts.rotate(NAMES, INNER, gpu2.replay, "sdpa_cudnn", RULE, seed=7,
                 warm_rounds=3, clock=gpu2.clock)
check("rotation: the same seed, the same orders", rot2["order"] == rot["order"])

for name, want in (("torch_cudnn", 1.10), ("torch_flash", 0.95), ("torch_math", 4.0)):
    m, lo, hi = ts.paired_ratio(rot["samples"][name], rot["samples"]["sdpa_cudnn"], 7)
    check(f"rotation: {name} planted at {want}: ratio within 1%", abs(m / want - 1) < 0.01, m)
    check(f"rotation: {name}: the CI holds {want}", lo <= want <= hi, (lo, hi))
    check(f"rotation: {name}: the CI within the target", (hi - lo) / m <= 0.02, (lo, hi))
# the clock's +-30% swing is in every series; only the pairing takes it out
spread = max(rot["samples"]["sdpa_cudnn"]) / min(rot["samples"]["sdpa_cudnn"])
check("the fake's clock swings (the baseline's samples spread > 1.2x)", spread > 1.2, spread)

# the blocks written to --out
for name in ("torch_cudnn", "torch_flash", "torch_math"):
    timing, paired = ts.rotation_timing(rot, name, "sdpa_cudnn")
    g = timing["graph"]
    check(f"{name}: timing.graph", g["inner"] == INNER[name] and g["regime"] == "rotation"
          and g["stop"] == rot["stop"] and len(g["samples_us"]) == n, g.keys())
    check(f"{name}: paired's fields", set(paired) >= {
        "baseline", "design", "inner", "n", "stop", "gpu_s", "wall_s", "impl_us", "baseline_us",
        "impl_first"} and paired["baseline"] == "sdpa_cudnn" and paired["design"] == "rotation"
        and paired["inner"] == INNER[name] and paired["n"] == n, paired.keys())
    check(f"{name}: arrays n long", all(len(paired[x]) == n for x in
                                        ("impl_us", "baseline_us", "impl_first")))
    check(f"{name}: times finite > 0", all(isinstance(x, float) and math.isfinite(x) and x > 0
                                          for x in paired["impl_us"] + paired["baseline_us"]))
    check(f"{name}: samples_us are its paired times", g["samples_us"] == paired["impl_us"])
    check(f"{name}: baseline_us are the baseline's", paired["baseline_us"] == rot["samples"]["sdpa_cudnn"])
    truth = [int(o.index(name) < o.index("sdpa_cudnn")) for o in rot["order"]]
    check(f"{name}: impl_first from the orders", paired["impl_first"] == truth)
    check(f"{name}: both orders occur", 0 < sum(truth) < n, sum(truth))
    check(f"{name}: costs", paired["gpu_s"] > g["gpu_s"] > 0 and paired["wall_s"] > 0)
    check(f"{name}: JSON without NaN", json.loads(json.dumps({"timing": timing, "paired": paired},
                                                              allow_nan=False))["paired"] == paired)

# the other stops
noisy = FakeGPU(PER, INNER, noise=0.2)
r = ts.rotate(NAMES, INNER, noisy.replay, "sdpa_cudnn", dict(RULE, max_rounds=60), seed=1,
              clock=noisy.clock)
check("rotation: noisy, stops at max_rounds", r["stop"] == "max_samples" and r["n"] == 60,
      (r["stop"], r["n"]))
slow = FakeGPU(PER, INNER, noise=0.2)
r = ts.rotate(NAMES, INNER, slow.replay, "sdpa_cudnn", dict(RULE, max_seconds=0.05), seed=1,
              clock=slow.clock)
check("rotation: noisy, stops at max_seconds", r["stop"] == "max_time" and 2 <= r["n"] < 30
      and r["wall_s"] >= 0.05, (r["stop"], r["n"], r["wall_s"]))
for bad in (float("nan"), 0.0, -5.0, float("inf")):
    try:
        ts.rotate(NAMES, INNER, FakeGPU(PER, INNER, 0.01, bad=(10, bad)).replay, "sdpa_cudnn",
                  RULE, seed=1)
        check(f"rotation: a replay time of {bad} refused", False)
    except RuntimeError:
        check(f"rotation: a replay time of {bad} refused", True)
try:
    ts.rotate(["torch_flash"], INNER, gpu.replay, "sdpa_cudnn", RULE, seed=1)
    check("rotation: without the baseline refused", False)
except ValueError:
    check("rotation: without the baseline refused", True)

# ---- the bridge: a rung timed here and in the run ------------------------------------------

MAPS = "\n".join([
    "7f00-7f01 r-xp 00000000 08:01 1 /opt/torch/lib/libcudnn_graph.so.9.19.0",
    "7f01-7f02 r--p 00000000 08:01 2 /opt/torch/lib/libcudnn_engines_precompiled.so.9",
    "7f02-7f03 r-xp 00000000 08:01 3 /opt/venv/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
    "7f03-7f04 rw-p 00000000 00:00 0 ",
    "7f04-7f05 r-xp 00000000 08:01 4 /lib/x86_64-linux-gnu/libcudnn.so.9"])
check("cudnn_library: the first libcudnn.so mapped, not the graph or engine libraries",
      ts.cudnn_library(MAPS) == "/opt/venv/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
      ts.cudnn_library(MAPS))
check("cudnn_library: none mapped", ts.cudnn_library(MAPS.split("\n")[0]) is None)
check("cudnn_text", ts.cudnn_text(91900) == "9.19.0" and ts.cudnn_text(91400) == "9.14.0"
      and ts.cudnn_text(None) == "unavailable")
a = ts.parse_args(["--abi", SO, "--bridge", "10_latency"])
check("--bridge: the rotation's denominator", a.denominator == "10_latency" and a.bridge == "10_latency")
check("no --bridge: the baseline is the denominator", ts.parse_args([]).denominator == "sdpa_cudnn")
for bad in ("sdpa_cudnn", ""):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            ts.parse_args(["--bridge", bad])
        check(f"--bridge {bad!r} refused", False)
    except SystemExit as e:
        check(f"--bridge {bad!r} refused", e.code == 2, e.code)

# In PyTorch's process: the bridge (a rung), PyTorch's cuDNN backend and the C baseline on
# PyTorch's cuDNN. Planted per-call times: the run's own baseline (the machine's cuDNN) would
# be 95 us where the bridge is 90, so torch_cudnn's ratio to the run's baseline is 110/95.
BNAMES = ["10_latency", "torch_cudnn", "sdpa_cudnn"]
BPER = {"10_latency": 90.0, "torch_cudnn": 110.0, "sdpa_cudnn": 100.0}
BINNER = {x: 20 for x in BNAMES}
bgpu = FakeGPU(BPER, BINNER, noise=0.003, seed=5)
brot = ts.rotate(BNAMES, BINNER, bgpu.replay, "10_latency", RULE, seed=11, warm_rounds=2,
                 clock=bgpu.clock)
for name, want in (("torch_cudnn", 110 / 90), ("sdpa_cudnn", 100 / 90)):
    m, lo, hi = ts.paired_ratio(brot["samples"][name], brot["samples"]["10_latency"], 11)
    check(f"bridge: {name} / the bridge planted at {want:.4f}: within 1%", abs(m / want - 1) < 0.01, m)
    timing, paired = ts.rotation_timing(brot, name, "10_latency")
    check(f"bridge: {name}'s paired block names the bridge", paired["baseline"] == "10_latency"
          and paired["baseline_us"] == brot["samples"]["10_latency"], paired["baseline"])
# the run's side: the bridge against the machine's cuDNN, 90 against 95 us
rgpu = FakeGPU({"10_latency": 90.0, "sdpa_cudnn": 95.0}, {"10_latency": 20, "sdpa_cudnn": 20},
               noise=0.003, seed=6)
rrot = ts.rotate(["10_latency", "sdpa_cudnn"], {"10_latency": 20, "sdpa_cudnn": 20}, rgpu.replay,
                 "sdpa_cudnn", RULE, seed=12, clock=rgpu.clock)
m1 = ts.paired_ratio(brot["samples"]["torch_cudnn"], brot["samples"]["10_latency"], 11)[0]
m2 = ts.paired_ratio(rrot["samples"]["10_latency"], rrot["samples"]["sdpa_cudnn"], 12)[0]
check("bridge: the product of the two paired ratios is torch_cudnn / the run's baseline",
      abs(m1 * m2 / (110 / 95) - 1) < 0.01, m1 * m2)
table = ts.ratio_table(["torch_cudnn", "sdpa_cudnn"], [(ts.parse_shape("1,8,512,512,64,0"),
                       {"torch_cudnn": (m1, m1, m1, 30)})], "10_latency")
check("table: ratios to the bridge say so", "/ 10_latency" in table[0], table[0])

# ---- the printed line and table ------------------------------------------------------------

s = ts.parse_shape("4,16,4096,4096,128,1")
timing, paired = ts.rotation_timing(rot, "torch_cudnn", "sdpa_cudnn")
res = {"supported": True, "correctness": {"rel_l2": 1e-4, "max_abs": 1e-3, "pass": True},
       "timing": timing, "paired": paired}
ratio = ts.paired_ratio(paired["impl_us"], paired["baseline_us"], 7) + (n,)
text = ts.line("torch_cudnn", s, res, 7, ratio)
check("line: the paired ratio, its CI and n", f"/ sdpa_cudnn {ratio[0]:.3f} [{ratio[1]:.3f}, "
      f"{ratio[2]:.3f}] n={n} (rotation)" in text, text)
sep = dict(res, timing={"graph": dict(timing["graph"], regime="separate")},
           separate_why="sdpa_cudnn unsupported here: x")
text = ts.line("torch_cudnn", s, sep, 7, None)
check("line: a separate measurement says so", "separate, no paired ratio: sdpa_cudnn unsupported"
      in text, text)
table = ts.ratio_table(["torch_flash", "torch_cudnn"], [(s, {"torch_cudnn": ratio})])
check("table: each backend / sdpa_cudnn", "/ sdpa_cudnn" in table[0] and "torch_cudnn" in table[0]
      and f"{ratio[0]:.3f}" in table[1] and "4x16x4096x4096x128 causal" in table[1], table)

# ---- check_bridge.py: a run's bridged rows read back from its evidence ---------------------

import check_bridge  # noqa: E402


def bridged_run(median_scale=1.0, with_bridge_row=True, paired_with="10_latency"):
    shape = {"batch": 4, "heads": 32, "seq_q": 4096, "seq_kv": 4096, "head_dim": 64, "causal": 0}
    ext = {"impl_us": [110.0, 111.0, 109.0], "baseline_us": [90.0, 90.5, 89.0]}
    br = {"impl_us": [90.0, 89.0, 91.0], "baseline_us": [95.0, 94.0, 96.0]}
    want = statistics.median(a / b for a, b in zip(ext["impl_us"], ext["baseline_us"])) * \
        statistics.median(a / b for a, b in zip(br["impl_us"], br["baseline_us"]))
    results = [{"impl": "torch_cudnn", "shape": shape, "paired": dict(ext, baseline=paired_with),
                "derived": {"ratio": {"baseline": "sdpa_cudnn", "method": "bridged", "bridge": "10_latency",
                                      "median": want * median_scale}}}]
    if with_bridge_row:
        results.append({"impl": "10_latency", "shape": shape, "paired": dict(br, baseline="sdpa_cudnn")})
    return {"method": {"baseline": "sdpa_cudnn"}, "context": {"versions": {"cudnn": 91400}},
            "implementations": [{"name": "10_latency", "kind": "phase"}, {"name": "sdpa_cudnn", "kind": "baseline"},
                                {"name": "torch_cudnn", "kind": "external"}], "results": results}


def check_bridge_exit(doc):
    path = os.path.join(tmp, "bridged.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        rc = check_bridge.main([path])
    return rc, out.getvalue()


rc, out = check_bridge_exit(bridged_run())
check("check_bridge: a bridged run passes and prints the product", rc == 0 and "torch_cudnn 1.160" in out, out)
rc, out = check_bridge_exit(bridged_run(median_scale=1.01))
check("check_bridge: a derived ratio off the pairs fails", rc == 1 and "disagrees" in out, out)
rc, out = check_bridge_exit(bridged_run(with_bridge_row=False))
check("check_bridge: the bridge not timed in the run fails", rc == 1 and "not timed in the run" in out, out)
rc, out = check_bridge_exit(bridged_run(paired_with="sdpa_cudnn"))
check("check_bridge: the old method fails", rc == 1 and "old method" in out, out)

subprocess.run(["rm", "-rf", tmp])
if fails:
    for f in fails:
        print(f"test_torch_sdpa: FAIL {f}", file=sys.stderr)
    sys.exit(1)
print(f"test_torch_sdpa: {cases} cases passed")
