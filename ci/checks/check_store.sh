#!/usr/bin/env bash
# The evidence store (`make test`): first the two checkers on made-up trees (each must fail
# on the fault planted there and pass once it is mended), then on this repository:
#   check_store.py  evidence/ and the tracked tree within budget, the layout of
#                   evidence/README.md, large studies and runs compressed, reference.txt one run
#   check_links.py  every evidence/ and phases/ path the text cites still resolves
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/python_once.sh" && python_once "$tmp/bin"   # python3 started once per call, not its shim
fail=0 cases=0
note() { echo "check_store.sh: $*" >&2; fail=1; }
. "$here/expect.sh"

# A made-up repository: one GPU, two runs, a study, the README naming a history commit.
repo=$tmp/repo
mkdir -p "$repo/evidence/g1/studies/ab" "$repo/phases/01_x" "$repo/ci"
git -C "$repo" init -q
git -C "$repo" config user.email t@example.invalid
git -C "$repo" config user.name test
run=20260101T000000Z_aaaaaaa.json
echo '{}' > "$repo/evidence/g1/$run"
echo '{}' > "$repo/evidence/g1/20260102T000000Z_bbbbbbb.json"
echo "$run" > "$repo/evidence/g1/accepted.txt"
echo "$run" > "$repo/evidence/g1/reference.txt"
echo '{}' > "$repo/evidence/g1/studies/ab/ab_study_20260101T000000Z.json"
echo 'old notebook' > "$repo/evidence/g1/notes.txt"
echo '# x' > "$repo/phases/01_x/README.md"
git -C "$repo" add -A && git -C "$repo" commit -q -m "with the notebook"
old=$(git -C "$repo" rev-parse --short HEAD)
git -C "$repo" rm -q evidence/g1/notes.txt
printf '# evidence\nHistory: `git show %s:evidence/<gpu>/<path>`.\n' "$old" > "$repo/evidence/README.md"
{
  echo 'Runs: `evidence/g1/20260101T000000Z_aaaaaaa.json`, [the other](evidence/g1/20260102T000000Z_bbbbbbb.json).'
  echo 'The study, cited where it lay before studies/: `evidence/g1/ab_study_20260101T000000Z.json`.'
  echo 'By name: `ab_study_20260101T000000Z.json`; the rung: `phases/01_x/README.md`.'
  echo 'In history: `evidence/g1/notes.txt`. Patterns: `evidence/<gpu>/accepted.txt`, `evidence/g1/2*.json`.'
} > "$repo/README.md"
echo 'cat evidence/g1/accepted.txt   # a script citing the store' > "$repo/ci/x.sh"
git -C "$repo" add -A && git -C "$repo" commit -q -m layout

links() { python3 "$here/check_links.py" --root "$repo"; }
store() { python3 "$here/check_store.py" --root "$repo" "$@"; }
# Each change is staged, not committed: the checkers read the tracked files from the index
# (git ls-files) and history only at the commit the README names (made above). Committing
# every change was 50 commits: 14.3 -> 11.9 CPU s (git rm needs -f for a file only staged,
# and a mend checks out HEAD's copy, the layout's). Planted in
# check_store.py (a study compressed only past 100 times its limit): "a large study
# uncompressed" failed on the staged tree.
commit() { git -C "$repo" add -A; }
expect "links: every kind of citation resolves" 0 "0 broken" links
expect "store: the made-up store is in layout" 0 "0 finding" store

# check_links: a missing run, a missing name, a glob with no match, a script's path, a
# history path once the README no longer names the commit, a rung's file
for planted in 'A run: `evidence/g1/20260103T000000Z_ccccccc.json`.' \
               'By name: `sanitize_20260101T000000Z.json`.' \
               'A compressed run by name: `20260109T000000Z_ddddddd.json.gz`.' \
               'Glob: `evidence/g1/studies/ab/ab_planted_*.json`.' \
               'A rung: [source](phases/01_x/kernel.cu).'; do
  cp "$repo/README.md" "$tmp/README.md"
  echo "$planted" >> "$repo/README.md"; commit planted
  expect "links: planted '$planted'" 1 "1 broken" links
  cp "$tmp/README.md" "$repo/README.md"; commit mended
done
echo 'cat evidence/g1/missing.txt' >> "$repo/ci/x.sh"; commit planted
expect "links: a script's missing path" 1 "ci/x.sh:2: evidence/g1/missing.txt" links
git -C "$repo" checkout -q HEAD -- ci/x.sh; commit mended
cp "$repo/evidence/README.md" "$tmp/ev.md"
echo '# evidence' > "$repo/evidence/README.md"; commit "no history line"
expect "links: history not named" 1 "evidence/g1/notes.txt" links
cp "$tmp/ev.md" "$repo/evidence/README.md"; commit mended
expect "links: mended" 0 "0 broken" links

