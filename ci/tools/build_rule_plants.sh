#!/usr/bin/env bash
# Test-only: the build directories of the A/B gate's held-out study of shape-rule changes
# (ci/tools/plant_rules.py names the plants; ci/tools/plant_rules_study.sh times them).
#   ci/tools/build_rule_plants.sh [OUT]     (repository root, no GPU; OUT defaults to build/study_plants)
# Writes OUT/base/phases/<rung>.so for every rung a plant edits (the frozen sources copied
# unchanged) and OUT/<plant>/phases/<rung>.so for each plant (the copy with its one edit),
# each beside its <rung>.so.sha256 and <rung>.sources.sha256 (the copy's files, named by
# their paths in the repository), as ci/tools/record_sources.sh writes them for a build:
# `attnladder ab` reads those to see which rungs changed. Every binary is built the same
# way, with the rung's own nvcc command (`make nvcc-command-<rung>`) for sm_90a only (the
# Hopper rungs' target; ARCHS emptied), so base and plant differ by the edit alone, and
# the host symbols stripped, so that OUT can be carried to a GPU machine (du -sh OUT).
# The sources are copied under OUT.src/, the objects kept under OUT.obj/. One nvcc at a time; a binary already newer than
# its edit is kept (delete OUT to rebuild).
set -eu
out=${1:-build/study_plants}
src=$out.src
py=${PYTHON:-python3}
[ -f ci/tools/plant_rules.py ] || { echo "build_rule_plants: run from the repository root" >&2; exit 2; }
mkdir -p "$out" "$src"

# build NAME RUNG: $src/NAME/phases/RUNG/ -> $out/NAME/phases/RUNG.so and its records
build() {
  local name=$1 rung=$2 dir=$out/$1/phases so=$out/$1/phases/$2.so
  mkdir -p "$dir"
  if [ -f "$so" ] && [ -f "$dir/$rung.sources.sha256" ] && [ "$so" -nt ci/tools/plant_rules.py ]; then
    echo "kept  $so"
    return 0
  fi
  local cmd flags objs="" cu key obj
  cmd=$(make -s --no-print-directory "nvcc-command-$rung" ARCHS=)
  flags=${cmd%% -MD -MF *}
  echo "nvcc  $so (sm_90a)"
  # one object a translation unit, kept by what it compiles: a plant edits one file, and
  # the unit that does not include it (rung 11's rung10.cu, the bulk of its compile time)
  # is compiled once for every plant and the base
  for cu in "$src/$name/phases/$rung"/*.cu; do
    key=$( { echo "$flags"; cat "$cu"; for f in $(local_includes "$cu"); do cat "$f"; done; } | sha256sum | cut -c1-24)
    obj=$out.obj/$rung-$(basename "$cu" .cu)-$key.o
    mkdir -p "$out.obj"
    if [ ! -f "$obj" ]; then
      ${flags/ -shared / } -c -o "$obj.tmp" "$cu" 2>> "$dir/$rung.ptxas.txt" \
        || { cat "$dir/$rung.ptxas.txt" >&2; rm -f "$obj.tmp" "$so"; exit 1; }
      mv "$obj.tmp" "$obj"
    fi
    objs="$objs $obj"
  done
  # the objects of other rungs' sources it links (the Makefile's PHASE_LINKS_: rungs 12-15),
  # compiled from the tree, never planted, once for every plant and the base. A rung of
  # linked objects alone (PHASE_ONLY_LINKS_: rung 10, rung 11's rung10.o) is built from its
  # own sources as before, where its plant's edit is.
  # (the command names them as objects of the link alone: <build>/obj/phases/R/F.o, from
  # phases/R/F.cu)
  local linked
  linked=$(printf '%s\n' "$cmd" | tr ' ' '\n' | sed -n 's|^<build>/obj/\(phases/[^/]*/[^/]*\)\.o$|\1.cu|p' | sort -u)
  if printf '%s\n' "$cmd" | grep -q " -c -o <build>/obj/phases/$rung/"; then
    for cu in $(printf '%s\n' "$linked" | grep -v "^phases/$rung/"); do
      key=$( { echo "$flags"; cat "$cu"; for f in $(local_includes "$cu"); do cat "$f"; done; } | sha256sum | cut -c1-24)
      obj=$out.obj/link-$(printf '%s' "${cu%.cu}" | tr / -)-$key.o
      if [ ! -f "$obj" ]; then
        echo "nvcc  $obj (linked, sm_90a)"
        ${flags/ -shared / } -c -o "$obj.tmp" "$cu" 2>> "$dir/$rung.ptxas.txt" \
          || { cat "$dir/$rung.ptxas.txt" >&2; rm -f "$obj.tmp" "$so"; exit 1; }
        mv "$obj.tmp" "$obj"
      fi
      objs="$objs $obj"
    done
  fi
  if ! $flags -o "$so" $objs 2>> "$dir/$rung.ptxas.txt"; then
    cat "$dir/$rung.ptxas.txt" >&2
    rm -f "$so"
    exit 1
  fi
  strip --strip-unneeded "$so"
  (cd "$dir" && sha256sum "$rung.so") > "$dir/$rung.so.sha256"
  (cd "$src/$name" && sha256sum phases/"$rung"/*) > "$dir/$rung.sources.sha256"
}

# the files of its own folder a source includes ("name"), and theirs, once each
local_includes() {
  local dir seen="" todo="$1" f inc
  dir=$(dirname "$1")
  while [ -n "$todo" ]; do
    set -- $todo; f=$1; shift; todo="$*"
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)".*/\1/p' "$f"); do
      [ -f "$dir/$inc" ] || continue
      case " $seen " in *" $dir/$inc "*) continue;; esac
      seen="$seen $dir/$inc"; todo="$todo $dir/$inc"; echo "$dir/$inc"
    done
  done
}

only=${ONLY:-}
tsv=$src/plants.$$.tsv
"$py" ci/tools/plant_rules.py list > "$tsv"
for rung in $(cut -f2 "$tsv" | sort -u); do
  [ -z "$only" ] || [ "$only" = "base" ] || [ "$only" = "base:$rung" ] || continue
  "$py" ci/tools/plant_rules.py copy "base:$rung" "$src/base"
  build base "$rung"
done
while IFS=$'\t' read -r name rung _file _what; do
  [ -z "$only" ] || [ "$only" = "$name" ] || continue
  "$py" ci/tools/plant_rules.py copy "$name" "$src/$name"
  build "$name" "$rung"
done < "$tsv"
rm -f "$tsv"
du -sh "$out"
