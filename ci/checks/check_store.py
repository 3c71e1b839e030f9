#!/usr/bin/env python3
"""The evidence store stays small and in its layout (`make test`; evidence/README.md says
what is where and why the budget is what it is).

Fails (exit 1, each finding printed) when, over the tracked files:
  - evidence/ holds more than EVIDENCE_BUDGET bytes, or the whole tree more than
    TREE_BUDGET;
  - a study file (evidence/<gpu>/studies/<kind>/...) over COMPRESS_ABOVE_BYTES is not
    compressed (.xz or .gz); a run over RUN_COMPRESS_ABOVE_BYTES is not compressed
    (.json.gz, ci/tools/compress_run.sh), or a run is there in both forms;
  - evidence/<gpu>/ holds anything but runs (<stamp>_<commit>.json, .partial.json, each
    possibly .gz),
    accepted.txt, reference.txt and studies/; or evidence/ anything but README.md,
    SCHEMA.md, STUDIES.md and the GPUs' folders; or a study lies deeper than studies/<kind>/<file>;
  - reference.txt is not one line naming a complete run of its folder, or accepted.txt
    breaks the harness's rules for it (harness/evidence/run_lists.c): each line, spaces,
    tabs and a carriage return trimmed, empty or a '#' comment or the file name of one
    complete run of its folder (not a study, not a partial run, no path), none twice, at
    least one;
  - a tracked file of evidence/ is a symbolic link (never followed: it could lead out of
    the repository), accepted.txt or reference.txt is not UTF-8 (named with the byte and
    its offset) or starts with a byte order mark, or a .gz or .xz file is not what its
    name says (its magic bytes, and a .gz file read through to its end, at most
    MAX_INFLATED bytes).

usage: check_store.py [--root DIR] [--evidence-budget BYTES] [--tree-budget BYTES]
exit 0 within budget and layout, 1 otherwise, 2 on bad usage."""
import gzip
import os
import re
import stat
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from evidence_files import COMPRESS_ABOVE_BYTES  # noqa: E402  (the writers' threshold)

MB = 1000 * 1000
# Why these two numbers: evidence/README.md, "Budget".
EVIDENCE_BUDGET = 18.4 * MB
TREE_BUDGET = 28.0 * MB
RUN_NAME = re.compile(r"^\d{8}T\d{6}Z_[0-9a-f]{7,40}(\.partial)?\.json(\.gz)?$")
# A run larger than this is committed gzip-compressed (evidence/README.md, "Compression"):
# a complete reference run is about 4 MB of JSON and 0.5 MB compressed.
RUN_COMPRESS_ABOVE_BYTES = 1 * MB
GPU_FILES = ("accepted.txt", "reference.txt")
TOP_FILES = ("README.md", "SCHEMA.md", "STUDIES.md")
LIST_MAX_BYTES = 64 * 1024          # accepted.txt and reference.txt (the harness's bound)
MAX_INFLATED = 256 * MB             # a .gz read through: more than this is not a run
BOM = b"\xef\xbb\xbf"