# check_store: over a budget, a study beside the runs, a large study uncompressed, a
# development folder, a bad reference.txt, accepted.txt naming a missing run
expect "store: evidence over budget" 1 "evidence/ holds" store --evidence-budget 10
expect "store: tree over budget" 1 "tracked tree holds" store --tree-budget 10
echo '{}' > "$repo/evidence/g1/sanitize_20260101T000000Z.json"; commit planted
expect "store: a study beside the runs" 1 "a study goes in evidence/g1/studies/" store
git -C "$repo" rm -q -f evidence/g1/sanitize_20260101T000000Z.json; commit mended
head -c 200000 /dev/zero | tr '\0' ' ' > "$repo/evidence/g1/studies/ab/ab_study_20260105T000000Z.json"; commit planted
expect "store: a large study uncompressed" 1 "is stored as .json.xz" store
xz "$repo/evidence/g1/studies/ab/ab_study_20260105T000000Z.json"; commit mended
expect "store: the large study compressed" 0 "0 finding" store
mkdir -p "$repo/evidence/g1/development_x/run1"; echo x > "$repo/evidence/g1/development_x/run1/round.sh"; commit planted
expect "store: a development folder" 1 "development material" store
git -C "$repo" rm -q -f -r evidence/g1/development_x; commit mended
cp "$repo/evidence/g1/reference.txt" "$tmp/ref.txt"
for bad in "20260101T000000Z_aaaaaaa.json
20260102T000000Z_bbbbbbb.json" "20260109T000000Z_fffffff.json" "20260101T000000Z_aaaaaaa.partial.json" "../x.json"; do
  printf '%s\n' "$bad" > "$repo/evidence/g1/reference.txt"; commit planted
  expect "store: reference.txt '$(echo $bad | head -c 40)'" 1 "reference.txt" store
done
cp "$tmp/ref.txt" "$repo/evidence/g1/reference.txt"; commit mended
echo 20260109T000000Z_fffffff.json >> "$repo/evidence/g1/accepted.txt"; commit planted
expect "store: accepted.txt names a missing run" 1 "accepted.txt:2: names 20260109T000000Z_fffffff.json" store
git -C "$repo" checkout -q HEAD -- evidence/g1/accepted.txt; commit mended
expect "store: mended" 0 "0 finding" store

# the harness's rules for what the lists may name, and the input rule for reading them:
# not UTF-8 (a finding, not a traceback), a byte order mark named, a study, a partial run,
# a name listed twice, a path out of the folder; a link in the store is not followed
cp "$repo/evidence/g1/accepted.txt" "$tmp/acc.txt"
for f in accepted.txt reference.txt; do
  cp "$repo/evidence/g1/$f" "$tmp/keep.txt"
  printf '2026\xff0101T000000Z_aaaaaaa.json\n' > "$repo/evidence/g1/$f"; commit planted
  expect "store: $f not UTF-8" 1 "$f: not UTF-8 (byte 0xff at offset 4)" store
  grep -q Traceback "$tmp/out.txt" && note "store: $f not UTF-8: a traceback"
  printf '\xef\xbb\xbf%s\n' "$run" > "$repo/evidence/g1/$f"; commit planted
  expect "store: $f with a byte order mark" 1 "$f: starts with a byte order mark" store
  cp "$tmp/keep.txt" "$repo/evidence/g1/$f"; commit mended
done
for bad in studies/ab/ab_study_20260101T000000Z.json 20260102T000000Z_bbbbbbb.partial.json "$run" ../g1/$run; do
  [ "$bad" = 20260102T000000Z_bbbbbbb.partial.json ] && echo '{}' > "$repo/evidence/g1/$bad"
  printf '%s\n%s\n' "$run" "$bad" > "$repo/evidence/g1/accepted.txt"; commit planted
  expect "store: accepted.txt naming '$bad'" 1 "accepted.txt:2: " store
  rm -f "$repo/evidence/g1/20260102T000000Z_bbbbbbb.partial.json"
  cp "$tmp/acc.txt" "$repo/evidence/g1/accepted.txt"; commit mended
done
printf '# none\n' > "$repo/evidence/g1/accepted.txt"; commit planted
expect "store: accepted.txt naming no run" 1 "accepted.txt: names no run" store
cp "$tmp/acc.txt" "$repo/evidence/g1/accepted.txt"; commit mended
echo "root:x:0:0" > "$tmp/outside.json"
ln -s "$tmp/outside.json" "$repo/evidence/g1/20260104T000000Z_eeeeeee.json"; commit planted
expect "store: a run that is a link out of the repository" 1 "20260104T000000Z_eeeeeee.json: a link" store
git -C "$repo" rm -q -f evidence/g1/20260104T000000Z_eeeeeee.json; commit mended
mv "$repo/evidence/g1/reference.txt" "$tmp/ref.txt" && ln -s "$tmp/ref.txt" "$repo/evidence/g1/reference.txt"; commit planted
expect "store: reference.txt a link" 1 "reference.txt: a link" store
rm "$repo/evidence/g1/reference.txt" && mv "$tmp/ref.txt" "$repo/evidence/g1/reference.txt"; commit mended
echo 'not gzip' > "$repo/evidence/g1/20260104T000000Z_eeeeeee.json.gz"; commit planted
expect "store: a .json.gz that is not gzip" 1 "20260104T000000Z_eeeeeee.json.gz: not gzip" store
git -C "$repo" rm -q -f evidence/g1/20260104T000000Z_eeeeeee.json.gz; commit mended
expect "store: mended after the lists" 0 "0 finding" store

