#!/usr/bin/env python3
"""The paths among those given that CODEOWNERS assigns an owner: the ones a pull request
needs a maintainer's review to change.

    git diff --name-only BASE HEAD | python3 ci/workflow/protected_paths.py [--codeowners FILE]

Prints one line per such path, "<path>  <owners>", and exits 0 (none is an answer too; 2
on an unreadable CODEOWNERS). CODEOWNERS' rules, as GitHub reads them: a line is a
pattern and its owners; the last matching line wins; a pattern starting with '/' is
anchored at the root, otherwise it matches at any depth; one ending in '/' matches
everything below that directory; '*' matches within one path component, '**' across
them. Read from the base commit by the workflow: the pull request's copy is not asked."""
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
    # a pattern matches the path itself or anything below it (a directory)
    return re.compile(head + out + "(?:/.*)?$")


def read_rules(path):
    rules = []
    for line in open(path):
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


def main(argv):
    cofile = argv[argv.index("--codeowners") + 1] if "--codeowners" in argv else "CODEOWNERS"
    try:
        rules = read_rules(cofile)
    except OSError as e:
        print(f"protected_paths: {cofile}: {e.strerror}", file=sys.stderr)
        return 2
    for line in sys.stdin:
        path = line.strip()
        if path:
            owners = owners_of(rules, path)
            if owners:
                print(f"{path}  {' '.join(owners)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
