#!/usr/bin/env bash
# The pull-request comment is one per GPU, edited in place: with a fake `gh` that serves a
# comment list and records every call, the first post creates, a later one edits the
# comment carrying this GPU's marker (not another GPU's, not a reply quoting it), and bad
# arguments are refused.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
cat > "$tmp/bin/gh" <<'GH'
#!/usr/bin/env bash
echo "$*" >> "$FAKE_GH_LOG"
if [ "$1" = api ] && [ "$2" = --paginate ]; then
  # the --jq filter of the script, applied by python to the canned list
  python3 - "$FAKE_GH_COMMENTS" "${@: -1}" <<'PY'
import json, re, sys
comments, jq = json.load(open(sys.argv[1])), sys.argv[2]
marker = re.search(r'startswith\("(.*)"\)', jq).group(1)
for c in comments:
    if c["body"].startswith(marker):
        print(c["id"])
PY
fi
GH
chmod +x "$tmp/bin/gh"
echo "| table |" > "$tmp/body.md"
fail=0
run() {  # comments-json gpu -> sets log
  echo "$1" > "$tmp/comments.json"; : > "$tmp/log"
  PATH="$tmp/bin:$PATH" FAKE_GH_LOG=$tmp/log FAKE_GH_COMMENTS=$tmp/comments.json GITHUB_REPOSITORY=o/r \
    bash ci/workflow/pr_comment.sh "$2" 7 "$tmp/body.md" > /dev/null; status=$?
}
check() {  # what pattern
  grep -qE -- "$2" "$tmp/log" || { echo "test_pr_comment: $1: no call matching /$2/:" >&2; sed 's/^/    /' "$tmp/log" >&2; fail=1; }
}
run '[]' h100
check "first post creates" '^api -X POST repos/o/r/issues/7/comments'
run '[{"id": 11, "body": "<!-- attnladder-comment gpu=l4 -->\nold"}, {"id": 12, "body": "<!-- attnladder-comment gpu=h100 -->\nold"}, {"id": 13, "body": "> <!-- attnladder-comment gpu=h100 -->\nquoted"}]' h100
check "later post edits this GPU's comment" '^api -X PATCH repos/o/r/issues/comments/12 '
grep -q 'POST' "$tmp/log" && { echo "test_pr_comment: a second comment was created" >&2; fail=1; }
run '[{"id": 11, "body": "<!-- attnladder-comment gpu=l4 -->\nold"}]' h100
check "another GPU's comment is left alone" '^api -X POST repos/o/r/issues/7/comments'
PATH="$tmp/bin:$PATH" GITHUB_REPOSITORY=o/r FAKE_GH_LOG=$tmp/log bash ci/workflow/pr_comment.sh 'h1;rm' 7 "$tmp/body.md" 2>/dev/null
[ $? = 2 ] || { echo "test_pr_comment: a GPU name with ';' was accepted" >&2; fail=1; }
[ $fail = 0 ] && echo "test_pr_comment: one comment per GPU, created once, edited after"
exit $fail
