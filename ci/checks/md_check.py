#!/usr/bin/env python3
"""What of a markdown text would reach GitHub as raw HTML: every `<` that starts a tag, a
comment, a declaration or an instruction outside fenced code blocks and code spans, by
CommonMark's rules for those two (a fence of three or more backquotes or tildes closed by
one at least as long; a run of N backquotes closed by the next run of exactly N in the
same paragraph). The tags the judge's comment writes itself (<details>, <summary> and
their ends) are allowed. Used by ci/checks/test_judge.sh and test_pr_comment.sh; it may
flag more than GitHub would render, never less.

    python3 ci/checks/md_check.py FILE     prints each raw HTML piece; exit 1 if any"""
import re
import sys

ALLOWED = {"<details>", "</details>", "<summary>", "</summary>"}
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
TAG = re.compile(r"<(?=[A-Za-z/!?])[^>\n]*>?")


def strip_spans(par):
    """PAR with its code spans removed (backslash escapes outside them kept out too)."""
    out, i, n = [], 0, len(par)
    while i < n:
        c = par[i]
        if c == "\\" and i + 1 < n:
            i += 2
            continue
        if c == "`":
            j = i
            while j < n and par[j] == "`":
                j += 1
            run = j - i
            k = j
            close = -1
            while k < n:
                if par[k] == "`":
                    m = k
                    while m < n and par[m] == "`":
                        m += 1
                    if m - k == run:
                        close = m
                        break
                    k = m
                else:
                    k += 1
            if close >= 0:
                i = close
                continue
            out.append(par[i:j])   # an unmatched run is literal backquotes
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def raw_html(text):
    found, par, fence = [], [], None

    def flush():
        if par:
            s = strip_spans("\n".join(par))
            found.extend(m.group(0) for m in TAG.finditer(s) if m.group(0) not in ALLOWED)
            par.clear()

    for line in text.split("\n"):
        if fence:
            m = FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = None
            continue
        m = FENCE.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            flush()
            fence = m.group(1)
            continue
        if not line.strip():
            flush()
        else:
            par.append(line)
    flush()
    return found


def main(argv):
    if len(argv) != 2:
        print("usage: md_check.py FILE", file=sys.stderr)
        return 2
    found = raw_html(open(argv[1], encoding="utf-8", errors="replace").read())
    for h in found:
        print(h)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
