#!/usr/bin/env bash
# Measures the regression gate itself on a GPU (test build: make test-switches):
#  - N A/A comparisons: the same build run N times, each gated against a reference run
#    of the same build; any "slower" verdict (the drift rule; "regressed" in studies made
#    before it) is a false alarm;
#  - N planted comparisons: the same, with a spin kernel after every timed run of one
#    phase, calibrated so that phase is SLOWDOWN slower; a "slower" verdict on that
#    phase at the calibrated shape is a detection.
# Writes <out>/<gpu>/studies/gate_reliability/gate_reliability_<stamp>.json (a study) and prints the counts.
#   ci/tools/gate_reliability.sh [N] [PHASE] [SLOWDOWN] [OUT_ROOT]
set -u
n=${1:-20}; phase=${2:-01_scalar}; slow=${3:-0.10}; root=${4:-evidence}
build=${BUILD:-build}
bin=$build/attnladder-test
[ -x "$bin" ] && [ -e "$build/testing/plant_delay.so" ] || { echo "gate_reliability: make test-switches first" >&2; exit 2; }
export ATTN_PLANT_SO=$build/testing/plant_delay.so
work=$(mktemp -d)
common=(run --build "$build" --impl "$phase,06_tiling,sdpa_cudnn" --headline --modes graph --no-ceilings)
median_of() {  # file impl causal -> graph median us
  python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
print([r['timing']['graph']['median_us'] for r in d['results'] if r['impl']==sys.argv[2] and r['shape']['causal']==int(sys.argv[3])][0])" "$@"
}
"$bin" "${common[@]}" --out "$work/ref.json" > /dev/null 2>&1 || { echo "gate_reliability: reference run failed" >&2; exit 1; }
t=$(median_of "$work/ref.json" "$phase" 0)
# calibrate: the spin adds its own launch gap, so adjust once from a measured run
ns=$(python3 -c "print(int($t * $slow * 1000))")
for step in 1 2; do
  ATTN_PLANT="$phase:$ns" "$bin" "${common[@]}" --out "$work/cal.json" > /dev/null 2>&1
  got=$(median_of "$work/cal.json" "$phase" 0)
  ns=$(python3 -c "print(max(0, int($ns + ($t * (1 + $slow) - $got) * 1000)))")
done
ATTN_PLANT="$phase:$ns" "$bin" "${common[@]}" --out "$work/cal.json" > /dev/null 2>&1
achieved=$(python3 -c "print($(median_of "$work/cal.json" "$phase" 0) / $t - 1)")
echo "gate_reliability: $phase at ${t} us; spin of $ns ns gives a slowdown of $achieved"
for kind in aa planted; do
  for i in $(seq 1 "$n"); do
    env=(); [ $kind = planted ] && env=(ATTN_PLANT="$phase:$ns")
    env "${env[@]}" "$bin" "${common[@]}" --out "$work/${kind}_$i.json" > /dev/null 2>&1
    "$bin" gate "$work/${kind}_$i.json" --study --against "$work/ref.json" --json "$work/${kind}_$i.gate.json" > /dev/null 2>&1
  done
done
python3 - "$work" "$n" "$phase" "$slow" "$achieved" "$ns" "$root" <<'PY'
import datetime, glob, json, os, re, subprocess, sys
work, n, phase, slow, achieved, ns, root = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
def verdicts(path):
    g = json.load(open(path))
    return [(c["phase"], c["shape"]["causal"] if c.get("shape") else None, c.get("verdict"), c.get("change"))
            for c in (g.get("regression") or []) if c.get("check") == "regression" or c.get("verdict")]
rows, false_alarms, detections = [], 0, 0
for kind in ("aa", "planted"):
    for i in range(1, n + 1):
        p = os.path.join(work, f"{kind}_{i}.gate.json")
        if not os.path.exists(p):
            rows.append({"kind": kind, "i": i, "error": "no gate output"}); continue
        v = verdicts(p)
        regressed = [x for x in v if x[2] in ("slower", "regressed")]
        if kind == "aa" and regressed: false_alarms += 1
        if kind == "planted" and any(x[0] == phase and x[1] == 0 for x in regressed): detections += 1
        rows.append({"kind": kind, "i": i, "verdicts": [{"phase": a, "causal": b, "verdict": c, "change": d} for a, b, c, d in v]})
g = json.load(open("ci/gate.json"))
cfg = {"method": "drift", "regression": g.get("regression"), "drift": g.get("drift")}
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip().splitlines()[0]
slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")
stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
doc = {"schema": "attnladder-gate-reliability", "schema_version": 1, "created_utc": stamp, "gpu": gpu,
       "rule": cfg, "n": n, "planted_phase": phase, "planted_target": slow, "planted_achieved": achieved,
       "planted_spin_ns": ns, "false_alarms": false_alarms, "detections": detections, "runs": rows}
dest = os.path.join(root, slug, "studies", "gate_reliability", f"gate_reliability_{stamp}.json")
os.makedirs(os.path.dirname(dest), exist_ok=True)
json.dump(doc, open(dest + ".tmp", "w"), indent=1); os.replace(dest + ".tmp", dest)
print(f"gate_reliability: false alarms {false_alarms}/{n} (A/A), detections {detections}/{n} "
      f"(planted {achieved:+.1%} on {phase}); {dest}")
PY
