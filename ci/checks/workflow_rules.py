#!/usr/bin/env python3
"""The workflows' fields and their trust model (ci/README.md, "The GPU workflow" and
"Trust model"), as far as they live in the files; run by lint_workflow.sh.

    python3 ci/checks/workflow_rules.py [WORKFLOW_DIR]     (default .github/workflows)

Prints one line per problem and exits 1 when there is one. WORKFLOW_DIR holds gpu.yml
(the GPU and CPU jobs) and pr_comment.yml (the comment); paths it names are looked up
from the repository root. ci/checks/test_workflow_rules.sh breaks copies of the files one
rule at a time and expects each to be caught."""
import glob
import os
import re
import sys

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHA_PIN = re.compile(r"^[\w.\-]+/[\w.\-/]+@[0-9a-f]{40}$")
IMAGE_PIN = re.compile(r"^[\w.\-/]+(:[\w.\-]+)?@sha256:[0-9a-f]{64}$")

problems = []


def need(cond, what):
    if not cond:
        problems.append(what)


def triggers(doc):
    on = doc.get("on", doc.get(True))   # YAML 1.1 reads a bare `on` as true
    if isinstance(on, str):
        on = {on: None}
    if isinstance(on, list):
        on = {k: None for k in on}
    return on if isinstance(on, dict) else {}


def runs_on(job):
    r = job.get("runs-on")
    return [str(x) for x in (r if isinstance(r, list) else [r])]


def run_text(step):
    return str(step.get("run", "")).replace("\\\n", " ")


def perms_ok(perms, allowed_writes):
    if perms == {} or perms in ("read-all",):
        return True
    if not isinstance(perms, dict):
        return False
    return all(v in ("read", "none") or (v == "write" and k in allowed_writes) for k, v in perms.items())


def check_common(name, doc, on):
    """Every workflow: no pull_request_target, pinned actions and images, least privilege,
    checkouts that keep no credentials."""
    need("pull_request_target" not in on, f"{name}: on.pull_request_target: never (a fork's code with a write token)")
    need(perms_ok(doc.get("permissions"), set()), f"{name}: permissions: must be set at the top, read-only or {{}}")
    for jname, job in (doc.get("jobs") or {}).items():
        for s in job.get("steps") or []:
            u = s.get("uses")
            if u:
                need(SHA_PIN.match(str(u)) is not None,
                     f"{name}: jobs.{jname}: '{u}' must be pinned to a full commit SHA (a tag can be moved)")
            if str(u or "").startswith("actions/checkout@"):
                need(str((s.get("with") or {}).get("persist-credentials")).lower() == "false",
                     f"{name}: jobs.{jname}: actions/checkout must set persist-credentials: false")
        c = job.get("container")
        image = c.get("image") if isinstance(c, dict) else c
        if image:
            need(IMAGE_PIN.match(str(image)) is not None,
                 f"{name}: jobs.{jname}: container '{image}' must be pinned by digest (@sha256:...), not a tag alone")
        need(isinstance(job.get("timeout-minutes"), int), f"{name}: jobs.{jname}: needs timeout-minutes")


