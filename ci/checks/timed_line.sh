#!/usr/bin/env bash
# make test's shell: every recipe line of every target it makes runs through here, and its
# wall and CPU time go to ATTN_TEST_TIMES, one line each: "target<TAB>start<TAB>end<TAB>
# status<TAB>user<TAB>sys" (start and end in seconds since the epoch; user and sys as bash's
# `times` prints the line's processes', e.g. 0m1.250s), which ci/checks/test_times.py turns
# into the table make test prints at the end. CPU seconds too, because the build machine is
# shared: a busy neighbour stretches a check's wall time far more than its CPU time.
# Called by make as `bash ci/checks/timed_line.sh TARGET -c LINE` (the Makefile's
# .SHELLFLAGS under `make test`); $(shell ...) calls come without a target ("-c LINE") and
# are not timed. One short append per line: lines of jobs side by side do not interleave.
# The whole script is one function, read before any of it runs: bash reads a script as it
# goes, so an edit to this file during a make test garbled the lines of recipes then running.
main() {
  if [ "${1:-}" = -c ] || [ -z "${ATTN_TEST_TIMES:-}" ]; then
    [ "${1:-}" = -c ] || shift
    exec /bin/bash "$@"
  fi
  target=$1; shift
  start=$EPOCHREALTIME
  /bin/bash "$@"
  status=$?
  end=$EPOCHREALTIME
  # `times` in this shell (not in a $(...) subshell, which would count its own children only)
  cpu=$ATTN_TEST_TIMES.$$
  times > "$cpu" && { read -r _; read -r user sys; } < "$cpu"
  rm -f "$cpu"
  printf '%s\t%s\t%s\t%d\t%s\t%s\n' "$target" "$start" "$end" "$status" "${user:-0m0s}" "${sys:-0m0s}" >> "$ATTN_TEST_TIMES"
  exit $status
}
main "$@"
exit $?
