#!/usr/bin/env python3
"""A dry run of one job of a GitHub workflow on this machine: its steps in order, each
`if:` and `${{ }}` expression evaluated the way Actions does, step outputs and the job's
status carried from step to step, and its `run:` scripts executed with bash. What needs
GitHub or a GPU is stood in for: `actions/checkout` runs the --checkout command, the
artifact actions copy folders under --artifacts, and --replace swaps a named step's
script for another (a GPU measurement for recorded files). The --checkout command
finds the folder to fill in $CHECKOUT_PATH. ci/checks/test_judge.sh runs
the GPU workflow and the comment workflow this way on pull requests made to attack them.

    workflow_dryrun.py WORKFLOW.yml JOB --workspace DIR --context CONTEXT.json
        [--checkout CMD] [--artifacts DIR] [--replace 'STEP NAME=SCRIPT']...

CONTEXT.json holds the expression contexts (github, matrix, ...). Prints one line per
step and the job's conclusion; exits 0 when the job succeeds, 1 when it fails."""
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||!|\(|\)|,)"
                   r"|(?P<name>[A-Za-z_][\w\-]*(?:\.[\w\-*]+)*))")


class Expr:
    """GitHub's expression language, the part workflows here use: literals, context
    properties, == != ! && || (with Actions' value-returning && and ||), parentheses and
    the status functions always(), success(), failure(), cancelled()."""

    def __init__(self, text, ctx, status):
        self.toks, pos = [], 0
        text = text.strip()
        while pos < len(text):
            m = TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(f"cannot read expression at: {text[pos:]!r}")
            self.toks.append(m)
            pos = m.end()
        self.i, self.ctx, self.status = 0, ctx, status

    def peek(self):
        return self.toks[self.i].group().strip() if self.i < len(self.toks) else None

    def take(self):
        self.i += 1
        return self.toks[self.i - 1]

    def parse(self):
        v = self.orx()
        if self.i != len(self.toks):
            raise ValueError(f"unexpected {self.peek()!r}")
        return v

    def orx(self):
        v = self.andx()
        while self.peek() == "||":
            self.take()
            r = self.andx()
            v = v if truthy(v) else r
        return v

    def andx(self):
        v = self.cmp()
        while self.peek() == "&&":
            self.take()
            r = self.cmp()
            v = r if truthy(v) else v
        return v

    def cmp(self):
        v = self.unary()
        while self.peek() in ("==", "!="):
            op = self.take().group().strip()
            r = self.unary()
            eq = str(v).lower() == str(r).lower() if isinstance(v, str) or isinstance(r, str) else v == r
            v = eq if op == "==" else not eq
        return v

    def unary(self):
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        if self.peek() == "(":
            self.take()
            v = self.orx()
            self.take()
            return v
        m = self.take()
        if m.group("str"):
            return m.group("str")[1:-1].replace("''", "'")
        if m.group("num"):
            return float(m.group("num"))
        name = m.group("name")
        if self.peek() == "(":
            self.take()
            while self.peek() != ")":
                self.take()
            self.take()
            return {"always": True, "success": self.status == "success", "failure": self.status == "failure",
                    "cancelled": False}[name]
        if name in ("true", "false"):
            return name == "true"
        if name == "null":
            return None
        v = self.ctx
        for part in name.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        return v


def truthy(v):
    return v not in (None, False, "", 0)


def render(value, ctx, status):
    """A string with ${{ }} expressions replaced by their values."""
    def one(m):
        v = Expr(m.group(1), ctx, status).parse()
        return "" if v is None else ("true" if v is True else "false" if v is False else
                                     str(int(v)) if isinstance(v, float) and v.is_integer() else str(v))
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value), flags=re.S)


