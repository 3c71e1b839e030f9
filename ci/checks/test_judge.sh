#!/usr/bin/env bash
# Pull requests made to talk their way through the gate, each caught (`make test`, no GPU).
# A throwaway repository holds this tree as the base commit and one pull request per
# attack; the GPU workflow's job (.github/workflows/gpu.yml) is dry-run on each
# (ci/checks/workflow_dryrun.py: its steps, conditions and outputs as Actions runs them;
# the GPU's measurement stood in for by recorded files, the builds by this build's
# binary), then the comment workflow (pr_comment.yml) with GitHub's API stood in for:
#   clean   a harmless change: passes, nothing for review;
#   gate    ci/gate.json loosened (drift floors 90%, every bound x10) with a run 30% slower
#           on 06_tiling: the base's rules fail it, the pull request's pass it;
#   ab      harness/gate/ab_rule.c made to pass everything, with pairs 5% slower on 06_tiling:
#           the base's harness finds the regression, the pull request's does not;
#   freeze  a frozen rung edited and its manifest rewritten with ci/freeze.sh: the base's
#           manifests catch it, the pull request's own pass;
#   marker  a comment planted by someone else with the bot's marker: the result is posted
#           beside it, the planted comment untouched;
#   names   protected files renamed away (ci/workflow/judge.sh, CODEOWNERS) and added with
#           a space, a quote, a newline, non-ASCII, a byte that is not UTF-8 and markup in
#           their names: every one named for review, each name text in the comment.
# Each attack's comment names the judge's verdict first and asks for a maintainer's review.
# The judge fails closed: on the harmless change, each of its checks in turn (the
# measurement's ladder run and A/B pairs, the ladder and drift gate, the A/B gate, the
# freeze) crashes (SIGSEGV), is killed (SIGKILL) or times out, and the job must fail each
# time; so must a pull request whose rung segfaults the measuring process after its
# outputs are written (the real judge.sh measure, the GPU's work stood in for by recorded
# files: ci/checks/test_judge_verdict.py checks the verdict's every status first).
#   ci/checks/test_judge.sh [BUILD]      (BUILD/attnladder and BUILD/obj: `make build/attnladder`)
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
build=$(cd "${1:-build}" && pwd)
bin=$build/attnladder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. ci/checks/python_once.sh && python_once "$tmp/bin"   # python3 started once per call, not its shim
# the makes below are the throwaway repository's own, not jobs of a make that runs this test
unset MAKEFLAGS MFLAGS MAKELEVEL
fail=0 cases=0 fault=""
note() { echo "test_judge: $*" >&2; fail=1; }
gpu=nvidia-h100-80gb-hbm3
run_name=20991231T000000Z_0000000.json

# ---- the base: this tree, committed in a throwaway repository ---------------------------
git ls-files -co --exclude-standard -z | grep -zv '^build/' | tar --null -T - -cf - | (mkdir -p "$tmp/origin" && tar -xf - -C "$tmp/origin")
# the recorded run below is the H100 reference: the base's ci/gate.json keeps the bounds of
# the rungs that run holds (a bound of a rung it lacks fails its ladder gate for the rung's
# missing rows alone); every other line as committed
ref_run=$(grep -v '^#' "evidence/$gpu/reference.txt" | grep . | head -1 | tr -d ' ')
python3 - "evidence/$gpu/$ref_run" "$tmp/origin/ci/gate.json" <<'PY' || { echo "test_judge: cannot fit the base's gate.json" >&2; exit 2; }
import gzip, json, sys
run, path = sys.argv[1], sys.argv[2]
with (gzip.open if run.endswith(".gz") else open)(run, "rt") as f:
    have = {r["impl"] for r in json.load(f)["results"]}
