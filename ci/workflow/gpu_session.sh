#!/usr/bin/env bash
# One GPU session's worth of evidence, for a machine where build/ was carried in from a
# build machine (no compiler needed): the ladder with the sweep and PyTorch's backends,
# the profiler metrics, the gate, the sanitizer, and the check against the faulty
# implementation. Everything lands in OUT_DIR (default: evidence/<gpu>/ through the
# harness's own defaults).
#   ci/workflow/gpu_session.sh [ladder] [sanitize] [faulty]   (default: all three)
# RESUME=FILE continues the interrupted run FILE (`run --resume`) instead of starting one.
# PROFILE=0 leaves the profiler out (about 45 s): the reports read the profile of the
# reference run only, so the other accepted sessions of a set need none.
# Each step's wall time goes to session_steps.tsv (in OUT_DIR, else the build directory).
set -u
build=${BUILD:-build}
out=${OUT_DIR:-}
bin=$build/attnladder
steps=${*:-ladder sanitize faulty}
timing=${out:-$build}/session_steps.tsv
mkdir -p "$(dirname "$timing")"
: > "$timing"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# step_done NAME START_MS: one line of session_steps.tsv, seconds
step_done() {
  local ms=$(( $(now_ms) - $2 ))
  printf '%s\t%d.%03d\n' "$1" $((ms / 1000)) $((ms % 1000)) >> "$timing"
  printf 'session: %s took %d.%03d s\n' "$1" $((ms / 1000)) $((ms % 1000)) >&2
}
t_session=$(now_ms)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
# every binary must be the one the tree's sources build (a carried build folder once held a
# rung's binary from an earlier version of its source); nothing is measured otherwise.
# SOURCES_CHECKED=1: the caller built the folder itself from its checkouts (judge.sh)
if [ "${SOURCES_CHECKED:-}" != 1 ]; then
  bash ci/checks/check_build_sources.sh "$build" | tee ${out:+"$out/build_sources.txt"}
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "gpu_session: $build is not what the tree builds; nothing measured" >&2; exit 2; }
fi
status=0
ev_args=(); [ -n "$out" ] && ev_args=(--evidence "$out/ev")
if [[ " $steps " == *" ladder "* ]]; then
  ext=()
  t=$(now_ms)
  # PyTorch's backends in rotation, in this one process, with a bridge: rung 10, whose
  # machine code does not depend on cuDNN, which the run times against its own baseline
  # too. Here the C baseline binds to PyTorch's cuDNN (9.19 with PyTorch 2.11), not the
  # machine's (9.14) that the run's baseline loads, so it joins the rotation as one more
  # external (sdpa_cudnn_torch) and the run takes every ratio to its baseline through the
  # bridge (harness/core/stats.h, stats_bridged_ratio_ci). The math backend (about 100 ms
  # a call at the long shapes) is left out: a round would be mostly its low-power replay.
  # 4x32x4096x64 and 16x32x1024x64: the D=64 throughput shapes, where the two cuDNNs
  # differ most (5-12%, issue 51).
  # The rungs above the bridge join that rotation too (timed, printed, not imported): their
  # one-process ratio to PyTorch's cuDNN is what the bridged figure must match within 1%
  # (ci/tools/check_bridge.py --direct reads this step's log, torch_sdpa.log).
  above=(); for r in "$build"/phases/1[1-9]_*.so "$build"/phases/[2-9][0-9]_*.so; do [ -f "$r" ] && above+=("$r"); done
  if python3 ci/tools/torch_sdpa.py --abi "$build/kernels/sdpa_cudnn.so" "$build/phases/10_latency.so" "${above[@]}" \
       --bridge 10_latency --backends flash,efficient,cudnn \
       --out "$build/torch_sdpa.json" --shapes 1,8,512,512,64,0 \
       1,8,512,512,64,1 4,16,4096,4096,128,0 4,16,4096,4096,128,1 1,16,16384,16384,128,0 \
       1,16,16384,16384,128,1 4,32,4096,4096,64,0 16,32,1024,1024,64,0 \
       2>&1 | tee "${out:-$build}/torch_sdpa.log" >&2; [ "${PIPESTATUS[0]}" = 0 ]; then
    [ -s "$build/torch_sdpa.json" ] && ext=(--external "$build/torch_sdpa.json")
  fi
  step_done torch_sdpa "$t"
  # a run stopped by the time limit keeps what it measured as a partial file, which
  # RESUME=that-file continues
  what=(--sweep); [ -n "${RESUME:-}" ] && what=(--resume "$RESUME")
  t=$(now_ms)
  timeout -s INT "${RUN_TIMEOUT:-3000}" "$bin" run --build "$build" "${what[@]}" "${ext[@]}" "${ev_args[@]}" > "$build/run.out"; rc=$?
  # the run's own exit (139 a crash, 124 the time limit, ...), which the judge counts
  [ -n "$out" ] && echo "$rc" > "$out/run.status"
  step_done run "$t"
  cat "$build/run.out"
  file=$(sed -n 's/^evidence: \([^ ]*\).*/\1/p' "$build/run.out")
  [ $rc = 0 ] || status=$rc
  # a resumed run is written beside its partial file; with OUT_DIR it joins the session's
  # evidence there (the gpu folder kept), and the profile goes into that copy
  partial=0; grep -q '^evidence: .*(partial' "$build/run.out" && partial=1
  if [ -n "${RESUME:-}" ] && [ $partial = 0 ] && [ -n "$out" ] && [ -n "$file" ] && [[ "$file" != "$out"/* ]]; then
    dest="$out/ev/$(basename "$(dirname "$file")")"
    mkdir -p "$dest" && cp "$file" "$dest/" && file="$dest/$(basename "$file")"
  fi
  if [ -n "$file" ] && [ $partial = 1 ]; then
    echo "gpu_session: the run was cut short; continue it with RESUME=$file" >&2
  elif [ -n "$file" ]; then
    if [ "${PROFILE:-1}" != 0 ]; then
      raw=$(mktemp -d)
      t=$(now_ms)
      "$bin" profile --build "$build" --into "$file" --raw-dir "$raw" \
        --impl "$("$bin" list --build "$build" | awk '$2 == "phase" || $2 == "baseline" {print $1}' | paste -sd,)" \
        --shape 1,8,512,64,0 --shape 1,8,512,64,1 --shape 4,16,4096,128,0
      step_done profile "$t"
      [ -n "$out" ] && tar czf "$out/ncu_raw.tgz" -C "$raw" .
    fi
    t=$(now_ms)
    "$bin" gate "$file" || status=1
    step_done gate "$t"
  fi
fi
if [[ " $steps " == *" sanitize "* ]]; then
  t=$(now_ms)
  bash ci/workflow/sanitize.sh "$build" "${out:+$out/ev}" || status=1
  step_done sanitize "$t"
fi
if [[ " $steps " == *" faulty "* ]]; then
  t=$(now_ms)
  BUILD=$build bash ci/checks/test_faulty_tile.sh "${out:+$out/ev}" || status=1
  step_done faulty "$t"
fi
step_done session "$t_session"
exit $status
