/* core/rng.h: a small seeded generator (splitmix64 seeding xoshiro256**).
 * Written here rather than taken from libc because every input and every bootstrap
 * resample must be bit-identical across machines and C libraries for a given seed. */
#ifndef ATTNLADDER_RNG_H
#define ATTNLADDER_RNG_H
#include <stdint.h>

typedef struct { uint64_t s[4]; } rng_state;

void rng_seed(rng_state *r, uint64_t seed);

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256**; here so that a loop of draws (a bootstrap's) inlines it */
static inline uint64_t rng_next(rng_state *r)
{
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* uniform double in [0, 1) with 53 random bits */
double rng_uniform(rng_state *r);
/* uniform integer in [0, n), n > 0, without modulo bias */
uint64_t rng_below(rng_state *r, uint64_t n);

/* A bound prepared for many draws below it (a bootstrap makes millions below the same
 * n): rng_below's rejection threshold and its division by n are done once, the remainder
 * then by a multiply and shifts (Granlund and Montgomery, "Division by invariant integers
 * using multiplication", 1994, figure 4.1: exact for every 64-bit x), about twice as
 * fast as the divisions. rng_range_below(r, g) draws exactly what rng_below(r, n) would
 * from the same state, and leaves the same state. */
typedef struct {
    uint64_t n, threshold, magic;
    unsigned shift1, shift2;
} rng_range;

void rng_range_init(rng_range *g, uint64_t n);

__extension__ typedef unsigned __int128 rng_u128;

/* x % g->n, for n >= 1 */
static inline uint64_t rng_range_mod(const rng_range *g, uint64_t x)
{
    uint64_t t1 = (uint64_t)(((rng_u128)g->magic * x) >> 64);
    uint64_t q = (t1 + ((x - t1) >> g->shift1)) >> g->shift2;
    return x - q * g->n;
}

static inline uint64_t rng_range_below(rng_state *r, const rng_range *g)
{
    if (g->n <= 1) return 0;
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= g->threshold) return rng_range_mod(g, x);
    }
}

#endif
