#!/usr/bin/env python3
"""Per sm_90a kernel of a `cuobjdump -sass` listing: its innermost loop that issues at least
8 HGMMA (a backward branch's body), with the instruction counts that tell a serialised or
register-shuffling loop from a clean one: R2UR (values moved into uniform registers in the
loop: descriptors or barrier numbers ptxas could not prove warp-uniform), STL/LDL (spills),
and each ping-pong turn's window, FIRST/END: instructions from a named BAR.SYNC to the
turn's first HGMMA and to its BAR.ARV. Usage: sass_loops.py SASS_TXT [NAME_FILTER]"""
import re, sys
if len(sys.argv) not in (2, 3):
    print('usage: sass_loops.py SASS_TXT [NAME_FILTER]  (SASS_TXT: `cuobjdump -sass` output, plain text)',
          file=sys.stderr)
    sys.exit(2)
try:
    text = open(sys.argv[1], errors='replace').read()
except OSError as e:
    print(f'sass_loops.py: cannot read {sys.argv[1]}: {e.strerror}', file=sys.stderr)
    sys.exit(2)
flt = sys.argv[2] if len(sys.argv) > 2 else ''
for part in re.split(r'(?:^|\n)\s*Function : ', text)[1:]:
    name = part.split('\n', 1)[0].strip()
    if flt not in name or 'hopper_attention' not in name:
        continue
    ins = [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);', part)]
    at = {a: i for i, (a, _) in enumerate(ins)}
    best = None
    for i, (a, t) in enumerate(ins):
        m = re.search(r'BRA\s+(?:\S+\s+)?0x([0-9a-f]+)', t)
        if not m or int(m.group(1), 16) >= a or int(m.group(1), 16) not in at:
            continue
        seg = [x for _, x in ins[at[int(m.group(1), 16)]:i + 1]]
        if sum('HGMMA' in x for x in seg) >= 8 and (best is None or len(seg) < len(best)):
            best = seg
    if best:
        c = lambda p: sum(1 for x in best if re.search(p, x))
        mov, stl, ldl = r'\bMOV\b', r'\bSTL', r'\bLDL'
        turns, start, first = [], None, None
        for j, x in enumerate(best):
            if re.match(r'BAR\.SYNC\S*\s+R', x):   # a named barrier in a register: a turn's start
                start, first = j, None
            elif start is not None and first is None and 'HGMMA' in x:
                first = j - start
            elif start is not None and x.startswith('BAR.ARV'):
                turns.append(f'{first if first is not None else "-"}/{j - start}')
                start = None
        short = re.sub(r'_ZN\d+_GLOBAL__N__\w+?_attention_cu_\w+?16hopper_attention', '', name)[:60]
        print(f'{short:60s} loop {len(best):5d} HGMMA {c("HGMMA"):3d} DEPBAR {c("WARPGROUP.DEPBAR"):2d} '
              f'MOV {c(mov):3d} MUFU {c("MUFU"):3d} FFMA {c("FFMA"):3d} FMNMX {c("FMNMX"):3d} FADD {c("FADD"):3d} '
              f'R2UR {c("R2UR"):3d} STL {c(stl)} LDL {c(ldl)} turns {",".join(turns) or "-"}')
