#!/usr/bin/env bash
# GPU machine: the first measurement of `attnladder run --paired` (harness/measure/
# paired_ratio.h). N separate processes at the headline and throughput shapes of
# ci/gate.json, graph mode; each file holds both the paired ratio (results[].paired) and
# the separate measurements, so the between-process spread of the two can be compared on
# the same processes (the drift gate's spread: `attnladder gate RUN --against accepted`).
# Writes OUT/<gpu>/<stamp>_<commit>.json per process (OUT: first argument, default
# evidence) and stops at the first process that fails.
#   BUILD=build N=3 bash ci/tools/paired_ratio_study.sh [OUT]
set -u
build=${BUILD:-build}
n=${N:-3}
out=${1:-evidence}
nvidia-smi -L >/dev/null 2>&1 || { echo "paired_ratio_study: no GPU; nothing measured"; exit 3; }
shapes="--shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0 --shape 4,16,4096,128,1"
for i in $(seq 1 "$n"); do
  # shellcheck disable=SC2086
  "$build/attnladder" run --paired --build "$build" $shapes --modes graph --sweep-modes graph \
    --no-ceilings --evidence "$out" || { echo "paired_ratio_study: process $i failed"; exit 1; }
done
