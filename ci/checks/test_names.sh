#!/usr/bin/env bash
# Proves the names check can fail: in a scratch git tree of a few harness files, the clean
# layout passes, and each planted duplicate base name fails it: a committed one (a
# command's file named as a gate module), one only added, and one not yet added (a new
# file is judged before `git add`, as `find harness` would see it). A file git ignores,
# and made-up evidence under harness/tests/data/, are not read.
set -u
cd "$(dirname "$0")/../.." || exit 2
check=$PWD/ci/checks/check_names.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # status what
  python3 "$check" --root "$tmp" >"$tmp.out" 2>&1; got=$?
  if [ "$got" != "$1" ]; then
    echo "test_names: $2: expected exit $1, got $got" >&2; cat "$tmp.out" >&2; fail=1
  fi
  rm -f "$tmp.out"
}
g() { git -C "$tmp" "$@" >/dev/null 2>&1; }
g init -q && g config user.email t@t && g config user.name t
mkdir -p "$tmp/harness/cmd" "$tmp/harness/gate" "$tmp/harness/tests/data/a" "$tmp/harness/tests/data/b"
for f in cmd/ab.c cmd/compare.c cmd/compare.h gate/ab_rule.c gate/README.md cmd/README.md \
         tests/data/a/run.json tests/data/b/run.json; do echo x > "$tmp/harness/$f"; done
printf 'harness/cmd/ignored_*\n' > "$tmp/.gitignore"
g add -A && g commit -qm clean
expect 0 "clean layout"
echo x > "$tmp/harness/gate/ab.c"
expect 1 "a new file, not added, sharing cmd/ab.c's base name"
g add harness/gate/ab.c
expect 1 "the same, added"
g commit -qm dup
expect 1 "the same, committed"
g rm -q harness/gate/ab.c && g commit -qm undo
echo x > "$tmp/harness/cmd/ignored_ab_rule.c"; echo x > "$tmp/harness/gate/ignored_ab_rule.h"
printf 'harness/gate/ignored_*\n' >> "$tmp/.gitignore"
expect 0 "ignored files sharing a base name"
[ $fail = 0 ] && echo "test_names: the names check catches a shared base name, committed, added or new"
exit $fail