def tracked(root):
    """{path: size} of the tracked files that are there, and the set of those that are
    symbolic links (sized as links, never followed)."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True)
    if out.returncode:
        raise SystemExit(f"check_store: {root}: not a git work tree ({out.stderr.decode(errors='replace').strip()})")
    files, links = {}, set()
    for raw in out.stdout.split(b"\0"):
        if not raw:
            continue
        f = os.fsdecode(raw)
        try:
            st = os.lstat(os.path.join(root, f))
        except OSError:     # a file deleted but not yet staged is not in the tree
            continue
        if stat.S_ISLNK(st.st_mode):
            links.add(f)
        elif not stat.S_ISREG(st.st_mode):
            continue
        files[f] = st.st_size
    return files, links


def read_list(root, f, links):
    """(lines, finding): a list file's lines, read as the harness reads it (a regular file,
    not a link, of at most LIST_MAX_BYTES, UTF-8 without a byte order mark), or a finding."""
    if f in links:
        return None, f"{f}: a link, not a file: not followed (the harness reads a regular file)"
    p = os.path.join(root, f)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        return None, f"{f}: cannot be read ({e.strerror})"
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None, f"{f}: not a regular file"
        data = fh.read(LIST_MAX_BYTES + 1)
    if len(data) > LIST_MAX_BYTES:
        return None, f"{f}: more than {LIST_MAX_BYTES} bytes"
    if data.startswith(BOM):
        return None, f"{f}: starts with a byte order mark (EF BB BF); save it as UTF-8 without one"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, f"{f}: not UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})"
    if "\0" in text:
        return None, f"{f}: holds a NUL byte"
    return text.split("\n"), None


def compressed_finding(root, f):
    """A finding when a .gz or .xz file is not what its name says, else None."""
    p = os.path.join(root, f)
    with open(p, "rb") as fh:
        magic = fh.read(6)
    if f.endswith(".gz"):
        if magic[:2] != b"\x1f\x8b":
            return f"{f}: not gzip (its first bytes are {magic[:2].hex()}, not 1f8b)"
        try:
            n = 0
            with gzip.open(p, "rb") as g:
                while True:
                    chunk = g.read(1 << 20)
                    if not chunk:
                        break
                    n += len(chunk)
                    if n > MAX_INFLATED:
                        return f"{f}: inflates to more than {MAX_INFLATED // MB} MB"
        except (OSError, EOFError, zlib.error) as e:
            return f"{f}: not a whole gzip stream ({e})"
    elif f.endswith(".xz") and magic != b"\xfd7zXZ\x00":
        return f"{f}: not xz (its first bytes are {magic.hex()})"
    return None


def accepted_findings(acc, d, lines, files):
    """accepted.txt by the harness's rules (harness/evidence/run_lists.c)."""
    bad, seen = [], set()
    for no, line in enumerate(lines, 1):
        s = line.split("\r", 1)[0].strip(" \t")
        if not s or s.startswith("#"):
            continue
        if not RUN_NAME.match(s) or s.endswith((".partial.json", ".partial.json.gz")):
            what = ("a partial (interrupted) run" if ".partial." in s else "a path, not a file name of the folder"
                    if "/" in s else "not a run's file name")
            bad.append(f"{acc}:{no}: {s[:200]!r}: {what}; each line holds the file name of one complete run "
                       f"of {d}/ (yyyymmddThhmmssZ_<commit>.json, or .json.gz)")
        elif s in seen:
            bad.append(f"{acc}:{no}: {s} is listed twice")
        elif f"{d}/{s}" not in files:
            bad.append(f"{acc}:{no}: names {s}, which is not a tracked file of {d}/")
        seen.add(s)
    if not seen:
        bad.append(f"{acc}: names no run; it holds the file name of at least one complete run of {d}/")
    return bad


