#!/usr/bin/env bash
# The comment workflow's one step (.github/workflows/pr_comment.yml): for each GPU job of
# the completed GPU workflow run, its conclusion as GitHub reports it and its artifact
# (downloaded to ARTIFACTS/ladder-<gpu>-<run id>/), one comment through pr_comment.sh. A
# job that left no artifact (not approved, cancelled before it measured) gets none.
#   GITHUB_REPOSITORY=owner/name RUN_ID=... HEAD_SHA=... ci/workflow/post_comments.sh ARTIFACTS
# Exit 0, or 1 when a comment could not be posted.
set -u
arts=${1:-}; repo=${GITHUB_REPOSITORY:-}; run_id=${RUN_ID:-}
[ -d "$arts" ] && [[ "$run_id" =~ ^[0-9]{1,20}$ ]] && [ -n "$repo" ] \
  || { echo "usage: GITHUB_REPOSITORY=owner/name RUN_ID=<id> HEAD_SHA=<sha> ci/workflow/post_comments.sh ARTIFACTS" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2
arts=$(cd "$arts" && pwd)
jobs=$(gh api --paginate "repos/$repo/actions/runs/$run_id/jobs" \
         --jq '.jobs[] | select(.name | startswith("ladder on ")) | "\(.name | ltrimstr("ladder on ")) \(.conclusion // "none")"') || exit 1
status=0
while read -r gpu conclusion; do
  [ -n "$gpu" ] || continue
  art=$arts/ladder-$gpu-$run_id
  if [ ! -d "$art" ]; then
    echo "post_comments: $gpu ($conclusion): no artifact; no comment"
    continue
  fi
  JOB_CONCLUSION=$conclusion bash ci/workflow/pr_comment.sh "$gpu" "$art" || status=1
done <<< "$jobs"
exit $status
