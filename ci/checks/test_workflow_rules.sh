#!/usr/bin/env bash
# ci/checks/workflow_rules.py catches each way the workflows could lose their trust model
# (`make test`): copies of .github/workflows with one change each must be refused, with
# the rule named; the files as committed pass.
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0
note() { echo "test_workflow_rules: $*" >&2; fail=1; }
. ci/checks/expect.sh
expect "the committed workflows" 0 "0 problem" python3 ci/checks/workflow_rules.py .github/workflows
broken() {  # NAME FILE WORDS SED-EXPRESSION: the copy with that change must be refused
  rm -rf "$tmp/w" && cp -r .github/workflows "$tmp/w"
  sed -i -e "$4" "$tmp/w/$2"
  cmp -s "$tmp/w/$2" ".github/workflows/$2" && { note "$1: the change did not apply"; return; }
  expect "$1" 1 "$3" python3 ci/checks/workflow_rules.py "$tmp/w"
}
broken "an action pinned by tag" gpu.yml "pinned to a full commit SHA" 's|actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683|actions/checkout@v4|'
broken "the container pinned by tag alone" gpu.yml "pinned by digest" 's|@sha256:c2621d98e7de80c2aec5eb8403b19c67454c8f5b0c929e8588fd3563c9b6558d||'
broken "pull_request_target" gpu.yml "pull_request_target" 's|^  pull_request:|  pull_request_target:|'
broken "a GPU without evidence in the matrix" gpu.yml "the GPUs with accepted runs" 's|gpu: \[nvidia-h100-80gb-hbm3, nvidia-h200\]|gpu: [l4, nvidia-h100-80gb-hbm3]|'
broken "no ephemeral label" gpu.yml "ephemeral labels" 's|gpu, ephemeral, |gpu, |'
broken "no approval for forks" gpu.yml "gpu-outside" "s#'gpu-outside'#'gpu'#"
broken "the pull request's own scripts judge" gpu.yml "the judge's scripts are the base's" 's|bash judge/ci/workflow/judge.sh decide|bash head/ci/workflow/judge.sh decide|'
broken "make run on the runner" gpu.yml "make run" 's|make -C head --no-print-directory build|make -C head --no-print-directory run|'
broken "sudo on the runner" gpu.yml "sudo" 's|make -C head --no-print-directory build|sudo make -C head --no-print-directory build|'
broken "the head built before the judge" gpu.yml "before any of the pull request" 's|bash judge/ci/workflow/judge.sh prepare head "$OUT"|make -C head --no-print-directory build \&\& bash judge/ci/workflow/judge.sh prepare head "$OUT"|'
broken "the verdict does not fail the job" gpu.yml "fail the job on the judge" 's|          exit 1$|          exit 0|'
broken "a write token on the GPU job" gpu.yml "permissions" 's|^permissions:$|permissions:\n  pull-requests: write|'
broken "the comment workflow checks out the pull request" pr_comment.yml "default branch only" 's|          persist-credentials: false|          persist-credentials: false\n          ref: ${{ github.event.workflow_run.head_sha }}|'
broken "the comment workflow runs make" pr_comment.yml "never the artifact" 's|run: bash ci/workflow/post_comments.sh artifacts|run: make test \&\& bash ci/workflow/post_comments.sh artifacts|'
broken "the comment workflow may write code" pr_comment.yml "actions: read and pull-requests: write at most" 's|      actions: read          # the run|      contents: write\n      actions: read          # the run|'
[ $fail = 0 ] && echo "test_workflow_rules: $cases cases passed"
exit $fail