def check_gpu(path):
    name = os.path.basename(path)
    doc = yaml.safe_load(open(path))
    on = triggers(doc)
    check_common(name, doc, on)
    need("pull_request" in on, f"{name}: on.pull_request: pull requests must be judged")
    need("main" in ((on.get("push") or {}).get("branches") or []), f"{name}: on.push.branches must include main")
    need("workflow_dispatch" in on, f"{name}: on.workflow_dispatch: manual runs")
    need("workflow_run" not in on, f"{name}: on.workflow_run: only the comment workflow runs after another")
    jobs = doc.get("jobs") or {}
    gpu_jobs = [(n, j) for n, j in jobs.items() if "self-hosted" in runs_on(j)]
    need(len(gpu_jobs) == 1, f"{name}: one job on self-hosted GPU runners")
    for jname, j in gpu_jobs:
        where = f"{name}: jobs.{jname}"
        matrix = (j.get("strategy") or {}).get("matrix") or {}
        gpus = sorted(str(g) for g in matrix.get("gpu", []))
        with_evidence = sorted(os.path.basename(os.path.dirname(p))
                               for p in glob.glob(os.path.join(ROOT, "evidence", "*", "accepted.txt")))
        need(gpus == with_evidence, f"{where}: matrix.gpu {gpus} must be the GPUs with accepted runs {with_evidence}")
        labels = runs_on(j)
        need("ephemeral" in labels and "gpu" in labels, f"{where}: runs-on must ask for the gpu and ephemeral labels")
        need(any("matrix.gpu" in l for l in labels), f"{where}: runs-on must select the runner by matrix.gpu")
        need((j.get("strategy") or {}).get("fail-fast") is False, f"{where}: strategy.fail-fast: false")
        env = str(j.get("environment", ""))
        need("gpu-outside" in env and "head.repo.full_name" in env and "github.repository" in env,
             f"{where}: environment must send a fork's pull request to gpu-outside (required reviewers)")
        need("matrix.gpu" in str((j.get("concurrency") or {}).get("group", "")), f"{where}: concurrency per GPU")
        need(perms_ok(j.get("permissions", {}), set()), f"{where}: permissions: read-only (it runs the pull request's code)")
        need("secrets." not in yaml.safe_dump(j), f"{where}: no secrets (it runs the pull request's code)")
        steps = j.get("steps") or []
        texts = [run_text(s) for s in steps]
        order = {}
        for i, t in enumerate(texts):
            for stage in ("prepare", "measure", "decide"):
                if re.search(rf"\bjudge/ci/workflow/judge\.sh {stage}\b", t):
                    order.setdefault(stage, i)
            if re.search(r"\bmake\b.*-C head|\bcd head\b", t):
                order.setdefault("head", i)
            if "worktree add" in t and "judge" in t:
                order.setdefault("base", i)
        need(all(k in order for k in ("base", "prepare", "head", "measure", "decide")),
             f"{where}: must check out the base, build the judge (judge.sh prepare), build the head, "
             f"then judge.sh measure and decide from the base's checkout (found {sorted(order)})")
        if len(order) == 5:
            need(order["base"] < order["prepare"] < order["head"] < order["measure"] < order["decide"],
                 f"{where}: the judge is built before any of the pull request's code runs, and decides last")
        for i, t in enumerate(texts):
            for bad, why in ((r"\bsudo\b", "sudo"), (r"\bapt-get\b", "apt-get"), (r"\bmake\b[^\n]*\bdeps\b", "make deps"),
                             (r"\bmake\b[^\n]*\brun\b", "make run (the pull request's own judge)")):
                need(not re.search(bad, t), f"{where}: step {i + 1} runs {why}: nothing on the runner installs or uses sudo")
            for script in re.findall(r"(?<![\w/])((?:[\w.\-]+/)*ci/[\w.\-/]+\.(?:sh|py))", t):
                need(script.startswith("judge/"), f"{where}: step {i + 1} runs {script}: the judge's scripts are the base's (judge/ci/...)")
                need(os.path.isfile(os.path.join(ROOT, script[len("judge/"):] if script.startswith("judge/") else script)),
                     f"{where}: step {i + 1} calls {script}, which does not exist")
        decide = [s for s in steps if s.get("id") == "decide"]
        need(bool(decide) and "always()" in str(decide[0].get("if", "")), f"{where}: the decide step (id: decide) runs always()")
        need(any("exit 1" in run_text(s) and "steps.decide.outputs.status" in str(s.get("if", "")) for s in steps),
             f"{where}: a last step must fail the job on the judge's verdict (steps.decide.outputs.status)")
        need(any(str(s.get("uses", "")).startswith("actions/upload-artifact@") and "always()" in str(s.get("if", ""))
                 for s in steps), f"{where}: the evidence and the verdict are uploaded always()")
        need(any("pr.txt" in t for t in texts), f"{where}: the artifact carries the pull request's number (out/pr.txt)")
    cpu_jobs = [(n, j) for n, j in jobs.items() if any(re.search(r"\bmake test\b", run_text(s)) for s in j.get("steps") or [])]
    need(len(cpu_jobs) >= 1, f"{name}: a CPU job must run `make test`")
    deps_text = open(os.path.join(ROOT, "ci", "tools", "deps.sh")).read()
    deps_pkgs = set(re.search(r'BASE_PKGS="([^"]*)"', deps_text).group(1).split())
    for jname, j in cpu_jobs:
        texts = [run_text(s) for s in j.get("steps") or []]
        need(any(re.search(r"\bmake deps\b", t) for t in texts), f"{name}: jobs.{jname}: `make deps` before make test")
        installed = set()
        for t in texts:
            for m in re.finditer(r"apt-get install([^\n]*)", t):
                installed |= {w for w in m.group(1).split() if not w.startswith("-")}
        missing = sorted({"git", "make", "python3", "python3-yaml"} - installed)
        need(not missing, f"{name}: jobs.{jname} must install {', '.join(missing)} before make deps")
        pinned = sorted(w for w in installed if re.match(r"(libclang-rt-\d+-dev|clang-\d+)$", w))
        need(not pinned, f"{name}: jobs.{jname} pins {', '.join(pinned)}: ci/tools/deps.sh chooses the image's own")
        dup = sorted(installed & deps_pkgs)
        need(not dup, f"{name}: jobs.{jname} installs {', '.join(dup)} by hand: make deps installs them")


