#!/usr/bin/env python3
"""Every file path that the project's text cites under evidence/ or phases/ still resolves
(`make test`): a run, a study or a rung's file that a README, a report page, a test or a
CI script names must be there for the reader who follows it.

What is read (tracked files): every markdown file (READMEs, reports/, notes), and the tests
and scripts (ci/, harness/tests/, harness/fuzz/, Makefile); not the made-up data of the
tests (harness/tests/data/, and check_store.sh's made-up repositories). What counts as a
citation:
  - a markdown link's relative target, [text](path), resolved from the file's folder;
  - in markdown, a backquoted `evidence/...` or `phases/...` path, from the repository's
    root or the file's folder (harness/README.md names harness/evidence/ as `evidence/`);
  - in code, an evidence/... path (an #include, or a path that harness/ holds, is the
    harness's own evidence/ stage; code builds phases/ paths of its own, so those are not
    citations);
  - in markdown, a backquoted evidence file name on its own, `<stamp>_<commit>.json`,
    `sanitize_<stamp>.json` (anything with a yyyymmddThhmmssZ stamp ending in .json,
    .json.gz or .json.xz).
A path with a placeholder or a shell or format variable in it (<gpu>, $slug, %s, {x}) is
a pattern in prose, not a file, and is passed over; one with * ? [ ] must match a file.

A citation resolves when (evidence/README.md says why each is allowed):
  1. the path is a tracked file or folder (a glob: at least one matches);
  2. it names evidence/<gpu>/<name> and the study folders of that GPU hold <name>, or
     <name>.xz / <name>.gz: text older than evidence/<gpu>/studies/ cites studies there;
     or <name> is a run, <name>.gz is tracked there: a run compressed after it was cited;
  3. a bare evidence file name: a tracked file of that name (or .xz/.gz) under evidence/;
  4. it is in git history at a commit that evidence/README.md names in a `git show
     <commit>:` line (development material and superseded runs live there). In a shallow
     clone without that commit these are counted as not checkable, not as broken.

usage: check_links.py [--root DIR]   exit 0 when nothing is broken, 1 otherwise (each broken
citation printed as file:line: path), 2 on bad usage."""
import fnmatch
import os
import re
import subprocess
import sys

STAMP_NAME = re.compile(r"^[A-Za-z0-9_.-]*\d{8}T\d{6}Z[A-Za-z0-9_.-]*\.json(\.gz|\.xz)?$")
PATH_TOKEN = re.compile(r"(?<![A-Za-z0-9_./-])((?:evidence|phases)/[A-Za-z0-9_.*?\[\]/<>{}$%-]*)")
# MD_LINK is matched by md_links(), in one pass: the pattern it stands for,
# \]\(([^)\s]+)(?:\s+"[^"]*")?\), backtracks over a line of many "](" (600 KB took minutes)
BACKQUOTED = re.compile(r"`([^`\n]+)`")
HISTORY_LINE = re.compile(r"git show ([0-9a-f]{7,40}):")
PLACEHOLDER = re.compile(r"[<>{}$%]|\.\.\.|/NN_|/N/")
CODE_DIRS = ("ci/", "harness/tests/", "harness/fuzz/")
NOT_READ = ("harness/tests/data/", "ci/checks/check_store.sh")
CODE_EXT = (".sh", ".py", ".c", ".h", ".mk")
COMPRESSED = ("", ".xz", ".gz")


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


class Tree:
    """The tracked files and folders, and the ones of the history commits."""

    def __init__(self, root):
        self.root = root
        out = git(root, "ls-files", "-z")
        if out.returncode:
            raise SystemExit(f"check_links: {root}: not a git work tree ({out.stderr.strip()})")
        self.files = set(f for f in out.stdout.split("\0") if f)
        self.dirs = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d and d not in self.dirs:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.basenames = {}
        for f in self.files:
            if f.startswith("evidence/"):
                self.basenames.setdefault(os.path.basename(f), f)
        self.history = {}        # commit -> (files, dirs, basenames), None when absent here
        readme = os.path.join(root, "evidence", "README.md")
        text = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
        for c in dict.fromkeys(HISTORY_LINE.findall(text)):
            self.history[c] = self._commit_tree(c)

    def _commit_tree(self, commit):
        if git(self.root, "cat-file", "-e", commit + "^{commit}").returncode:
            return None
        out = git(self.root, "ls-tree", "-r", "-z", "--name-only", commit, "--", "evidence", "phases")
        files = set(f for f in out.stdout.split("\0") if f)
        dirs = set()
        for f in files:
            d = os.path.dirname(f)
            while d and d not in dirs:
                dirs.add(d)
                d = os.path.dirname(d)
        return files, dirs, set(os.path.basename(f) for f in files if f.startswith("evidence/"))

    def present(self, path, files, dirs):
        if any(ch in path for ch in "*?["):
            pat = path.rstrip("/")
            return any(fnmatch.fnmatchcase(f, pat) for f in files | dirs)
        p = path.rstrip("/")
        return p in files or p in dirs

    def resolve(self, path):
        """'tree', 'history', 'unchecked' (history not in this clone) or None (broken)."""
        if self.present(path, self.files, self.dirs):
            return "tree"
        parts = path.rstrip("/").split("/")
        if len(parts) == 3 and parts[0] == "evidence":
            if parts[2].endswith(".json") and path.rstrip("/") + ".gz" in self.files:
                return "tree"   # a run committed compressed after the text cited it
            for suffix in COMPRESSED:
                if self.present(f"evidence/{parts[1]}/studies/*/{parts[2]}{suffix}", self.files, set()):
                    return "tree"
        return self._in_history(lambda h: self.present(path, h[0], h[1]))

    def resolve_name(self, name):
        if any(name + s in self.basenames for s in COMPRESSED):
            return "tree"
        return self._in_history(lambda h: name in h[2])

    def _in_history(self, test):
        missing = False
        for h in self.history.values():
            if h is None:
                missing = True
            elif test(h):
                return "history"
        return "unchecked" if missing else None


