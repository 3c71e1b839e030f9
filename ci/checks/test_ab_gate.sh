#!/usr/bin/env bash
# `attnladder ab` without a GPU (`make test`):
#  - --list-paths on two fixture builds (harness/tests/fixtures/path_phase.c): every path of
#    each build is listed with the one shape that times it, the fixed shapes first, a path
#    only the head takes among them, a rung with one path left at the fixed shapes;
#  - which rungs changed (records beside the binaries): a rung's own source, its binary
#    alone, every binary (a toolchain change), a missing record, malformed records refused;
#    a changed rung is listed with every sweep point it adds, and any rung with the sweep
#    shapes where the two builds' init notes differ in full ("moved");
#  - the rule probes: a head whose rule moves only between the sweep's points gets one probe
#    timed for each move, none between a build and itself, none for an unchanged rung;
#  - --judge: recorded pairs decided again by this binary's rule (a +5% pair regressed,
#    the same pairs unchanged under a 10% tolerance, a baseline at its own tolerance), a
#    failed check kept, and a tampered file refused with the field named.
#   ci/checks/test_ab_gate.sh [BUILD]
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${1:-build}
bin=$build/attnladder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0
note() { echo "test_ab_gate: $*" >&2; fail=1; }
. ci/checks/expect.sh

# ---- the code paths: the list the gate times ------------------------------------------
fx=$build/fixtures/paths
expect "list-paths" 0 "path(s) in the head build" "$bin" ab --base "$fx/base" --head "$fx/head" --list-paths
cp "$tmp/out.txt" "$tmp/paths.txt"
echo "test_ab_gate: the paths ab times on the fixture builds:"; sed 's/^/    /' "$tmp/paths.txt"
python3 - "$tmp/paths.txt" <<'PY' || note "list-paths: $(cat "$tmp/paths.txt")"
import re, sys
sides, cur = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) +(\d+) path\(s\) in the (base|head) build", line)
    if m:
        cur = (m[1], m[3]); sides[cur] = {"n": int(m[2]), "rows": []}; continue
    m = re.match(r"  (\S+(?: causal)?) +(fixed|added) +(.*)", line.rstrip("\n"))
    if m and cur:
        sides[cur]["rows"].append(m.groups())
ok = True
def need(c, what):
    global ok
    if not c: print("  " + what); ok = False
for (impl, side), v in sides.items():
    paths = [r[2] for r in v["rows"]]
    need(len(paths) == v["n"] == len(set(paths)), f"{impl} {side}: {v['n']} paths, rows {paths}")
need(sides[("01_fixture_one_path", "base")]["rows"] == [("1x8x512x64", "fixed", "one kernel, # tiles")],
     "a rung with one path is timed at the fixed shapes only")
base = {r[2]: r for r in sides[("07_fixture_paths", "base")]["rows"]}
head = {r[2]: r for r in sides[("07_fixture_paths", "head")]["rows"]}
# the head's ragged-first rule gives five new paths over the sweep: at the ragged points
# (1wg, pingpong) and at three batched-decode points (pingpong-176, 3wg, pingpong with
# the dynamic scheduler)
need(len(base) == 7 and len(head) == 12, f"07: {len(base)} base and {len(head)} head paths, expected 7 and 12")
need(base.get("3wg: BM=192, # work tiles on # CTAs", ("", ""))[:2] == ("4x32x4096x64", "added"),
     "the three-warpgroup D=64 path is timed at 4x32x4096x64 (the largest of its shapes within the throughput shape's work)")
need(all(r[1] == "added" for k, r in head.items() if "ragged keys first" in k) and
     sum("ragged keys first" in k for k in head) == 5, "the head's new ragged-first paths are timed")
need(all(r[1] == "fixed" for k, r in base.items() if r[0].startswith(("1x8x512x64", "4x16x4096x128"))),
     "the fixed shapes count first")
sys.exit(0 if ok else 1)
PY
expect "list-paths with --shape" 2 "default set" "$bin" ab --base "$fx/base" --head "$fx/head" --list-paths --shape 1,8,512,64

