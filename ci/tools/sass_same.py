#!/usr/bin/env python3
"""Whether two builds of a shared object hold the same machine code, kernel by kernel, from
their `cuobjdump -sass` listings (run on a machine with cuobjdump; this one has none).

Each listing is cut into (arch, kernel) bodies. A body is its instructions with their
offsets and encodings, the function's own name taken out (a kernel compiled in another
namespace, or in an anonymous namespace of another file, has another mangled name and the
same code). Kernels are matched by body: every body of A must be in B as often as in A and
the other way round, per arch. Prints the counts, and the kernels without a match.
Usage: sass_same.py A_SASS_TXT B_SASS_TXT     exit 0 same, 1 different, 2 unreadable input"""
import collections, hashlib, re, sys

ARCH = re.compile(r'^\s*arch = (sm_\w+)', re.M)


def bodies(text):
    """{arch: Counter(body hash)}, {hash: kernel name} from one listing."""
    out, names = collections.defaultdict(collections.Counter), {}
    arch = None
    # the listing alternates "Fatbin elf code: ... arch = sm_XX" headers and "Function : NAME" blocks
    for chunk in re.split(r'\n(?=\s*(?:Function : |Fatbin \w+ code:))', text):
        m = ARCH.search(chunk)
        if chunk.lstrip().startswith('Fatbin'):
            arch = m.group(1) if m else None
            continue
        if not chunk.lstrip().startswith('Function : ') or arch is None:
            continue
        head, _, body = chunk.lstrip().partition('\n')
        name = head[len('Function : '):].strip()
        code = [ln.strip() for ln in body.splitlines() if re.search(r'/\*[0-9a-f]{4,}\*/|/\* 0x[0-9a-f]{16} \*/', ln)]
        if not code:
            continue
        h = hashlib.sha256('\n'.join(code).replace(name, '<self>').encode()).hexdigest()[:16]
        out[arch][h] += 1
        names.setdefault(h, name)
    return out, names


def main(argv):
    if len(argv) != 3:
        print('usage: sass_same.py A_SASS_TXT B_SASS_TXT', file=sys.stderr)
        return 2
    lists = []
    for path in argv[1:]:
        try:
            lists.append(bodies(open(path, errors='replace').read()))
        except OSError as e:
            print(f'sass_same.py: cannot read {path}: {e.strerror}', file=sys.stderr)
            return 2
    (a, an), (b, bn) = lists
    if not any(a.values()) or not any(b.values()):
        print('sass_same.py: a listing without kernels (not `cuobjdump -sass` output?)', file=sys.stderr)
        return 2
    same = True
    for arch in sorted(set(a) | set(b)):
        only_a, only_b = a[arch] - b[arch], b[arch] - a[arch]
        print(f'{arch}: {sum(a[arch].values())} kernels in A, {sum(b[arch].values())} in B, '
              f'{sum((a[arch] & b[arch]).values())} the same code')
        for h in only_a:
            print(f'  only in A: {an[h]}')
        for h in only_b:
            print(f'  only in B: {bn[h]}')
        same = same and not only_a and not only_b
    print('same machine code' if same else 'different machine code')
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
