#!/usr/bin/env python3
"""The one rule for everything that reaches a pull request's comment from outside this
script's own words: names of files, jobs and checks, the judge's tables, the artifact's
comment.md. judge_verdict.py (the GPU job's comment.md) and pr_comment.sh (the posted
comment) both use it.

  - A name is shown as a code span: characters that do not print (controls, line and
    paragraph separators, bidirectional marks, bytes that are not UTF-8) as \\xNN, \\uNNNN
    or \\n escapes, the span fenced by one backquote more than the longest run inside, so
    that no backquote in a name ends it and nothing in it is markup (code(), review_line()).
  - A block of text (a check's table) is a fenced code block whose fence is longer than
    any backquote run inside (block()).
  - Text taken whole (the artifact's comment.md) is read only as a regular file (no link,
    no FIFO, no device) of at most LIMIT bytes, cut there and said so; every `<` that could
    open HTML (a tag, a comment, a declaration) becomes `&lt;` except the <details> and
    <summary> tags the judge writes itself (inert()).

    comment_text.py artifact FILE [LIMIT]      FILE's text under the rule (default 60000)
    comment_text.py review JSON [TOTAL:LISTED] the review line for protected_paths.py --json
                                               output; TOTAL:LISTED, the files the pull
                                               request changes and those listed
Exit 0; 2 on bad arguments."""
import json
import os
import re
import stat
import sys
import unicodedata

ALLOWED_TAGS = ("<details>", "</details>", "<summary>", "</summary>")
HTML_OPEN = re.compile(r"<(?=[A-Za-z/!?])")
MAX_NAMES = 30


def printable(s, in_block=False):
    """S with every character that does not print as itself escaped (\\n, \\t, \\xNN,
    \\uNNNN; a byte that was not UTF-8, decoded by surrogateescape, as \\xNN; a backslash
    doubled, so that every escape reads one way). IN_BLOCK: a line of a code block, whose
    tabs and backslashes stay as they are."""
    out = []
    for ch in s:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:           # a raw byte (os.fsdecode's surrogateescape)
            out.append(f"\\x{o - 0xDC00:02x}")
        elif in_block and ch in "\\\t":
            out.append(ch)
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
        else:
            out.append(ch)
    return "".join(out)


def code(s):
    """S as an inline code span that nothing in S can end or escape."""
    s = printable(str(s))
    longest = max((len(r) for r in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s[:1] in ("`", " ") or s[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def block(lines, info="text"):
    """LINES as a fenced code block no line of them can close."""
    lines = [printable(l, in_block=True) for l in lines]
    longest = max((len(r) for l in lines for r in re.findall(r"`+", l)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *lines, fence]


def inert(text):
    """TEXT with every `<` that could open HTML made `&lt;`, the judge's own
    <details>/<summary> tags kept."""
    out, i = [], 0
    for m in HTML_OPEN.finditer(text):
        if text.startswith(ALLOWED_TAGS, m.start()):
            continue
        out.append(text[i:m.start()])
        out.append("&lt;")
        i = m.start() + 1
    out.append(text[i:])
    return "".join(out)


def read_regular(path, limit):
    """(bytes, why): at most LIMIT bytes of PATH when it is a regular file (a link is not
    followed, a FIFO or device not opened for reading), else (None, why not); a longer
    file is cut, and why says so."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == 40:   # ELOOP: the name is a link
            return None, "is a link, not a regular file: not read"
        return None, f"cannot be read ({e.strerror})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "is not a regular file: not read"
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as e:
        return None, f"cannot be read ({e.strerror})"
    finally:
        os.close(fd)
    if len(data) > limit:
        return data[:limit], f"cut at {limit} bytes"
    return data, ""


def artifact(path, limit=60000):
    """The artifact's comment.md as the comment shows it: text under the rule, or a line
    saying why there is none."""
    data, why = read_regular(path, limit)
    name = os.path.basename(path)
    if data is None:
        return f"*The artifact's `{name}` {why}.*\n"
    text = data.decode("utf-8", errors="replace")
    if why:
        text = text.rsplit("\n", 1)[0] if "\n" in text else text
        text += f"\n\n*The artifact's `{name}` was {why}.*\n"
    return inert(text)


def review_line(paths, error=None):
    """The comment's review line for PATHS (the protected files among those changed), or
    for a list that could not be made (ERROR: why). None when nothing needs review."""
    head = "**Needs a maintainer's review:** "
    if error:
        return (head + f"the files this pull request changes could not be listed ({printable(error)}), "
                "so what judges it may be among them.")
    if not paths:
        return None
    return (head + "this pull request changes what judges it (CODEOWNERS): "
            + ", ".join(code(p) for p in paths[:MAX_NAMES])
            + (f" and {len(paths) - MAX_NAMES} more" if len(paths) > MAX_NAMES else ""))


def unlisted_line(total, listed):
    """The review line for a pull request whose file list came back shorter than it is."""
    return ("**Needs a maintainer's review:** this pull request changes "
            f"{total} files, and only {listed} of them could be listed (GitHub lists at most 3000): "
            "what judges it may be among the rest.")


def main(argv):
    if len(argv) >= 3 and argv[1] == "artifact" and len(argv) <= 4:
        limit = int(argv[3]) if len(argv) == 4 and argv[3].isdigit() else 60000
        sys.stdout.write(artifact(argv[2], limit))
        return 0
    if len(argv) >= 3 and argv[1] == "review" and len(argv) <= 4:
        try:
            paths = [p["path"] for p in json.load(open(argv[2]))]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(review_line([], error=f"{argv[2]}: {type(e).__name__}"))
            return 0
        lines = [review_line(paths)]
        total, _, listed = (argv[3] if len(argv) == 4 else "").partition(":")
        if total.isdigit() and listed.isdigit() and int(total) > int(listed):
            lines.append(unlisted_line(int(total), int(listed)))
        print("\n\n".join(l for l in lines if l))
        return 0
    print(__doc__.split("\n\n")[-1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
