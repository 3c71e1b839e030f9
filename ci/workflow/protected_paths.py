#!/usr/bin/env python3
r"""The paths among those given that CODEOWNERS assigns an owner: the ones a pull request
needs a maintainer's review to change.

    git diff --no-renames --name-only -z BASE HEAD | python3 ci/workflow/protected_paths.py -z --json
    gh api .../pulls/N/files --jq '.[] | [.filename, .previous_filename] | @json' \
      | python3 ci/workflow/protected_paths.py --json-lines --json
    python3 ci/workflow/protected_paths.py [--codeowners FILE] < one-path-a-line

Names are found by content, not spelling: -z reads NUL-separated paths as git writes them
with -z (unquoted, whole: spaces, quotes, newlines, non-ASCII and bytes that are not
UTF-8 kept); --json-lines one JSON string, or list of strings and nulls, a line (GitHub's
API's names: a file's name and its previous name); without either, one path a line (by
hand). A renamed file counts by both its names: the judge asks git for --no-renames (a
rename is its old path deleted and its new one added), the comment gives the API's
previous_filename beside filename.

Prints one line per such path, "<path>  <owners>", or with --json a JSON list of
{"path", "owners"} (a byte that is not UTF-8 as the \udcXX that os.fsdecode gives it),
and exits 0 (none is an answer too; 2 on an unreadable CODEOWNERS or input).

CODEOWNERS' rules, as GitHub reads them: a line is a pattern and its owners; the last
matching line wins; a pattern starting with '/' is anchored at the root, otherwise it
matches at any depth; one ending in '/' matches everything below that directory; '*'
matches within one path component, '**' across them. Read from the base commit by the
workflow: the pull request's copy is not asked."""
import json
import os
import re
import sys


def pattern_regex(pat):
    anchored = pat.startswith("/")
    p = pat.strip("/")
    out = ""
    i = 0
    while i < len(p):
        if p.startswith("**", i):
            out += ".*"
            i += 2
        elif p[i] == "*":
            out += "[^/]*"
            i += 1
        elif p[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(p[i])
            i += 1
    head = "^" if anchored or "/" in p else "^(?:.*/)?"
    # a pattern matches the path itself or anything below it (a directory); a newline in a
    # name is a character like any other (DOTALL, and \Z, not $, which passes one at the end)
    return re.compile(head + out + r"(?:/.*)?\Z", re.S)


def read_rules(path):
    rules = []
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pat, *owners = line.split()
        rules.append((pattern_regex(pat), owners))
    return rules


def owners_of(rules, path):
    found = []
    for rx, owners in rules:
        if rx.match(path):
            found = owners
    return found


def read_paths(argv):
    """The paths on standard input, by the form the arguments name."""
    data = sys.stdin.buffer.read()
    if "-z" in argv:
        return [os.fsdecode(p) for p in data.split(b"\0") if p]
    if "--json-lines" in argv:
        paths = []
        for line in data.decode("utf-8").splitlines():
            if line.strip():
                p = json.loads(line)
                names = [p] if isinstance(p, str) else p if isinstance(p, list) else None
                if names is None or not all(isinstance(n, str) or n is None for n in names):
                    raise ValueError(f"not a JSON string or list of them: {line[:80]!r}")
                paths += [n for n in names if n]
        return paths
    return [p.strip() for p in os.fsdecode(data).splitlines() if p.strip()]


def main(argv):
    cofile = argv[argv.index("--codeowners") + 1] if "--codeowners" in argv else "CODEOWNERS"
    try:
        rules = read_rules(cofile)
    except (OSError, UnicodeDecodeError) as e:
        print(f"protected_paths: {cofile}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 2
    try:
        paths = read_paths(argv)
    except (OSError, ValueError) as e:
        print(f"protected_paths: the paths cannot be read: {e}", file=sys.stderr)
        return 2
    found, seen = [], set()
    for path in paths:
        owners = owners_of(rules, path)
        if owners and path not in seen:
            seen.add(path)
            found.append({"path": path, "owners": owners})
    if "--json" in argv:
        json.dump(found, sys.stdout)
        print()
    else:
        for f in found:
            print(f"{f['path']}  {' '.join(f['owners'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
