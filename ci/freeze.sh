#!/usr/bin/env bash
# Freezing: a frozen phase's compile closure (every file in its directory plus every
# header of this repository that its sources include, from `nvcc -M`) is pinned by
# sha256 in ci/frozen/<phase>.sha256, and so is how it is built: the nvcc release
# (major.minor: the toolchain whose code generation the numbers were measured with; the
# patch level is left free so the same release's images agree) and the resolved nvcc
# command line (`make -s nvcc-command-NAME`: flags, architectures, defines, libraries).
# --check also refuses a build.mk that reaches outside its own directory: each
# phases/NAME/build.mk and kernels/NAME/build.mk may set only variables ending in _NAME
# and may name no other phase or kernel, since every build.mk is included into the one
# Makefile namespace.
#
#   ci/freeze.sh NAME...    write (or rewrite) the manifest of each phase: an explicit,
#                           reviewed change; say why in the commit
#   ci/freeze.sh --check    recompute every manifest; exit 1 on any difference
#                           (a changed, missing or newly included file)
#   ci/freeze.sh --recompile NAME OLD.so NEW.so
#                           re-pin only the nvcc command of a frozen phase whose files are
#                           unchanged, where OLD.so (built by the pinned command) and NEW.so
#                           (by the new one, same tree) hold the same machine code
#                           (ci/tools/same_code.py; --kernels for a phase of other rungs'
#                           objects alone): the proof is kept in
#                           ci/frozen/NAME.recompiled.txt; exit 1 when the files or the code
#                           differ (nothing written; the closure may gain only files another
#                           frozen phase pins with the same hash)
set -u
cd "$(dirname "$0")/.."
CUDA=${CUDA:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA/bin/nvcc}
INCLUDES="-Iharness -Iharness/include -Ikernels/reference -Iphases -I$CUDA/include"

# The closure of one phase, one repo-relative path per line, sorted. A phase that links the
# objects of other rungs' sources (the Makefile's PHASE_LINKS_ and PHASE_ONLY_LINKS_: rung 10
# is rung 11's rung10.o alone) has those sources and what they include in its closure too.
# A phase of linked objects alone compiles none of its own .cu files: the linked sources'
# includes are its closure (rung 10's attention.cu is among rung10.cu's; nvcc -M once, not twice).
closure() {  # NAME LINKS ONLY-LINKS
  local dir=phases/$1 links=$2 own
  [ -d "$dir" ] || { echo "freeze: no phase directory $dir" >&2; return 2; }
  own=$dir/*.cu; [ -z "$3" ] || own=
  {
    find "$dir" -type f ! -name '*.o' ! -name '*.so'
    for src in $own $links; do
      [ -e "$src" ] || continue
      "$NVCC" -M -std=c++17 $INCLUDES "$src" 2>/dev/null | sed '1s/^[^:]*://' | tr ' \\' '\n\n'
    done
  } | sed 's|^\./||' | grep -v '^$' | grep -v '^/' | sort -u
}

nvcc_release() { "$NVCC" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p'; }
# The sources a phase links, those of a phase of linked objects alone, and its nvcc command,
# from one make (a make a phase: 0.08 s).
manifest() {
  local links="" only="" cmd=""
  { IFS= read -r links; IFS= read -r only; IFS= read -r cmd; } \
    < <(make -s --no-print-directory phase-links-"$1" phase-only-links-"$1" nvcc-command-"$1" 2>/dev/null)
  closure "$1" "$links" "$only" | xargs -r sha256sum
  [ -n "$cmd" ] || { echo "freeze: make cannot print the nvcc command of $1" >&2; return 2; }
  echo "nvcc-release $(nvcc_release)"
  echo "nvcc-command $cmd"
}

# Every build.mk stays in its own namespace. Prints one line per violation.
buildmk_violations() {
  local all mk dir name other
  all=$(ls -d phases/*/ kernels/*/ 2>/dev/null | xargs -r -n1 basename)
  for mk in phases/*/build.mk kernels/*/build.mk; do
    [ -e "$mk" ] || continue
    dir=$(dirname "$mk"); name=$(basename "$dir")
    # variable assignments: NAME op value (op: = := ::= ?= +=), also after override/export
    sed -n 's/^[[:space:]]*\(override[[:space:]]\+\|export[[:space:]]\+\)*\([A-Za-z0-9_.-]\+\)[[:space:]]*\(::\?=\|?=\|+=\|=\).*/\2/p' "$mk" \
      | while read -r var; do
          case "$var" in *_"$name") ;; *) echo "$mk sets $var (a build.mk may set only *_$name)";; esac
        done
    for other in $all; do
      [ "$other" = "$name" ] && continue
      grep -q -- "$other" "$mk" && echo "$mk names $other (another directory's build)"
    done
  done
}

