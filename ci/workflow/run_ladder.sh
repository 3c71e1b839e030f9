#!/usr/bin/env bash
# `make run`: with a GPU, run the ladder (headline shapes and the sweep, PyTorch's
# backends where torch is present), record profiler metrics, gate the run and regenerate
# the reports. Without a GPU, say so in one line and show the headline table of each
# GPU's reference run (evidence/<gpu>/reference.txt) from the committed evidence.
# RESUME=FILE continues the interrupted run FILE (gpu_session.sh) instead of starting one.
set -u
build=${1:-build}
bin=$build/attnladder
[ -x "$bin" ] || { echo "run_ladder: $bin is not built" >&2; exit 2; }
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "make run: no GPU on this machine; showing each GPU's committed reference run instead."
  exec "$bin" show
fi
BUILD=$build bash ci/workflow/gpu_session.sh ladder; status=$?
if command -v gnuplot >/dev/null 2>&1; then
  "$bin" report || status=1
else
  echo "run_ladder: gnuplot not installed here; regenerate reports/ with \`$bin report\` where it is"
fi
exit $status
