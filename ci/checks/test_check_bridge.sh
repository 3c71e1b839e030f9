#!/usr/bin/env bash
# check_bridge.py --direct against an H200 session of build 0513906 (its run cut to the
# throughput shapes PyTorch timed, studies/bridge/run_cut_*) and that session's PyTorch
# log: the count it prints is the one computed apart (11_split_keys: 6 of 8 shapes within
# 1%, the two headline shapes +2.0% and -1.7%), and a log without the table is refused.
set -u
run=evidence/nvidia-h200/studies/bridge/run_cut_20261202T045718Z_0513906.json.gz
log=evidence/nvidia-h200/studies/bridge/torch_sdpa_20261202T045718Z_0513906.log
fail=0
out=$(python3 ci/tools/check_bridge.py "$run" --rung 11_split_keys --direct "$log") \
  || { echo "test_check_bridge: check_bridge exited $? on the reference"; fail=1; }
grep -q "bridged within 1% of the direct one-process ratio at 6 of 8 shapes" <<< "$out" \
  || { echo "test_check_bridge: expected 6 of 8 shapes within 1%:"; echo "$out"; fail=1; }
grep -q "^1x8x512x64 .*direct 0.478 (+2.0%)" <<< "$out" \
  || { echo "test_check_bridge: the headline's direct ratio is not 0.482 (+1.9%)"; fail=1; }
tmp=$(mktemp); head -5 "$log" > "$tmp"
if err=$(python3 ci/tools/check_bridge.py "$run" --direct "$tmp" 2>&1); then
  echo "test_check_bridge: a log without the ratio table was accepted"; fail=1
else
  grep -q "no 'paired ratio / ...' table" <<< "$err" || { echo "test_check_bridge: unclear refusal: $err"; fail=1; }
fi
rm -f "$tmp"
[ $fail = 0 ] && echo "test_check_bridge: 3 cases pass"
exit $fail