if [ "${1:-}" = "--check" ]; then
  fail=0; n=0
  v=$(buildmk_violations)
  if [ -n "$v" ]; then
    echo "freeze: a build.mk reaches outside its own directory:" >&2
    printf '    %s\n' "$v" >&2
    fail=1
  fi
  for m in ci/frozen/*.sha256; do
    [ -e "$m" ] || continue
    name=$(basename "$m" .sha256); n=$((n + 1))
    now=$(manifest "$name") || { fail=1; continue; }
    if ! diff -u "$m" <(printf '%s\n' "$now") > /tmp/freeze_diff.$$ 2>&1; then
      echo "freeze: phase $name is frozen and its compile closure changed:" >&2
      grep '^[-+][0-9a-n]' /tmp/freeze_diff.$$ | sed 's/^/    /' >&2
      echo "  improve by adding a new phase or header; unfreezing is an explicit change to $m" >&2
      fail=1
    fi
    rm -f /tmp/freeze_diff.$$
  done
  [ $fail = 0 ] && echo "freeze: $n frozen phases unchanged"
  exit $fail
fi

# How a frozen phase is compiled may change, its machine code not: the manifest's files
# and nvcc release must be what is pinned, and the two builds' code the same.
recompile() {
  local name=$1 old=$2 new=$3 m now proof
  m=ci/frozen/$name.sha256
  case "$name" in "" | *[!A-Za-z0-9_]*) echo "freeze: '$name' is not a phase name" >&2; return 2 ;; esac
  [ -f "$m" ] || { echo "freeze: $name is not frozen (no $m)" >&2; return 2; }
  [ -f "$old" ] && [ -f "$new" ] || { echo "freeze: --recompile needs the two builds, OLD.so and NEW.so" >&2; return 2; }
  now=$(manifest "$name") || return 2
  # Every file pinned is there unchanged, and the nvcc release; the closure may only grow by
  # files that another frozen phase pins with the same hash (the sources of the objects a
  # rung now links, as rung 10 links rung 11's rung10.o), which a change would fail as well.
  local gone added
  gone=$(comm -23 <(grep -v '^nvcc-command ' "$m" | sort) <(printf '%s\n' "$now" | grep -v '^nvcc-command ' | sort))
  added=$(comm -13 <(grep -v '^nvcc-command ' "$m" | sort) <(printf '%s\n' "$now" | grep -v '^nvcc-command ' | sort))
  if [ -n "$gone" ] || printf '%s\n' "$added" | grep -q '^nvcc-release '; then
    echo "freeze: $name: its files or nvcc release changed, not only how it is compiled; nothing re-pinned" >&2
    return 1
  fi
  local line others
  others=$(ls ci/frozen/*.sha256 | grep -vxF "$m")
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    if [ -z "$others" ] || ! grep -qxF -- "$line" $others < /dev/null; then
      echo "freeze: $name: its closure gains ${line#*  }, which no other frozen phase pins with that hash; nothing re-pinned" >&2
      return 1
    fi
  done <<< "$added"
  if [ "$(grep '^nvcc-command ' "$m")" = "$(printf '%s\n' "$now" | grep '^nvcc-command ')" ]; then
    echo "freeze: $name: its nvcc command is the one pinned; nothing to re-pin"
    return 0
  fi
  # A phase of linked objects alone is compiled in another rung's unit, its names in another
  # namespace: its device code is compared kernel by kernel, names taken out, its host code not.
  local mode=""
  [ -z "$(make -s --no-print-directory phase-only-links-"$name" 2>/dev/null)" ] || mode=--kernels
  proof=$(${PYTHON:-python3} ci/tools/same_code.py $mode "$old" "$new")
  case $? in
    0) ;;
    1) printf '%s\n' "$proof" >&2; echo "freeze: $name: the new command's code differs; nothing re-pinned" >&2; return 1 ;;
    *) return 2 ;;
  esac
  local note=ci/frozen/$name.recompiled.txt
  {
    [ -f "$note" ] && cat "$note"
    echo "# $name: the nvcc command re-pinned on $(date -u +%Y-%m-%d) (ci/freeze.sh --recompile), the$([ -n "$mode" ] && echo " device") machine code unchanged"
    echo "old $(grep '^nvcc-command ' "$m")"
    echo "new $(printf '%s\n' "$now" | grep '^nvcc-command ')"
    [ -z "$added" ] || printf 'closure gains (pinned so by another frozen phase) %s\n' $(printf '%s\n' "$added" | awk '{print $2}')
    [ -z "$mode" ] || echo "compared: same_code.py $mode (device code kernel by kernel, names taken out; host code not compared)"
    echo "old build sha256 $(sha256sum < "$old" | cut -c1-64), new build sha256 $(sha256sum < "$new" | cut -c1-64)"
    printf '%s\n' "$proof"
  } > "$note.tmp" && printf '%s\n' "$now" > "$m.tmp" && mv "$m.tmp" "$m" && mv "$note.tmp" "$note" \
    || { rm -f "$m.tmp" "$note.tmp"; return 2; }
  echo "freeze: $name: nvcc command re-pinned in $m, the proof in ci/frozen/$name.recompiled.txt"
}
if [ "${1:-}" = "--recompile" ]; then
  [ $# = 4 ] || { echo "usage: ci/freeze.sh --recompile NAME OLD.so NEW.so" >&2; exit 2; }
  recompile "$2" "$3" "$4"
  exit $?
fi

[ $# -gt 0 ] || { echo "usage: ci/freeze.sh NAME... | --check | --recompile NAME OLD.so NEW.so" >&2; exit 2; }
for name in "$@"; do
  # A phase's name: a directory under phases/ (letters, digits, underscores: no path, no
  # option), checked before anything is written.
  case "$name" in
    "" | *[!A-Za-z0-9_]*) echo "freeze: '$name' is not a phase name (a directory under phases/: $(ls phases | tr '\n' ' '))" >&2; exit 2 ;;
  esac
  [ -d "phases/$name" ] || { echo "freeze: no phase directory phases/$name (phases: $(ls phases | tr '\n' ' '))" >&2; exit 2; }
  m=ci/frozen/$name.sha256
  manifest "$name" > "$m.tmp" && [ -s "$m.tmp" ] && mv "$m.tmp" "$m" \
    || { rm -f "$m.tmp"; echo "freeze: could not compute the closure of $name" >&2; exit 2; }
  echo "freeze: $name pinned ($(wc -l < "$m") files) in $m"
done