def scanned(tree):
    for f in sorted(tree.files):
        if f.startswith(NOT_READ):
            continue
        if f.endswith(".md"):
            yield f, True
        elif f == "Makefile" or (f.startswith(CODE_DIRS) and f.endswith(CODE_EXT)):
            yield f, False


def md_links(line):
    """The targets of the markdown links of LINE, [text](target) or [text](target "title"),
    found in time linear in its length: what the pattern ]\((target)(\s+"title")?\) finds,
    left to right, without trying every "](" against the rest of the line. Where a target
    ends (the next ')' or white space) and where a title ends (the next '"') are known
    from one pass from the right, so each "](" is decided in a few steps."""
    n = len(line)
    stop = [n] * (n + 1)       # stop[i]: the first j >= i with line[j] == ')' or white space
    quote = [n] * (n + 1)      # quote[i]: the first j >= i with line[j] == '"'
    nonspace = [n] * (n + 1)   # nonspace[i]: the first j >= i that is not white space
    for i in range(n - 1, -1, -1):
        c = line[i]
        stop[i] = i if c == ")" or c.isspace() else stop[i + 1]
        quote[i] = i if c == '"' else quote[i + 1]
        nonspace[i] = nonspace[i + 1] if c.isspace() else i
    targets, i = [], 0
    while True:
        i = line.find("](", i)
        if i < 0:
            return targets
        start = i + 2
        end = stop[start]
        if end == start or end == n:     # no target, or no ')' after it
            i += 1
            continue
        if line[end] == ")":
            targets.append(line[start:end])
            i = end + 1
            continue
        k = nonspace[end]                # white space, then "title", then ')'
        if k < n and line[k] == '"':
            q = quote[k + 1]
            if q + 1 < n and line[q + 1] == ")":
                targets.append(line[start:end])
                i = q + 2
                continue
        i += 1


def citations(path, text, markdown):
    """(line, cited path or bare name, is_bare_name) of one file."""
    here = os.path.dirname(path)
    for no, line in enumerate(text.splitlines(), 1):
        if markdown:
            for target in md_links(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                target = target.split("#")[0]
                if target and not PLACEHOLDER.search(target):
                    yield no, (os.path.normpath(os.path.join(here, target)), None), False
            for span in BACKQUOTED.findall(line):
                span = span.strip()
                if STAMP_NAME.match(span):
                    yield no, span, True
                    continue
                for m in PATH_TOKEN.finditer(span):
                    yield from _path(no, m.group(1), here)
        elif not line.lstrip().startswith("#include"):
            for m in PATH_TOKEN.finditer(line):
                if m.group(1).startswith("evidence/"):
                    yield from _path(no, m.group(1), "harness")


def _path(no, p, here):
    p = p.rstrip(".,;:")
    if PLACEHOLDER.search(p) or p in ("evidence/", "phases/"):
        return
    yield no, (p, os.path.normpath(os.path.join(here, p)) if here else None), False


def main(argv):
    root = "."
    if argv[:1] == ["--root"] and len(argv) == 2:
        root = argv[1]
    elif argv:
        print(__doc__.split("usage: ")[1], file=sys.stderr)
        return 2
    tree = Tree(root)
    broken, counts = [], {"tree": 0, "history": 0, "unchecked": 0}
    for f, markdown in scanned(tree):
        try:
            text = open(os.path.join(root, f), encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for no, cited, bare in citations(f, text, markdown):
            if bare:
                got = tree.resolve_name(cited)
            else:
                cited, beside = cited
                got = tree.resolve(cited)
                if got != "tree" and beside and tree.resolve(beside) == "tree":
                    got = "tree"
            if got is None:
                broken.append(f"{f}:{no}: {cited}")
            else:
                counts[got] += 1
    for b in broken:
        print(f"check_links: {b}: not in the tree, not a moved study, not in the history "
              f"commits evidence/README.md names", file=sys.stderr)
    note = ""
    if counts["unchecked"]:
        absent = ", ".join(c for c, h in tree.history.items() if h is None)
        note = f"; {counts['unchecked']} in history not checkable here (commit {absent} not in this clone)"
    print(f"check_links: {counts['tree']} citations resolve in the tree, {counts['history']} in git history"
          f"{note}; {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
