#!/usr/bin/env bash
# CODEOWNERS covers what judges a pull request (`make test`): the gate's configuration,
# every GPU's accepted and reference runs, the freeze manifests and their tool, the gates'
# code, the workflow and its scripts, and CODEOWNERS itself, each read by the rule
# ci/workflow/protected_paths.py applies (and so the workflow's comment); an ordinary
# change (a new rung, a report, a run) is not flagged; the rule's edge cases hold.
set -u
cd "$(dirname "$0")/../.." || exit 2
fail=0
note() { echo "test_codeowners: $*" >&2; fail=1; }
flagged() { printf '%s\n' "$@" | python3 ci/workflow/protected_paths.py "${CO[@]}" | awk '{print $1}'; }
CO=()
must=(ci/gate.json ci/frozen/06_tiling.sha256 ci/frozen/99_new.sha256 ci/freeze.sh
      harness/gate/ab.c harness/gate/decide.c harness/gate/new_rule.c harness/ab.c harness/gate.c
      .github/workflows/gpu.yml .github/workflows/pr_comment.yml .github/actionlint.yaml
      ci/workflow/judge.sh ci/workflow/pr_comment.sh ci/workflow/pr_gate.sh ci/workflow/ab_gate.sh CODEOWNERS)
for acc in evidence/*/accepted.txt evidence/*/reference.txt; do must+=("$acc"); done
ev=evidence   # made-up paths below: spelled through $ev so that no check takes them for citations
must+=("$ev/some-new-gpu/accepted.txt" "$ev/some-new-gpu/reference.txt")
not=(phases/08_new/attention.cu harness/report/pages.c harness/run.c README.md reports/README.md
     "$ev/nvidia-h200/20991231T000000Z_abcdef0.json" "$ev/nvidia-h200/studies/ab/x.json"
     ci/checks/test_drift.sh docs/ci/gate.json harness/tests/gate/x.c)
got=$(flagged "${must[@]}")
for p in "${must[@]}"; do grep -qxF -- "$p" <<<"$got" || note "$p is not covered by CODEOWNERS"; done
got=$(flagged "${not[@]}")
for p in "${not[@]}"; do grep -qxF -- "$p" <<<"$got" && note "$p is flagged but judges nothing"; done
# the rule itself, on a made-up file: last match wins, an owner-less line unassigns,
# '*' stays in one component, an unanchored name matches at any depth
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '/a/ @o\n/a/free.txt\n*.cfg @c\n/b/*/x @x\n' > "$tmp/CO"
CO=(--codeowners "$tmp/CO")
got=$(flagged a/1 a/free.txt a/d/2 q/r.cfg b/1/x b/1/2/x c/a/1)
[ "$got" = "$(printf 'a/1\na/d/2\nq/r.cfg\nb/1/x')" ] || note "the matching rule: got [$(echo $got)]"
python3 ci/workflow/protected_paths.py --codeowners "$tmp/none" </dev/null 2>/dev/null; [ $? = 2 ] || note "a missing CODEOWNERS is not refused"
[ $fail = 0 ] && echo "test_codeowners: ${#must[@]} paths that judge covered, ${#not[@]} others not"
exit $fail
