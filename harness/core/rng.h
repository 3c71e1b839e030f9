/* core/rng.h: a small seeded generator (splitmix64 seeding xoshiro256**).
 * Written here rather than taken from libc because every input and every bootstrap
 * resample must be bit-identical across machines and C libraries for a given seed. */
#ifndef ATTNLADDER_RNG_H
#define ATTNLADDER_RNG_H
#include <stdint.h>

typedef struct { uint64_t s[4]; } rng_state;

void rng_seed(rng_state *r, uint64_t seed);
uint64_t rng_next(rng_state *r);
/* uniform double in [0, 1) with 53 random bits */
double rng_uniform(rng_state *r);
/* uniform integer in [0, n), n > 0, without modulo bias */
uint64_t rng_below(rng_state *r, uint64_t n);

#endif
