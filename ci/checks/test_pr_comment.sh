#!/usr/bin/env bash
# The pull-request comment (ci/workflow/pr_comment.sh) against GitHub's API stood in for
# by ci/checks/fake/gh (`make test`): one comment per GPU, this bot's, edited in place;
#  - a marker planted in a comment by anyone else (a person, another bot) is never edited
#    and never hides the result: a new comment is posted beside it;
#  - a marker planted in the artifact's text is made inert in the posted body;
#  - the verdict line is the job's conclusion, and an artifact that claims otherwise is
#    called out; the review line comes from the pull request's files, not the artifact;
#  - an artifact for another commit, or bad arguments, post nothing.
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0
note() { echo "test_pr_comment: $*" >&2; fail=1; }
sha=1111111111111111111111111111111111111111
gpu=nvidia-h100-80gb-hbm3
marker="<!-- attnladder-comment gpu=$gpu -->"
mkdir -p "$tmp/art" "$tmp/gh"
echo 7 > "$tmp/art/pr.txt"
printf '**Verdict: FAIL** (the job s)\n\n| table |\n<!-- attnladder-comment gpu=nvidia-h200 -->\n' > "$tmp/art/comment.md"
echo '{"pass": false}' > "$tmp/art/verdict.json"
echo "{\"head\": {\"sha\": \"$sha\"}}" > "$tmp/gh/repos_o_r_pulls_7.json"
echo '[{"filename": "phases/08_x/attention.cu"}, {"filename": "ci/gate.json"}]' > "$tmp/gh/repos_o_r_pulls_7_files.json"
post() {  # COMMENTS-JSON [CONCLUSION] [HEAD_SHA]: runs the script; $log holds the calls
  cases=$((cases + 1))
  echo "$1" > "$tmp/gh/repos_o_r_issues_7_comments.json"; : > "$tmp/gh/calls.log"
  PATH="$PWD/ci/checks/fake:$PATH" FAKE_GH_DIR=$tmp/gh GITHUB_REPOSITORY=o/r HEAD_SHA=${3:-$sha} \
    JOB_CONCLUSION=${2:-failure} bash ci/workflow/pr_comment.sh "$gpu" "$tmp/art" > "$tmp/out.txt" 2>&1
  status=$?
  log=$tmp/gh/calls.log
}
has() { grep -qE -- "$2" "$log" || { note "$1: no call or body line matching /$2/:"; sed 's/^/    /' "$log" >&2; }; }
hasnt() { grep -qE -- "$2" "$log" && { note "$1: /$2/ should not be there:"; sed 's/^/    /' "$log" >&2; }; }
bot='"user": {"login": "github-actions[bot]", "type": "Bot"}'
person='"user": {"login": "mallory", "type": "User"}'
other_bot='"user": {"login": "evil-app[bot]", "type": "Bot"}'

post '[]'
has "the first post creates" '^POST repos/o/r/issues/7/comments'
has "the body starts with the marker" "^$marker\$"
has "the verdict line is the job's conclusion" 'The GPU job failed'
has "the review line comes from the pull request's files" "Needs a maintainer's review.*ci/gate.json"
hasnt "an ordinary file is not named for review" 'phases/08_x/attention.cu'
has "a marker in the artifact is made inert" '^&lt;!-- attnladder-comment gpu=nvidia-h200 -->'
[ "$(grep -c -- '<!-- attnladder-comment' "$log")" = 1 ] || note "the posted body holds more than its own marker"

post "[{\"id\": 5, $person, \"body\": \"$marker\\nall good\"}]"
has "a person's planted marker: a new comment" '^POST repos/o/r/issues/7/comments'
hasnt "a person's planted marker is never edited" 'PATCH'

post "[{\"id\": 5, $person, \"body\": \"$marker\\nall good\"}, {\"id\": 6, $other_bot, \"body\": \"$marker\\nfine\"}, {\"id\": 9, $bot, \"body\": \"$marker\\nold\"}, {\"id\": 11, $bot, \"body\": \"<!-- attnladder-comment gpu=nvidia-h200 -->\\nold\"}]"
has "this bot's comment for this GPU is edited" '^PATCH repos/o/r/issues/comments/9$'
hasnt "nothing else is edited or created" 'PATCH repos/o/r/issues/comments/(5|6|11)|^POST'

post "[{\"id\": 9, $bot, \"body\": \"> $marker\\nquoted\"}]"
has "a quote of the marker is not the comment" '^POST repos/o/r/issues/7/comments'

post '[]' success
has "an artifact that disagrees with the job is called out" "says \`fail\`, which is not the job's conclusion"
has "the verdict line is still the job's" 'The GPU job passed'

post '[]' failure 2222222222222222222222222222222222222222
[ "$status" = 2 ] || note "an artifact for another commit: exit $status, expected 2"
hasnt "an artifact for another commit posts nothing" 'POST|PATCH'

cases=$((cases + 1))
PATH="$PWD/ci/checks/fake:$PATH" FAKE_GH_DIR=$tmp/gh GITHUB_REPOSITORY=o/r HEAD_SHA=$sha JOB_CONCLUSION=failure \
  bash ci/workflow/pr_comment.sh 'h1;rm' "$tmp/art" 2>/dev/null
[ $? = 2 ] || note "a GPU name with ';' was accepted"
cases=$((cases + 1))
echo '7; rm -rf /' > "$tmp/art/pr.txt"
post '[]'
[ "$status" = 2 ] || note "a pull request number that is not one: exit $status"
[ $fail = 0 ] && echo "test_pr_comment: $cases cases passed (one comment per GPU, this bot's only, markers planted elsewhere ignored)"
exit $fail
