"""Ping-pong turn windows in the SASS of the rung (measuring only; run 41-42).

For each sm_90a hopper_attention kernel of a `cuobjdump -sass` listing: every backward
branch whose body holds at least 8 HGMMA (a main loop), its length, its R2UR / STL / LDL
counts, and for each turn in it (a named BAR.SYNC to the BAR.ARV after it) how many
instructions lie from the barrier to the first HGMMA and to the BAR.ARV.
usage: python3 turns.py SASS.txt
"""
import re
import sys

cur = arch = None
ins = {}
for line in open(sys.argv[1]):
    if 'arch = ' in line:
        arch = line.split('arch = ')[1].strip()
    m = re.search(r'Function : (\S+)', line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+([^;]*);', line)
    if m and cur and arch == 'sm_90a' and 'hopper_attention' in cur:
        ins.setdefault(cur, []).append((int(m.group(1), 16), m.group(2).strip()))
for k, v in sorted(ins.items()):
    name = re.search(r'hopper_attentionI(\w+?)EEv', k).group(1)
    for a, t in v:
        m = re.search(r'BRA (?:`\(\.L_x_\d+\) )?0x([0-9a-f]+)', t)
        if not m or int(m.group(1), 16) >= a:
            continue
        body = [x for x in v if int(m.group(1), 16) <= x[0] <= a]
        if sum('HGMMA' in x[1] for x in body) < 8 or len(body) > 1400:
            continue
        turns, s, first = [], None, None
        for j, (_, tt) in enumerate(body):
            if 'BAR.SYNC' in tt and 'BAR.SYNC.DEFER_BLOCKING 0x0 ' not in tt:
                s, first = j, None
            if s is not None and first is None and 'HGMMA' in tt:
                first = j - s
            if 'BAR.ARV' in tt and s is not None:
                turns.append((first, j - s))
                s = None
        cnt = lambda w: sum(w in x[1] for x in body)
        print(f"{name:42s} n={len(body):5d} R2UR={cnt('R2UR'):3d} STL={cnt('STL')} LDL={cnt('LDL')} "
              f"turns(first HGMMA, BAR.ARV)={turns}")
