#!/usr/bin/env bash
# make test's shell: every recipe line of every target it makes runs through here, and its
# start and end go to ATTN_TEST_TIMES ("target<TAB>start<TAB>end<TAB>status", seconds since
# the epoch), which ci/checks/test_times.py turns into the table make test prints at the end.
# Called by make as `bash ci/checks/timed_line.sh TARGET -c LINE` (the Makefile's .SHELLFLAGS
# under `make test`); $(shell ...) calls come without a target ("-c LINE") and are not timed.
# One short append per line: lines from jobs running side by side do not interleave.
if [ "${1:-}" = -c ] || [ -z "${ATTN_TEST_TIMES:-}" ]; then
  [ "${1:-}" = -c ] || shift
  exec /bin/bash "$@"
fi
target=$1; shift
start=$EPOCHREALTIME
/bin/bash "$@"
status=$?
printf '%s\t%s\t%s\t%d\n' "$target" "$start" "$EPOCHREALTIME" "$status" >> "$ATTN_TEST_TIMES"
exit $status
