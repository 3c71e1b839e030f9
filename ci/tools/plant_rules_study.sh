#!/usr/bin/env bash
# GPU machine: the A/B gate's held-out study of shape-rule changes (issue 50, part 3). For
# each plant of ci/tools/plant_rules.py (one edit of one Hopper rung's shape rule, built
# by ci/tools/build_rule_plants.sh into BUILD/study_plants/ on the build machine), one
# `attnladder ab` process compares the unchanged copy with the planted one, restricted to
# the planted rung (--impl): its binary and sources differ, so ab times it at the fixed
# shapes, one shape per code path and every sweep point, as the gate would for a pull
# request making that change. Then ci/tools/plant_rules_summary.py tabulates which layer
# blocks each plant (A/B measured; ladder and drift derived from the reference run).
#   bash ci/tools/plant_rules_study.sh BUILD OUT [BUDGET_S]    (repository root; BUILD carried)
# Writes OUT/<plant>.json.gz (ab's file, compressed), OUT/<plant>.txt (its output), OUT/<plant>.status
# (its exit), OUT/plants.tsv, OUT/study.log (each plant's wall time), OUT/summary.md and
# OUT/summary.json. BUDGET_S (default 510): no plant is started once less time is left
# than the longest plant took (90 s before the first); each ab is stopped at the budget.
# The plants run held-out first (PLANTS="a b ..." picks and orders them). EVIDENCE_DIR
# picks the GPU folder the derived layers read (default: the H100's). Exit 3 without a
# GPU, 2 when BUILD lacks the binary or the plants, else 0 (the verdicts are the data).
set -u
build=${1:-} out=${2:-} budget=${3:-510}
[ -n "$build" ] && [ -n "$out" ] || { echo "usage: plant_rules_study.sh BUILD OUT [BUDGET_S]" >&2; exit 2; }
case $budget in ''|*[!0-9]*) echo "plant_rules_study: BUDGET_S must be whole seconds" >&2; exit 2;; esac
bin=$build/attnladder plants=$build/study_plants
[ -x "$bin" ] || { echo "plant_rules_study: $bin: no harness binary" >&2; exit 2; }
[ -d "$plants/base/phases" ] \
  || { echo "plant_rules_study: $plants: no plants (run ci/tools/build_rule_plants.sh on the build machine)" >&2; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "plant_rules_study: no GPU; nothing measured" >&2; exit 3; }
mkdir -p "$out"
python3 ci/tools/plant_rules.py list > "$out/plants.tsv" || exit 2
order=${PLANTS:-$(cut -f1 "$out/plants.tsv")}
start=$(date +%s) longest=90 i=0
for name in $order; do
  i=$((i + 1))
  rung=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$out/plants.tsv")
  [ -n "$rung" ] && [ -f "$plants/$name/phases/$rung.so" ] \
    || { echo "plant_rules_study: $name: no such plant in $plants" | tee -a "$out/study.log" >&2; continue; }
  left=$((start + budget - $(date +%s)))
  if [ "$left" -lt "$longest" ]; then
    echo "plant_rules_study: $name not run: ${left}s of the budget left, a plant took up to ${longest}s" \
      | tee -a "$out/study.log"
    continue
  fi
  t0=$(date +%s)
  timeout "$left" "$bin" ab --base "$plants/base" --head "$plants/$name" --impl "$rung" --seed $((5000 + i)) \
    --out "$out/$name.json" > "$out/$name.txt" 2>&1
  st=$?
  echo "$st" > "$out/$name.status"
  took=$(($(date +%s) - t0))
  [ "$took" -gt "$longest" ] && longest=$took
  echo "plant_rules_study: $name ($rung) exit $st in ${took}s" | tee -a "$out/study.log"
done
echo "plant_rules_study: $(($(date +%s) - start))s in all" | tee -a "$out/study.log"
python3 ci/tools/plant_rules_summary.py "$out" ${EVIDENCE_DIR:+--evidence "$EVIDENCE_DIR"} || echo "plant_rules_study: the summary failed (rerun it here)" >&2
# the ab files hold every pair's samples: compressed for the trip back and the store
for f in "$out"/*.json; do
  case $f in */summary.json) ;; *) [ -f "$f" ] && gzip -n -9 -f "$f" ;; esac
done
exit 0
