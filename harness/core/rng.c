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

void rng_seed(rng_state *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
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

void rng_range_init(rng_range *g, uint64_t n)
{
    g->n = n;
    g->threshold = n > 1 ? (0 - n) % n : 0;
    unsigned l = 0;   /* ceil(log2 n) */
    while (l < 64 && (UINT64_C(1) << l) < n) l++;
    g->shift1 = l < 1 ? l : 1;
    g->shift2 = l > 1 ? l - 1 : 0;
    /* m' = floor(2^64 (2^l - n) / n) + 1, below 2^64 since 2^l - n < n (2^l - n wraps to
     * 2^64 - n when l is 64) */
    uint64_t excess = (l < 64 ? UINT64_C(1) << l : 0) - n;
    g->magic = n ? (uint64_t)(((rng_u128)excess << 64) / n) + 1 : 0;
}