cfg = json.load(open(path))
cfg["bounds"] = {k: v for k, v in cfg["bounds"].items() if k in have}
json.dump(cfg, open(path, "w"), indent=2)
PY
# The base's ci/frozen/ keeps the manifests that pin phases/06_tiling/attention.cu (rung
# 06's, and those of the rungs that include it: 10, 11), the file the freeze attack edits;
# the rest are removed in the throwaway base. Every manifest against this tree is
# check-freeze's (ci/freeze.sh --check in make test); here the judge's freeze step checks
# three runs of the kept ones (the clean change, and the freeze attack's base and own
# checks): 4 of the 13 nvcc -M a full check makes, 45 -> 15 CPU s. Planted in judge.sh's
# decide (the head's manifests left in place of the base's): the freeze attack still
# failed here, its base freeze 0; with only rung 06's manifest rewritten in the attack
# (as before 323d13c) its own freeze check failed and the attack with it.
kept_frozen=$(cd "$tmp/origin" && grep -l ' phases/06_tiling/attention.cu$' ci/frozen/*.sha256)
for m in "$tmp/origin"/ci/frozen/*.sha256; do
  grep -qx "ci/frozen/$(basename "$m")" <<<"$kept_frozen" || rm "$m"
done
g() { git -C "$tmp/origin" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@"; }
g init -q -b main && g add -A && g commit -qm base || { echo "test_judge: cannot make the base repository" >&2; exit 2; }
base=$(g rev-parse HEAD)

# ---- the pull requests -----------------------------------------------------------------
pr() {  # NAME: a branch from the base with the change made by the commands that follow
  g checkout -q -b "pr-$1" "$base"
}
commit() { g add -A && g commit -qm "$1"; }
pr clean; echo "A typo fixed." >> "$tmp/origin/README.md"; commit "clean"
pr segv
mkdir -p "$tmp/origin/phases/99_segv"
cat > "$tmp/origin/phases/99_segv/segv.c" <<'C'
/* A rung that passes for one until the process that loaded it lets it go: then it
 * crashes that process (SIGSEGV), after the measurement's outputs are written. */
#include <signal.h>
#include "attn_phase.h"
static const char *unsupported(const attn_shape *s) { (void)s; return 0; }
static size_t workspace_bytes(const attn_shape *s) { (void)s; return 0; }
static int init(void **state, const attn_shape *s) { (void)s; *state = 0; return 0; }
static int run(void *state, const attn_args *a) { (void)state; (void)a; return 0; }
static void fini(void *state) { (void)state; }
static const char *error_string(int code) { (void)code; return "none"; }
__attribute__((destructor)) static void crash(void) { raise(SIGSEGV); }
const attn_phase attn_phase_entry = {1, "99_segv", "crashes at unload", unsupported, workspace_bytes,
                                     init, run, fini, error_string};
C
commit "99_segv: a rung that crashes the process at unload"
# protected files renamed away or oddly named: each still needs review, and its name
# reaches the comment as text, never as markup
pr names
odd_names=("ci/workflow/a b.sh" '.github/workflows/a"b.yml' 'ci/workflow/étape.sh' $'ci/workflow/x\ny.sh'
           'ci/workflow/`<img src=x onerror=alert(1)>`.sh' $'ci/frozen/\xff.sha256')
for f in "${odd_names[@]}"; do echo x > "$tmp/origin/$f"; done
mkdir -p "$tmp/origin/tools" && g mv ci/workflow/judge.sh tools/judge.sh && g mv CODEOWNERS docs_owners.txt
commit "names: protected files renamed and oddly named"
pr gate
python3 - "$tmp/origin/ci/gate.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["drift"]["floor"] = d["drift"]["floor_paired"] = 0.9
def loosen(v):   # every bound x 10: numbers, decode lists, a GPU's own decode lists
    if isinstance(v, dict): return {g: loosen(x) for g, x in v.items()}
    if isinstance(v, list): return [None if x is None else x * 10 for x in v]
    return v * 10 if isinstance(v, (int, float)) else v
for b in d["bounds"].values():
    for k in b: b[k] = loosen(b[k])
json.dump(d, open(p, "w"), indent=1)
PY
commit "gate: loosened"
pr ab
python3 - "$tmp/origin/harness/gate/ab_rule.c" <<'PY'
import sys
p = sys.argv[1]; t = open(p).read()
t = t.replace("    double up = 1.0 + tolerance, down = 1.0 / (1.0 + tolerance);",
              "    return AB_UNCHANGED;\n    double up = 1.0 + tolerance, down = 1.0 / (1.0 + tolerance);")
open(p, "w").write(t)
PY
commit "ab: always pass"
pr freeze
echo "// a comment" >> "$tmp/origin/phases/06_tiling/attention.cu"
# Every manifest that pins the file is rewritten: rung 06's own, and those of the rungs
# that include it (10_latency includes rungs 06-09 whole).
pinned=$(cd "$tmp/origin" && grep -l ' phases/06_tiling/attention.cu$' ci/frozen/*.sha256 | xargs -n1 basename | sed 's/\.sha256$//' | tr '\n' ' ')
(cd "$tmp/origin" && bash ci/freeze.sh $pinned > /dev/null) || note "freeze: ci/freeze.sh $pinned failed in the attack's tree"
commit "06 edited, manifest rewritten"
g checkout -q --detach "$base"

# ---- the recorded measurements ---------------------------------------------------------
# the GPU's reference run: it holds every rung ci/gate.json bounds (an older accepted run may
# hold a former rung and fail the ladder gate for that alone)
first=$(grep -v '^#' "evidence/$gpu/reference.txt" | grep . | head -1 | tr -d ' ')
python3 - "evidence/$gpu/$first" "$tmp" <<'PY'
import gzip, json, random, sys
src, tmp = sys.argv[1], sys.argv[2]
d = json.load(gzip.open(src, "rt") if src.endswith(".gz") else open(src))
json.dump(d, open(f"{tmp}/run_ok.json", "w"))
for r in d["results"]:   # 06_tiling at the headline 30% slower, its baseline untouched
    s = r["shape"]
    if r["impl"] == "06_tiling" and (s["batch"], s["heads"], s["seq_q"], s["head_dim"]) == (1, 8, 512, 64) and "timing" in r:
        g = r["timing"]["graph"]
        g["samples_us"] = [x * 1.3 for x in g["samples_us"]]
        for k in ("median_us", "ci_lo_us", "ci_hi_us", "mean_us", "min_us", "max_us", "p10_us", "p90_us"):
            if k in g: g[k] *= 1.3
        # and what is derived from the times, as a run that slow would have written it
        dv = r.get("derived") or {}
        for k in ("tflops", "gbps", "frac_fp16_peak", "frac_dram"):
            if isinstance(dv.get(k), float): dv[k] /= 1.3
        for k in ("median", "ci_lo", "ci_hi"):
            if isinstance(dv.get("ratio"), dict): dv["ratio"][k] *= 1.3
            if isinstance(dv.get("paired_ratio"), dict) and isinstance(dv["paired_ratio"].get(k), float):
                dv["paired_ratio"][k] *= 1.3
        # the pairs timed in rotation with the baseline, which the ratio is checked against
        pr = r.get("paired")
        if isinstance(pr, dict) and isinstance(pr.get("impl_us"), list):
            pr["impl_us"] = [x * 1.3 for x in pr["impl_us"]]
json.dump(d, open(f"{tmp}/run_slow.json", "w"))
rnd = random.Random(3)
def ab(slow):
    rows = []
    for impl in ["01_scalar", "06_tiling", "sdpa_cudnn"]:
        base = [50 * (1 + 0.05 * rnd.random()) for _ in range(40)]
        f = 1.05 if (slow and impl == "06_tiling") else 1.0
        rows.append({"impl": impl, "kind": "baseline" if impl == "sdpa_cudnn" else "phase", "shape": "4x32x4096x64",
                     "selected": "path", "correct": True, "verdict": "unchanged", "bootstrap_seed": 11,
                     "base": {"samples_us": base}, "head": {"samples_us": [b * f * (1 + 0.002 * (rnd.random() - .5)) for b in base]}})
    return {"schema": "attnladder-ab", "schema_version": 2, "seed": 1, "rows": rows}
json.dump(ab(False), open(f"{tmp}/ab_ok.json", "w"))
json.dump(ab(True), open(f"{tmp}/ab_slow.json", "w"))
PY

# the judge's binary with its ladder and drift gate and compare stood in by passes
cat > "$tmp/gate_standin" <<SH
#!/usr/bin/env bash
real='$bin'
SH
cat >> "$tmp/gate_standin" <<'SH'
arg() { local want=$1; shift; while [ $# -gt 0 ]; do [ "$1" = "$want" ] && { echo "$2"; return; }; shift; done; }
case ${1:-} in
  gate) echo "gate: stood in by test_judge.sh"; exit 0 ;;
  compare) echo "compare: stood in by test_judge.sh" > "$(arg --out "$@")"; exit 0 ;;
esac
exec "$real" "$@"
SH
chmod +x "$tmp/gate_standin"
# and with its compare alone stood in (the gate attack's)
grep -v '^  gate) echo "gate: stood in' "$tmp/gate_standin" > "$tmp/compare_standin" && chmod +x "$tmp/compare_standin"

# actions/checkout stood in for: the throwaway repository at REF, cloned into the step's path
checkout_cmd() {
  echo "mkdir -p \"\$CHECKOUT_PATH\" && git clone -q --no-checkout '$tmp/origin' \"\$CHECKOUT_PATH/.clone\" && mv \"\$CHECKOUT_PATH/.clone/.git\" \"\$CHECKOUT_PATH/.git\" && rmdir \"\$CHECKOUT_PATH/.clone\" && git -C \"\$CHECKOUT_PATH\" checkout -q --detach $1"
}

# ---- the GPU workflow, dry-run on one pull request ---------------------------------------
dry_gpu() {  # NAME RUN AB: sets $ws, $art, $conclusion
  local name=$1 run=$2 ab=$3
  ws=$tmp/ws_$name; art=$tmp/arts_$name
  g checkout -q --detach "$base"
  g -c core.hooksPath=/dev/null merge -q --no-ff --no-edit "pr-$name" >/dev/null || note "$name: cannot merge"
  local merge; merge=$(g rev-parse HEAD)
  g checkout -q --detach "$base"
  cat > "$tmp/ctx_$name.json" <<JSON
{"github": {"event_name": "pull_request", "repository": "o/attnladder", "run_id": "100",
  "event": {"pull_request": {"number": 7, "head": {"repo": {"full_name": "fork/attnladder"}}}, "before": ""}},
 "matrix": {"gpu": "$gpu"}}
JSON
  # the pull request's build: its own harness (a real build where the attack changed it)
  local head_build="mkdir -p head/build && cp '$bin' head/build/"
  if [ "$name" = ab ]; then
    # cp -L: a BUILD whose obj/ is a link is copied, not compiled into through the link
    head_build="mkdir -p head/build && cp -rL '$build/obj' head/build/ && touch head/harness/gate/ab_rule.c && make -s -C head build/attnladder >/dev/null"
  fi
  # The pull request's own gate in the clean change and the freeze attack is the base's
  # gate again (this binary, the recorded run, the committed bounds and set; 2-3 CPU s
  # each): a pass stands in for it there; the gate attack's, under its loosened bounds, is
  # real. Planted in judge.sh's decide (the head's gate run from the base's folder, so
  # with the base's bounds): the gate attack still failed here, its own gate 1.
  case $name in clean|freeze) [ -z "$fault" ] && head_build="mkdir -p head/build && cp '$tmp/gate_standin' head/build/attnladder" ;; esac
  local judge_build="mkdir -p judge/build && cp '$bin' judge/build/"
  # The ladder and drift gate and its compare (9 CPU s on the recorded run) are the same
  # run under the same bounds in the ab and freeze attacks as in the clean change, whose
  # gate is the real one: there a pass stands in for them (the gate attack's is real).
  # Planted in judge.sh's decide (the A/B gate's status recorded as 0): the ab attack
  # failed here with them stood in, as did the ab-judge fault case.
  case $name in ab|freeze) [ -z "$fault" ] && judge_build="mkdir -p judge/build && cp '$tmp/gate_standin' judge/build/attnladder" ;; esac
  # The gate attack's compare (pr_gate.sh's table for the comment, 4 CPU s: it reads the
  # reference and the set again after the gate) is asserted on nowhere there; a compare of
  # a run with slower rows is test_drift.sh's. Planted in pr_gate.sh (the gate's status
  # taken as 0): the gate attack still failed here with its compare stood in (base gate 0).
  [ "$name" = gate ] && [ -z "$fault" ] && judge_build="mkdir -p judge/build && cp '$tmp/compare_standin' judge/build/attnladder"
  # The freeze check (12 s of nvcc -M over the frozen rungs' closures) runs in the clean
  # and freeze attacks, which it passes and fails; in the gate and ab attacks, which it
  # has no part in, a pass stands in for it, as in the fault cases below. Planted in
  # judge.sh's decide (the gate's status recorded as 0): the gate attack still failed here.
  case $name in gate|ab) [ -z "$fault" ] && judge_build+=" && printf '#!/usr/bin/env bash\\necho \"freeze: stood in by test_judge.sh\"\\n' > judge/ci/freeze.sh" ;; esac
  # the measurement: recorded files where the GPU's would be, and the statuses measure writes
  local measure="mkdir -p \"\$OUT/ev/$gpu\" && cp '$tmp/$run' \"\$OUT/ev/$gpu/$run_name\" && cp '$tmp/$ab' \"\$OUT/ab.json\" && echo 0 > \"\$OUT/run.status\" && echo 0 > \"\$OUT/ab_measure.status\""
  local path=$PATH
  if [ -n "$fault" ]; then  # CHECK:HOW (fault_wrapper): the real judge.sh measure, the judge's binary wrapped
    fault_wrapper "$name" "${fault%%:*}" "${fault#*:}" "$tmp/$run" "$tmp/$ab"
    judge_build="mkdir -p judge/build && cp '$tmp/wrap_$name' judge/build/attnladder"
    case $fault in
      freeze:segv) judge_build+=" && sed -i '1a kill -SEGV \$\$' judge/ci/freeze.sh" ;;
      freeze:kill) judge_build+=" && sed -i '1a kill -KILL \$\$' judge/ci/freeze.sh" ;;
      freeze:timeout) judge_build+=" && sed -i '1a exec timeout 0.1 sleep 10' judge/ci/freeze.sh" ;;
      # the freeze of every other case stood in for by a pass (it is the freeze attack's)
      *) judge_build+=" && printf '#!/usr/bin/env bash\\necho \"freeze: stood in by test_judge.sh\"\\n' > judge/ci/freeze.sh" ;;
    esac
    # the pull request's own binary is left out: its verdicts are shown, never counted
    head_build="mkdir -p head/build/phases"
    # names adds a file under ci/frozen/, so decide runs the pull request's own freeze.sh
    # (14 CPU s of nvcc -M): shown, never counted, and asserted nowhere here; a pass
    # stands in (the freeze attack runs the head's for real)
    [ "$name" = names ] && head_build+=" && printf '#!/usr/bin/env bash\\necho \"freeze: stood in by test_judge.sh\"\\n' > head/ci/freeze.sh"
    [ "$name" = segv ] && head_build+=" && cc -shared -fPIC -Ihead/harness/include -I/usr/local/cuda/include -o head/build/phases/99_segv.so head/phases/99_segv/segv.c"
    measure="mkdir -p head/build/phases && bash judge/ci/workflow/judge.sh measure head \"\$OUT\""
    path=$tmp/fakebin:$PATH
  fi
  PATH=$path python3 ci/checks/workflow_dryrun.py .github/workflows/gpu.yml ladder --workspace "$ws" --context "$tmp/ctx_$name.json" \
    --artifacts "$art" \
    --checkout "$(checkout_cmd $merge)" \
    --replace "Build the judge (the base's harness, phases and baseline)=$judge_build" \
    --replace "Build the pull request=$head_build" \
    --replace "Measure (the base's harness; the ladder and the A/B against the base build)=$measure" \
    > "$tmp/dry_$name.txt" 2>&1
  conclusion=$([ $? = 0 ] && echo success || echo failure)
  art=$art/ladder-$gpu-100
}
verdict() { python3 -c "import json,sys; d=json.load(open('$art/verdict.json')); print(eval(sys.argv[1]))" "$1" 2>/dev/null; }
want() {  # NAME WHAT EXPECTED ACTUAL
  cases=$((cases + 1))
  [ "$3" = "$4" ] || { note "$1: $2: expected '$3', got '$4'"; tail -25 "$tmp/dry_$1.txt" | sed 's/^/    /' >&2; }
}
scenario() {  # NAME RUN AB CONCLUSION GATE AB FREEZE HEAD_GATE HEAD_AB HEAD_FREEZE REVIEW
  dry_gpu "$1" "$2" "$3"
  want "$1" "the job" "$4" "$conclusion"
  want "$1" "the base's checks (gate ab freeze)" "$5 $6 $7" "$(verdict '" ".join(str(d["checks"][k]) for k in ("gate", "ab", "freeze"))')"
  want "$1" "the pull request's own (gate ab freeze)" "$8 $9 ${10}" "$(verdict '" ".join(str(d["pull_request_own"]["head_" + k]) for k in ("gate", "ab", "freeze"))')"
  want "$1" "needs review" "${11}" "$(verdict '" ".join(d["needs_review"])')"
  local first; first=$(head -1 "$art/comment.md" 2>/dev/null | cut -c1-17)
  want "$1" "the comment's first line" "$([ "$4" = success ] && echo '**Verdict: PASS**' || echo '**Verdict: FAIL**')" "$first"
}
#        name   run           ab            job     base: gate ab freeze  head's: gate ab freeze  review
scenario clean  run_ok.json   ab_ok.json    success  0 0 0                 0 0 0                   ""
scenario gate   run_slow.json ab_ok.json    failure  1 0 0                 0 0 0                   "ci/gate.json"
scenario ab     run_ok.json   ab_slow.json  failure  0 1 0                 0 0 0                   "harness/gate/ab_rule.c"
scenario freeze run_ok.json   ab_ok.json    failure  0 0 1                 0 0 0                   "$(for r in $pinned; do printf 'ci/frozen/%s.sha256 ' "$r"; done | sed 's/ $//')"
grep -q "06_tiling .*regressed" "$tmp/arts_ab/ladder-$gpu-100/comment.md" || note "ab: the comment does not name the regression"
grep -q "06_tiling" "$tmp/arts_freeze/ladder-$gpu-100/comment.md" || note "freeze: the comment does not name the rung"

# ---- the judge fails closed: each check crashes, is killed, times out --------------------
python3 ci/checks/test_judge_verdict.py || note "judge_verdict.py does not fail closed (test_judge_verdict.py)"
python3 ci/checks/test_judge_config.py || note "judge_config.py takes more than a new rung's bounds (test_judge_config.py)"
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\n# a GPU stood in for (test_judge.sh): the judge asks only that one is there\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"\n' > "$tmp/fakebin/nvidia-smi"
chmod +x "$tmp/fakebin/nvidia-smi"
fault_wrapper() {  # NAME CHECK HOW RUN AB: $tmp/wrap_NAME, the judge's binary with one check faulting
  # CHECK: run (the measurement's ladder run), ab-measure (its A/B pairs), gate (the
  # binary's gate, as pr_gate.sh runs it), ab-judge (ab --judge), rung (run and ab-measure
  # load the pull request's rungs in the real binary after writing their outputs); HOW:
  # segv, kill, timeout. Where a GPU is needed the recorded files are written instead;
  # the gate and compare that do not fault pass as stand-ins (the gate's real verdicts are
  # the scenarios above), so that the faulting check alone can fail the job.
  cat > "$tmp/wrap_$1" <<SH
#!/usr/bin/env bash
ulimit -c 0
real='$bin' check='$2' how='$3' gpu='$gpu' run_file='$4' ab_file='$5' run_name='$run_name'
SH
  cat >> "$tmp/wrap_$1" <<'SH'
fault() {
  case $how in
    segv) kill -SEGV $$ ;;
    kill) kill -KILL $$ ;;
    timeout) exec timeout 0.1 sleep 10 ;;
  esac
}
arg() { local want=$1; shift; while [ $# -gt 0 ]; do [ "$1" = "$want" ] && { echo "$2"; return; }; shift; done; }
cmd=$1
[ "$cmd" = ab ] && { [ -n "$(arg --judge "$@")" ] && cmd=ab-judge || cmd=ab-measure; }
case $cmd in
  run) ev=$(arg --evidence "$@"); mkdir -p "$ev/$gpu" && cp "$run_file" "$ev/$gpu/$run_name" && echo "evidence: $ev/$gpu/$run_name" ;;
  ab-measure) cp "$ab_file" "$(arg --out "$@")" ;;
  compare) echo "compare: stood in by test_judge.sh" > "$(arg --out "$@")" ;;
esac
if [ "$check" = rung ] && [ "$cmd" = run ]; then exec "$real" list --build "$(arg --build "$@")"; fi
if [ "$check" = rung ] && [ "$cmd" = ab-measure ]; then exec "$real" list --build "$(arg --head "$@")"; fi
[ "$cmd" = "$check" ] && fault
case $cmd in run|ab-measure|profile|compare) exit 0 ;; gate) echo "gate: stood in by test_judge.sh"; exit 0 ;; esac
exec "$real" "$@"
SH
  chmod +x "$tmp/wrap_$1"
}
fault_case() {  # NAME CHECK HOW KEY STATUS: the job fails, verdict.json records STATUS under KEY, 0 for the others
  fault=$2:$3 dry_gpu "$1" run_ok.json ab_ok.json
  want "$1" "the job with $2 faulting ($3)" failure "$conclusion"
  want "$1" "verdict.json pass" False "$(verdict 'd["pass"]')"
  want "$1" "the statuses (run ab_measure gate ab freeze)" \
    "$(for k in run ab_measure gate ab freeze; do [ $k = "$4" ] && printf '%s ' "$5" || printf '0 '; done | sed 's/ $//')" \
    "$(verdict '" ".join(str(d["checks"].get(k)) for k in ("run", "ab_measure", "gate", "ab", "freeze"))')"
  local first; first=$(head -1 "$art/comment.md" 2>/dev/null | cut -c1-17)
  want "$1" "the comment's first line" '**Verdict: FAIL**' "$first"
}
# Each check faults once, the three ways spread over them (SIGSEGV again in the rung case
# below); every status of every check, 139, 137 and 124 among them, is
# test_judge_verdict.py's, above. The five checks each once in every way were 15 dry runs
# (57 CPU s); the way a check fails reaches verdict.json through the same status file.
# Planted in judge_verdict.py (only statuses 1 and 2 fail, as before d29bd0b): all five
# jobs passed and test_judge failed; planted in judge.sh (measure records ab_measure's
# status as 0): the ab-measure case and the rung case failed.
for c in run:run:kill ab-measure:ab_measure:timeout gate:gate:segv ab-judge:ab:timeout freeze:freeze:kill; do
  how=${c##*:} c=${c%:*}
  st=$(case $how in segv) echo 139 ;; kill) echo 137 ;; timeout) echo 124 ;; esac)
  g branch -q -f "pr-f_${c%%:*}_$how" pr-clean
  fault_case "f_${c%%:*}_$how" "${c%%:*}" "$how" "${c#*:}" "$st"
done
# renamed and oddly named protected files: every one named for review, old paths included,
# each name as text in the comment (the checks stood in by passes: fault none)
fault=none:none dry_gpu names run_ok.json ab_ok.json
want names "the job" success "$conclusion"
python3 - "$art" ci/workflow/judge.sh CODEOWNERS "${odd_names[@]}" <<'PY' || note "names: the review list or the comment (above)"
import json, os, sys
sys.path.insert(0, "ci/checks")
from md_check import raw_html
art, want = sys.argv[1], [os.fsdecode(os.fsencode(a)) for a in sys.argv[2:]]
got = json.load(open(f"{art}/verdict.json"))["needs_review"]
bad = 0
for w in want:
    if w not in got:
        print(f"  not named for review: {w!r} (named: {got!r})", file=sys.stderr); bad = 1
md = open(f"{art}/comment.md", encoding="utf-8", errors="replace").read()
for h in raw_html(md):
    print(f"  raw HTML in the comment: {h!r}", file=sys.stderr); bad = 1
line = next((l for l in md.splitlines() if "Needs a maintainer" in l), "")
for w in ("``ci/workflow/`<img src=x onerror=alert(1)>`.sh``", "`ci/workflow/a b.sh`", '`.github/workflows/a"b.yml`',
          "`ci/workflow/étape.sh`", "`ci/workflow/x\\ny.sh`", "`ci/frozen/\\xff.sha256`", "`ci/workflow/judge.sh`"):
    if w not in line:
        print(f"  the review line lacks {w}: {line!r}", file=sys.stderr); bad = 1
sys.exit(bad)
PY
# the pull request's own rung kills the measuring process, after the run and the pairs are written
fault=rung:segv dry_gpu segv run_ok.json ab_ok.json
want segv "the job with a rung that crashes the measuring process" failure "$conclusion"
want segv "the statuses (run ab_measure gate ab freeze)" "139 139 0 0 0" \
  "$(verdict '" ".join(str(d["checks"].get(k)) for k in ("run", "ab_measure", "gate", "ab", "freeze"))')"
grep -q "SIGSEGV" "$art/comment.md" 2>/dev/null || note "segv: the comment does not name the crash"

# ---- the comment workflow, dry-run after the ab attack's run, with a planted marker -------
marker="<!-- attnladder-comment gpu=$gpu -->"
gh_dir=$tmp/gh; mkdir -p "$gh_dir"
pr_head=$(g rev-parse pr-ab)
echo "{\"jobs\": [{\"name\": \"ladder on $gpu\", \"conclusion\": \"failure\"}, {\"name\": \"ladder on nvidia-h200\", \"conclusion\": \"skipped\"}, {\"name\": \"make test (CPU)\", \"conclusion\": \"success\"}]}" \
  > "$gh_dir/repos_o_attnladder_actions_runs_100_jobs.json"
echo "{\"head\": {\"sha\": \"$pr_head\"}}" > "$gh_dir/repos_o_attnladder_pulls_7.json"
# the run is the GPU workflow's (post_comments.sh checks its file, its workflow id and commit)
echo "{\"id\": 100, \"workflow_id\": 42, \"path\": \".github/workflows/gpu.yml\", \"head_sha\": \"$pr_head\"}" \
  > "$gh_dir/repos_o_attnladder_actions_runs_100.json"
echo '{"id": 42, "path": ".github/workflows/gpu.yml"}' > "$gh_dir/repos_o_attnladder_actions_workflows_gpu.yml.json"
g diff --name-only "$base" "$pr_head" | python3 -c 'import json,sys; print(json.dumps([{"filename": l.strip()} for l in sys.stdin]))' \
  > "$gh_dir/repos_o_attnladder_pulls_7_files.json"
echo "[{\"id\": 5, \"user\": {\"login\": \"mallory\", \"type\": \"User\"}, \"body\": \"$marker\\n**Verdict: PASS**\"}]" \
  > "$gh_dir/repos_o_attnladder_issues_7_comments.json"
: > "$gh_dir/calls.log"
cat > "$tmp/ctx_comment.json" <<JSON
{"github": {"event_name": "workflow_run", "repository": "o/attnladder", "run_id": "200",
  "event": {"workflow_run": {"id": 100, "event": "pull_request", "head_sha": "$pr_head"}}}}
JSON
PATH="$root/ci/checks/fake:$PATH" FAKE_GH_DIR=$gh_dir GITHUB_REPOSITORY=o/attnladder \
  python3 ci/checks/workflow_dryrun.py .github/workflows/pr_comment.yml comment --workspace "$tmp/ws_comment" \
  --context "$tmp/ctx_comment.json" --artifacts "$tmp/arts_ab" \
  --checkout "$(checkout_cmd $base)" \
  > "$tmp/dry_comment.txt" 2>&1 || note "marker: the comment job failed: $(tail -5 "$tmp/dry_comment.txt")"
log=$gh_dir/calls.log
cases=$((cases + 1))
grep -q "^POST repos/o/attnladder/issues/7/comments" "$log" || note "marker: the result was not posted beside the planted comment: $(cat "$log")"
grep -q "^PATCH" "$log" && note "marker: a comment was edited (the planted one?): $(grep PATCH "$log")"
grep -q "The GPU job failed" "$log" || note "marker: the posted verdict is not the job's"
grep -q "Needs a maintainer's review.*harness/gate/ab_rule.c" "$log" || note "marker: the review line does not name harness/gate/ab_rule.c"
grep -q "06_tiling .*regressed" "$log" || note "marker: the posted comment lacks the regression"
grep -q "nvidia-h200" "$log" && note "marker: a comment was posted for the GPU that left no artifact"
[ $fail = 0 ] && echo "test_judge: $cases cases passed: the loosened gate.json, gate/ab_rule.c made to pass, the rewritten manifest and the planted marker are each caught; a clean change passes; each check crashed, killed or timed out, and a rung that crashes the measuring process, fail the job"
exit $fail
