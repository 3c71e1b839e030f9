#!/usr/bin/env python3
"""analyse.py: summarises one trace of rung 07's chained kernels (trace_driver.c output).

  python3 analyse.py trace.csv

Prints, in nanoseconds (the SM clock converted per block with the block's own global-timer
start and end): the spread of the blocks' start and end times, and per work item (median
over the blocks, warpgroup 0 and 1): the steps of the item (start to boundary), the wait at
the chained boundary (boundary reached to its MMAs issued: the next Q, K and V and the
turn), the stores after it, and when the producer issued the next item's first K and its Q,
relative to the consumer reaching the boundary. Measuring only (README.md, "The boundary
traced")."""
import statistics
import sys


def load(path):
    vals, note = {}, ''
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                note = line[1:].strip()
                continue
            if line.startswith('block'):
                continue
            b, i, s, v = line.strip().split(',')
            vals[(int(b), int(i), int(s))] = int(v)
    return note, vals


def med(xs):
    return statistics.median(xs) if xs else float('nan')


def main(argv):
    if len(argv) != 2:
        sys.stderr.write('usage: analyse.py trace.csv\n')
        return 2
    note, v = load(argv[1])
    blocks = sorted({b for (b, i, s) in v if i == 0 and s == 10})
    if not blocks:
        sys.stderr.write('analyse.py: no block start in %s (not a trace of a chained kernel?)\n' % argv[1])
        return 1
    print(note)
    g0 = min(v[(b, 0, 10)] for b in blocks)
    starts = [v[(b, 0, 10)] - g0 for b in blocks]
    ends = [v[(b, 0, 11)] - g0 for b in blocks if (b, 0, 11) in v]
    print('blocks %d; start offset ns min %d median %d max %d; end ns min %d median %d max %d (spread %.1f us)'
          % (len(blocks), min(starts), med(starts), max(starts), min(ends), med(ends), max(ends),
             (max(ends) - min(ends)) / 1000))
    rate = {}   # SM cycles per ns, per block
    for b in blocks:
        if (b, 0, 11) in v and (b, 0, 13) in v:
            rate[b] = (v[(b, 0, 13)] - v[(b, 0, 12)]) / max(1, v[(b, 0, 11)] - v[(b, 0, 10)])
    print('SM clock GHz: min %.3f median %.3f max %.3f' % (min(rate.values()), med(list(rate.values())), max(rate.values())))
    items = max(i for (b, i, s) in v) + 1
    ns = lambda b, c: c / rate[b]
    print('item  wg  steps_us  boundary_wait_us  stores_us  next_start_us  K_issue_us  Q_issue_us  (medians over blocks)')
    for c in range(items):
        for w in (0, 1):
            steps, wait, store, nxt, kis, qis = [], [], [], [], [], []
            for b in blocks:
                if b not in rate:
                    continue
                e = [v.get((b, c, 4 * w + k)) for k in range(4)]
                if e[0] and e[1]:
                    steps.append(ns(b, e[1] - e[0]))
                if e[1] and e[2]:
                    wait.append(ns(b, e[2] - e[1]))
                if e[2] and e[3]:
                    store.append(ns(b, e[3] - e[2]))
                n0 = v.get((b, c + 1, 4 * w))
                if e[3] and n0:
                    nxt.append(ns(b, n0 - e[3]))
                k1, q1 = v.get((b, c + 1, 9)), v.get((b, c + 1, 8))
                if e[1] and k1:
                    kis.append(ns(b, k1 - e[1]))
                if e[1] and q1:
                    qis.append(ns(b, q1 - e[1]))
            if steps or wait:
                print('%4d  %2d  %8.2f  %16.2f  %9.2f  %13.2f  %10.2f  %10.2f'
                      % (c, w, med(steps) / 1000, med(wait) / 1000, med(store) / 1000, med(nxt) / 1000,
                         med(kis) / 1000, med(qis) / 1000))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
