#!/usr/bin/env bash
# The GPU workflow's gate step, runnable by hand after `make run`:
#   bash ci/workflow/pr_gate.sh [OUT_DIR] [RUN.json]
# Gates RUN.json (default: the newest complete evidence file that git does not track yet,
# i.e. the one `make run` just wrote) with the ladder gate and, when the GPU has accepted
# reference runs (evidence/<gpu>/accepted.txt), the drift gate against that set (blocks
# only a drift past the tolerance the set's own spread gives; the A/B gate,
# ab_gate.sh, is the one that sees small slowdowns). The comment compares with the first
# accepted run.
# Writes OUT_DIR/gate.txt (the table), OUT_DIR/gate.json, and OUT_DIR/compare.md (the
# comparison the comment shows). Exit status: the gate's (0 pass, 1 failed, 2 bad input):
# a drift past the set's tolerance fails, as a ladder bound does.
# ATTNLADDER (the binary) and GATE_CONFIG (the configuration, default ci/gate.json): the
# workflow's judge (judge.sh) runs this from the base's checkout with the base's binary.
set -u
out=${1:-out}
run=${2:-}
bin=${ATTNLADDER:-build/attnladder}
config=(--config "${GATE_CONFIG:-ci/gate.json}")
mkdir -p "$out"
if [ -z "$run" ]; then
  run=$(git ls-files --others --exclude-standard -- 'evidence/*/*.json' 2>/dev/null \
        | grep -v '\.partial\.json$' | awk -F/ '{print $NF "\t" $0}' | sort | tail -1 | cut -f2)
fi
if [ -z "$run" ] || [ ! -f "$run" ]; then
  echo "pr_gate: no new evidence file (did make run write one under evidence/<gpu>/?)" | tee "$out/gate.txt" >&2
  printf '### attnladder\n\nThe run wrote no evidence; nothing was gated.\n' > "$out/compare.md"
  exit 2
fi
slug=$(basename "$(dirname "$run")")
accepted_txt="evidence/$slug/accepted.txt"
against=()
ref=""
# the binary reads accepted.txt, by the rule gate and report use (exit 1: none yet)
ref=$("$bin" accepted "$slug" --evidence evidence); acc=$?
if [ "$acc" = 0 ]; then
  against=(--against accepted --evidence evidence)
elif [ "$acc" = 1 ]; then
  ref=""
  echo "pr_gate: $accepted_txt does not exist: ladder gate only (accept a run by writing its file name there)"
else
  echo "pr_gate: $accepted_txt is invalid (see above)" | tee "$out/gate.txt" >&2
  printf '### attnladder\n\n`%s` names no run file; nothing was gated.\n' "$accepted_txt" > "$out/compare.md"
  exit 2
fi
"$bin" gate "$run" "${against[@]}" "${config[@]}" --json "$out/gate.json" > "$out/gate.txt" 2>&1
status=$?
cat "$out/gate.txt"
if [ -n "$ref" ] && [ "$status" != 2 ]; then
  "$bin" compare "$ref" "$run" "${config[@]}" --out "$out/compare.md" || status=2
else
  { printf '### attnladder: %s\n\n' "$run"
    # shellcheck disable=SC2016
    if [ -z "$ref" ]; then printf 'No accepted reference run for `%s` yet (`%s`).\n\n' "$slug" "$accepted_txt"; fi
    printf '```text\n'; cat "$out/gate.txt"; printf '```\n'; } > "$out/compare.md"
fi
exit "$status"
