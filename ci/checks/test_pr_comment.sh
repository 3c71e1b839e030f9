#!/usr/bin/env bash
# The pull-request comment (ci/workflow/pr_comment.sh) against GitHub's API stood in for
# by ci/checks/fake/gh (`make test`): one comment per GPU, this bot's, edited in place;
#  - a marker planted in a comment by anyone else (a person, another bot) is never edited
#    and never hides the result: a new comment is posted beside it;
#  - a marker planted in the artifact's text is made inert in the posted body;
#  - the verdict line is the job's conclusion, and an artifact that claims otherwise is
#    called out; the review line comes from the pull request's files, not the artifact;
#  - an artifact for another commit, or bad arguments, post nothing;
#  - what needs review is found by content, not spelling: a protected file renamed away
#    (its previous name), names with a space, a quote, a newline or non-ASCII; every name
#    reaches the body through one escaping rule (no backquote ends its code span, no raw
#    HTML from a name or from the artifact's text); more changed files than GitHub lists
#    asks for review; comment.md is read only as a regular file, cut to size;
#  - post_comments.sh finds the GPU jobs in the run of the GPU workflow (its file and id),
#    never by a name alone: a run of another workflow posts nothing, two jobs claiming one
#    GPU or a job name holding a newline never report a pass.
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. ci/checks/python_once.sh && python_once "$tmp/bin"   # python3 started once per call, not its shim
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
    JOB_CONCLUSION=${2:-failure} timeout 30 bash ci/workflow/pr_comment.sh "$gpu" "$tmp/art" > "$tmp/out.txt" 2>&1
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
echo 7 > "$tmp/art/pr.txt"

# ---- names: renamed, oddly spelled, carrying markup --------------------------------------
body() { awk '/^--- body$/ {on = 1; next} /^--- end$/ {on = 0} on' "$log"; }
no_html() {  # WHAT: the posted body holds no raw HTML
  body | tail -n +2 > "$tmp/body.md"   # the first line is the comment's own marker
  local h; h=$(python3 ci/checks/md_check.py "$tmp/body.md") || note "$1: raw HTML in the body: $h"
}
python3 - "$tmp/gh/repos_o_r_pulls_7_files.json" <<'PY'
import json, sys
json.dump([{"filename": "tools/judge.sh", "previous_filename": "ci/workflow/judge.sh", "status": "renamed"},
           {"filename": "ci/workflow/a b.sh"}, {"filename": '.github/workflows/a"b.yml'},
           {"filename": "ci/workflow/\u00e9tape.sh"}, {"filename": "ci/workflow/x\ny.sh"},
           {"filename": "ci/workflow/`<img src=x onerror=alert(1)>`.sh"}, {"filename": "phases/08_x/a b.cu"}],
          open(sys.argv[1], "w"))
PY
echo "{\"head\": {\"sha\": \"$sha\"}, \"changed_files\": 7}" > "$tmp/gh/repos_o_r_pulls_7.json"
post '[]'
for w in '`ci/workflow/judge.sh`' '`ci/workflow/a b.sh`' '`.github/workflows/a"b.yml`' '`ci/workflow/étape.sh`' \
         '`ci/workflow/x\\ny.sh`' '``ci/workflow/`<img src=x onerror=alert\(1\)>`.sh``'; do
  has "the review line names $w" "Needs a maintainer's review.*$w"
done
hasnt "an ordinary file with a space is not named" 'phases/08_x'
no_html "odd names"
echo "{\"head\": {\"sha\": \"$sha\"}, \"changed_files\": 3500}" > "$tmp/gh/repos_o_r_pulls_7.json"
post '[]'
has "more changed files than listed asks for review" "Needs a maintainer's review.*3500 files.*7 of them"

