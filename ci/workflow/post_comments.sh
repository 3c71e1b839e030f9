#!/usr/bin/env bash
# The comment workflow's one step (.github/workflows/pr_comment.yml): for each GPU job of
# the completed GPU workflow run, its conclusion as GitHub reports it and its artifact
# (downloaded to ARTIFACTS/ladder-<gpu>-<run id>/), one comment through pr_comment.sh. A
# job that left no artifact (not approved, cancelled before it measured) gets none.
# The run and its jobs are found by what GitHub records, not by names a pull request can
# also use (ci/workflow/gpu_jobs.py): the run must be one of the GPU workflow
# (.github/workflows/gpu.yml, by its file and its workflow id) for HEAD_SHA; a GPU is one
# with accepted runs in this checkout (evidence/<gpu>/accepted.txt), and its job the one
# job of that run named exactly "ladder on <gpu>" (two such jobs: "ambiguous", never a
# pass; a name holding a newline or anything else matches no GPU).
#   GITHUB_REPOSITORY=owner/name RUN_ID=... HEAD_SHA=... ci/workflow/post_comments.sh ARTIFACTS
# Exit 0; 1 when a comment could not be posted; 2 bad arguments or a run that is not the
# GPU workflow's.
set -u
arts=${1:-}; repo=${GITHUB_REPOSITORY:-}; run_id=${RUN_ID:-}
[ -d "$arts" ] && [[ "$run_id" =~ ^[0-9]{1,20}$ ]] && [[ "$repo" =~ ^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$ ]] \
  || { echo "usage: GITHUB_REPOSITORY=owner/name RUN_ID=<id> HEAD_SHA=<sha> ci/workflow/post_comments.sh ARTIFACTS" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2
arts=$(cd "$arts" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gh api "repos/$repo/actions/runs/$run_id" > "$tmp/run.json" || exit 1
gh api "repos/$repo/actions/workflows/gpu.yml" > "$tmp/workflow.json" || exit 1
# one job a line, as JSON (a name with a newline stays on its line)
gh api --paginate "repos/$repo/actions/runs/$run_id/jobs" --jq '.jobs[] | @json' > "$tmp/jobs.jsonl" || exit 1
jobs=$(python3 ci/workflow/gpu_jobs.py "$tmp/run.json" "$tmp/workflow.json" "$tmp/jobs.jsonl" "$run_id" "${HEAD_SHA:-}" evidence) \
  || exit 2
status=0
while read -r gpu conclusion job_id; do
  [ -n "$gpu" ] || continue
  art=$arts/ladder-$gpu-$run_id
  if [ ! -d "$art" ] || [ -L "$art" ]; then
    echo "post_comments: $gpu ($conclusion, job $job_id): no artifact; no comment"
    continue
  fi
  JOB_CONCLUSION=$conclusion bash ci/workflow/pr_comment.sh "$gpu" "$art" || status=1
done <<< "$jobs"
exit $status
