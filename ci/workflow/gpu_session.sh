#!/usr/bin/env bash
# One GPU session's worth of evidence, for a machine where build/ was carried in from a
# build machine (no compiler needed): the ladder with the sweep and PyTorch's backends,
# the profiler metrics, the gate, the sanitizer, and the check against the faulty
# implementation. Everything lands in OUT_DIR (default: evidence/<gpu>/ through the
# harness's own defaults).
#   ci/workflow/gpu_session.sh [ladder] [sanitize] [faulty]   (default: all three)
set -u
build=${BUILD:-build}
out=${OUT_DIR:-}
bin=$build/attnladder
steps=${*:-ladder sanitize faulty}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
status=0
ev_args=(); [ -n "$out" ] && ev_args=(--evidence "$out/ev")
if [[ " $steps " == *" ladder "* ]]; then
  ext=()
  if python3 ci/tools/torch_sdpa.py --out "$build/torch_sdpa.json" --shapes 1,8,512,512,64,0 \
       1,8,512,512,64,1 4,16,4096,4096,128,0 4,16,4096,4096,128,1 1,16,16384,16384,128,0 \
       1,16,16384,16384,128,1 >&2; then
    [ -s "$build/torch_sdpa.json" ] && ext=(--external "$build/torch_sdpa.json")
  fi
  # a run stopped by the time limit keeps what it measured as a partial file
  timeout -s INT "${RUN_TIMEOUT:-3000}" "$bin" run --build "$build" --sweep "${ext[@]}" "${ev_args[@]}" > "$build/run.out"; rc=$?
  cat "$build/run.out"
  file=$(sed -n 's/^evidence: \([^ ]*\).*/\1/p' "$build/run.out")
  [ $rc = 0 ] || status=$rc
  if [ -n "$file" ]; then
    raw=$(mktemp -d)
    "$bin" profile --build "$build" --into "$file" --raw-dir "$raw" \
      --impl "$("$bin" list --build "$build" | awk '$2 == "phase" || $2 == "baseline" {print $1}' | paste -sd,)" \
      --shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0
    [ -n "$out" ] && tar czf "$out/ncu_raw.tgz" -C "$raw" .
    "$bin" gate "$file" || status=1
  fi
fi
if [[ " $steps " == *" sanitize "* ]]; then
  bash ci/workflow/sanitize.sh "$build" "${out:+$out/ev}" || status=1
fi
if [[ " $steps " == *" faulty "* ]]; then
  BUILD=$build bash ci/checks/test_faulty_tile.sh "${out:+$out/ev}" || status=1
fi
exit $status
