#!/usr/bin/env bash
# The GPU workflow's judge. The workflow checks the base commit out beside the pull
# request's (the head) and runs THIS COPY, the base's: the binary that measures and
# decides, the bounds (ci/gate.json), the accepted runs (evidence/<gpu>/accepted.txt), the
# freeze manifests (ci/frozen/) and these scripts are all the base's, so a pull request
# that changes any of them is judged by the rules it came to (and CODEOWNERS makes the
# change itself need a maintainer's review). The pull request's own rules are run too,
# on the same measurements, and reported beside: exercised, not trusted.
#   ci/workflow/judge.sh prepare HEAD_DIR OUT   build the base: its harness, its phases (the
#                                               A/B gate's base) and its baseline
#   ci/workflow/judge.sh measure HEAD_DIR OUT   GPU, after HEAD_DIR's `make build`: the
#                                               ladder of the head's phases against the
#                                               base's baseline, timed by the base's harness
#                                               (OUT/ev/<gpu>/), and the A/B gate of the
#                                               head's build against the base's (OUT/ab.json)
#   ci/workflow/judge.sh decide HEAD_DIR OUT    no GPU: every verdict by the base's rules,
#                                               the head's beside; OUT/verdict.json and
#                                               OUT/comment.md (the job's verdict, first)
# Exit: 0 pass; 1 a gate failed (the ladder gate, the drift gate, the A/B gate, the freeze);
# 2 bad input or nothing measured; 3 no GPU (measure). Nothing here installs anything.
# The verdict fails closed (judge_verdict.py): the measurement's run and A/B pairs and
# every check count, and only an explicit exit 0 of each passes; a crash, a kill, a
# timeout or a missing status fails the job.
set -u
step=${1:-}; head_dir=${2:-}; out=${3:-}
case "$step" in prepare|measure|decide) ;; *) step="" ;; esac
[ -n "$step" ] && [ -d "$head_dir" ] && [ -n "$out" ] \
  || { echo "usage: ci/workflow/judge.sh prepare|measure|decide HEAD_DIR OUT" >&2; exit 2; }
