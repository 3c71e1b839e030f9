#!/usr/bin/env python3
"""The gate configuration the judge uses: the base's ci/gate.json, unchanged, plus the
bound of each rung that only the head has (a new rung's ladder gate needs one, and a base
cannot know it). A bound the base has is never taken from the head, nor a baseline,
headline shape or rule: loosening any of them changes nothing here.

    python3 ci/workflow/judge_config.py BASE_GATE HEAD_GATE OUT

Prints each bound taken from the head (the comment names them for the review). The head's
file is untrusted: a name that is not a rung's, or a bound that is not a positive finite
number (decode_ratio_max: one such number or null per shape of the base's "decode" list;
decode_ratio_max_gpu: such lists by GPU, each named by its evidence directory),
is refused (exit 2); an unreadable head file gives the base's alone."""
import json
import math
import os
import re
import sys


def positive(v):
    return not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def main(argv):
    if len(argv) != 4:
        print("usage: judge_config.py BASE_GATE HEAD_GATE OUT", file=sys.stderr)
        return 2
    base = json.load(open(argv[1]))
    try:
        head = json.load(open(argv[2]))
    except (OSError, ValueError) as e:
        print(f"judge_config: {argv[2]}: not read ({e}); the base's bounds alone")
        head = {}
    bounds = base.setdefault("bounds", {})
    added = []
    head_bounds = head.get("bounds") if isinstance(head, dict) else None
    for name, b in (head_bounds.items() if isinstance(head_bounds, dict) else []):
        if name in bounds:
            continue
        if not re.fullmatch(r"[0-9]{2}_[A-Za-z0-9_]{1,60}", name) or not isinstance(b, dict) or not b:
            print(f"judge_config: {argv[2]}: bounds.{name[:80]!r}: not a rung's bound", file=sys.stderr)
            return 2
        n_decode = len(base.get("decode") or [])
        def decode_list(v):
            # one bound per shape of the base's decode list, each positive or null
            return isinstance(v, list) and n_decode > 0 and len(v) == n_decode and \
                all(x is None or positive(x) for x in v)
        for k, v in b.items():
            if k == "decode_ratio_max":
                ok = decode_list(v)
            elif k == "decode_ratio_max_gpu":
                # such lists by GPU, each named as its evidence directory (the harness's safe name)
                ok = isinstance(v, dict) and 0 < len(v) <= 8 and all(
                    re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}", g) and decode_list(x)
                    for g, x in v.items())
            else:
                ok = k in ("ratio_max", "throughput_ratio_max") and positive(v)
            if not ok:
                print(f"judge_config: {argv[2]}: bounds.{name}.{k[:40]}: expected ratio_max or "
                      "throughput_ratio_max, a positive number, decode_ratio_max, a list of "
                      f"{n_decode} positive numbers or nulls (one per shape of the base's decode list), or "
                      "decode_ratio_max_gpu, such lists by GPU ({\"nvidia-h100-80gb-hbm3\": [...]})",
                      file=sys.stderr)
                return 2
        bounds[name] = b
        added.append(name)
        print(f"judge_config: bound of the new rung {name} taken from the pull request: "
              + ", ".join(f"{k} {json.dumps(v)}" for k, v in sorted(b.items())))
    tmp = argv[3] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(base, f, indent=1)
    os.replace(tmp, argv[3])
    if not added:
        print("judge_config: the base's ci/gate.json, unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
