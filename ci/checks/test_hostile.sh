#!/usr/bin/env bash
# Hostile input, by class (run by test_cli.sh, so by `make test`; no GPU needed): paths that
# would make a command destroy data or write outside what it may touch, strings that would
# run a command or inject into what people read, files that would hang it or make it work
# without bound, and evidence that lies about itself. Each probe: the exit status, a word of
# the message, no crash or sanitizer report, and, where the class is about damage, that the
# data is still there and nothing ran. Prints "tried N, correct N, crashes N"; exit 1 on any
# wrong answer.
set -u
bin=$(realpath "${1:-build/attnladder}")
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
canary="$tmp/canary"            # what an injected command would create; must never appear
tried=0 correct=0 crashes=0 fail=0

# probe STATUS PATTERN -- ARGS...: bin ARGS must exit STATUS and print PATTERN (grep -E),
# within 60 s (a hang is a wrong answer), with no sanitizer report and no canary
probe() {
  local status=$1 pattern=$2; shift 3
  tried=$((tried + 1))
  local out got
  out=$(timeout 60 "$bin" "$@" 2>&1 < /dev/null); got=$?
  if [ "$got" -ge 124 ] || grep -qE "AddressSanitizer|LeakSanitizer|runtime error:|Segmentation" <<<"$out"; then
    crashes=$((crashes + 1))
  fi
  if [ "$got" = "$status" ] && grep -qE -- "$pattern" <<<"$out" && [ ! -e "$canary" ]; then
    correct=$((correct + 1))
    return 0
  fi
  echo "test_hostile: '${*:0:6}': expected exit $status and /$pattern/, got exit $got:" >&2
  head -c 600 <<<"$out" | head -4 | sed 's/^/    /' >&2
  [ ! -e "$canary" ] || { echo "    and it ran a command (made $canary)" >&2; rm -f "$canary"; }
  fail=1
  return 1
}
expect() { probe "$@" || true; }
# still DIR FILE...: each file still there, unchanged since `keep` recorded it
keep() { (cd "$1" && find . -type f -exec sha1sum {} + | sort) > "$tmp/kept.$(basename "$1")"; }
still() {
  local now; now=$(cd "$1" && find . -type f -exec sha1sum {} + | sort)
  if [ "$now" != "$(cat "$tmp/kept.$(basename "$1")")" ]; then
    echo "test_hostile: $2: $1 lost or changed files" >&2; fail=1
  fi
}

gpu=nvidia-h100-80gb-hbm3
acc="evidence/$gpu/$(head -1 "evidence/$gpu/accepted.txt")"
name=$(basename "$acc")
# a small evidence root (the accepted run's headline rows alone) and a stand-in gnuplot that
# draws nothing, so that the report's own rules are what takes the time
ev="$tmp/ev"; mkdir -p "$ev/$gpu"; run="$ev/$gpu/$name"
python3 - "$acc" "$run" <<'PY' || exit 2
import json, sys
d = json.load(open(sys.argv[1]))
d["results"] = [r for r in d["results"] if r["tag"] == "headline"]
for k in ("input_checks", "profile"): d.pop(k, None)
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
printf '#!/bin/sh\necho "<svg><title>Gnuplot</title><desc>x</desc></svg>"\n' > "$tmp/gp"; chmod +x "$tmp/gp"
[ -z "${ATTN_HOSTILE_GNUPLOT:-}" ] || ln -sf "$(command -v "$ATTN_HOSTILE_GNUPLOT")" "$tmp/gp"   # the real one, for a binary that names its output in the script
rep() { "$bin" report --evidence "$ev" --gnuplot "$tmp/gp" "$@"; }

