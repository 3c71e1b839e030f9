#!/usr/bin/env bash
# A run stored gzip-compressed, the form a run over 1 MB is committed in (evidence/README.md;
# ci/checks/check_store.py refuses a larger one uncompressed):
#   ci/tools/compress_run.sh evidence/<gpu>/<stamp>_<commit>.json
# writes FILE.gz with `gzip -n -9` (no file name, no time stamp: the same run gives the same
# bytes wherever it is compressed), checks that it decompresses to FILE's bytes exactly,
# then removes FILE: a run is stored in one form (the harness refuses a run in both). It
# changes nothing else: accepted.txt and reference.txt name runs by file name, and the lines
# that name this run are printed for you to change to the new name.
# Exit 0 done, 1 the check failed (FILE kept, nothing written), 2 bad usage.
set -u
f=${1:-}
if [ $# != 1 ] || [ -z "$f" ]; then
  echo "usage: ci/tools/compress_run.sh evidence/<gpu>/<stamp>_<commit>.json" >&2; exit 2
fi
base=$(basename -- "$f")
case "$base" in
  [0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z*.json) ;;
  *) echo "compress_run: $f: not a run file (<stamp>_<commit>.json)" >&2; exit 2 ;;
esac
if [ ! -f "$f" ] || [ -L "$f" ]; then echo "compress_run: $f: not a regular file" >&2; exit 2; fi
if [ -e "$f.gz" ] || [ -L "$f.gz" ]; then
  echo "compress_run: $f.gz exists already (a run is stored in one form: remove one)" >&2; exit 2
fi
tmp=$(mktemp "$(dirname -- "$f")/.compress_run.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT
gzip -n -9 -c -- "$f" > "$tmp" || { echo "compress_run: $f: gzip failed" >&2; exit 1; }
if ! gzip -t "$tmp" 2>/dev/null || ! gzip -dc "$tmp" | cmp -s - "$f"; then
  echo "compress_run: $f: the compressed file does not decompress to its bytes; nothing changed" >&2; exit 1
fi
chmod 644 "$tmp"
mv -- "$tmp" "$f.gz" || exit 1
trap - EXIT
rm -- "$f"
echo "compress_run: $f.gz: $(stat -c %s -- "$f.gz") bytes, $(gzip -dc "$f.gz" | wc -c) decompressed; $f removed"
for list in "$(dirname -- "$f")"/accepted.txt "$(dirname -- "$f")"/reference.txt; do
  [ -f "$list" ] || continue
  awk -v b="$base" -v l="$list" '{ s = $0; gsub(/^[ \t]+|[ \t\r]+$/, "", s)
    if (s == b) printf "compress_run: %s:%d names %s: change it to %s.gz\n", l, NR, b, b }' "$list"
done
exit 0