def check(root, files, evidence_budget, tree_budget, links=frozenset()):
    bad = []
    for f in sorted(links):
        if f.startswith("evidence/"):
            target = os.readlink(os.path.join(root, f))
            bad.append(f"{f}: a link (to {target[:200]!r}), not a file: the store holds files, and no "
                       f"check follows a link out of the repository")
    for f in sorted(files):
        if f.startswith("evidence/") and f.endswith((".gz", ".xz")) and f not in links:
            why = compressed_finding(root, f)
            if why:
                bad.append(why)
    ev = {f: s for f, s in files.items() if f.startswith("evidence/")}
    ev_bytes, tree_bytes = sum(ev.values()), sum(files.values())
    if ev_bytes > evidence_budget:
        big = sorted(ev.items(), key=lambda kv: -kv[1])[:5]
        bad.append(f"evidence/ holds {ev_bytes / MB:.2f} MB, over its budget of {evidence_budget / MB:.2f} MB "
                   f"(largest: {', '.join(f'{f} {s / MB:.2f} MB' for f, s in big)}); retire superseded runs "
                   f"to git history (evidence/README.md says how)")
    if tree_bytes > tree_budget:
        bad.append(f"the tracked tree holds {tree_bytes / MB:.2f} MB, over its budget of {tree_budget / MB:.2f} MB")
    gpus = set()
    for f, size in sorted(ev.items()):
        parts = f.split("/")
        if len(parts) == 2:
            if parts[1] not in TOP_FILES:
                bad.append(f"{f}: evidence/ holds README.md, SCHEMA.md, STUDIES.md and one folder per GPU, nothing else")
            continue
        gpus.add(parts[1])
        if len(parts) == 3:
            if not (RUN_NAME.match(parts[2]) or parts[2] in GPU_FILES):
                bad.append(f"{f}: not a run, accepted.txt or reference.txt; a study goes in "
                           f"evidence/{parts[1]}/studies/<kind>/")
            elif parts[2].endswith(".json"):
                if f + ".gz" in files:
                    bad.append(f"{f} and {parts[2]}.gz: one run in two forms; a run is stored in one "
                               f"(the harness refuses both)")
                elif size > RUN_COMPRESS_ABOVE_BYTES:
                    bad.append(f"{f}: {size / MB:.2f} MB uncompressed; a run over "
                               f"{RUN_COMPRESS_ABOVE_BYTES / MB:.0f} MB is committed compressed "
                               f"(ci/tools/compress_run.sh {f})")
            continue
        if parts[2] != "studies" or len(parts) != 5:
            bad.append(f"{f}: below evidence/<gpu>/ only studies/<kind>/<file> (development material "
                       f"lives in git history, not here)")
            continue
        if size > COMPRESS_ABOVE_BYTES and not f.endswith((".xz", ".gz")):
            bad.append(f"{f}: {size / 1000:.0f} KB uncompressed; a study over {COMPRESS_ABOVE_BYTES // 1024} KB "
                       f"is stored as .json.xz (ci/tools/evidence_files.py compress_if_large)")
    for g in sorted(gpus):
        d = f"evidence/{g}"
        ref = f"{d}/reference.txt"
        if ref in files:
            lines, why = read_list(root, ref, links)
            if why:
                bad.append(why)
            else:
                lines = "\n".join(lines).splitlines()
                name = lines[0].strip() if lines else ""
                if len(lines) != 1 or not RUN_NAME.match(name) or name.endswith((".partial.json", ".partial.json.gz")):
                    bad.append(f"{ref}: must be one line, the file name of a complete run of {d}/")
                elif f"{d}/{name}" not in files:
                    bad.append(f"{ref}: names {name}, which is not a tracked file of {d}/")
        acc = f"{d}/accepted.txt"
        if acc in files:
            lines, why = read_list(root, acc, links)
            bad += [why] if why else accepted_findings(acc, d, lines, files)
    return bad, ev_bytes, tree_bytes


def main(argv):
    root, eb, tb = ".", EVIDENCE_BUDGET, TREE_BUDGET
    try:
        while argv:
            opt, val = argv[0], argv[1]
            argv = argv[2:]
            if opt == "--root":
                root = val
            elif opt == "--evidence-budget":
                eb = int(val)
            elif opt == "--tree-budget":
                tb = int(val)
            else:
                raise ValueError(opt)
    except (IndexError, ValueError):
        print("usage: " + __doc__.split("usage: ")[1], file=sys.stderr)
        return 2
    files, links = tracked(root)
    bad, ev_bytes, tree_bytes = check(root, files, eb, tb, links)
    for b in bad:
        print(f"check_store: {b}", file=sys.stderr)
    n_ev = sum(1 for f in files if f.startswith("evidence/"))
    print(f"check_store: evidence/ {ev_bytes / MB:.2f} MB in {n_ev} files (budget {eb / MB:.2f} MB), "
          f"tracked tree {tree_bytes / MB:.2f} MB in {len(files)} files (budget {tb / MB:.2f} MB); "
          f"{len(bad)} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
