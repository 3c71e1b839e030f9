#!/usr/bin/env bash
# `make sanitize` (GPU machine): compute-sanitizer's memcheck, racecheck, initcheck and
# synccheck over every phase and baseline, through the harness itself (correctness run
# plus a couple of timed launches) on shapes with ragged S, causal masking, seq_q !=
# seq_kv (both ways) and D=128. Writes <root>/<gpu>/studies/sanitize/sanitize_<stamp>.json (root:
# the second argument, default evidence) with each run's verdict by the rule of
# sanitize_verdict.py (clean, vendor: findings in vendor kernels only, fail; a harness
# that exits with a status of its own fails); exits 1 when any run fails.
set -u
build=${1:-build}
out_dir=${2:-}
bin=$build/attnladder
cs=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$cs" >/dev/null 2>&1 || { echo "sanitize: compute-sanitizer not found; nothing checked"; exit 0; }
nvidia-smi -L >/dev/null 2>&1 || { echo "sanitize: no GPU; nothing checked"; exit 3; }
logs=$(mktemp -d)
shapes=(--shape 2,2,77,64,1 --shape 1,2,129,257,128,1 --shape 1,2,300,77,64,1 --shape 1,2,200,128,0 --shape 1,2,300,129,128,1)
impls=$("$bin" list --build "$build" | awk '$2 == "phase" || $2 == "baseline" {print $1}')
jobs=()
for tool in memcheck racecheck initcheck synccheck; do
  for impl in $impls; do jobs+=("$tool $impl"); done
done
one() {
  local tool=$1 impl=$2 log=$logs/$1_$2.log
  extra=""; [ "$tool" = memcheck ] && extra="--leak-check full"
  "$cs" --tool "$tool" $extra --print-limit 50 --error-exitcode 99 \
    "$bin" run --build "$build" --impl "$impl" "${shapes[@]}" --modes single --sweep-modes single \
    --min-samples 1 --max-samples 2 --no-ceilings --out "$logs/${tool}_${impl}.json" > "$log" 2>&1
  echo "$tool $impl $? $log"
}
export -f one; export cs bin build logs
export shapes_str="${shapes[*]}"
printf '%s\n' "${jobs[@]}" | xargs -P "${SANITIZE_JOBS:-4}" -L 1 bash -c 'shapes=($shapes_str); one "$0" "$1"' > "$logs/status.txt"
baselines=$("$bin" list --build "$build" | awk '$2 == "baseline" {print $1}' | tr '\n' ' ')
python3 - "$logs" "$out_dir" "$baselines" <<'PY'
import datetime, json, os, re, subprocess, sys
sys.path.insert(0, os.path.join("ci", "workflow"))
from sanitize_verdict import verdict   # the rule, with its test in ci/checks/
logs, out_dir, baselines = sys.argv[1], sys.argv[2], sys.argv[3].split()
rows, counts = [], {"clean": 0, "vendor": 0, "fail": 0}
for line in sorted(open(os.path.join(logs, "status.txt"))):
    tool, impl, rc, log = line.split()
    text = open(log, errors="replace").read()
    m = re.findall(r"ERROR SUMMARY: (\d+) error", text)
    rc_ = re.findall(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", text)
    hazards, errors = (int(rc_[-1][0]), int(rc_[-1][1])) if rc_ else (0, int(m[-1]) if m else None)
    v = verdict(text, int(rc), impl in baselines)
    counts[v["verdict"]] += 1
    rows.append({"tool": tool, "impl": impl, "errors": errors, "hazards": hazards, **v})
    print(f"sanitize: {tool:10s} {impl:22s} {v['verdict']:6s} errors={errors} hazards={hazards} exit={rc}"
          f"{'' if v['harness_completed'] else ' (harness did not finish)'}")
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip().splitlines()[0]
slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")
stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
doc = {"schema": "attnladder-sanitize", "schema_version": 2, "created_utc": stamp, "gpu": gpu,
       "shapes": ["2x2x77x64 causal", "1x2x129:257x128 causal", "1x2x300:77x64 causal", "1x2x200x128", "1x2x300:129x128 causal"],
       "rule": "ci/workflow/sanitize_verdict.py", "verdicts": counts,
       "results": rows, "clean": counts["fail"] == 0}
dest = os.path.join(out_dir or "evidence", slug, "studies", "sanitize", f"sanitize_{stamp}.json")
os.makedirs(os.path.dirname(dest), exist_ok=True)
tmp = dest + ".tmp"
json.dump(doc, open(tmp, "w"), indent=1)
os.replace(tmp, dest)
print(f"sanitize: {counts['clean']} clean, {counts['vendor']} with findings in vendor kernels only, "
      f"{counts['fail']} failed, of {len(rows)}; evidence {dest}")
if out_dir:
    import tarfile
    with tarfile.open(os.path.join(os.path.dirname(out_dir.rstrip("/")), "sanitize_logs.tgz"), "w:gz") as t:
        t.add(logs, arcname="sanitize_logs")
sys.exit(1 if counts["fail"] else 0)
PY