head_dir=$(cd "$head_dir" && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2
judge=$PWD
bin=$judge/build/attnladder

if [ "$step" = prepare ]; then
  make --no-print-directory build > "$out/prepare.txt" 2>&1 \
    || { tail -30 "$out/prepare.txt" >&2; echo "judge: the base does not build; nothing can judge" >&2; exit 2; }
  echo "judge: the base $(git rev-parse --short HEAD) built: $bin"
  exit 0
fi

if [ "$step" = measure ]; then
  [ -x "$bin" ] || { echo "judge: $bin is not built (judge.sh prepare)" >&2; exit 2; }
  [ -d "$head_dir/build/phases" ] || { echo "judge: $head_dir/build has no phases (make build there)" >&2; exit 2; }
  nvidia-smi -L >/dev/null 2>&1 || { echo "judge: no GPU; nothing measured" >&2; exit 3; }
  # the build the base's harness runs: the head's phases against the base's baseline (a
  # pull request cannot make the ratios look better by slowing the baseline; its own
  # baseline is compared with the base's by the A/B gate)
  judged=$out/judged
  rm -rf "$judged" && mkdir -p "$judged"
  cp "$bin" "$judged/attnladder"
  ln -s "$head_dir/build/phases" "$judged/phases"
  ln -s "$judge/build/kernels" "$judged/kernels"
  cp "$head_dir/build/gitinfo" "$judged/gitinfo" 2>/dev/null
  # every status decide counts is written here or there, and a missing one fails the job:
  # run.status (the ladder run's own exit, by gpu_session.sh) and ab_measure.status
  rm -f "$out/run.status" "$out/ab_measure.status"
  # the build check (check_build_sources.sh) is for build folders carried to a GPU: here both
  # builds were made in this job from their own checkouts (prepare, make -C head build), and
  # the judged folder mixes two trees, which one tree's check would misread
  SOURCES_CHECKED=1 BUILD=$judged OUT_DIR=$out bash ci/workflow/gpu_session.sh ladder > "$out/ladder.txt" 2>&1
  echo $? > "$out/ladder.status"
  "$bin" ab --base "$judge/build" --head "$head_dir/build" --seed "${GITHUB_RUN_ID:-$$}" --out "$out/ab.json" \
    > "$out/ab.txt" 2>&1
  echo $? > "$out/ab_measure.status"
  cat "$out/ab.txt"
  exit 0
fi

# ---- decide ----------------------------------------------------------------------------
[ -x "$bin" ] || { echo "judge: $bin is not built (judge.sh prepare)" >&2; exit 2; }
base_sha=$(git rev-parse HEAD)
head_sha=$(git -C "$head_dir" rev-parse HEAD)
head_bin=$head_dir/build/attnladder
st() { echo "$2" > "$out/$1.status"; }   # each check's exit status, for verdict.json

# 1. the configuration: the base's, plus the bounds of rungs the base does not have yet
#    (their own ladder gate needs one; naming them is part of the comment)
python3 ci/workflow/judge_config.py ci/gate.json "$head_dir/ci/gate.json" "$out/judge_gate.json" \
  > "$out/config.txt" 2>&1; st config $?

# 2. the ladder gate and the drift gate against the base's accepted runs
run=$(ls "$out"/ev/*/2*.json 2>/dev/null | grep -v '\.partial\.json$' | sort | tail -1)
if [ -z "$run" ]; then
  echo "judge: the measurement wrote no complete run (see ladder.txt)" > "$out/gate.txt"; st gate 2
elif [ "$(cat "$out/config.status")" != 0 ]; then
  cp "$out/config.txt" "$out/gate.txt"; st gate 2
else
  ATTNLADDER=$bin GATE_CONFIG=$out/judge_gate.json bash ci/workflow/pr_gate.sh "$out" "$run" > /dev/null 2>&1
  st gate $?
fi

# 3. the A/B gate: the recorded pairs decided by the base's rule
if [ -f "$out/ab.json" ]; then
  "$bin" ab --judge "$out/ab.json" --out "$out/ab_judged.json" > "$out/ab_judged.txt" 2>&1; st ab $?
else
  { echo "judge: no A/B comparison was recorded"; cat "$out/ab.txt" 2>/dev/null; } > "$out/ab_judged.txt"; st ab 2
fi

# 4. the freeze: the head's files against the base's manifests, by the base's freeze.sh
ft=$(mktemp -d)
if git -C "$head_dir" archive HEAD | tar -x -C "$ft"; then
  rm -rf "$ft/ci/frozen" && mkdir -p "$ft/ci" && cp -r ci/frozen "$ft/ci/frozen" && cp ci/freeze.sh "$ft/ci/freeze.sh"
  bash "$ft/ci/freeze.sh" --check > "$out/freeze.txt" 2>&1; st freeze $?
else
  echo "judge: cannot read the head's tree" > "$out/freeze.txt"; st freeze 2
fi
rm -rf "$ft"

# 5. what the pull request changes that judges it (the base's CODEOWNERS), found by content:
#    every changed path whole (-z: no quoting, no splitting at a space or a newline), a
#    rename as its old path and its new one (--no-renames); a list that cannot be made is
#    said so in the comment (review.status), not taken for an empty one
if git -C "$head_dir" -c core.quotePath=false diff --no-renames --name-only -z "$base_sha" HEAD \
     > "$out/changed_paths.z" 2> "$out/review.txt"; then
  python3 ci/workflow/protected_paths.py -z --json < "$out/changed_paths.z" > "$out/needs_review.json" 2>> "$out/review.txt"
  st review $?
else
  st review 2
fi

# 6. the pull request's own rules on the same measurements: reported, never counted
if [ -x "$head_bin" ] && [ -f "$out/ab.json" ]; then
  "$head_bin" ab --judge "$out/ab.json" > "$out/head_ab.txt" 2>&1; st head_ab $?
else st head_ab none; fi
if [ -x "$head_bin" ] && [ -n "$run" ]; then
  (cd "$head_dir" && "$head_bin" gate "$run" --against accepted --evidence evidence --config ci/gate.json) \
    > "$out/head_gate.txt" 2>&1; st head_gate $?
else st head_gate none; fi
# the head's own freeze: the same script over the same manifests and tree gives the same
# answer, so it is run only when the head changed ci/freeze.sh or ci/frozen/
if git -C "$head_dir" diff --quiet "$base_sha" HEAD -- ci/freeze.sh ci/frozen; then
  cp "$out/freeze.txt" "$out/head_freeze.txt"; st head_freeze "$(cat "$out/freeze.status")"
else
  (cd "$head_dir" && bash ci/freeze.sh --check) > "$out/head_freeze.txt" 2>&1; st head_freeze $?
fi

python3 ci/workflow/judge_verdict.py "$out" "$base_sha" "$head_sha"
