#!/usr/bin/env python3
"""ci/workflow/judge_config.py takes from a pull request only a new rung's bounds (run by
ci/checks/test_judge.sh): ratio_max and throughput_ratio_max as positive numbers, and
decode_ratio_max as one positive number or null per shape of the base's "decode" list, and
decode_ratio_max_gpu as such lists by GPU (a safe evidence directory name each);
anything else from the head is refused (exit 2), and a bound the base has is never
replaced.

    python3 ci/checks/test_judge_config.py"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "ci", "workflow", "judge_config.py")
BASE = {"baseline": "sdpa_cudnn", "headline": [[1, 8, 512, 512, 64, 0]],
        "decode": [[1, 8, 1, 32768, 128, 0], [1, 32, 1, 4096, 128, 0]],
        "bounds": {"10_latency": {"ratio_max": 0.57}}}
fails = 0


def judge(tmp, head_bounds):
    base, head, out = (os.path.join(tmp, n) for n in ("base.json", "head.json", "out.json"))
    json.dump(BASE, open(base, "w"))
    json.dump(dict(BASE, bounds=head_bounds), open(head, "w"))
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([sys.executable, TOOL, base, head, out], capture_output=True, text=True)
    return p.returncode, (json.load(open(out)) if os.path.exists(out) else None), p.stdout + p.stderr


def expect(name, rc, want_rc, cond=True, msg=""):
    global fails
    if rc != want_rc or not cond:
        fails += 1
        print(f"test_judge_config: {name}: exit {rc} (want {want_rc}) {msg}")


with tempfile.TemporaryDirectory() as tmp:
    good = {"ratio_max": 0.58, "throughput_ratio_max": 1.19, "decode_ratio_max": [1.24, None]}
    rc, out, text = judge(tmp, {"10_latency": {"ratio_max": 9.0}, "11_split_keys": good})
    expect("a new rung with decode bounds", rc, 0,
           out is not None and out["bounds"].get("11_split_keys") == good
           and out["bounds"]["10_latency"] == {"ratio_max": 0.57}, text)
    for name, bad in (("one decode bound for two shapes", [1.2]),
                      ("a decode bound that is not positive", [1.2, 0]),
                      ("a decode bound that is a string", ["1.2", None]),
                      ("a decode bound that is true", [True, None]),
                      ("decode bounds not a list", 1.2)):
        rc, out, text = judge(tmp, {"11_split_keys": {"ratio_max": 0.58, "decode_ratio_max": bad}})
        expect(name, rc, 2, out is None, text)
    gpu = dict(good, decode_ratio_max_gpu={"nvidia-h100-80gb-hbm3": [1.3, None]})
    rc, out, text = judge(tmp, {"11_split_keys": gpu})
    expect("a new rung with a GPU's own decode bounds", rc, 0,
           out is not None and out["bounds"].get("11_split_keys") == gpu, text)
    for name, bad in (("a GPU's decode bounds not an object", [1.2, None]),
                      ("a GPU name that is a path", {"../x": [1.2, None]}),
                      ("a GPU name with a separator", {"a/b": [1.2, None]}),
                      ("a GPU's list of the wrong length", {"nvidia-h200": [1.2]}),
                      ("a GPU's bound that is not positive", {"nvidia-h200": [-1, None]})):
        rc, out, text = judge(tmp, {"11_split_keys": {"ratio_max": 0.58, "decode_ratio_max_gpu": bad}})
        expect(name, rc, 2, out is None, text)
    rc, out, text = judge(tmp, {"11_split_keys": {"ratio_max": 0.58, "decode": [[1, 1, 1, 1, 64, 0]]}})
    expect("an unknown key", rc, 2, out is None, text)
print(f"test_judge_config: {'ok' if not fails else str(fails) + ' failed'}")
sys.exit(1 if fails else 0)
