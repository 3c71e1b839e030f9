/* core/rng.c: splitmix64 expands the 64-bit seed into xoshiro256**'s 256-bit state
 * (the seeding its authors recommend: no all-zero state, nearby seeds decorrelated). */
#include "core/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rng_seed(rng_state *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

uint64_t rng_next(rng_state *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(rng_state *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Rejection: draws below 2^64 mod n would make the low residues more likely, so they
 * are redrawn (at most half the range, so fewer than two draws on average). */
uint64_t rng_below(rng_state *r, uint64_t n)
{
    if (n <= 1) return 0;
    uint64_t threshold = (0 - n) % n;
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= threshold) return x % n;
    }
}
