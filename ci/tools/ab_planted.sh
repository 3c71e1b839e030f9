#!/usr/bin/env bash
# GPU machine: the A/B gate's detection study. For every phase, at the headline shape and
# at 4x16x4096x128, head builds slower by planted delays of SIZES percent of the phase's
# own time there (a test-only stand-in, harness/testing/planted_wrapper.c, adds a spin
# kernel after each run: a second launch, so the smallest plant on a fast rung is the
# launch gap, ~1 us), each compared with the unchanged build by one `attnladder ab`
# process. Every verdict is kept with the change the A/B measurement itself saw.
# Writes OUT/ab_planted_<stamp>.json.
#   BUILD=build SIZES="1 2 3 5 8" bash ci/tools/ab_planted.sh [OUT]
set -u
build=${BUILD:-build}
sizes=${SIZES:-1 2 3 5 8}
bin=$build/attnladder
nvidia-smi -L >/dev/null 2>&1 || { echo "ab_planted: no GPU; nothing measured"; exit 3; }
[ -e "$build/testing/planted_wrapper.so" ] || { echo "ab_planted: make test-switches first" >&2; exit 2; }
export ATTN_PLANT_SO=$PWD/$build/testing/plant_delay.so
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
out=${1:-}
if [ -z "$out" ]; then
  slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
  out=evidence/$slug
fi
mkdir -p "$out"
phases=$("$bin" list --build "$build" | awk '$2 == "phase" {print $1}')
shapes="1,8,512,64,0 4,16,4096,128,0"
# each phase's own time at each shape, measured once here
"$bin" run --build "$build" --impl "$(echo $phases | tr ' ' ,),sdpa_cudnn" --shape 1,8,512,64,0 --shape 4,16,4096,128,0 \
  --modes graph --sweep-modes graph --no-ceilings --min-gpu-seconds 0.05 --out "$work/cal.json" > "$work/cal.log" 2>&1
k=0
for p in $phases; do
  for shape in $shapes; do
    med=$(python3 -c "
import json,sys
d=json.load(open('$work/cal.json')); b,h,s,dd,c=map(int,'$shape'.split(','))
for r in d['results']:
    x=r['shape']
    if r['impl']=='$p' and (x['batch'],x['heads'],x['seq_q'],x['head_dim'],x['causal'])==(b,h,s,dd,c) and 'timing' in r:
        print(r['timing']['graph']['median_us']); break")
    [ -n "$med" ] || continue
    for pct in $sizes; do
      k=$((k + 1))
      head=$work/head_$k
      mkdir -p "$head/phases" "$head/kernels"
      cp "$build"/phases/*.so "$head/phases/"; cp "$build"/kernels/*.so "$head/kernels/"
      ns=$(python3 -c "print(int($med * $pct * 10))")   # pct % of med us, in ns
      # a copy of the real object outside phases/: its own instance, not the base's
      cp "$build/phases/$p.so" "$head/real_$p.so"
      cp "$build/testing/planted_wrapper.so" "$head/phases/$p.so"
      echo "$head/real_$p.so $ns" > "$head/phases/$p.plant"
      "$bin" ab --base "$build" --head "$head" --impl "$p" --shape "$shape" --seed "$((2000 + k))" \
        --out "$work/pl_$k.json" > "$work/pl_$k.log" 2>&1
      echo "{\"phase\": \"$p\", \"shape\": \"$shape\", \"planted_pct\": $pct, \"planted_ns\": $ns, \"phase_us\": $med, \"file\": \"pl_$k.json\", \"exit\": $?}" >> "$work/index.jsonl"
      rm -rf "$head"
    done
  done
done
stamp=$(date -u +%Y%m%dT%H%M%SZ)
python3 - "$work" "$out/ab_planted_$stamp.json" <<'PY'
import json, os, sys
work, dest = sys.argv[1], sys.argv[2]
rows, table = [], {}
for line in open(os.path.join(work, "index.jsonl")):
    e = json.loads(line)
    p = os.path.join(work, e["file"])
    if os.path.exists(p):
        d = json.load(open(p))
        r = d["rows"][0] if d["rows"] else {}
        e.update({"verdict": r.get("verdict"), "change": (r.get("change") or {}), "pairs": r.get("pairs"),
                  "tolerance": r.get("tolerance"), "loaded_first": d.get("loaded_first")})
    else:
        e.update({"verdict": "no_result", "log": open(p.replace(".json", ".log")).read()[-1500:]})
    rows.append(e)
    key = f'{e["phase"]} {e["shape"]}'
    table.setdefault(key, {})[str(e["planted_pct"])] = {"verdict": e["verdict"], "achieved": (e["change"] or {}).get("median")}
detected = sum(1 for e in rows if e["verdict"] == "regressed")
doc = {"schema": "attnladder-ab-planted", "schema_version": 1, "comparisons": len(rows),
       "regressed": detected, "table": table, "rows": rows}
json.dump(doc, open(dest + ".tmp", "w"), indent=1)
os.replace(dest + ".tmp", dest)
print(f"ab_planted: {len(rows)} planted comparisons, {detected} regressed; {dest}")
for k, v in table.items():
    print(f"  {k:32s} " + "  ".join(f"{p}%:{x['verdict'][:4] if x['verdict'] else '-'}({(x['achieved'] or 0) - 1:+.1%})" for p, x in v.items()))
PY
