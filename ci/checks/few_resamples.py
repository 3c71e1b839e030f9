#!/usr/bin/env python3
"""The bootstraps of the CLI checks' scratch inputs cut to the least the reader and the
gate's config take (100 resamples), in place:

    few_resamples.py RUN.json...          method.bootstrap_resamples = 100 in each run
    few_resamples.py --config GATE.json   regression.resamples = 100 in a gate config

Why: test_cli.sh, test_bad_input.sh and test_hostile.sh send edited or cut runs through
show, gate, compare and report under the sanitizers to see each refused, written or
escaped as it must be; a report of the accepted run's headline rows spent 65% of its
time in the bootstrap of its ratios (2000 resamples each, the run's own figure), which
none of those cases is about. The code paths are the same with 100 resamples, only
fewer rounds of them (a bootstrap's memory fault is one in the first round as in the
2000th). Planted in core/stats.c: each bootstrap's interval read one resample past its
values (heap-buffer-overflow): test_hostile.sh on the inputs cut here stopped at it in 14
probes and failed. The bootstrap at 2000 resamples under the sanitizers is test_stats's
(check-asan).
"""
import json
import os
import sys

LEAST = 100   # evidence/consistency.h EVIDENCE_RESAMPLES_MIN, gate/config.c's least


def main():
    args = sys.argv[1:]
    config = bool(args) and args[0] == "--config"
    paths = args[1:] if config else args
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        part = doc.setdefault("regression", {}) if config else doc.get("method")
        if not isinstance(part, dict):
            print(f"few_resamples: {path}: no method object", file=sys.stderr)
            return 2
        part["resamples" if config else "bootstrap_resamples"] = LEAST
        with open(path + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
