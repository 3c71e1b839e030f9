"""Expected values for test_rng_half.c and test_stats.c, computed independently of the
C code: splitmix64 and xoshiro256** transcribed from their published definitions, and
each bootstrap resample drawn as values and sorted (the C code counts indices instead).
Run: python3 harness/tests/core/stats_expected.py"""
M = (1 << 64) - 1


def splitmix(x):
    x = (x + 0x9e3779b97f4a7c15) & M
    z = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return x, z ^ (z >> 31)


def rotl(v, k):
    return ((v << k) | (v >> (64 - k))) & M


class Rng:
    def __init__(self, seed):
        self.s, x = [], seed
        for _ in range(4):
            x, z = splitmix(x)
            self.s.append(z)

    def next(self):
        s = self.s
        res = (rotl((s[1] * 5) & M, 7) * 9) & M
        t = (s[1] << 17) & M
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
        s[3] = rotl(s[3], 45)
        return res

    def below(self, n):
        if n <= 1:
            return 0
        threshold = ((1 << 64) - n) % n
        while True:
            x = self.next()
            if x >= threshold:
                return x % n


def pct(s, p):   # Hyndman-Fan type 7 on a sorted list
    n = len(s)
    if n == 1 or p <= 0:
        return s[0]
    if p >= 1:
        return s[-1]
    h = (n - 1) * p
    lo = int(h)
    return s[-1] if lo >= n - 1 else s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def med(xs):
    return pct(sorted(xs), 0.5)


def boot(x, resamples, seed, conf):
    s, r = sorted(x), Rng(seed)
    meds = sorted(med([s[r.below(len(s))] for _ in s]) for _ in range(resamples))
    return pct(meds, (1 - conf) / 2), pct(meds, (1 + conf) / 2)


def ratio(a, b, resamples, seed, conf):
    sa, sb, r, meds = sorted(a), sorted(b), Rng(seed), []
    for _ in range(resamples):
        ma = med([sa[r.below(len(sa))] for _ in sa])   # a's draws first, then b's
        mb = med([sb[r.below(len(sb))] for _ in sb])
        meds.append(ma / mb)
    meds.sort()
    return med(a) / med(b), pct(meds, (1 - conf) / 2), pct(meds, (1 + conf) / 2)


assert splitmix(0)[1] == 0xe220a8397b1dcdaf   # the published first word for seed 0
for seed in (0, 1234):
    r = Rng(seed)
    print("seed %d:" % seed, " ".join("0x%016x" % r.next() for _ in range(3)))
X = [10.0, 12.5, 11.0, 13.25, 9.5, 10.75, 12.0, 11.5, 14.0, 10.25]
Y = [20.0, 21.5, 19.0, 22.25, 20.5, 23.0, 18.75]
print("boot X 1000 42 0.90: %.17g %.17g" % boot(X, 1000, 42, 0.90))
print("boot Y 999 5 0.95: %.17g %.17g" % boot(Y, 999, 5, 0.95))
print("ratio X/Y 500 7 0.95: %.17g %.17g %.17g" % ratio(X, Y, 500, 7, 0.95))