def check_comment(path):
    """The comment workflow runs with a token that may comment: it must never run the pull
    request's code (the default branch's checkout only, the artifact as data)."""
    name = os.path.basename(path)
    doc = yaml.safe_load(open(path))
    on = triggers(doc)
    check_common(name, doc, on)
    wr = on.get("workflow_run") or {}
    need(set(on) == {"workflow_run"} and wr.get("workflows") == ["gpu"] and wr.get("types") == ["completed"],
         f"{name}: on: workflow_run of [gpu], types [completed], and nothing else")
    for jname, j in (doc.get("jobs") or {}).items():
        where = f"{name}: jobs.{jname}"
        need(perms_ok(j.get("permissions"), {"pull-requests"}) and
             set((j.get("permissions") or {})) <= {"actions", "pull-requests"},
             f"{where}: permissions: actions: read and pull-requests: write at most")
        need("workflow_run.event == 'pull_request'" in str(j.get("if", "")), f"{where}: only for pull requests")
        for i, s in enumerate(j.get("steps") or []):
            w = s.get("with") or {}
            if str(s.get("uses", "")).startswith("actions/checkout@"):
                need("ref" not in w and "repository" not in w,
                     f"{where}: step {i + 1}: checkout of the default branch only (no ref:, no repository:)")
            t = run_text(s)
            if t.strip():
                need(re.fullmatch(r"\s*bash ci/workflow/post_comments\.sh artifacts\s*", t) is not None,
                     f"{where}: step {i + 1}: runs only ci/workflow/post_comments.sh (never the artifact, never make)")
        need(not re.search(r"secrets\.(?!GITHUB_TOKEN)", yaml.safe_dump(j)), f"{where}: no secrets beyond the job's token")


def main(argv):
    wdir = argv[1] if len(argv) > 1 else os.path.join(ROOT, ".github", "workflows")
    files = {os.path.basename(p): p for p in glob.glob(os.path.join(wdir, "*.yml"))}
    need("gpu.yml" in files, f"{wdir}: no gpu.yml")
    need("pr_comment.yml" in files, f"{wdir}: no pr_comment.yml")
    for n, p in sorted(files.items()):
        try:
            if n == "gpu.yml":
                check_gpu(p)
            elif n == "pr_comment.yml":
                check_comment(p)
            else:
                doc = yaml.safe_load(open(p))
                on = triggers(doc)
                need("workflow_run" not in on, f"{n}: on.workflow_run: only pr_comment.yml")
                check_common(n, doc, on)
        except (yaml.YAMLError, AttributeError, TypeError) as e:
            problems.append(f"{n}: not the expected YAML: {e}")
    for p in problems:
        print(p)
    print(f"workflow_rules: {len(problems)} problem(s) in {len(files)} workflow(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
