#!/usr/bin/env bash
# The drift gate on the committed evidence (`make test`, no GPU):
#  - no false alarm: every committed complete run of every GPU with an accepted set is
#    gated against that set (a member against the others) and no row may be 'slower';
#  - it can fail: a copy of the first accepted run with one phase's headline samples
#    made 30% slower (its baseline untouched) must fail it, naming that phase, and the
#    same run made 1% slower must pass (the tolerance is the set's, not zero);
#  - accepted.txt with several runs: the first is THE accepted run, a bad or repeated
#    line is refused with its line number.
#   ci/checks/test_drift.sh [BIN] [DRIFT_DIR]   (DRIFT_DIR: ci/checks/drift_runs.sh's output)
set -u
bin=${1:-build/attnladder}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/python_once.sh" && python_once "$tmp/bin"   # python3 started once per call, not its shim
fail=0 n=0
note() { echo "test_drift: $*" >&2; fail=1; }

# every run's verdict as ci/checks/drift_runs.sh left it (make test computes it once, for
# this test and for study_summary.py); without a directory, computed here
drift=${2:-}
if [ -z "$drift" ]; then drift=$tmp/drift; bash ci/checks/drift_runs.sh "$bin" "$drift" >/dev/null || note "drift_runs.sh failed"; fi
[ -f "$drift/index.txt" ] || note "$drift/index.txt: no drift results"
# A false alarm is a row of unchanged code called slower: the runs of a build whose accepted
# set is of that build. A run of another build (a newer reference, measured before three
# sessions of its build can be accepted) may differ for a reason; its verdict is printed,
# counted, and asserted only where it is of the set's build.
# A run of the set's build is judged against the other runs of its set (leave-one-out: a
# set of three judges each member against two, drift.min_runs): every timed phase row of it
# must be judged (the count printed, never 0) and none may be slower.
# Each run's counts, from its drift result and the run itself, in one python3 for all the
# runs (a start a run before: 19 starts, each parsing its run as now).
other=0 aa_runs=0 aa_rows=0
python3 - "$drift" > "$tmp/counts.txt" <<'PY' || note "cannot count the drift results' rows"
import gzip, json, sys
drift = sys.argv[1]
for line in open(f"{drift}/index.txt"):
    gpu, run = line.split()[:2]
    stem = run[:-3] if run.endswith(".gz") else run
    stem = stem[:-5] if stem.endswith(".json") else stem
    try:
        d = json.load(open(f"{drift}/{gpu}/{stem}.json")).get("drift")
        if not d:
            print(gpu, run, "none"); continue
        c = d["counts"]
        op = gzip.open if run.endswith(".gz") else open
        doc = json.load(op(f"evidence/{gpu}/{run}", "rt"))
        kinds = {i["name"]: i["kind"] for i in doc["implementations"]}
        timed = [r for r in doc["results"] if kinds.get(r["impl"]) == "phase" and "graph" in (r.get("timing") or {})]
        rotation = sum(1 for r in timed if (r.get("paired") or {}).get("design") == "rotation")
        print(gpu, run, d["slower"], c["judged"], c["not_judged"], c["slower"], c["unsure"], c["faster"],
              c["moved_with_shape"], len(timed), rotation, d["reference_runs"])
    except Exception:   # a missing or unreadable result: no counts, which the loop notes
        print(gpu, run)