# ---- a rule that moves between the sweep's points: the rule probes ----------------------
# The offsweep head gives non-causal heads of 128 keys and more than 128 rows a new path;
# no sweep point has one, so its notes agree with the base's at every sweep point, and
# only the probes around them (each sweep point with its rows, keys or batch doubled or
# halved) can see the rule move: one probe is timed for each path the rule moved (base
# path -> head path), none where nothing moved.
expect "off-sweep rule: probes" 0 "path(s) in the head build" "$bin" ab --base "$fx/base" --head "$fx/offsweep" --list-paths
cp "$tmp/out.txt" "$tmp/probes.txt"
grep -q " moved " "$tmp/probes.txt" && note "off-sweep rule: a sweep point listed as moved: $(grep " moved " "$tmp/probes.txt")"
python3 - "$tmp/probes.txt" <<'PY' || note "off-sweep rule: $(cat "$tmp/probes.txt")"
import re, sys
text = open(sys.argv[1]).read()
rows = re.findall(r"^  (\d+)x(\d+)x(\d+):(\d+)x(\d+)( causal)? +probe +(.*)$", text, re.M)
ok = len(rows) >= 1 and text.count(" probe ") == len(rows)
ok = ok and all(int(r[3]) == 128 and int(r[2]) > 128 and not r[5] for r in rows)
ok = ok and all("short keys dynamic" in r[6] for r in rows)
m = re.search(r"07_fixture_paths +(\d+) rule probe\(s\) where the builds' notes differ, (\d+) timed", text)
ok = ok and m is not None and int(m[1]) >= 4 and int(m[2]) == len(rows)
sys.exit(0 if ok else 1)
PY
expect "off-sweep rule: A/A" 0 "path(s) in the head build" "$bin" ab --base "$fx/offsweep" --head "$fx/offsweep" --list-paths
grep -q " probe " "$tmp/out.txt" && note "off-sweep rule: a probe listed between a build and itself"

