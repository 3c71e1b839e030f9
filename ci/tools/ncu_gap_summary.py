#!/usr/bin/env python3
"""What bounds each kernel that ci/tools/ncu_gap.sh profiled: one JSON of the figures the
question needs (duration, tensor pipe, SM and DRAM throughput, L2 hit rate, occupancy,
waves, grid, registers, shared memory, the top stall reasons), read from ncu's details and
raw pages, so the evidence keeps the answer without ncu's 14 MB reports.

Usage: ncu_gap_summary.py DIR OUT.json   (DIR holds <impl>_<shape>.details.csv and .raw.csv)
"""
import csv
import json
import os
import re
import sys

DETAILS = {  # details-page name -> key in the summary
    "Duration": "duration",
    "Compute (SM) Throughput": "sm_throughput_pct",
    "DRAM Throughput": "dram_throughput_pct",
    "Memory Throughput": "memory_throughput",
    "L2 Hit Rate": "l2_hit_pct",
    "Achieved Occupancy": "achieved_occupancy_pct",
    "Theoretical Occupancy": "theoretical_occupancy_pct",
    "Waves Per SM": "waves_per_sm",
    "Grid Size": "grid",
    "Block Size": "block",
    "Registers Per Thread": "registers",
    "Dynamic Shared Memory Per Block": "dynamic_smem",
    "Executed Ipc Active": "ipc_active",
    "SM Frequency": "sm_frequency",
}
RAW = {
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor_pipe_pct",
    "dram__bytes_read.sum": "dram_read",
    "dram__bytes_write.sum": "dram_write",
}
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(.+)_per_issue_active\.ratio$")
NAME = re.compile(r"^([A-Za-z0-9_]+?)_(\d+(?:x\d+){5})\.details\.csv$")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def details(path):
    kernels = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            k = kernels.setdefault(row["ID"], {"kernel": row["Kernel Name"][:120]})
            key = DETAILS.get(row["Metric Name"])
            if key and key not in k:
                value = number(row["Metric Value"])
                unit = row["Metric Unit"]
                k[key] = value if not unit or unit in ("%", "register/thread", "block", "thread") \
                    else {"value": value, "unit": unit}
    return [kernels[i] for i in sorted(kernels, key=int)]


def raw(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, units, out = rows[0], rows[1], []
    for data in rows[2:]:
        m = dict(zip(head, data))
        u = dict(zip(head, units))
        k = {}
        for name, key in RAW.items():
            if name in m and number(m[name]) is not None:
                k[key] = number(m[name]) if not u.get(name) else {"value": number(m[name]), "unit": u[name]}
        stalls = {STALL.match(n).group(1): number(v) for n, v in m.items()
                  if STALL.match(n) and number(v) is not None}
        k["stall_top"] = [[n, round(v, 3)] for n, v in sorted(stalls.items(), key=lambda x: -x[1])[:6]]
        out.append(k)
    return out


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    src, dst = argv[1], argv[2]
    points = []
    for name in sorted(os.listdir(src)):
        m = NAME.match(name)
        if not m:
            continue
        d = details(os.path.join(src, name))
        r_path = os.path.join(src, name.replace(".details.csv", ".raw.csv"))
        r = raw(r_path) if os.path.exists(r_path) else []
        for i, k in enumerate(d):
            if i < len(r):
                k.update(r[i])
        points.append({"impl": m.group(1), "shape": m.group(2), "kernels": d})
    if not points:
        sys.exit(f"ncu_gap_summary.py: no <impl>_<shape>.details.csv in {src}")
    tmp = dst + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"schema": "attnladder-ncu-gap", "points": points}, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, dst)
    print(f"ncu_gap_summary.py: {len(points)} profiles -> {dst}")


if __name__ == "__main__":
    main(sys.argv)
