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
      harness/gate/ab_rule.c harness/gate/decide.c harness/gate/new_rule.c harness/cmd/ab.c harness/cmd/gate.c
      .github/workflows/gpu.yml .github/workflows/pr_comment.yml .github/actionlint.yaml
      ci/workflow/judge.sh ci/workflow/pr_comment.sh ci/workflow/pr_gate.sh ci/workflow/ab_gate.sh CODEOWNERS)
for acc in evidence/*/accepted.txt evidence/*/reference.txt; do must+=("$acc"); done
ev=evidence   # made-up paths below: spelled through $ev so that no check takes them for citations
must+=("$ev/some-new-gpu/accepted.txt" "$ev/some-new-gpu/reference.txt")
not=(phases/08_new/attention.cu harness/report/pages.c harness/cmd/run.c README.md reports/README.md
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
# names as git writes them with -z and as GitHub's API gives them (JSON strings, one a
# line): a space, a quote, a backquote with markup, a newline, non-ASCII, a byte that is
# not UTF-8; each matched whole and unquoted, the ordinary ones beside them not flagged
odd=("ci/workflow/a b.sh" '.github/workflows/a"b.yml' 'ci/workflow/étape.sh' $'ci/workflow/x\ny.sh'
     'ci/workflow/`<img src=x onerror=alert(1)>`.sh' $'ci/frozen/\xff.sha256' "harness/gate/ sp .c"
     $'ci/workflow/a\tb.sh')
plain=("phases/a b/x.cu" $'README\n.md' "docs/ci/workflow/a b.sh")
printf '%s\0' "${odd[@]}" "${plain[@]}" | python3 ci/workflow/protected_paths.py -z --json > "$tmp/z.json" \
  || note "-z --json failed"
python3 - "$tmp/z.json" "${odd[@]}" <<'PY' || note "-z: the odd names are not matched whole (above)"
import json, os, sys
got = [p["path"] for p in json.load(open(sys.argv[1]))]
want = [os.fsdecode(os.fsencode(a)) for a in sys.argv[2:]]
if got != want:
    print(f"  got  {got!r}\n  want {want!r}", file=sys.stderr)
    sys.exit(1)
PY
python3 -c 'import json,sys; [print(json.dumps(a)) for a in sys.argv[1:]]' "${odd[@]:0:5}" "${plain[@]}" \
  | python3 ci/workflow/protected_paths.py --json-lines --json > "$tmp/j.json" || note "--json-lines --json failed"
python3 - "$tmp/j.json" "${odd[@]:0:5}" <<'PY' || note "--json-lines: the odd names are not matched whole (above)"
import json, sys
got = [p["path"] for p in json.load(open(sys.argv[1]))]
if got != sys.argv[2:]:
    print(f"  got  {got!r}\n  want {sys.argv[2:]!r}", file=sys.stderr)
    sys.exit(1)
PY
# the judge's own reading of git (judge.sh, step 5), on a repository: a protected file
# removed, renamed out of its folder, copied, modified, and added under a name with a tab;
# every protected path named, by both names where renamed
repo=$tmp/repo; mkdir -p "$repo/ci/workflow" "$repo/ci/frozen" "$repo/tools"
gitr() { git -C "$repo" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@" >/dev/null; }
printf '/ci/workflow/ @m\n/ci/frozen/ @m\n' > "$repo/CODEOWNERS"
for f in judge.sh gone.sh edit.sh; do echo "$f" > "$repo/ci/workflow/$f"; done
echo base > "$repo/ci/frozen/a.sha256"
gitr init -q && gitr add -A && gitr commit -qm base
gitr mv ci/workflow/judge.sh tools/judge.sh && gitr rm -q ci/workflow/gone.sh
echo more >> "$repo/ci/workflow/edit.sh"; cp "$repo/ci/frozen/a.sha256" "$repo/ci/frozen/copy.sha256"
echo new > "$repo/ci/workflow/"$'tab\there.sh'
gitr add -A && gitr commit -qm change
git -C "$repo" -c core.quotePath=false diff --no-renames --name-only -z HEAD~1 HEAD \
  | python3 ci/workflow/protected_paths.py -z --json --codeowners "$repo/CODEOWNERS" > "$tmp/g.json" || note "the judge's pipeline failed"
python3 - "$tmp/g.json" <<'PY' || note "the judge's reading of git: a protected path is not named (above)"
import json, sys
got = sorted(p["path"] for p in json.load(open(sys.argv[1])))
want = sorted(["ci/workflow/judge.sh", "ci/workflow/gone.sh", "ci/workflow/edit.sh", "ci/frozen/copy.sha256",
               "ci/workflow/tab\there.sh"])
if got != want:
    print(f"  got  {got!r}\n  want {want!r}", file=sys.stderr)
    sys.exit(1)
PY
[ $fail = 0 ] && echo "test_codeowners: ${#must[@]} paths that judge covered, ${#not[@]} others not"
exit $fail