# ---- which rungs changed: the records beside each binary (gate/rung_change.h) -----------
# Copies of the fixture builds with records written here: 07's own source differs (a shape
# rule moved), 01's records are alike. Only 07 is timed at every sweep point.
records() {   # records DIR NAME SO_HASH_CHAR SOURCE_HASH_CHAR
  local h s
  h=$(printf "%064d" 0 | tr 0 "$3") s=$(printf "%064d" 0 | tr 0 "$4")
  printf '%s  %s.so\n' "$h" "$2" > "$1/phases/$2.so.sha256"
  printf '%064d  harness/include/attn_phase.h\n%s  phases/%s/rule.h\n' 0 "$s" "$2" > "$1/phases/$2.sources.sha256"
}
for side in base head; do mkdir -p "$tmp/rec/$side/phases"; cp "$fx/$side"/phases/*.so "$tmp/rec/$side/phases/"; done
rb=$tmp/rec/base rh=$tmp/rec/head
records "$rb" 07_fixture_paths a 1; records "$rh" 07_fixture_paths a 2
records "$rb" 01_fixture_one_path a 1; records "$rh" 01_fixture_one_path a 1
expect "changed rung: sources differ" 0 "07_fixture_paths  *changed: sources differ (phases/07_fixture_paths/rule.h): timed at every sweep point" \
  "$bin" ab --base "$rb" --head "$rh" --list-paths
grep -q "01_fixture_one_path .*changed" "$tmp/out.txt" && note "changed rung: 01's records are alike, yet it is called changed"
[ "$(grep -c "sweep point(s) added" "$tmp/out.txt")" = 1 ] || note "changed rung: one rung's sweep expected: $(grep "sweep point" "$tmp/out.txt")"
python3 - "$tmp/out.txt" <<'PY' || note "changed rung: 07's sweep is not every sweep point once: $(cat "$tmp/out.txt")"
import re, sys
text = re.split(r"07_fixture_paths +\d+ path\(s\) in the head build", open(sys.argv[1]).read())[1]
rows = [m[0] for m in re.findall(r"^  (\S+( causal)?) +(?:added|moved) ", text, re.M)]
rows += re.search(r"sweep point\(s\) added \(the rung changed\): (.*)", text)[1].split(", ")
ok = len(rows) == len(set(rows)) and "1x8x1:1024x128" in rows and "2x8x77x64" in rows
sys.exit(0 if ok else 1)
PY
expect "changed rung: --no-sweep" 0 "sweep left out" "$bin" ab --base "$rb" --head "$rh" --list-paths --no-sweep
grep -q "sweep point(s) added" "$tmp/out.txt" && note "changed rung: --no-sweep still adds the sweep"
# every binary differs, no rule's source: a toolchain change, code paths as before
records "$rh" 07_fixture_paths b 1; records "$rh" 01_fixture_one_path b 1
expect "toolchain change: code paths" 0 "every phase's binary moved" "$bin" ab --base "$rb" --head "$rh" --list-paths
grep -q "sweep point(s) added" "$tmp/out.txt" && note "toolchain change: a sweep was added"
# ... but every sweep shape where the builds' notes differ in full is timed: the fixture's
# head takes a new path at the ragged shapes, one of them its path's shape, the rest "moved"
grep -Eq "^  2x8x77x64 +moved" "$tmp/out.txt" || note "toolchain change: 2x8x77x64, whose note moved, is not timed"
expect "A/A: nothing moved" 0 "path(s) in the head build" "$bin" ab --base "$fx/base" --head "$fx/base" --list-paths
grep -q " moved " "$tmp/out.txt" && note "A/A: a shape listed as moved between a build and itself"
# one binary alone differs (its flags): that rung's sweep
records "$rh" 01_fixture_one_path a 1
expect "one binary differs" 0 "07_fixture_paths  *changed: binary differs, sources alike: timed at every sweep point" \
  "$bin" ab --base "$rb" --head "$rh" --list-paths
# a record missing: cannot tell, so changed
rm "$rh/phases/01_fixture_one_path.sources.sha256"
expect "no record" 0 "01_fixture_one_path  *changed: no record of its build in the head build" \
  "$bin" ab --base "$rb" --head "$rh" --list-paths
# malformed records are refused with the file named
records "$rh" 01_fixture_one_path a 1
printf 'not a sha  01_fixture_one_path.so\n' > "$rh/phases/01_fixture_one_path.so.sha256"
expect "bad record: not a sha256" 2 "rec/head/phases/01_fixture_one_path.so.sha256: line 1" \
  "$bin" ab --base "$rb" --head "$rh" --list-paths
records "$rh" 01_fixture_one_path a 1
printf '%064d  ../../etc/passwd\n' 0 > "$rh/phases/07_fixture_paths.sources.sha256"
expect "bad record: a path out of the tree" 2 "07_fixture_paths.sources.sha256: line 1: the path" \
  "$bin" ab --base "$rb" --head "$rh" --list-paths
records "$rh" 07_fixture_paths a 2
rm "$rh/phases/01_fixture_one_path.sources.sha256"; mkfifo "$rh/phases/01_fixture_one_path.sources.sha256"
expect "bad record: a FIFO, refused without waiting" 2 "01_fixture_one_path.sources.sha256: .*not a regular file" \
  timeout 20 "$bin" ab --base "$rb" --head "$rh" --list-paths
rm "$rh/phases/01_fixture_one_path.sources.sha256"; records "$rh" 01_fixture_one_path a 1
printf '%064d  phases/x\n\0%064d  phases/y\n' 0 0 > "$rh/phases/01_fixture_one_path.sources.sha256"
expect "bad record: a NUL byte" 2 "01_fixture_one_path.sources.sha256: a NUL byte" \
  "$bin" ab --base "$rb" --head "$rh" --list-paths

# the rule probes are read for a changed rung only: the offsweep head with records alike to
# the base's (an unchanged rung) lists no probe; with its source's record changed, it does
mkdir -p "$tmp/rec/off/phases"; cp "$fx/offsweep"/phases/*.so "$tmp/rec/off/phases/"
records "$tmp/rec/off" 07_fixture_paths a 1; records "$tmp/rec/off" 01_fixture_one_path a 1
expect "unchanged rung: no probes" 0 "path(s) in the head build" "$bin" ab --base "$rb" --head "$tmp/rec/off" --list-paths
grep -q " probe " "$tmp/out.txt" && note "unchanged rung: its rule probes were read"
records "$tmp/rec/off" 07_fixture_paths a 2
expect "changed rung: probes" 0 "rule probe(s) where the builds' notes differ" "$bin" ab --base "$rb" --head "$tmp/rec/off" --list-paths

# ---- --judge: the binary's rule on recorded pairs ----------------------------------------
python3 - "$tmp" <<'PY'
import json, random, sys
tmp = sys.argv[1]
r = random.Random(5)
def row(impl, kind, factor, verdict="unchanged"):
    base = [100 * (1 + 0.05 * r.random()) for _ in range(60)]
    head = [b * factor * (1 + 0.002 * (r.random() - 0.5)) for b in base]
    return {"impl": impl, "kind": kind, "shape": "1x8x512x64", "selected": "fixed", "correct": True,
            "verdict": verdict, "bootstrap_seed": 7, "base": {"samples_us": base}, "head": {"samples_us": head}}
doc = {"schema": "attnladder-ab", "schema_version": 2, "seed": 1,
       "rows": [row("06_tiling", "phase", 1.05), row("sdpa_cudnn", "baseline", 1.02), row("01_scalar", "phase", 1.0)]}
json.dump(doc, open(f"{tmp}/slow.json", "w"))
doc["rows"][0]["verdict"] = "failed"; del doc["rows"][0]["base"]
json.dump(doc, open(f"{tmp}/failed.json", "w"))
bad = json.loads(open(f"{tmp}/slow.json").read()); bad["rows"][2]["head"]["samples_us"][3] = -1
json.dump(bad, open(f"{tmp}/bad.json", "w"))
old = json.loads(open(f"{tmp}/slow.json").read())
for x in old["rows"]: x.pop("kind"); x.pop("bootstrap_seed")
json.dump(old, open(f"{tmp}/v1.json", "w"))
# version 3: a changed rung's sweep rows, why each was timed, the changes, each row's wall time
v3 = json.loads(open(f"{tmp}/slow.json").read())
v3["schema_version"] = 3
v3["changes"] = {"rule": "...", "build_wide": False,
                 "rungs": {"11_split_keys": {"changed": True, "why": "sources differ (phases/11_split_keys/split_choice.cuh)",
                                             "timed": "every sweep point"}}}
dec = row("11_split_keys", "phase", 1.36); dec.update(shape="1x8x1:1024x128", selected="sweep", wall_s=1.2)
same = row("11_split_keys", "phase", 1.0); same.update(shape="1x32x1:4096x128", selected="sweep", wall_s=0.9)
v3["rows"] = [dec, same, v3["rows"][2]]
json.dump(v3, open(f"{tmp}/v3.json", "w"))
PY
expect "judge: +5% regressed" 1 "06_tiling .*regressed" "$bin" ab --judge "$tmp/slow.json" --out "$tmp/judged.json"
grep -q "sdpa_cudnn .*unchanged" "$tmp/out.txt" || note "judge: the baseline's +2% is inside its 3% tolerance: $(grep sdpa "$tmp/out.txt")"
python3 -c "import json,sys; d=json.load(open('$tmp/judged.json')); sys.exit(d['rows'][0]['verdict'] != 'regressed' or d['rows'][0]['recorded_verdict'] != 'unchanged')" \
  || note "judge: --out does not hold the new verdict beside the recorded one"
expect "judge: a looser rule passes the same pairs" 0 "0 regressed" "$bin" ab --judge "$tmp/slow.json" --tolerance 0.1
expect "judge: a failed check is kept" 1 "06_tiling .*failed (as recorded)" "$bin" ab --judge "$tmp/failed.json"
expect "judge: a tampered sample" 2 "rows\[2\].head.samples_us\[3\]" "$bin" ab --judge "$tmp/bad.json"
expect "judge: a file of schema 1 (no kind, no seed)" 1 "06_tiling .*regressed" "$bin" ab --judge "$tmp/v1.json"
expect "judge: version 3, a sweep point slowed" 1 "11_split_keys .*1x8x1:1024x128 .*regressed" "$bin" ab --judge "$tmp/v3.json"
grep -Eq "^  regressed +11_split_keys +1x8x1:1024x128 +\+3[5-7]\.[0-9]+% \[\+3[0-9.]+%, \+3[0-9.]+%\] \(sweep\)" "$tmp/out.txt" \
  || note "judge: the slowed decode point is not named with its change, CI and why: $(cat "$tmp/out.txt")"
grep -q "^  .*1x32x1:4096x128" "$tmp/out.txt" && note "judge: an unchanged point is listed among the slowed"
expect "judge: not an ab file" 2 "schema" "$bin" ab --judge harness/tests/data/gate_config.json
expect "judge: with --base" 2 "takes only" "$bin" ab --judge "$tmp/slow.json" --base x
[ $fail = 0 ] && echo "test_ab_gate: $cases cases passed"
exit $fail