def main(argv):
    args = {"--replace": []}
    pos = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--workspace", "--context", "--checkout", "--artifacts", "--replace"):
            if a == "--replace":
                args[a].append(argv[i + 1])
            else:
                args[a] = argv[i + 1]
            i += 2
        else:
            pos.append(a)
            i += 1
    wf, job_name = pos
    ws = os.path.abspath(args["--workspace"])
    ctx = json.load(open(args["--context"]))
    ctx.setdefault("github", {})["workspace"] = ws
    ctx["steps"] = {}
    replace = dict(r.split("=", 1) for r in args["--replace"])
    arts = os.path.abspath(args.get("--artifacts", os.path.join(ws, ".artifacts")))
    job = yaml.safe_load(open(wf))["jobs"][job_name]
    os.makedirs(ws, exist_ok=True)
    status = "success"
    if "if" in job and not truthy(Expr(render_bare(job["if"]), ctx, status).parse()):
        print(f"dryrun: job {job_name} skipped by its if:")
        return 0
    base_env = dict(os.environ)
    base_env.update({"GITHUB_WORKSPACE": ws, "GITHUB_RUN_ID": str(ctx["github"].get("run_id", "1")),
                     "GITHUB_REPOSITORY": str(ctx["github"].get("repository", "o/r")), "CI": "true"})
    for k, v in (job.get("env") or {}).items():
        base_env[k] = render(v, ctx, status)
    for n, step in enumerate(job.get("steps") or [], 1):
        name = step.get("name") or step.get("uses") or f"step {n}"
        cond = step.get("if")
        run_it = truthy(Expr(render_bare(cond), ctx, status).parse()) if cond else status == "success"
        if not run_it:
            print(f"dryrun: {n:2d} {name}: skipped")
            continue
        env = dict(base_env)
        for k, v in (step.get("env") or {}).items():
            env[k] = render(v, ctx, status)
        out_file = os.path.join(ws, f".dryrun_output_{n}")
        open(out_file, "w").close()
        env["GITHUB_OUTPUT"] = out_file
        env["GITHUB_STEP_SUMMARY"] = os.path.join(ws, ".dryrun_summary.md")
        uses = str(step.get("uses", ""))
        w = {k: render(v, ctx, status) for k, v in (step.get("with") or {}).items()}
        if name in replace:
            script, how = replace[name], "replaced"
        elif uses.startswith("actions/checkout@"):
            env["CHECKOUT_PATH"] = os.path.join(ws, w.get("path", "."))
            script, how = args["--checkout"], "checkout stood in"
        elif uses.startswith("actions/upload-artifact@"):
            dest = os.path.join(arts, w["name"])
            src = os.path.join(ws, w["path"].strip())
            script, how = f'mkdir -p "{dest}" && cp -r "{src}"/. "{dest}"/', "upload stood in"
        elif uses.startswith("actions/download-artifact@"):
            pat = w.get("pattern", "*")
            dest = os.path.join(ws, w.get("path", "."))
            script = f'mkdir -p "{dest}" && for a in "{arts}"/{pat}; do [ -d "$a" ] && cp -r "$a" "{dest}"/; done; true'
            how = "download stood in"
        elif "run" in step:
            script, how = render(step["run"], ctx, status), "ran"
        else:
            print(f"dryrun: {n:2d} {name}: {uses}: no stand-in", file=sys.stderr)
            return 2
        shell = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script]
        cwd = os.path.join(ws, step.get("working-directory", "."))
        rc = subprocess.run(shell, cwd=cwd, env=env).returncode
        outputs = {}
        for line in open(out_file):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                outputs[k] = v
        if step.get("id"):
            ctx["steps"][step["id"]] = {"outputs": outputs, "outcome": "success" if rc == 0 else "failure"}
        print(f"dryrun: {n:2d} {name}: {how}, exit {rc}")
        if rc != 0 and not step.get("continue-on-error"):
            status = "failure"
    print(f"dryrun: job {job_name}: {status}")
    return 0 if status == "success" else 1


def render_bare(cond):
    """An if: may be written with or without ${{ }}."""
    c = str(cond).strip()
    m = re.fullmatch(r"\$\{\{(.*)\}\}", c, flags=re.S)
    return m.group(1) if m else c


if __name__ == "__main__":
    sys.exit(main(sys.argv))
