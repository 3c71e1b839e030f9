#!/usr/bin/env python3
"""Test-only: the planted shape-rule changes of the A/B gate's held-out study
(ci/tools/plant_rules_study.sh). Each plant is one edit of one rung's shape rule, the kind
of change a tuning pull request makes (a threshold, a tile choice, a split count), made
in a COPY of the rung's sources; the frozen rung is read, never changed. The rung keeps its
name, so `attnladder ab` pairs the planted copy with the base's.

    plant_rules.py list                 one line a plant: name, rung, file, what changed
    plant_rules.py copy PLANT DST       copy phases/<rung>/ to DST/phases/<rung>/, the edit applied
                                        (PLANT "base": the copy unchanged, built the same way)

The edit is an exact text replacement that must match once: a rung whose rule moved fails
loudly instead of planting nothing. Exit 2 on an unknown plant or an edit that does not
apply."""
import os
import shutil
import sys

# name, rung, file in the rung, old text, new text, what the change does (for the table); the
# order the study runs them in: the held-out one, one per Hopper rung, the null one, the rest
PLANTS = [
    ("11_min_tiles", "11_split_keys", "split_choice.cuh",
     "constexpr int SPLIT_MIN_TILES = 4;", "constexpr int SPLIT_MIN_TILES = 16;",
     "threshold: key tiles a piece needs before the keys are split, 4 -> 16 (held out)"),
    ("09_tile176", "09_tile_scheduling", "host_choice.cuh",
     "cols176 * 1000 <= cols128 * 1015", "cols176 * 1000 <= cols128 * 900",
     "tile choice: 176-key tiles only where they pad 10% less than 128-key tiles (never)"),
    ("10_one_block", "10_latency", "latency_choice.cuh",
     "if (n_kt <= LAT_MAXT && blocks64 <= 40) {", "if (n_kt <= LAT_MAXT && blocks64 <= 8) {",
     "threshold: the one-block latency path up to 8 blocks, not 40"),
    ("11_null", "11_split_keys", "split_kernel.cuh",
     "constexpr int SPLIT_MAX = 256;", "constexpr int SPLIT_MAX = 512;",
     "split count cap 256 -> 512, above any split the rule reaches (changes nothing measurable)"),
    ("11_sm_share", "11_split_keys", "split_choice.cuh",
     "if (bh * (s->head_dim == 128 ? 4 : 2) > c.sms) return cudaSuccess;",
     "if (bh * (s->head_dim == 128 ? 8 : 4) > c.sms) return cudaSuccess;",
     "threshold: split only where batch x heads fill an eighth of the SMs at D=128 (a quarter at D=64), not a quarter (a half)"),
    ("11_split_max", "11_split_keys", "split_kernel.cuh",
     "constexpr int SPLIT_MAX = 256;", "constexpr int SPLIT_MAX = 8;",
     "split count: at most 8 pieces a head, not 256"),
    # rungs 12-15, each one line of its own rule (their binaries link the objects of the
    # rungs below: ci/tools/build_rule_plants.sh compiles those from the tree)
    ("12_zone_keys", "12_decode_rows", "decode_choice.cuh",
     "constexpr long ZONE_MAX_KV = 4096;", "constexpr long ZONE_MAX_KV = 16384;",
     "threshold: the zone given back to rung 11 up to 16384 keys, not 4096"),
    ("13_rows_max", "13_row_blocks", "row_choice.cuh",
     "constexpr long ROWS_MAX_PERMILLE = 1150;", "constexpr long ROWS_MAX_PERMILLE = 1000;",
     "threshold: 192-row blocks only where they pad no more rows than the ping-pong's, not 1.15x"),
    ("14_short_max", "14_short_keys", "key_choice.cuh",
     "s->seq_kv > r9::BN) return false;", "s->seq_kv > 64) return false;",
     "threshold: the short-keys kernel up to 64 keys, not 128"),
    ("15_q_rows", "15_q_ahead", "q_choice.cuh",
     "s->causal || s->seq_q <= 16 ||", "s->causal || s->seq_q <= 512 ||",
     "threshold: the Q ahead from 513 query rows, not 17"),
]


def find(name):
    for p in PLANTS:
        if p[0] == name:
            return p
    return None


def copy(name, dst):
    plant = find(name)
    if name != "base" and plant is None:
        print(f"plant_rules: unknown plant '{name}'; see 'plant_rules.py list'", file=sys.stderr)
        return 2
    if name == "base":
        rungs = sorted({p[1] for p in PLANTS})
        print(f"plant_rules: 'base' takes a rung: base:<rung> ({', '.join(rungs)})", file=sys.stderr)
        return 2
    _, rung, fname, old, new, _ = plant
    return copy_rung(rung, dst, fname, old, new)


def copy_rung(rung, dst, fname=None, old=None, new=None):
    src = os.path.join("phases", rung)
    out = os.path.join(dst, "phases", rung)
    if not os.path.isdir(src):
        print(f"plant_rules: {src}: no such rung (run from the repository root)", file=sys.stderr)
        return 2
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(src, out)
    if fname is None:
        return 0
    path = os.path.join(out, fname)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.count(old) != 1:
        print(f"plant_rules: {src}/{fname}: the text to change occurs {text.count(old)} times, not once: {old!r}",
              file=sys.stderr)
        return 2
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "list":
        for name, rung, fname, _, _, what in PLANTS:
            print(f"{name}\t{rung}\t{fname}\t{what}")
        return 0
    if len(argv) == 4 and argv[1] == "copy":
        name = argv[2]
        if name.startswith("base:"):
            rung = name[5:]
            if rung not in {p[1] for p in PLANTS}:
                print(f"plant_rules: no plant is in rung '{rung}'", file=sys.stderr)
                return 2
            return copy_rung(rung, argv[3])
        return copy(name, argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
