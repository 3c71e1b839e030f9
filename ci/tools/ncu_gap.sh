#!/usr/bin/env bash
# Why the top rung trails the baseline at a shape: Nsight Compute's full section set for
# each implementation named, one run() each (`attnladder profile --target` brackets it
# with cudaProfilerStart/Stop), written as ncu reports and their details pages as CSV.
# GPU machine only. Usage: ncu_gap.sh BUILD OUTDIR IMPLS SHAPE...
#   IMPLS comma-separated (11_split_keys,sdpa_cudnn); SHAPE as `attnladder --shape` takes it.
set -u
build=${1:?build dir} out=${2:?output dir} impls=${3:?implementations}
shift 3
[ $# -ge 1 ] || { echo "ncu_gap.sh: give at least one shape (B,H,Sq,Skv,D,causal)" >&2; exit 2; }
command -v ncu >/dev/null || { echo "ncu_gap.sh: ncu not found" >&2; exit 3; }
mkdir -p "$out"
status=0
for shape in "$@"; do
  case $shape in *[!0-9,]*) echo "ncu_gap.sh: shape '$shape': digits and commas only" >&2; exit 2;; esac
  for impl in ${impls//,/ }; do
    case $impl in *[!A-Za-z0-9_]*) echo "ncu_gap.sh: name '$impl': letters, digits, _ only" >&2; exit 2;; esac
    tag="${impl}_${shape//,/x}"
    if ncu --profile-from-start off --set full --cache-control all --clock-control base \
           -f -o "$out/$tag" "$build/attnladder" profile --target --build "$build" \
           --impl "$impl" --shape "$shape" > "$out/$tag.log" 2>&1; then
      ncu --import "$out/$tag.ncu-rep" --page details --csv > "$out/$tag.details.csv" 2>>"$out/$tag.log"
      ncu --import "$out/$tag.ncu-rep" --page raw --csv > "$out/$tag.raw.csv" 2>>"$out/$tag.log"
      echo "ncu_gap: $tag profiled"
    else
      echo "ncu_gap: $tag failed (log $out/$tag.log)"; tail -5 "$out/$tag.log"; status=1
    fi
  done
done
exit $status
