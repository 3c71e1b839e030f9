#!/usr/bin/env bash
# GPU machine: the A/B gate's false-alarm study. The same build copied to a second
# directory, compared with itself by N separate `attnladder ab` processes (each with its
# own seed, so the load order is drawn per process), every verdict of every
# implementation and shape counted. Writes OUT/ab_study_<stamp>.json (OUT: first argument,
# default evidence/<gpu>/studies/ab) with every process's rows and the counts.
#   BUILD=build N=40 bash ci/tools/ab_study.sh [OUT]
set -u
build=${BUILD:-build}
n=${N:-40}
bin=$build/attnladder
nvidia-smi -L >/dev/null 2>&1 || { echo "ab_study: no GPU; nothing measured"; exit 3; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
copy=$work/copy
mkdir -p "$copy"
cp -r "$build/phases" "$build/kernels" "$copy/"
cp "$build/gitinfo" "$copy/" 2>/dev/null
out=${1:-}
if [ -z "$out" ]; then
  slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
  out=evidence/$slug/studies/ab
fi
mkdir -p "$out"
for i in $(seq 1 "$n"); do
  "$bin" ab --base "$build" --head "$copy" --seed "$((1000 + i))" ${AB_ARGS:-} --out "$work/aa_$i.json" \
    > "$work/aa_$i.log" 2>&1
  echo "ab_study: process $i exited $?"
done
stamp=$(date -u +%Y%m%dT%H%M%SZ)
python3 - "$work" "$n" "$out/ab_study_$stamp.json" <<'PY'
import glob, json, os, sys
work, n, dest = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs, counts, per = [], {}, {}
for i in range(1, n + 1):
    p = os.path.join(work, f"aa_{i}.json")
    if not os.path.exists(p):
        runs.append({"process": i, "error": open(os.path.join(work, f"aa_{i}.log")).read()[-2000:]})
        counts["no_result"] = counts.get("no_result", 0) + 1
        continue
    d = json.load(open(p))
    # "selected": fixed (the gate's fixed shapes) or path (a shape added to reach a code path)
    rows = [{k: r.get(k) for k in ("impl", "shape", "selected", "verdict", "change", "pairs", "base_first", "correct")}
            for r in d["rows"]]
    runs.append({"process": i, "loaded_first": d["loaded_first"], "seed": d["seed"], "paths": d.get("paths"),
                 "rows": rows})
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        key = f'{r["impl"]} {r["shape"]}'
        e = per.setdefault(key, {"verdicts": {}, "changes": []})
        e["verdicts"][r["verdict"]] = e["verdicts"].get(r["verdict"], 0) + 1
        if r.get("change"):
            e["changes"].append(round(r["change"]["median"], 5))
total = sum(v for k, v in counts.items() if k != "no_result")
false_alarms = counts.get("regressed", 0)
doc = {"schema": "attnladder-ab-study", "schema_version": 1, "kind": "A/A",
       "processes": n, "comparisons": total, "counts": counts,
       "false_alarms": false_alarms, "per_impl_shape": per, "runs": runs}
tmp = dest + ".tmp"
json.dump(doc, open(tmp, "w"), indent=1)
os.replace(tmp, dest)
print(f"ab_study: {total} A/A comparisons in {n} processes: {counts}; false alarms {false_alarms}; {dest}")
PY
