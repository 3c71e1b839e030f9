#!/usr/bin/env bash
# The A/B regression gate by hand: the base commit is built beside the head (a git
# worktree) and both builds are loaded into one `attnladder ab` process of the BASE's
# harness (the workflow's judge does the same, ci/workflow/judge.sh: the binary that
# decides is never the one under test), every implementation they share measured in
# alternation at the headline and throughput shapes, at one shape of every code path of
# each rung, and at every sweep point of each rung whose binary or sources differ between
# the two builds (the records check_build_sources.sh verifies below). It sees what the
# freeze cannot: a flag, toolchain, driver or harness change that slows a rung, and a
# shape rule that now picks a slower path. A phase the head adds has no base: ab names it
# and the ladder gate judges it alone.
#   ci/workflow/ab_gate.sh BASE_REF [OUT_DIR]     (run in the head's checkout, after make build)
# Writes OUT_DIR/ab.txt and OUT_DIR/ab.json. Exit: ab's (0 pass, 1 regressed or a failed
# check, 2 bad input, 3 no GPU).
set -u
base_ref=${1:-}
out=${2:-out}
[ -n "$base_ref" ] || { echo "usage: ci/workflow/ab_gate.sh BASE_REF [OUT_DIR]" >&2; exit 2; }
mkdir -p "$out"
base_dir=$(mktemp -d)/base
trap 'git worktree remove --force "$base_dir" >/dev/null 2>&1' EXIT
git fetch --quiet --depth=1 origin "$base_ref" 2>/dev/null || true
git worktree add --detach "$base_dir" "$base_ref" >/dev/null 2>&1 \
  || git worktree add --detach "$base_dir" FETCH_HEAD >/dev/null \
  || { echo "ab_gate: cannot check out the base $base_ref" | tee "$out/ab.txt" >&2; exit 2; }
make -C "$base_dir" --no-print-directory build >/dev/null \
  || { echo "ab_gate: the base $base_ref does not build; nothing to compare with" | tee "$out/ab.txt" >&2; exit 2; }
# each build's binaries are what its own tree builds (check_build_sources.sh)
(cd "$base_dir" && bash ci/checks/check_build_sources.sh build >/dev/null 2>&1) \
  || [ ! -f "$base_dir/ci/checks/check_build_sources.sh" ] \
  || { echo "ab_gate: the base's build is not what its tree builds" | tee "$out/ab.txt" >&2; exit 2; }
bash ci/checks/check_build_sources.sh build > "$out/build_sources.txt" 2>&1 \
  || { cat "$out/build_sources.txt" | tee "$out/ab.txt" >&2; exit 2; }
"$base_dir/build/attnladder" ab --base "$base_dir/build" --head build --seed "${GITHUB_RUN_ID:-$$}" \
  --out "$out/ab.json" > "$out/ab.txt" 2>&1
status=$?
cat "$out/ab.txt"
exit $status
