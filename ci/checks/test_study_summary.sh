#!/usr/bin/env bash
# ci/tools/study_summary.py (`make test`): the smallest-slowdown table's rule on verdicts
# made up here, and --check failing on a study block that was edited by hand or is missing.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0
note() { echo "test_study_summary: $*" >&2; fail=1; }
. "$(dirname "$0")/expect.sh"
# the rule: the largest change not flagged, and the flagged changes above it (a flagged
# verdict below a missed one does not count as caught)
cases=$((cases + 1))
out=$(python3 - <<'PY'
import sys
sys.path.insert(0, "ci/tools")
import study_summary as s
out = []
s.detectable_section(out, {
    ("g", "p1", "a"): [(0.005, "unchanged"), (0.012, "regressed"), (0.013, "inconclusive"),
                       (0.02, "regressed"), (0.03, "regressed")],
    ("g", "p2", "a"): [(0.011, "regressed"), (0.02, "regressed")],
    ("g", "p3", "a"): [(0.011, "regressed"), (0.04, "unchanged")],
})
print("\n".join(out))
PY
) || note "detectable_section raised: $out"
for want in "| g | p1 | a | 5 | +1.30% | +2.00% (2 of 2) |" "| g | p2 | a | 2 | - | +1.10% (2 of 2) |" \
            "| g | p3 | a | 2 | +4.00% | - |"; do
  grep -qF -- "$want" <<< "$out" || note "detectable_section: no row '$want' in: $out"
done
# --check on a copy of evidence/STUDIES.md whose block was edited (one figure of the smallest-
# slowdown table), and on one without the block's markers
cp evidence/STUDIES.md "$tmp/edited.md"
python3 - "$tmp/edited.md" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
i = t.index("**Smallest slowdown caught**")
j = t.index("| nvidia", i)
row_end = t.index("\n", j)
row = t[j:row_end]
new = re.sub(r"\| (\d+) \|", lambda m: f"| {int(m.group(1)) + 1} |", row, count=1)
assert new != row
open(p, "w").write(t[:j] + new + t[row_end:])
PY
grep -v "study:begin" evidence/STUDIES.md > "$tmp/unmarked.md"
BIN=${1:-build/attnladder}
# the drift gate's results computed once by make test (ci/checks/drift_runs.sh), else here
DRIFT=${2:-}
if [ -z "$DRIFT" ]; then DRIFT=$tmp/drift; bash ci/checks/drift_runs.sh "$BIN" "$DRIFT" >/dev/null; fi
expect "--check, edited block" 1 "does not match the evidence" python3 ci/tools/study_summary.py --check --bin "$BIN" --readme "$tmp/edited.md" --drift "$DRIFT"
expect "--check, no markers" 2 "has no" python3 ci/tools/study_summary.py --check --bin "$BIN" --readme "$tmp/unmarked.md" --drift "$DRIFT"
cmp -s "$tmp/unmarked.md" <(grep -v "study:begin" evidence/STUDIES.md) || note "--check changed the file it checked"
[ "$fail" = 0 ] && echo "test_study_summary: $cases cases passed"
exit "$fail"
