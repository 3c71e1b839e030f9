#!/usr/bin/env bash
# `report` on a full disk (issue: a full disk once crashed it with a double fclose, and said
# only that gnuplot wrote no plot): on a 1 MB tmpfs filled to several levels, report must
# exit 2, name "No space left on device", leave the reports already there as they were,
# and never crash. Needs a tmpfs mount: as root, or in a user namespace (unshare -r -m).
#   ci/checks/test_full_disk.sh BIN
set -u
bin=$(realpath "${1:?usage: test_full_disk.sh BIN}")
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${ATTN_IN_NS:-}" != 1 ] && [ "$(id -u)" != 0 ]; then
  if unshare -r -m true 2>/dev/null; then
    exec env ATTN_IN_NS=1 unshare -r -m bash "$0" "$@"
  fi
  echo "test_full_disk: skipped: not root and no user namespace to mount a tmpfs in"; exit 0
fi
mnt=$(mktemp -d)
trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT
if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  echo "test_full_disk: skipped: cannot mount a tmpfs here"; exit 0
fi
fails=0
cd "$root"
# The unit tests' small evidence: its report (1 MB of pages and plots) fills the tmpfs at
# every level as the committed runs' does. Until issue 53 the committed runs': the seven
# reports took 233 CPU s under the sanitizers (272 s wall), these 11 s. Watched: with
# files_close_errno (core/files.c) closing a file twice after a failed write, this test
# failed under the ASan binary (double-free) at 32 and 16 KB left, and with the committed
# runs at 128, 64, 32 and 16 KB left; each passes without the plant.
# A copy with its runs and config cut to 100 resamples (ci/checks/few_resamples.py): the
# pages and plots are as large, the bootstraps no part of what is checked (about 1.5 -> 0.6
# CPU s a report; the seven 11 -> 6 CPU s). Planted again in files_close_errno (a second
# fclose after a failed write): this test failed on the copy at 32 and 16 KB left, as before.
ev=$(mktemp -d)
trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"; rm -rf "$ev"' EXIT
cp -r harness/tests/data/evidence "$ev/evidence" && cp harness/tests/data/gate_config.json "$ev/gate.json" || exit 2
python3 ci/checks/few_resamples.py $(find "$ev/evidence" -name '2*.json') && python3 ci/checks/few_resamples.py --config "$ev/gate.json" || exit 2
small=(--evidence "$ev/evidence" --phases harness/tests/data/phases --config "$ev/gate.json")
for left in 512 256 128 64 32 16 0; do
  rm -rf "${mnt:?}"/*
  mkdir -p "$mnt/reports" && echo good > "$mnt/reports/README.md" && touch "$mnt/reports/.attnladder-report"
  dd if=/dev/zero of="$mnt/fill" bs=1k count=$((1024 - 4 - left)) 2>/dev/null
  "$bin" report "${small[@]}" --out "$mnt/reports" > "$mnt/../full_disk_$left.txt" 2>&1; rc=$?
  out=$(cat "$mnt/../full_disk_$left.txt"); rm -f "$mnt/../full_disk_$left.txt"
  problem=""
  [ $rc = 2 ] || problem="exit $rc, not 2"
  grep -q "No space left on device" <<< "$out" || problem="${problem:+$problem; }no 'No space left on device' in the message"
  [ "$(cat "$mnt/reports/README.md" 2>/dev/null)" = good ] || problem="${problem:+$problem; }the reports already there were changed"
  if [ -n "$problem" ]; then
    fails=$((fails + 1))
    echo "test_full_disk: ${left} KB left: $problem"
    head -5 <<< "$out" | sed 's/^/  | /'
  fi
done
[ $fails = 0 ] && echo "test_full_disk: ok (7 fill levels: exit 2, the cause named, the old reports kept)"
exit $((fails > 0))
