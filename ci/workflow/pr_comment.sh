#!/usr/bin/env bash
# The pull-request comment of one GPU, posted by the comment workflow
# (.github/workflows/pr_comment.yml), which runs the default branch's copy of this script
# after the GPU workflow completes and never runs the pull request's code. Everything it
# reads from the GPU job's artifact is data from a job that ran the pull request's code:
#  - the pull request's number (ARTIFACT/pr.txt) is believed only when that pull request's
#    head is the commit the GPU workflow ran (HEAD_SHA, from GitHub's event);
#  - the verdict line is the GPU job's conclusion as GitHub reports it (JOB_CONCLUSION),
#    not a line of the artifact; an artifact verdict that disagrees is called out;
#  - what needs a maintainer's review is read from the pull request's file list (GitHub's
#    API) against this checkout's CODEOWNERS, not from the artifact: every name whole (one
#    JSON string a line, never split at a space), a renamed file by its old name too
#    (previous_filename), and a list shorter than the pull request's changed_files (GitHub
#    lists at most 3000) asks for review of what it left out;
#  - the artifact's comment.md is shown below those, read only as a regular file (no link
#    followed, no FIFO waited on), cut to size, with every "<" that could open HTML (a
#    "<!--" marker among them) made inert; names reach the comment through the same rule
#    (ci/workflow/comment_text.py: code spans no backquote can end).
# One comment per GPU, edited in place: the comment this bot (COMMENT_AUTHOR, by default
# github-actions[bot]) wrote with this GPU's marker. A comment by anyone else that carries
# the marker is left alone: a planted marker can neither be edited into the result nor
# hide it.
#   GITHUB_REPOSITORY=owner/name HEAD_SHA=... JOB_CONCLUSION=success|failure|... \
#     ci/workflow/pr_comment.sh GPU ARTIFACT_DIR          (needs gh, authenticated)
# Exit 0 posted or edited; 1 gh failed; 2 bad arguments or an artifact not for this run.
set -u
gpu=${1:-}; art=${2:-}
repo=${GITHUB_REPOSITORY:-}; head_sha=${HEAD_SHA:-}; conclusion=${JOB_CONCLUSION:-}
author=${COMMENT_AUTHOR:-github-actions[bot]}
if ! [[ "$gpu" =~ ^[A-Za-z0-9._-]{1,64}$ ]] || [ ! -d "$art" ] || ! [[ "$repo" =~ ^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$ ]] \
   || ! [[ "$head_sha" =~ ^[0-9a-f]{40}$ ]] || ! [[ "$conclusion" =~ ^[a-z_]{1,20}$ ]] \
   || ! [[ "$author" =~ ^[A-Za-z0-9-]{1,39}(\[bot\])?$ ]]; then
  echo "usage: GITHUB_REPOSITORY=owner/name HEAD_SHA=<40 hex> JOB_CONCLUSION=<word> ci/workflow/pr_comment.sh GPU ARTIFACT_DIR" >&2
  exit 2
fi
art=$(cd "$art" && pwd)
pr=$(head -c 32 "$art/pr.txt" 2>/dev/null | tr -d ' \n')
[[ "$pr" =~ ^[0-9]{1,9}$ ]] || { echo "pr_comment: $art/pr.txt holds no pull request number" >&2; exit 2; }
pr_info=$(gh api "repos/$repo/pulls/$pr" --jq '"\(.head.sha) \(.changed_files // "unknown")"') || exit 1
pr_head=${pr_info%% *}; changed_files=${pr_info#* }
if [ "$pr_head" != "$head_sha" ]; then
  echo "pr_comment: pull request #$pr's head is $pr_head, not the commit this run measured ($head_sha): not posted" >&2
  exit 2
fi
cd "$(dirname "$0")/../.." || exit 2
marker="<!-- attnladder-comment gpu=$gpu -->"
text=$(mktemp)
files=$(mktemp); trap 'rm -f "$text" "$files"' EXIT
# one changed file a line: [its name, its previous name or null]
gh api --paginate "repos/$repo/pulls/$pr/files" --jq '.[] | [.filename, .previous_filename] | @json' \
  > "$files.names" || exit 1
listed=$(grep -c . "$files.names")
python3 ci/workflow/protected_paths.py --json-lines --json < "$files.names" > "$files" || exit 1
rm -f "$files.names"
[[ "$changed_files" =~ ^[0-9]+$ ]] || changed_files=$listed
review=$(python3 ci/workflow/comment_text.py review "$files" "$changed_files:$listed") || exit 1
claimed=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("pass" if d.get("pass") is True else "fail")' \
          "$art/verdict.json" 2>/dev/null || echo none)
{
  echo "$marker"
  echo "#### GPU runner: $gpu"
  echo
  case "$conclusion" in
    success) echo "**The GPU job passed** (its conclusion on GitHub; the verdict is the base's rules)." ;;
    failure) echo "**The GPU job failed** (its conclusion on GitHub; see the job's log and summary)." ;;
    ambiguous) echo "**No verdict: more than one job of the run is named for this GPU** (the pull request's workflow adds one?); see the run's jobs." ;;
    *) echo "**The GPU job did not finish: $conclusion.**" ;;
  esac
  if { [ "$conclusion" = success ] && [ "$claimed" != pass ]; } || { [ "$conclusion" = failure ] && [ "$claimed" = pass ]; }; then
    echo
    echo "The job's artifact says \`$claimed\`, which is not the job's conclusion: its tables below are not to be trusted."
  fi
  if [ -n "$review" ]; then
    echo
    echo "$review"
  fi
  echo
  echo "---"
  echo
  # the artifact's text: a regular file's first 60000 bytes, nothing in it HTML
  python3 ci/workflow/comment_text.py artifact "$art/comment.md" 60000
} > "$text"
# the oldest comment this bot wrote with this GPU's marker is the one to edit; the author
# is checked first, so a marker in anyone else's comment is never matched
id=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
       --jq ".[] | select(.user.login == \"$author\" and .user.type == \"Bot\") | select(.body | startswith(\"$marker\")) | .id" \
     | head -1) || exit 1
if [ -n "$id" ]; then
  gh api -X PATCH "repos/$repo/issues/comments/$id" -F "body=@$text" >/dev/null || exit 1
  echo "pr_comment: edited comment $id on #$pr ($gpu)"
else
  gh api -X POST "repos/$repo/issues/$pr/comments" -F "body=@$text" >/dev/null || exit 1
  echo "pr_comment: created the $gpu comment on #$pr"
fi