# ---- output that cannot destroy ---------------------------------------------------------------
mkdir -p "$tmp/theirs/sub"; echo precious > "$tmp/theirs/a.txt"; echo deep > "$tmp/theirs/sub/b.txt"
keep "$tmp/theirs"
ln -s "$tmp/theirs" "$tmp/link-to-theirs"
expect 2 "--out '.*link-to-theirs': not a directory but a symbolic link" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/link-to-theirs"
still "$tmp/theirs" "report --out LINK-to-a-directory"
[ -L "$tmp/link-to-theirs" ] || { echo "test_hostile: the link given as --out was moved" >&2; fail=1; }
expect 2 "--out '.*theirs': a directory that holds no report" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/theirs"
still "$tmp/theirs" "report --out DIRECTORY-of-other-files"
keep "$ev"
expect 2 "--out '.*ev' is --evidence" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$ev"
expect 2 "--out '.*' is --evidence" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$ev/$gpu"
expect 2 "--out '.*' is --evidence" -- report --evidence "$ev/$gpu/.." --gnuplot "$tmp/gp" --out "$tmp"
ln -s "$ev" "$tmp/ev-link"
expect 2 "--out '.*' is --evidence" -- report --evidence "$tmp/ev-link" --gnuplot "$tmp/gp" --out "$ev"
still "$ev" "report --out onto --evidence"
mkdir -p "$tmp/ph/01_x"; echo "# x" > "$tmp/ph/01_x/README.md"; keep "$tmp/ph"
expect 2 "--out '.*ph' is --phases" -- report --evidence "$ev" --phases "$tmp/ph" --gnuplot "$tmp/gp" --out "$tmp/ph"
still "$tmp/ph" "report --out onto --phases"
mkdir -p "$tmp/cfgdir"; cp ci/gate.json "$tmp/cfgdir/gate.json"
expect 2 "--out '.*cfgdir' is --config" -- report --evidence "$ev" --config "$tmp/cfgdir/gate.json" --gnuplot "$tmp/gp" --out "$tmp/cfgdir"
[ -f "$tmp/cfgdir/gate.json" ] || { echo "test_hostile: report --out holding --config deleted it" >&2; fail=1; }
expect 2 "--keep-scripts '.*' is --evidence" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/r0" --keep-scripts "$ev/$gpu"
# an earlier report (it holds the marker) and an empty directory are replaced; a new one made
expect 0 "report: .*r1/README.md" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/r1"
expect 0 "report: .*r1/README.md" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/r1"
mkdir -p "$tmp/empty"
expect 0 "report: .*empty/README.md" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/empty"
# a link planted inside an earlier report is removed as a link, its target kept
ln -s "$tmp/theirs" "$tmp/r1/plots/planted"
expect 0 "report: .*r1/README.md" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/r1"
still "$tmp/theirs" "report replacing a report that held a link"
# a long --out is written where it says or refused, never cut into another path
long="$tmp/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))/$(printf 'f%.0s' $(seq 200))"
long="$long/$long"; long=${long:0:2450}
if probe 0 "report: " -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$long"; then
  [ -f "$long/README.md" ] || { echo "test_hostile: report --out (2450 characters) wrote elsewhere" >&2; fail=1; }
fi
# gate --json and compare --out never over a run, the config, a device or a link
small=$run
mkdir -p "$tmp/g/$gpu"; cp "$small" "$tmp/g/$gpu/"; run="$tmp/g/$gpu/$name"
cp "$run" "$tmp/run-copy.json"
expect 2 "--json '.*' is the input" -- gate "$run" --json "$run"
expect 2 "--json '.*' is the input" -- gate "$run" --against "$tmp/run-copy.json" --json "$tmp/run-copy.json"
expect 2 "--json '.*' is the input" -- gate "$run" --config "$tmp/cfgdir/gate.json" --json "$tmp/cfgdir/gate.json"
expect 2 "--json '.*' is the input" -- gate --evidence "$tmp/g" --json "$tmp/g/$gpu/20991231T000000Z_0000000.json"
expect 2 "--out '.*' is the input" -- compare "$run" "$tmp/run-copy.json" --out "$tmp/run-copy.json"
expect 2 "--out '.*' is the input" -- compare "$run" "$small" --config "$tmp/cfgdir/gate.json" --out "$tmp/cfgdir/gate.json"
cmp -s "$run" "$small" && cmp -s "$tmp/run-copy.json" "$small" && cmp -s "$tmp/cfgdir/gate.json" ci/gate.json ||
  { echo "test_hostile: gate --json or compare --out overwrote an input" >&2; fail=1; }
ln -s /proc/self/fd/1 "$tmp/fd1"
expect 2 "--out '.*fd1': a symbolic link" -- compare "$run" "$small" --out "$tmp/fd1"
[ -L "$tmp/fd1" ] || { echo "test_hostile: compare --out replaced a link" >&2; fail=1; }
expect 2 "--out '/dev/null': not a regular file" -- compare "$run" "$small" --out /dev/null
expect 2 "--json '/dev/null': not a regular file" -- gate "$run" --json /dev/null
expect 2 "--out '.*': a directory" -- compare "$run" "$small" --out "$tmp/theirs"
expect 2 "--out '': give a file" -- compare "$run" "$small" --out ''
expect 0 "" -- compare "$run" "$small" --out "$tmp/compare.md"
expect 0 "" -- gate "$run" --json "$tmp/gate.json"

# ---- no path or string from a flag reaches a shell ----------------------------------------------
if command -v gnuplot > /dev/null 2>&1; then
  odd="$tmp/o\`touch $canary\`\"\$(touch $canary)'x
system 'touch $canary'"
  oddcfg="$tmp/c\`touch $canary\`'"; mkdir -p "$oddcfg"; oddcfg="$oddcfg/gate.json"
  cp ci/gate.json "$oddcfg"   # its path is printed in a plot
  expect 0 "report: " -- report --evidence "$ev" --config "$oddcfg" --out "$odd"
  [ -f "$odd/README.md" ] && [ -s "$odd/plots/$gpu-ladder.svg" ] ||
    { echo "test_hostile: report --out with quotes and a newline: no report at that path" >&2; fail=1; }
fi

echo "test_hostile: tried $tried, correct $correct, crashes $crashes"
[ "$crashes" = 0 ] || fail=1
exit $fail
