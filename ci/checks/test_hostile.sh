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
trap 'rm -rf "$tmp" "${keepdir:-}"' EXIT
canary="$tmp/canary"            # what an injected command would create; must never appear
tried=0 correct=0 crashes=0 fail=0

# probe STATUS PATTERN -- ARGS...: bin ARGS must exit STATUS and print PATTERN (grep -E),
# within $limit seconds (a hang is a wrong answer), with no sanitizer report and no canary.
# The limit was 20 s: the slowest probe takes 5 CPU s under the sanitizers, and at load 8-10
# on the 2-core machine a probe's wall time is 2-8 times its CPU time, so a correct binary
# timed out there. A hang (a FIFO read) is still one at 60 s, only later.
limit=${ATTN_HOSTILE_TIMEOUT:-60}
probe() {
  local status=$1 pattern=$2; shift 3
  tried=$((tried + 1))
  local out got
  out=$(timeout "$limit" "$bin" "$@" 2>&1 < /dev/null); got=$?
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
name=$(basename "$acc" .gz)   # the cut copy below is plain
# a small evidence root (the accepted run's headline rows alone) and a stand-in gnuplot that
# draws nothing, so that the report's own rules are what takes the time
ev="$tmp/ev"; mkdir -p "$ev/$gpu"; run="$ev/$gpu/$name"
python3 - "$acc" "$run" <<'PY' || exit 2
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1], "rt") if sys.argv[1].endswith(".gz") else open(sys.argv[1]))
d["results"] = [r for r in d["results"] if r["tag"] == "headline"]
for k in ("input_checks", "profile"): d.pop(k, None)
d["method"]["bootstrap_resamples"] = 100   # the reader's least: ci/checks/few_resamples.py says why
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
# a copy outside $tmp: a binary that deletes what --out names (report --out "$tmp" below)
# must not take the rest of the probes with it
keepdir=$(mktemp -d); small="$keepdir/$gpu/$name"; mkdir -p "$keepdir/$gpu"; cp "$run" "$small"
printf '#!/bin/sh\necho "<svg><title>Gnuplot</title><desc>x</desc></svg>"\n' > "$tmp/gp"; chmod +x "$tmp/gp"
[ -z "${ATTN_HOSTILE_GNUPLOT:-}" ] || ln -sf "$(command -v "$ATTN_HOSTILE_GNUPLOT")" "$tmp/gp"   # the real one, for a binary that names its output in the script
rep() { "$bin" report --evidence "$ev" --gnuplot "$tmp/gp" "$@"; }
# gate and compare read their GPU's accepted set (three 8 MB runs, 4 CPU s under the
# sanitizers) whatever else they are given; the probes below about their other inputs take
# the set cut as the fuzz seeds are (every session, so the spread between them is still
# computed): until issue 53 five probes here spent 21 CPU s reading the whole set.
python3 harness/fuzz/make_seeds.py "$tmp/set/$gpu" $(sed "s|^|evidence/$gpu/|" "evidence/$gpu/accepted.txt") > /dev/null || exit 2
for f in "$tmp/set/$gpu"/seed_*; do mv "$f" "$tmp/set/$gpu/${f##*/seed_}"; done
python3 ci/checks/few_resamples.py "$tmp/set/$gpu"/*.json || exit 2   # 100 resamples, as $small
(cd "$tmp/set/$gpu" && ls -- *.json) > "$tmp/set/$gpu/accepted.txt"
cutset=(--evidence "$tmp/set")

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
long900=${long:0:900}
long="$long/$long"; long=${long:0:2450}
expect 2 "--out: [0-9]+ bytes long, longer than the 1024" -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$long"
[ ! -e "$tmp/$(printf 'd%.0s' $(seq 200))" ] || { echo "test_hostile: a refused long --out wrote something" >&2; fail=1; }
if probe 0 "report: " -- report --evidence "$ev" --gnuplot "$tmp/gp" --out "$long900"; then
  [ -f "$long900/README.md" ] || { echo "test_hostile: report --out (900 characters) wrote elsewhere" >&2; fail=1; }
fi
# gate --json and compare --out never over a run, the config, a device or a link
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
expect 2 "--out '.*' is the input" -- ab --judge "$tmp/run-copy.json" --out "$tmp/run-copy.json"
expect 0 "" -- compare "$run" "$small" --out "$tmp/compare.md" "${cutset[@]}"
tried=$((tried + 1))   # a new --json is written whatever the verdict (exit 0 or 1)
"$bin" gate "$run" --json "$tmp/gate.json" "${cutset[@]}" > /dev/null 2>&1; got=$?
if { [ "$got" = 0 ] || [ "$got" = 1 ]; } && [ -s "$tmp/gate.json" ]; then correct=$((correct + 1))
else echo "test_hostile: gate --json to a new file: exit $got, $(ls "$tmp/gate.json" 2>&1)" >&2; fail=1; fi

# ---- memory: many long names in one plot (a fixed plot-list buffer overflowed here) ----------
python3 - "$small" "$tmp/many-impls/$gpu/$name" <<'PY' || exit 2
import copy, json, os, sys
d = json.load(open(sys.argv[1]))
base = d["results"][0]
for k in range(80):
    nm = "x" * 120 + f"{k:07d}"   # 127 characters, a safe name
    d["implementations"].append({"name": nm, "kind": "external", "title": "an external baseline"})
    r = copy.deepcopy(base)
    r["impl"], r["tag"] = nm, "sweep"
    r["shape"].update(batch=32, heads=32, seq_q=512, seq_kv=512, head_dim=64, causal=0)
    r["timing"].pop("l2", None)   # its byte counts are the copied row's shape's
    r["derived"]["ratio"] = None
    d["results"].append(r)
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
expect 0 "report: " -- report --evidence "$tmp/many-impls" --gnuplot "$tmp/gp" --out "$tmp/rep-many"
expect 1 "missing: .*no-such-report/README.md" -- report --check --evidence "$ev" --gnuplot "$tmp/gp" --out "$tmp/no-such-report"

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

# ---- evidence that lies about itself, or carries what would act on a reader --------------------
# each edit of the small run under its own root: $tmp/h/<id>/<gpu>/<name> (<id>'s gpu
# directory may differ when the edit is about where a run is filed)
python3 - "$small" "$tmp/h" <<'PY' || exit 2
import copy, json, os, sys
src, out = sys.argv[1], sys.argv[2]
base = json.load(open(src))
name = os.path.basename(src)
R = 6   # a phase's non-causal headline row, timed in every mode
def scale_summaries(d, f):
    g = d["results"][R]["timing"]["graph"]
    for k in ("median_us", "p10_us", "p90_us", "ci_lo_us", "ci_hi_us", "mean_us", "min_us", "max_us"):
        g[k] *= f
def samples(d, n, rows=(R,)):
    for r in rows:
        g = d["results"][r]["timing"]["graph"]
        g["samples_us"] = [g["median_us"]] * n
        g["n"] = n
        for k in ("median_us", "p10_us", "p90_us", "ci_lo_us", "ci_hi_us", "mean_us", "min_us", "max_us"):
            g[k] = g["samples_us"][0]
def put(path, value):
    def f(d):
        o = d
        keys = path.split(".")
        for k in keys[:-1]:
            o = o[int(k)] if isinstance(o, list) else o[k]
        o[keys[-1]] = value
    return f
def profile_row(tool, kernel):
    def f(d):
        d["profile"] = [{"impl": "06_tiling", "shape": d["results"][R]["shape"], "tool": tool,
                         "kernels": [{"kernel": kernel, "metrics": {"gpu__time_duration.sum": 1.0},
                                      "stall_top": [{"reason": "barrier", "per_issue": 0.5}]}]}]
    return f
cases = {
    "pass_rel_l2": put(f"results.{R}.correctness.rel_l2", 0.5),
    "pass_nonfinite": put(f"results.{R}.correctness.nonfinite", 1000),
    "pass_error": put(f"results.{R}.correctness.error", "kernel launch failed"),
    "summaries_x3": lambda d: scale_summaries(d, 3.0),
    "samples_halved": lambda d: d["results"][R]["timing"]["graph"].__setitem__(
        "samples_us", [x / 2 for x in d["results"][R]["timing"]["graph"]["samples_us"]]),
    "mean_over_max": put(f"results.{R}.timing.graph.mean_us", 1e6),
    "ratio_0.010": put(f"results.{R}.derived.ratio", {"baseline": "sdpa_cudnn", "median": 0.010,
                                                       "ci_lo": 0.009, "ci_hi": 0.011, "method": "independent"}),
    "tflops_x10": lambda d: d["results"][R]["derived"].__setitem__("tflops", d["results"][R]["derived"]["tflops"] * 10),
    "resamples_-5": put("method.bootstrap_resamples", -5),
    "resamples_1e9": put("method.bootstrap_resamples", 10 ** 9),
    "bounds_zero": put("method.bounds.rel_l2", 0.0),
    "commit_pipe": put("context.git.commit", "abc|def</td>"),
    "commit_escape": put("context.git.commit", "\x1b]0;evil\x07abcdef1"),
    "driver_pipe": put("context.versions.driver", "580 | x"),
    "nvcc_backquote": put("context.versions.nvcc", "13.0`id`"),
    "uuid_html": put("context.gpu.uuid", "<script>alert(1)</script>"),
    "cvd_link": put("context.gpu.cuda_visible_devices", "0](javascript:alert(1))"),
    "tag_link": put(f"results.{R}.tag", "headline](javascript:x)"),
    "gpu_name_pipe": lambda d: (put("context.gpu.name", "H100 | x")(d), put("context.gpu.slug", "h100-x")(d)),
    "gpu_name_10MB": lambda d: (put("context.gpu.name", "H" * 10_000_000)(d), put("context.gpu.slug", "h" * 100)(d)),
    "title_escape": put("implementations.3.title", "tiles\x1b[2J"),
    "title_bidi": put("implementations.3.title", "tiles \u202e evil"),
    "profile_tool": profile_row("ncu|x", "k"),
    "samples_150000": lambda d: samples(d, 150000),
    "samples_total": lambda d: samples(d, 90000, rows=range(0, 9)),
    "deep_nesting": put("context.clocks_before.extra", json.loads("[" * 40 + "]" * 40)),
    "rows_5001": lambda d: d["results"].extend(
        {"impl": "06_tiling", "shape": dict(d["results"][R]["shape"], seq_q=k + 1, seq_kv=k + 1), "tag": "ragged",
         "supported": False, "reason": "no"} for k in range(5001 - len(d["results"]))),
}
for cid, edit in cases.items():
    d = copy.deepcopy(base)
    edit(d)
    gpu = d["context"]["gpu"]["slug"] if cid.startswith("gpu_name") else "nvidia-h100-80gb-hbm3"
    os.makedirs(f"{out}/{cid}/{gpu}", exist_ok=True)
    json.dump(d, open(f"{out}/{cid}/{gpu}/{name}", "w"), indent=1)
# filed under another GPU's directory
os.makedirs(f"{out}/misfiled/nvidia-h200", exist_ok=True)
json.dump(base, open(f"{out}/misfiled/nvidia-h200/{name}", "w"), indent=1)
# free text that reaches the report and the PR comment, accepted and escaped there
d = copy.deepcopy(base)
d["implementations"][3]["title"] = "<img src=x onerror=alert(1)> [x](javascript:alert(1)) | ## H @team `c`"
profile_row("ncu", "<script>alert(1)</script> | # x ](javascript:y)")(d)
os.makedirs(f"{out}/free_text/nvidia-h100-80gb-hbm3", exist_ok=True)
json.dump(d, open(f"{out}/free_text/nvidia-h100-80gb-hbm3/{name}", "w"), indent=1)
PY
h() { echo "$tmp/h/$1/$gpu/$name"; }
expect 2 "results\[6\]\.correctness\.pass: true beside rel_l2 0\.5" -- gate "$(h pass_rel_l2)"
expect 2 "results\[6\]\.correctness\.pass: true beside 1000 non-finite" -- gate "$(h pass_nonfinite)"
expect 2 "results\[6\]\.correctness\.pass: true beside an error" -- show "$(h pass_error)"
expect 2 "results\[6\]\.timing\.graph\.median_us: .* but its samples_us give" -- show "$(h summaries_x3)"
expect 2 "results\[6\]\.timing\.graph\.median_us: .* but its samples_us give" -- gate "$(h samples_halved)"
expect 2 "results\[6\]\.timing\.graph\.mean_us: .* but its samples_us give" -- report --evidence "$tmp/h/mean_over_max" --gnuplot "$tmp/gp" --out "$tmp/rep-h"
expect 2 "results\[6\]\.derived\.ratio\.median: 0\.01, but the graph medians" -- compare "$small" "$(h ratio_0.010)"
expect 2 "results\[6\]\.derived\.tflops" -- show "$(h tflops_x10)"
expect 2 "method\.bootstrap_resamples: -5 is outside" -- gate "$(h resamples_-5)"
expect 2 "method\.bootstrap_resamples: 1000000000 is outside" -- gate "$(h resamples_1e9)"
expect 2 "method\.bounds\.rel_l2: 0 is not a bound" -- gate "$(h bounds_zero)"
expect 2 "context\.git\.commit: 'abc\|def</td>' is not a commit" -- show "$(h commit_pipe)"
expect 2 "context\.git\.commit: holds a control character" -- show "$(h commit_escape)"
expect 2 "context\.versions\.driver: '580 \| x' is not of the form" -- report --evidence "$tmp/h/driver_pipe" --gnuplot "$tmp/gp" --out "$tmp/rep-h"
expect 2 "context\.versions\.nvcc" -- compare "$small" "$(h nvcc_backquote)"
expect 2 "context\.gpu\.uuid" -- show "$(h uuid_html)"
expect 2 "context\.gpu\.cuda_visible_devices" -- show "$(h cvd_link)"
expect 2 "results\[6\]\.tag: 'headline\]\(javascript:x\)' is not a safe name" -- gate "$(h tag_link)"
expect 2 "context\.gpu\.name: 'H100 \| x' is not of the form" -- show --evidence "$tmp/h/gpu_name_pipe"
expect 2 "context\.gpu\.name: .*10000000 bytes long" -- show --evidence "$tmp/h/gpu_name_10MB"
expect 2 "implementations\[3\]\.title: holds a control character" -- show "$(h title_escape)"
expect 2 "implementations\[3\]\.title: holds a bidirectional control" -- show "$(h title_bidi)"
expect 2 "profile\[0\]\.tool: 'ncu\|x' is not a safe name" -- show "$(h profile_tool)"
expect 2 "results\[6\]\.timing\.graph\.samples_us: 150000 elements, more than the 100000" -- gate "$(h samples_150000)"
expect 2 "results: 8[0-9]{5} timing samples in all, more than the 800000" -- gate "$(h samples_total)"
expect 2 "context\.clocks_before.*nested deeper" -- show "$(h deep_nesting)"
expect 2 "results: 5001 results, more than the 5000" -- compare "$small" "$(h rows_5001)"
expect 2 "filed under 'nvidia-h200/'" -- show --evidence "$tmp/h/misfiled"
expect 2 "filed under 'nvidia-h200/'" -- gate "$tmp/h/misfiled/nvidia-h200/$name"
# free text is printed escaped: no tag, link, heading or table cell of its own
rm -rf "$tmp/rep-ft"
expect 0 "report: " -- report --evidence "$tmp/h/free_text" --gnuplot "$tmp/gp" --out "$tmp/rep-ft"
if grep -rlE "<img|<script|\]\(javascript" "$tmp/rep-ft" > /dev/null 2>&1; then
  echo "test_hostile: free text from evidence reached the report raw: $(grep -rlE "<img|<script|\]\(javascript" "$tmp/rep-ft" | head -3)" >&2; fail=1
fi
"$bin" compare "$small" "$(h free_text 2>/dev/null || true)" --all "${cutset[@]}" > "$tmp/ft-compare.md" 2>&1 || true
if grep -qE "<img|<script|\]\(javascript" "$tmp/ft-compare.md"; then
  echo "test_hostile: free text from evidence reached compare's markdown raw" >&2; fail=1
fi

# ---- inputs that would hang or make a command work without bound --------------------------------
mkfifo "$tmp/fifo.json"
expect 2 "fifo\.json: a FIFO, not a regular file" -- show "$tmp/fifo.json"
expect 2 "fifo\.json: a FIFO, not a regular file" -- gate "$tmp/fifo.json"
expect 2 "fifo\.json: a FIFO, not a regular file" -- gate "$small" --against "$tmp/fifo.json" "${cutset[@]}"
expect 2 "fifo\.json: a FIFO, not a regular file" -- compare "$small" "$tmp/fifo.json"
expect 2 "fifo\.json: a FIFO, not a regular file" -- gate "$small" --config "$tmp/fifo.json"
expect 2 "fifo\.json: a FIFO, not a regular file" -- report --evidence "$ev" --config "$tmp/fifo.json" --out "$tmp/rep-f"
expect 2 "--into '.*fifo\.json': not a regular file" -- profile --into "$tmp/fifo.json"
mkdir -p "$tmp/fa/$gpu"; cp "$small" "$tmp/fa/$gpu/"; mkfifo "$tmp/fa/$gpu/accepted.txt"
expect 2 "accepted\.txt: a FIFO, not a regular file" -- accepted "$gpu" --evidence "$tmp/fa"
expect 2 "accepted\.txt: a FIFO, not a regular file" -- gate "$tmp/fa/$gpu/$name" --against accepted --evidence "$tmp/fa"
expect 2 ": a directory, not a regular file" -- show "$tmp"
expect 2 ": a directory, not a regular file" -- gate "$small" --config "$tmp"
expect 2 ": a directory, not a regular file" -- compare "$small" "$ev/$gpu"
mkdir -p "$tmp/phf"; cp -r phases/. "$tmp/phf/"; rm -f "$tmp/phf/06_tiling/README.md"; mkfifo "$tmp/phf/06_tiling/README.md"
expect 2 "--phases: .*06_tiling/README\.md: a FIFO, not a regular file" -- report --evidence "$ev" --phases "$tmp/phf" --gnuplot "$tmp/gp" --out "$tmp/rep-ph"
mkdir -p "$tmp/big/$gpu"; truncate -s 40M "$tmp/big/$gpu/$name"
expect 2 "41943040 bytes, more than the 33554432" -- show "$tmp/big/$gpu/$name"
mkdir -p "$tmp/huge/$gpu"   # sparse files: 600 MiB listed, nothing read
for i in $(seq 10 29); do truncate -s 30M "$tmp/huge/$gpu/209901${i}T000000Z_0000000.json"; done
expect 2 "its run files hold more than 512 MiB" -- show --evidence "$tmp/huge"
mkdir -p "$tmp/many"; for i in $(seq 65); do mkdir -p "$tmp/many/gpu$i"; done
expect 2 "more than 64 GPU directories" -- show --evidence "$tmp/many"
expect 2 "more than 64 GPU directories" -- report --evidence "$tmp/many" --gnuplot "$tmp/gp" --out "$tmp/rep-m"

# ---- the gate's config: every key known ---------------------------------------------------------
python3 - ci/gate.json "$tmp/cfg" <<'PY' || exit 2
import copy, json, os, sys
c = json.load(open(sys.argv[1])); out = sys.argv[2]; os.makedirs(out, exist_ok=True)
def w(name, f):
    d = copy.deepcopy(c); f(d); json.dump(d, open(f"{out}/{name}.json", "w"))
w("tolerence", lambda d: d["regression"].__setitem__("tolerence", 0.5))
w("ratio_mx", lambda d: d["bounds"]["06_tiling"].__setitem__("throughput_ratio_mx", 9))
w("regresion", lambda d: d.__setitem__("regresion", {"tolerance": 0.5}))
w("resamples", lambda d: d["regression"].__setitem__("resamples", 1000000))
PY
expect 2 "regression\.tolerence: unknown key; accepted: ci_level, resamples" -- gate "$small" --config "$tmp/cfg/tolerence.json"
expect 2 "bounds\.06_tiling\.throughput_ratio_mx: unknown key" -- gate "$small" --config "$tmp/cfg/ratio_mx.json"
expect 2 "regresion: unknown key; accepted: baseline" -- report --evidence "$ev" --config "$tmp/cfg/regresion.json" --out "$tmp/rep-c"
expect 2 "regression\.resamples: must be a number in \[100, 5000\]" -- compare "$small" "$small" --config "$tmp/cfg/resamples.json" "${cutset[@]}"

# ---- messages that name the problem ---------------------------------------------------------------
longdir="$tmp/$(printf 'L%.0s' $(seq 240))/$(printf 'M%.0s' $(seq 240))/$(printf 'N%.0s' $(seq 240))"
expect 2 "x\.json: cannot read \(No such file" -- show "$longdir/$longdir/x.json"
expect 2 "x\.json: cannot read \(No such file" -- gate "$small" --config "$longdir/$longdir/x.json"
expect 2 "yet \(run .make run. on a GPU\)" -- gate --evidence "$longdir/$longdir"
# --out's folder is checked before the runs are read: the reason still ends the message
expect 2 "cannot write it: its folder .*: No such file or directory$" -- compare "$small" "$small" --out "$longdir/$longdir/$longdir/x.md"
expect 2 "unknown option '--bogus'" -- ab --base a --head b --bogus
expect 2 "unknown option '--bogus'" -- profile --into "$small" --bogus
expect 2 "--impl '' is empty" -- ab --base a --head b --impl ''
expect 2 "--evidence '': give a directory" -- show --evidence ''
expect 2 "--evidence '': give a directory" -- gate --evidence ''
mkdir -p "$tmp/gone/$gpu"; echo "20990101T000000Z_0000000.json" > "$tmp/gone/$gpu/accepted.txt"
expect 2 "'20990101T000000Z_0000000\.json' names no run file" -- accepted "$gpu" --evidence "$tmp/gone"
# the lists of runs are refused, file and line named, whatever beside them is valid: an
# accepted.txt line that is not a run file's name in its folder beside a valid reference.txt,
# and a reference.txt that is a link to nothing (not taken for an absent one)
mkdir -p "$tmp/lists/$gpu"; cp "$small" "$tmp/lists/$gpu/"; echo "$name" > "$tmp/lists/$gpu/reference.txt"
printf '%s\n../x.json\n' "$name" > "$tmp/lists/$gpu/accepted.txt"
expect 2 "accepted\.txt:2: each line must hold" -- report --evidence "$tmp/lists" --gnuplot "$tmp/gp" --out "$tmp/rep-l"
printf '%s\nsub/%s\n' "$name" "$name" > "$tmp/lists/$gpu/accepted.txt"
expect 2 "accepted\.txt:2: each line must hold" -- report --evidence "$tmp/lists" --gnuplot "$tmp/gp" --out "$tmp/rep-l"
mkdir -p "$tmp/dang/$gpu"; cp "$small" "$tmp/dang/$gpu/"; ln -s "$tmp/nowhere.txt" "$tmp/dang/$gpu/reference.txt"
expect 2 "reference\.txt: .*link to nothing" -- show --evidence "$tmp/dang"
expect 2 "reference\.txt: .*link to nothing" -- report --evidence "$tmp/dang" --gnuplot "$tmp/gp" --out "$tmp/rep-d"
rm "$tmp/dang/$gpu/reference.txt"; ln -s "$tmp/nowhere.txt" "$tmp/dang/$gpu/accepted.txt"
expect 2 "accepted\.txt: .*link to nothing" -- show --evidence "$tmp/dang"
expect 2 "accepted\.txt: .*link to nothing" -- accepted "$gpu" --evidence "$tmp/dang"
if [ -d build/phases ]; then
  cp "$small" "$tmp/into.json"
  expect 2 "--ncu '/nonexistent/ncu': cannot run it" -- profile --into "$tmp/into.json" --ncu /nonexistent/ncu --impl 06_tiling
  # the program is run with an argument list, never through a shell
  expect 2 "cannot run it" -- profile --into "$tmp/into.json" --ncu "true; touch $canary" --impl 06_tiling
  expect 2 "cannot run it" -- profile --into "$tmp/into.json" --ncu "\$(touch $canary)" --impl 06_tiling
fi

echo "test_hostile: tried $tried, correct $correct, crashes $crashes"
[ "$crashes" = 0 ] || fail=1
exit $fail
