#!/usr/bin/env python3
"""The GPU jobs of one GPU workflow run, as post_comments.sh posts them: one line per GPU,
"<gpu> <conclusion> <job id>", found by what GitHub records rather than by a name a pull
request can also use.

    gpu_jobs.py RUN.json WORKFLOW.json JOBS.jsonl RUN_ID HEAD_SHA EVIDENCE_DIR

RUN.json is GitHub's record of the run (actions/runs/RUN_ID), WORKFLOW.json that of the
GPU workflow on the default branch (actions/workflows/gpu.yml), JOBS.jsonl the run's jobs,
one JSON object a line. The run counts only when it is RUN_ID, of the workflow file
.github/workflows/gpu.yml and of that workflow's id (a workflow a pull request adds under
the same name has another id and file), and, with HEAD_SHA, for that commit. The GPUs are
those with accepted runs here (EVIDENCE_DIR/<gpu>/accepted.txt, the workflow's matrix);
a GPU's job is the job of this run named exactly "ladder on <gpu>": none, no line; two or
more, the conclusion "ambiguous" (which pr_comment.sh never reports as a pass).
Exit 0; 2 when the run is not the GPU workflow's, or a record cannot be read (said why)."""
import json
import os
import re
import sys

GPU_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
CONCLUSION = re.compile(r"[a-z_]{1,20}")
WORKFLOW_PATH = ".github/workflows/gpu.yml"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    if len(argv) != 7:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    run_path, wf_path, jobs_path, run_id, head_sha, evidence = argv[1:]
    try:
        run, wf = load(run_path), load(wf_path)
        jobs = []
        with open(jobs_path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    jobs.append(json.loads(line))
    except (OSError, ValueError) as e:
        print(f"gpu_jobs: a record of the run cannot be read: {e}", file=sys.stderr)
        return 2
    if not isinstance(run, dict) or not isinstance(wf, dict):
        print("gpu_jobs: the run's or the workflow's record is not an object", file=sys.stderr)
        return 2
    # the run: this id, the GPU workflow's file and id, the commit measured
    path = str(run.get("path", "")).split("@", 1)[0]
    why = []
    if str(run.get("id")) != run_id:
        why.append(f"its id is {run.get('id')!r}, not {run_id}")
    if path != WORKFLOW_PATH:
        why.append(f"its workflow file is {path[:100]!r}, not {WORKFLOW_PATH}")
    if not isinstance(wf.get("id"), int) or run.get("workflow_id") != wf.get("id"):
        why.append(f"its workflow id is {run.get('workflow_id')!r}, the GPU workflow's is {wf.get('id')!r}")
    if head_sha and run.get("head_sha") != head_sha:
        why.append(f"it ran {str(run.get('head_sha'))[:40]!r}, not {head_sha}")
    if why:
        print(f"gpu_jobs: run {run_id} is not a run of the GPU workflow ({'; '.join(why)}): no comment", file=sys.stderr)
        return 2
    gpus = sorted(d for d in os.listdir(evidence)
                  if GPU_NAME.fullmatch(d) and os.path.isfile(os.path.join(evidence, d, "accepted.txt")))
    for gpu in gpus:
        mine = [j for j in jobs if isinstance(j, dict) and j.get("name") == f"ladder on {gpu}"
                and str(j.get("run_id", run_id)) == run_id]
        if not mine:
            continue
        if len(mine) > 1:
            ids = ",".join(str(j.get("id")) for j in mine)
            print(f"gpu_jobs: {len(mine)} jobs of run {run_id} are named 'ladder on {gpu}' (ids {ids}): ambiguous",
                  file=sys.stderr)
            print(f"{gpu} ambiguous {ids[:200]}")
            continue
        c = mine[0].get("conclusion")
        c = c if isinstance(c, str) and CONCLUSION.fullmatch(c) else "none"
        job_id = mine[0].get("id")
        print(f"{gpu} {c} {job_id if isinstance(job_id, int) else 'unknown'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
