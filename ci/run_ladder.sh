#!/usr/bin/env bash
# `make run`: with a GPU, run the ladder (headline shapes and the sweep), import the
# PyTorch baselines where torch is present, gate the run and regenerate the reports.
# Without a GPU, say so in one line and show the newest committed evidence.
set -u
build=${1:-build}
bin=$build/attnladder
if ! "$bin" run --help >/dev/null 2>&1; then echo "run_ladder: $bin is not built" >&2; exit 2; fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "make run: no GPU on this machine; showing the newest committed evidence instead."
  exec "$bin" show
fi
ext_args=()
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
  if python3 ci/torch_sdpa.py --out "$build/torch_sdpa.json" --shapes 1,8,512,512,64,0 \
      1,8,512,512,64,1 4,16,4096,4096,128,0 1,16,16384,16384,128,0 >&2; then
    ext_args=(--external "$build/torch_sdpa.json")
  fi
else
  echo "run_ladder: PyTorch baselines skipped (python3 with CUDA torch not found)"
fi
out=$("$bin" run --sweep "${ext_args[@]}" | tee /dev/stderr | sed -n 's/^evidence: \([^ ]*\).*/\1/p')
status=${PIPESTATUS[0]}
[ -n "$out" ] || { echo "run_ladder: the run wrote no evidence (status $status)" >&2; exit 1; }
"$bin" profile --into "$out" || true
"$bin" gate "$out"; gate=$?
"$bin" report || exit 1
exit $(( status != 0 ? status : gate ))