# check_links reads in linear time: a 600 KB line of link openers, of backquotes, of paths
for shape in '](' '`' 'evidence/' '[a](b "'; do
  cp "$repo/README.md" "$tmp/README.md"
  python3 -c 'import sys; print(sys.argv[1] * (600000 // len(sys.argv[1])))' "$shape" >> "$repo/README.md"; commit planted
  # its CPU time, not the wall's: beside other work the wall took 3.4-5.1 s of a linear
  # run and failed this case (check_store.sh of 42b78bb at load 6). Planted in
  # check_links.py (md_links searching the rest of the line from every 4th character): the
  # backquote and the path lines failed (8.9 and 7.7 s of CPU)
  cpu=$( { TIMEFORMAT='%3U %3S'; time timeout 20 python3 "$here/check_links.py" --root "$repo" > /dev/null 2>&1; } 2>&1 )
  ms=$(awk '{printf "%d", ($1 + $2) * 1000}' <<<"$cpu"); cases=$((cases + 1))
  [ -n "$ms" ] && [ "$ms" -lt 3000 ] || note "links: a 600 KB line of '$shape' took ${ms:-?} ms of CPU"
  cp "$tmp/README.md" "$repo/README.md"; commit mended
done

# runs over 1 MB are committed compressed (ci/tools/compress_run.sh): an uncompressed one
# is refused; compressed it passes, named so in accepted.txt and reference.txt, and a
# citation of its plain name resolves; a run in both forms is refused
big=20260103T000000Z_ccccccc.json
{ echo '{"results": ['; for i in $(seq 1 40000); do echo "  {\"median_us\": $i.25},"; done; echo ' {}]}'; } > "$repo/evidence/g1/$big"
echo "$big" >> "$repo/evidence/g1/accepted.txt"; echo "$big" > "$repo/evidence/g1/reference.txt"
echo "The large run: \`evidence/g1/$big\`, by name \`$big\`." >> "$repo/README.md"; commit planted
expect "store: a run over 1 MB uncompressed" 1 "$big: .* uncompressed; a run over 1 MB" store
cp "$repo/evidence/g1/$big" "$tmp/big.json"
expect "compress_run: compresses and checks" 0 "$big.gz" bash "$here/../tools/compress_run.sh" "$repo/evidence/g1/$big"
[ ! -e "$repo/evidence/g1/$big" ] || note "compress_run: left the plain file beside the compressed one"
gzip -dc "$repo/evidence/g1/$big.gz" | cmp -s - "$tmp/big.json" || note "compress_run: the bytes changed"
mkdir -p "$tmp/det"; cp "$tmp/big.json" "$tmp/det/$big"; touch -d '2001-01-01' "$tmp/det/$big"
bash "$here/../tools/compress_run.sh" "$tmp/det/$big" > /dev/null 2>&1
cmp -s "$tmp/det/$big.gz" "$repo/evidence/g1/$big.gz" || note "compress_run: not deterministic (another place and time gave other bytes)"
cp "$tmp/big.json" "$tmp/det/$big"
expect "compress_run: refuses a run compressed already" 2 "exists already" bash "$here/../tools/compress_run.sh" "$tmp/det/$big"
cp "$tmp/big.json" "$tmp/det/ab_study_20260101T000000Z.json"
expect "compress_run: refuses what is not a run" 2 "not a run" bash "$here/../tools/compress_run.sh" "$tmp/det/ab_study_20260101T000000Z.json"
commit mended
expect "store: the run compressed, named in the lists by its old name" 1 "names $big, which is not a tracked file" store
sed -i "s/^$big\$/$big.gz/" "$repo/evidence/g1/accepted.txt" "$repo/evidence/g1/reference.txt"; commit mended
expect "store: the run compressed and named" 0 "0 finding" store
expect "links: the plain name of a compressed run resolves" 0 "0 broken" links
cp "$tmp/big.json" "$repo/evidence/g1/$big"; commit planted
expect "store: a run in both forms" 1 "$big and $big.gz: one run in two forms" store
git -C "$repo" rm -q -f "evidence/g1/$big"; commit mended
expect "store: mended again" 0 "0 finding" store

[ "$fail" = 0 ] && echo "check_store.sh: $cases cases passed"
[ "$fail" = 0 ] || exit 1
# this repository
python3 "$here/check_store.py" || fail=1
python3 "$here/check_links.py" || fail=1
exit "$fail"