PY
while read -r gpu run slower judged notj cs cu cf cm timed rot refs; do
  n=$((n + 1))
  stem=${run%.gz}; stem=${stem%.json}   # a run committed compressed: drift_runs.sh names by stem
  build=${stem##*_}
  if ! grep -q "_${build}\.json" "evidence/$gpu/accepted.txt"; then
    other=$((other + 1))
    echo "test_drift: evidence/$gpu/$run (build $build, not the accepted set's): ${slower:-?} rows slower than the set, not a false alarm by definition"
    [ "${slower:-none}" != none ] || note "evidence/$gpu/$run: the drift gate did not run"
    continue
  fi
  aa_runs=$((aa_runs + 1)) aa_rows=$((aa_rows + ${judged:-0}))
  echo "test_drift: A/A evidence/$gpu/$run against the $refs other runs of its set: ${judged:-?} rows judged" \
       "(of $timed timed, $rot in rotation), $notj not judged, $cs slower, $cu unsure, $cf faster, $cm moved with their shape"
  [ "$slower" = 0 ] && [ "$cs" = 0 ] ||
    note "evidence/$gpu/$run: drift gate found ${slower:-?} rows slower than its set (or did not run): $(grep -E 'slower|drift gate' "$drift/$gpu/$stem.txt" | head -3)"
  [ -n "$judged" ] && [ "$judged" -gt 0 ] && [ "$judged" = "$timed" ] && [ "$notj" = 0 ] ||
    note "evidence/$gpu/$run: the A/A judged ${judged:-no} of its $timed timed phase rows ($notj not judged)"
done < "$tmp/counts.txt"
[ "$aa_runs" -gt 0 ] || note "no run of an accepted set's build was judged against the rest of its set"
echo "test_drift: A/A over $aa_runs runs of the accepted sets' builds: $aa_rows rows judged"

slug=nvidia-h100-80gb-hbm3
first=$(grep -v '^#' "evidence/$slug/accepted.txt" | grep . | head -1 | tr -d ' ')
mkdir -p "$tmp/ev/$slug"
cp evidence/$slug/accepted.txt evidence/$slug/2*.json* "$tmp/ev/$slug/"
# the H100 runs predate rung 12: its bounds would fail their ladder gate for the rung's
# missing rows, so the cases below (about drift) take ci/gate.json without the bounds of
# rungs their run does not hold; everything else as committed but the bootstraps.
# The bootstraps of the cases below are cut (the A/A above, drift_runs.sh, keeps the
# committed config and runs): the planted copy's ratios at 100 resamples
# (method.bootstrap_resamples, the reader's least; the drift gate's CI of a row is the run's
# own), and gate --against REF and compare at 200 (regression.resamples). Every case's
# verdict is the same; test_drift 52-57 -> 34-38 CPU s. Planted with the cut in place, in
# gate/drift.c, a row slower only past twice its tolerance: the 5% rows at 4x16x4096x128
# causal and 64x16x256x128 failed here (and five other cases); in gate/regression.c, the
# shape's move not applied to gate --against REF and compare's rows: both cases of every
# rung +5% at 4x16x4096x128 causal failed (a slower row, no move named).
cfg=$tmp/gate.json
python3 - "evidence/$slug/$first" "$cfg" <<'PY' || note "could not write the cases' gate.json"
import gzip, json, sys
run, out = sys.argv[1], sys.argv[2]
with (gzip.open if run.endswith(".gz") else open)(run, "rt") as f:
    have = {r["impl"] for r in json.load(f)["results"]}
cfg = json.load(open("ci/gate.json"))
cfg["bounds"] = {k: v for k, v in cfg["bounds"].items() if k in have}
cfg["regression"]["resamples"] = 200
json.dump(cfg, open(out, "w"))
PY
plant() {   # plant IMPL SHAPE FACTOR [IMPL SHAPE FACTOR ...]: the first accepted run with those rows slower
  python3 ci/checks/plant_row.py "evidence/$slug/$first" "$@" --set method.bootstrap_resamples=100 "$planted"
}
# the edited copy gets a name of its own: a member of the set is never its own reference
planted=$tmp/ev/$slug/20991231T000000Z_0000000.json
# Four slowdowns, each a row of its own, planted in one copy and gated once (a gate of a
# complete run against the set and a plant each take 2-5 CPU s; they were four copies and
# four gates). Each row's verdict is asserted as it was alone:
#  - 06_tiling 30% slower at the headline: a 'slower' row;
#  - every paired row is judged, not only the headline and throughput shapes: rung 11 made
#    36% slower at the sweep's short decode point (what one changed constant of its shape
#    rule did, timed by `ab`) fails the drift gate there, and the ladder gate by that
#    point's decode bound;
#  - a small slowdown where the set is tight: rung 11 5% slower at 4x16x4096x128 causal, a
#    row whose tolerance is the 3% floor (its rounds in rotation in every run of the set);
#  - a run whose rows at a shape sit a little above the set's centre together (the first
#    accepted run at 64x16x256x256x128: +0.6%) is not a shape that moved: rung 11 5% slower
#    there (tolerance 4.5%) is still caught (drift.shape_move_floor: only a move past 1%).
# Planted in gate/drift.c (a row slower only past twice its tolerance): the 5% rows at
# 4x16x4096x128 causal and 64x16x256x128 failed here, as they did alone.
plant 06_tiling 1x8x512x64 1.30 11_split_keys 1x8x1x1024x128 1.36 11_split_keys 4x16x4096x128c 1.05 \
      11_split_keys 64x16x256x128 1.05
n=$((n + 4))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
if [ "$rc" != 1 ] || ! grep -qE "06_tiling +1x8x512x64 +slower" "$tmp/p.txt" || ! grep -q "drift gate: FAIL" "$tmp/p.txt"; then
  note "06_tiling +30% at the headline: expected exit 1 and a 'slower' row, got exit $rc"; sed -n '/drift gate/,$p' "$tmp/p.txt" | head -8 >&2
fi
if ! grep -qE "^  11_split_keys +1x8x1:1024x128 +slower" "$tmp/p.txt" ||
   ! grep -qE "11_split_keys +1x8x1:1024x128 +FAIL +ratio .*NOT under bound" "$tmp/p.txt"; then
  note "11_split_keys +36% at 1x8x1x1024x128: expected a 'slower' drift row and a failed decode bound, got exit $rc"
  grep -E "11_split_keys +1x8x1:1024|gate:" "$tmp/p.txt" | head -6 >&2
fi
grep -qE "^  11_split_keys +4x16x4096x128 causal +slower .*tol \+3\.0%" "$tmp/p.txt" ||
  note "11_split_keys +5% at 4x16x4096x128 causal (tolerance 3%): expected a 'slower' row, got exit $rc"
grep -qE "^  11_split_keys +64x16x256x128 +slower" "$tmp/p.txt" ||
  note "11_split_keys +5% at 64x16x256x128 (its shape's rows +0.6% together): expected a 'slower' row, got exit $rc: $(grep -m1 -E '^  11_split_keys +64x16x256x128 ' "$tmp/p.txt")"
plant 06_tiling 1x8x512x64 1.01
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
grep -q "drift gate: PASS" "$tmp/p.txt" || note "06_tiling +1%: expected the drift gate to pass (exit $rc)"

# the same 36% at that point, the point timed with its inputs rotated past the L2 (as runs
# since the cold inputs are): another measurement than the set's, resident there, so the
# row is shown, not judged as drift (the ladder's decode bound still judges it)
plant 11_split_keys 1x8x1x1024x128 1.36
python3 - "$planted" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
l2 = d["context"]["gpu"]["l2_bytes"]
for r in d["results"]:
    s = r["shape"]
    if r["impl"] == "11_split_keys" and (s["batch"], s["heads"], s["seq_q"], s["seq_kv"], s["head_dim"], s["causal"]) == (1, 8, 1, 1024, 128, 0):
        one = 2 * s["head_dim"] * s["batch"] * s["heads"] * (s["seq_q"] + 2 * s["seq_kv"])
        copies = -(-3 * l2 // one)
        r["timing"]["l2"] = {"state": "rotated", "copies": copies, "copy_bytes": one, "bytes": copies * one, "l2_bytes": l2}
json.dump(d, open(p, "w"))
PY
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
if grep -qE "^  11_split_keys +1x8x1:1024x128 +slower" "$tmp/p.txt" || ! grep -q "drift gate: PASS" "$tmp/p.txt" ||
   ! grep -q "1 phase/shape pair not judged: inputs kept cold in L2" "$tmp/p.txt"; then
  note "11_split_keys +36% at 1x8x1x1024x128 on rotated inputs against a resident set: expected the row not judged, got exit $rc"
  grep -E "11_split_keys +1x8x1:1024|not judged|drift gate" "$tmp/p.txt" | head -6 >&2
fi
# on another GPU than every run of the set's (context.gpu.uuid), the paired floor is
# drift.floor_other_gpu: the 5% slower row does not block (unsure at most), said so; 10%
# slower still fails
# (the uuid set in the planted copy itself: one read of the run, not two)
other_gpu=(--set 'context.gpu.uuid="GPU-00000000-0000-0000-0000-000000000001"')
plant 11_split_keys 4x16x4096x128c 1.05 "${other_gpu[@]}"
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
{ [ "$rc" = 0 ] && grep -q "this run's GPU is none of the set's (context.gpu.uuid): rows in rotation take the floor of another GPU, 7%" "$tmp/p.txt" &&
  grep -qE "^  11_split_keys +4x16x4096x128 causal +(within|unsure) .*tol \+7\.0%" "$tmp/p.txt"; } ||
  note "11_split_keys +5% at 4x16x4096x128 causal on another GPU: expected it not slower at the 7% floor, said so, got exit $rc"
plant 11_split_keys 4x16x4096x128c 1.10 "${other_gpu[@]}"
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
{ [ "$rc" = 1 ] && grep -qE "^  11_split_keys +4x16x4096x128 causal +slower .*tol \+7\.0%" "$tmp/p.txt"; } ||
  note "11_split_keys +10% at 4x16x4096x128 causal on another GPU: expected a 'slower' row, got exit $rc"
# rows that move together: every rung 5% slower at that shape is the baseline's move (its
# rotation's rounds moved every quotient alike, as between two machines), not a rung's:
# no row slower, the shape's move printed; one rung 5% slower beside four 5% faster is
# still caught (the shape's move only ever excuses a row moving its way)
shape_all() {   # shape_all SHAPE FACTOR [IMPL FACTOR]: every phase at SHAPE FACTOR slower, IMPL by its own
  python3 - "evidence/$slug/$first" "$planted" "$@" <<'PY'
import gzip, json, os, sys
sys.path.insert(0, "ci/checks")
import plant_row
src, dst, shape, f = sys.argv[1], sys.argv[2], plant_row.parse_shape(sys.argv[3]), float(sys.argv[4])
one = dict(zip(sys.argv[5::2], map(float, sys.argv[6::2])))
d = json.load(gzip.open(src, "rt"))
for i in d["implementations"]:
    if i["kind"] == "phase":
        plant_row.plant(d, i["name"], shape, one.get(i["name"], f))
d["method"]["bootstrap_resamples"] = 100   # as plant() does
json.dump(d, open(dst + ".tmp", "w"))
os.replace(dst + ".tmp", dst)
PY
}
shape_all 4x16x4096x128c 1.05
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
if [ "$rc" != 0 ] || grep -qE "^  [0-9a-z_]+ +4x16x4096x128 causal +slower" "$tmp/p.txt" ||
   ! grep -qE "^  shape 4x16x4096x128 causal: the rotation's rows moved \+[34]\.[0-9]% past 1%" "$tmp/p.txt"; then
  note "every rung +5% at 4x16x4096x128 causal: expected no slower row and the shape's move printed, got exit $rc"
  grep -E "4x16x4096x128 causal|drift gate" "$tmp/p.txt" | head -12 >&2
fi
# the same run against the first accepted run alone (gate --against REF, compare): one rule,
# the same move
n=$((n + 2))
"$bin" gate "$planted" --config "$cfg" --against "evidence/$slug/$first" --evidence "$tmp/ev" > "$tmp/r.txt" 2>&1
if grep -qE "^  [0-9a-z_]+ +4x16x4096x128 causal +FAIL +slower" "$tmp/r.txt" ||
   ! grep -qE "^  11_split_keys +4x16x4096x128 causal +pass +within: .*\(the shape's rows in rotation moved \+[34]\.[0-9]% past 1%: slower against the centre alone\)" "$tmp/r.txt"; then
  note "every rung +5% at 4x16x4096x128 causal, gate --against REF: expected no slower row, the move named"
  grep -E "4x16x4096x128 causal" "$tmp/r.txt" | head -4 >&2
fi
"$bin" compare "evidence/$slug/$first" "$planted" --config "$cfg" --evidence "$tmp/ev" > "$tmp/r.md" 2>&1
if grep -qE "^\| [0-9a-z_]+ \| 4x16x4096x128 causal \|.*\*\*slower\*\*" "$tmp/r.md" ||
   ! grep -qE "^\| 11_split_keys \| 4x16x4096x128 causal \|.*\| within \(the shape's rows in rotation moved" "$tmp/r.md"; then
  note "every rung +5% at 4x16x4096x128 causal, compare: expected no slower row, the move named"
  grep -E "4x16x4096x128 causal" "$tmp/r.md" | head -4 >&2
fi
shape_all 4x16x4096x128c 1.05 11_split_keys 1.1025
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
if [ "$rc" != 1 ] || ! grep -qE "^  11_split_keys +4x16x4096x128 causal +slower" "$tmp/p.txt" ||
   [ "$(grep -cE "^  [0-9a-z_]+ +4x16x4096x128 causal +slower" "$tmp/p.txt")" != 1 ]; then
  note "every rung +5% at 4x16x4096x128 causal, 11_split_keys +5% more: expected it alone slower, got exit $rc"
  grep -E "4x16x4096x128 causal|drift gate" "$tmp/p.txt" | head -12 >&2
fi
# the other rungs 5% faster, rung 11 as it was: the shape's move does not make it slower
shape_all 4x16x4096x128c 0.95 11_split_keys 1.0
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" > "$tmp/p.txt" 2>&1; rc=$?
if [ "$rc" != 0 ] || grep -qE "^  [0-9a-z_]+ +4x16x4096x128 causal +slower" "$tmp/p.txt"; then
  note "every rung but 11 -5% at 4x16x4096x128 causal: expected no slower row, got exit $rc"
  grep -E "4x16x4096x128 causal|drift gate" "$tmp/p.txt" | head -12 >&2
fi
# a run on another baseline library than the set's is "baseline changed", never drift: the
# same 36% slower run with cuDNN 9.19 recorded says so, with both versions, and no row of
# it counts as slower (the ladder gate still fails it by the decode bound)
plant 11_split_keys 1x8x1x1024x128 1.36 --set context.versions.cudnn=91900
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against accepted --evidence "$tmp/ev" --json "$tmp/lib.json" > "$tmp/lib.txt" 2>&1; rc=$?
if ! grep -q "drift gate: BASELINE CHANGED (0 of" "$tmp/lib.txt" ||
   ! grep -q "baseline changed: cuDNN 9.19.0 in this run, cuDNN 9.14.0 in" "$tmp/lib.txt" ||
   [ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['drift']['baseline_library'])" "$tmp/lib.json")" != changed ]; then
  note "a run of cuDNN 9.19 against a set of 9.14: expected 'baseline changed', got exit $rc"
  grep -E "drift gate|baseline" "$tmp/lib.txt" | head -4 >&2
fi
# the same pair by `gate --against REF` and `compare`: the same verdict, no row judged
n=$((n + 2))
"$bin" gate "$planted" --config "$cfg" --against "evidence/$slug/$first" --evidence "$tmp/ev" --brief --json "$tmp/lib2.json" > "$tmp/lib2.txt" 2>&1
if ! grep -q "^  baseline changed: cuDNN 9.19.0 in this run, cuDNN 9.14.0 in" "$tmp/lib2.txt" ||
   [ "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['baseline_changed'], sum(1 for k in d['regression'] if not k['pass']))" "$tmp/lib2.json")" != "True 0" ]; then
  note "gate --against REF of another cuDNN: expected 'baseline changed' and no failed row"; grep -E "baseline|slower" "$tmp/lib2.txt" | head -3 >&2
fi
"$bin" compare "evidence/$slug/$first" "$planted" --config "$cfg" --evidence "$tmp/ev" > "$tmp/lib3.md" 2>&1
grep -q "baseline changed: cuDNN 9.19.0 in this run" "$tmp/lib3.md" && grep -q "^\*\*0 slower, 0 faster, 0 unsure, 0 within" "$tmp/lib3.md" ||
  note "compare of another cuDNN: expected 'baseline changed' and no row judged: $(grep -m1 slower "$tmp/lib3.md")"
plant 11_split_keys 1x8x1x1024x128 1.36   # the run as recorded again, for the count below
# gate --against REF names each judged row's change with its CI: rung 11's +36% there, not
# the reference's ratio in its place
n=$((n + 1))
"$bin" gate "$planted" --config "$cfg" --against "evidence/$slug/$first" --evidence "$tmp/ev" --brief > "$tmp/ref.txt" 2>&1
grep -qE "^  11_split_keys +1x8x1:1024x128 +FAIL +slower: ratio .*; change \+3[67]\.[0-9]% \[\+3[0-9]\.[0-9]%, \+[34][0-9]\.[0-9]%\]" "$tmp/ref.txt" ||
  note "gate --against REF, rung 11 +36%: expected its change and CI in the row: $(grep -m1 -E '11_split_keys +1x8x1:1024x128' "$tmp/ref.txt")"
# the drift gate judges every phase row of a complete run that the set has too
judged=$(sed -n 's/^drift gate: [A-Z ]* (\([0-9]*\) of \([0-9]*\) rows.*/\2/p' "$tmp/p.txt")
rows=$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {i['name']: i['kind'] for i in d['implementations']}
print(len({(r['impl'], tuple(sorted(r['shape'].items()))) for r in d['results'] if kinds.get(r['impl']) == 'phase' and 'graph' in (r.get('timing') or {})}))" "$planted")
n=$((n + 1))
[ -n "$judged" ] && [ "$judged" = "$rows" ] || note "the drift gate judged ${judged:-no} rows of the $rows timed phase rows of a complete run"

# accepted.txt with several runs
mkdir -p "$tmp/acc/g1" "$tmp/acc/g2" "$tmp/acc/g3"
printf '# the set\n20260101T000000Z_aaaaaaa.json\n\n 20260102T000000Z_bbbbbbb.json\n' > "$tmp/acc/g1/accepted.txt"
printf '20260101T000000Z_aaaaaaa.json\n../x.json\n' > "$tmp/acc/g2/accepted.txt"
printf '20260101T000000Z_aaaaaaa.json\n20260101T000000Z_aaaaaaa.json\n' > "$tmp/acc/g3/accepted.txt"
for g in g1 g2 g3; do   # accepted names only runs that are there
  touch "$tmp/acc/$g/20260101T000000Z_aaaaaaa.json" "$tmp/acc/$g/20260102T000000Z_bbbbbbb.json"
done
n=$((n + 3))
[ "$("$bin" accepted g1 --evidence "$tmp/acc")" = "$tmp/acc/g1/20260101T000000Z_aaaaaaa.json" ] || note "accepted: the first listed run is not the one printed"
out=$("$bin" accepted g2 --evidence "$tmp/acc" 2>&1); rc=$?
{ [ "$rc" = 2 ] && grep -q "accepted.txt:2: each line must hold" <<<"$out"; } || note "accepted: a bad second line: exit $rc: $out"
out=$("$bin" accepted g3 --evidence "$tmp/acc" 2>&1); rc=$?
{ [ "$rc" = 2 ] && grep -q "listed twice" <<<"$out"; } || note "accepted: a repeated line: exit $rc: $out"

[ $fail = 0 ] && echo "test_drift: $n cases passed"
exit $fail
