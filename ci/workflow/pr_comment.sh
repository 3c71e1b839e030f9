#!/usr/bin/env bash
# The GPU workflow's pull-request comment: one comment per GPU, edited in place. The
# comment carries a marker naming the GPU; the first push creates it, every later push
# edits the same one (the job summary keeps each run's full tables).
#   ci/workflow/pr_comment.sh GPU PR BODY.md      (needs gh and GITHUB_REPOSITORY)
# Exit 0 posted or edited; 1 gh failed; 2 bad arguments.
set -u
gpu=${1:-}; pr=${2:-}; body=${3:-}
repo=${GITHUB_REPOSITORY:-}
if ! [[ "$gpu" =~ ^[A-Za-z0-9._-]+$ ]] || ! [[ "$pr" =~ ^[0-9]+$ ]] || [ ! -f "$body" ] || [ -z "$repo" ]; then
  echo "usage: GITHUB_REPOSITORY=owner/name ci/workflow/pr_comment.sh GPU PR BODY.md" >&2
  exit 2
fi
marker="<!-- attnladder-comment gpu=$gpu -->"
text=$(mktemp); trap 'rm -f "$text"' EXIT
{ echo "$marker"; echo "#### GPU runner: $gpu"; echo; cat "$body"; } > "$text"
# the oldest comment with this GPU's marker is the one to edit (there is at most one)
id=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
       --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | head -1) || exit 1
if [ -n "$id" ]; then
  gh api -X PATCH "repos/$repo/issues/comments/$id" -F "body=@$text" >/dev/null || exit 1
  echo "pr_comment: edited comment $id on #$pr ($gpu)"
else
  gh api -X POST "repos/$repo/issues/$pr/comments" -F "body=@$text" >/dev/null || exit 1
  echo "pr_comment: created the $gpu comment on #$pr"
fi