# ---- the artifact's text ----------------------------------------------------------------
printf '**Verdict: FAIL**\n\n<img src=x onerror=alert(1)> <script>x</script>\n\n<details><summary>rows</summary>\n\n```text\nrow\n```\n\n</details>\n' > "$tmp/art/comment.md"
post '[]'
no_html "markup in comment.md"
has "the judge's own details block is kept" '^<details><summary>rows</summary>$'
echo "secret: the runner's token" > "$tmp/secret.txt"
rm "$tmp/art/comment.md" && ln -s "$tmp/secret.txt" "$tmp/art/comment.md"
post '[]'
hasnt "a comment.md that is a link is not followed" 'secret'
has "a linked comment.md is named as such" 'comment.md.*not a regular file'
rm "$tmp/art/comment.md" && mkfifo "$tmp/art/comment.md"
post '[]'
has "a FIFO comment.md is refused, not waited on" 'comment.md.*not a regular file'
rm "$tmp/art/comment.md" && head -c 100000 /dev/zero | tr '\0' 'Z' > "$tmp/art/comment.md"
post '[]'
[ "$(body | tr -cd Z | wc -c)" -le 60000 ] || note "an oversize comment.md is not cut to 60000 bytes"
has "an oversize comment.md is said to be cut" 'cut at 60000 bytes'

# ---- post_comments.sh: the GPU jobs of the GPU workflow's run ----------------------------
printf '**Verdict: PASS**\n' > "$tmp/art/comment.md"; echo '{"pass": true}' > "$tmp/art/verdict.json"
mkdir -p "$tmp/arts" && cp -r "$tmp/art" "$tmp/arts/ladder-$gpu-100" && cp -r "$tmp/art" "$tmp/arts/ladder-nvidia-h200-100"
echo '{"id": 77, "name": "gpu", "path": ".github/workflows/gpu.yml"}' > "$tmp/gh/repos_o_r_actions_workflows_gpu.yml.json"
run_json() {  # PATH WORKFLOW_ID
  echo "{\"id\": 100, \"workflow_id\": $2, \"path\": \"$1\", \"event\": \"pull_request\", \"head_sha\": \"$sha\"}" \
    > "$tmp/gh/repos_o_r_actions_runs_100.json"
}
posts() {  # JOBS-JSON: runs post_comments.sh; $log holds the calls
  cases=$((cases + 1))
  echo "$1" > "$tmp/gh/repos_o_r_actions_runs_100_jobs.json"
  echo '[]' > "$tmp/gh/repos_o_r_issues_7_comments.json"; : > "$tmp/gh/calls.log"
  PATH="$PWD/ci/checks/fake:$PATH" FAKE_GH_DIR=$tmp/gh GITHUB_REPOSITORY=o/r HEAD_SHA=$sha RUN_ID=100 \
    timeout 60 bash ci/workflow/post_comments.sh "$tmp/arts" > "$tmp/out.txt" 2>&1
  status=$?
  log=$tmp/gh/calls.log
}
job() { echo "{\"id\": $1, \"run_id\": 100, \"name\": \"$2\", \"conclusion\": \"$3\"}"; }
run_json .github/workflows/gpu.yml 77
posts "{\"jobs\": [$(job 1 "ladder on $gpu" success), $(job 2 "ladder on nvidia-h200" failure), $(job 3 "make test (CPU)" success)]}"
has "each GPU job's comment: passed" 'The GPU job passed'
has "each GPU job's comment: failed" 'The GPU job failed'
posts "{\"jobs\": [$(job 1 "ladder on $gpu" failure), $(job 9 "ladder on $gpu" success)]}"
hasnt "two jobs named for one GPU never report a pass" 'The GPU job passed'
has "two jobs named for one GPU are called out" 'more than one job'
posts "{\"jobs\": [$(job 1 "ladder on $gpu\\nladder on nvidia-h200" success), $(job 2 "ladder on nvidia-h200" failure)]}"
hasnt "a job name holding a newline never reports a pass" 'The GPU job passed'
run_json .github/workflows/other.yml 78
posts "{\"jobs\": [$(job 1 "ladder on $gpu" success)]}"
[ "$status" = 2 ] || note "a run of another workflow: exit $status, expected 2"
hasnt "a run of another workflow posts nothing" 'POST|PATCH'
run_json .github/workflows/gpu.yml 78
posts "{\"jobs\": [$(job 1 "ladder on $gpu" success)]}"
[ "$status" = 2 ] || note "a run of another workflow with the GPU workflow's path: exit $status, expected 2"
hasnt "a run of a workflow other than the GPU workflow's id posts nothing" 'POST|PATCH'
[ $fail = 0 ] && echo "test_pr_comment: $cases cases passed (one comment per GPU, this bot's only, markers planted elsewhere ignored; names found by content and escaped; the GPU jobs found in the GPU workflow's run)"
exit $fail
