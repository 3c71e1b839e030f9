/* test_rng_half.c: the generator against an independent transcription of
 * splitmix64/xoshiro256** (harness/tests/core/stats_expected.py), rng_below's lack of
 * modulo bias, and the fp16 conversion: every half pattern, every rounding midpoint,
 * and (where the compiler has _Float16) the compiler's own conversion. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/half.h"
#include "core/rng.h"

static void splitmix_seeding_gives_known_stream(void **st)
{
    (void)st;
    /* from stats_expected.py; the first splitmix64 word of seed 0 is the published
     * 0xe220a8397b1dcdaf, which the script checks */
    rng_state r;
    rng_seed(&r, 0);
    assert_true(r.s[0] == 0xe220a8397b1dcdafull);
    assert_true(r.s[1] == 0x6e789e6aa1b965f4ull);
    assert_true(r.s[2] == 0x06c45d188009454full);
    assert_true(r.s[3] == 0xf88bb8a8724c81ecull);
    assert_true(rng_next(&r) == 0x99ec5f36cb75f2b4ull);
    assert_true(rng_next(&r) == 0xbf6e1f784956452aull);
    assert_true(rng_next(&r) == 0x1a5f849d4933e6e0ull);
    rng_seed(&r, 1234);
    assert_true(rng_next(&r) == 0x0bab45d9a0e3ae53ull);
    assert_true(rng_next(&r) == 0xd7c640660c19433eull);
    assert_true(rng_next(&r) == 0xb0dedaa0d09a6691ull);
}

static void uniform_is_top_53_bits(void **st)
{
    (void)st;
    rng_state a, b;
    rng_seed(&a, 99);
    rng_seed(&b, 99);
    double sum = 0;
    for (int i = 0; i < 100000; i++) {
        double u = rng_uniform(&a);
        assert_true(u == (double)(rng_next(&b) >> 11) / 9007199254740992.0);
        assert_true(u >= 0 && u < 1);
        sum += u;
    }
    assert_true(fabs(sum / 100000 - 0.5) < 0.005);
}

static void below_is_in_range_and_unbiased(void **st)
{
    (void)st;
    rng_state r;
    rng_seed(&r, 7);
    assert_true(rng_below(&r, 1) == 0);
    int counts[3] = { 0 };
    for (int i = 0; i < 300000; i++) {
        uint64_t x = rng_below(&r, 3);
        assert_true(x < 3);
        counts[x]++;
    }
    for (int i = 0; i < 3; i++) assert_true(abs(counts[i] - 100000) < 1500);
    /* n about 2/3 of 2^64: plain x % n would put 2/3 of the draws below n/2 */
    const uint64_t n = 0xAAAAAAAAAAAAAAAAull;
    int low = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t x = rng_below(&r, n);
        assert_true(x < n);
        low += x < n / 2;
    }
    assert_true(abs(low - 50000) < 1000);
}

/* A prepared bound draws what rng_below draws, draw for draw from the same state, and its
 * division is x % n for every x, the extremes and the multiples of n included. */
static void prepared_bound_draws_as_below(void **st)
{
    (void)st;
    static const uint64_t ns[] = { 0, 1, 2, 3, 7, 64, 100, 125, 132, 199, 200, 201, 1000, 2000, 10000,
                                   65535, 65536, 65537, 0x7fffffffull, 0x80000000ull, 0xfffffffbull,
                                   0xffffffffull, 0x100000000ull, 0x100000001ull, 0x5555555555555555ull,
                                   0x8000000000000000ull, 0x8000000000000001ull, 0xAAAAAAAAAAAAAAAAull,
                                   0xfffffffffffffffeull, 0xffffffffffffffffull };
    rng_state a, b, w;
    rng_seed(&w, 17);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint64_t n = ns[k];
        rng_range g;
        rng_range_init(&g, n);
        rng_seed(&a, 100 + k);
        rng_seed(&b, 100 + k);
        for (int i = 0; i < 20000; i++) assert_true(rng_range_below(&a, &g) == rng_below(&b, n));
        assert_memory_equal(&a, &b, sizeof a);
        if (n == 0) continue;
        const uint64_t m = UINT64_MAX / n * n;   /* the largest multiple of n */
        const uint64_t xs[] = { 0, 1, n - 1, n, n + 1, 2 * n - 1, m - 1, m, UINT64_MAX - 1, UINT64_MAX };
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) assert_true(rng_range_mod(&g, xs[i]) == xs[i] % n);
        for (int i = 0; i < 20000; i++) {
            uint64_t x = rng_next(&w);
            assert_true(rng_range_mod(&g, x) == x % n);
        }
    }
    /* every n below 2^16 and a spread of larger ones */
    for (uint64_t n = 1; n < 100000; n += n < 70000 ? 1 : 997) {
        rng_range g;
        rng_range_init(&g, n);
        for (int i = 0; i < 20; i++) {
            uint64_t x = rng_next(&w);
            assert_true(rng_range_mod(&g, x) == x % n);
        }
        assert_true(rng_range_mod(&g, UINT64_MAX) == UINT64_MAX % n);
    }
}

static int is_nan_half(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

/* The value a half pattern stands for, from the definition of binary16. */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000u) ? -v : v;
}

static void every_half_round_trips(void **st)
{
    (void)st;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = half_to_float((uint16_t)h);
        uint16_t back = half_from_float(f);
        if (is_nan_half((uint16_t)h)) {
            assert_true(isnan(f));
            assert_true(is_nan_half(back));
            assert_int_equal(back & 0x8000u, h & 0x8000u);
            if (h & 0x200u) assert_int_equal(back, h);   /* quiet NaN: payload kept */
        } else {
            assert_true((double)f == half_value((uint16_t)h) ||
                        (isinf(f) && isinf(half_value((uint16_t)h))));
            assert_int_equal(signbit(f) != 0, (h & 0x8000u) != 0);
            assert_int_equal(back, h);
        }
    }
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void known_roundings(void **st)
{
    (void)st;
    assert_int_equal(half_from_float(1.0f), 0x3c00);
    assert_int_equal(half_from_float(-2.0f), 0xc000);
    assert_int_equal(half_from_float(-0.0f), 0x8000);
    assert_int_equal(half_from_float(1.0f + 0x1p-11f), 0x3c00);        /* tie: to even */
    assert_int_equal(half_from_float(1.0f + 3 * 0x1p-11f), 0x3c02);    /* tie: to even */
    assert_int_equal(half_from_float(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    assert_int_equal(half_from_float(65504.0f), 0x7bff);
    assert_int_equal(half_from_float(65519.99f), 0x7bff);
    assert_int_equal(half_from_float(65520.0f), 0x7c00);               /* overflow */
    assert_int_equal(half_from_float(1e10f), 0x7c00);
    assert_int_equal(half_from_float(-1e10f), 0xfc00);
    assert_int_equal(half_from_float(INFINITY), 0x7c00);
    assert_int_equal(half_from_float(-INFINITY), 0xfc00);
    assert_true(is_nan_half(half_from_float(NAN)));
    assert_true(is_nan_half(half_from_float(from_bits(0x7f800001u))));  /* payload in low bits */
    assert_int_equal(half_from_float(0x1p-24f), 0x0001);                /* smallest subnormal */
    assert_int_equal(half_from_float(0x1p-25f), 0x0000);                /* tie: to even zero */
    assert_int_equal(half_from_float(-0x1p-25f), 0x8000);
    assert_int_equal(half_from_float(0x1.8p-25f), 0x0001);
    assert_int_equal(half_from_float(3 * 0x1p-25f), 0x0002);            /* tie: to even */
    assert_int_equal(half_from_float(5 * 0x1p-25f), 0x0002);            /* tie: to even */
    assert_int_equal(half_from_float(1023 * 0x1p-24f), 0x03ff);         /* largest subnormal */
    assert_int_equal(half_from_float(1023.5f * 0x1p-24f), 0x0400);      /* tie: up to normal */
    assert_int_equal(half_from_float(0x1p-14f), 0x0400);
    assert_int_equal(half_from_float(from_bits(1)), 0x0000);            /* float subnormal */
    assert_true(half_to_float(HALF_POISON) != half_to_float(HALF_POISON));
}

/* Around every midpoint between neighbouring finite halves: the midpoint goes to the
 * even one, one float either side to the nearer one. */
static void every_midpoint_rounds_to_nearest_even(void **st)
{
    (void)st;
    for (uint32_t h = 0; h < 0x7bff; h++) {
        for (int sign = 0; sign < 2; sign++) {
            uint16_t lo = (uint16_t)(h | (sign ? 0x8000u : 0)), hi = (uint16_t)(lo + 1);
            double mid = (half_value(lo) + half_value(hi)) / 2;   /* exact in float */
            float m = (float)mid;
            assert_true((double)m == mid);
            uint16_t even = (lo & 1) ? hi : lo;
            assert_int_equal(half_from_float(m), even);
            float toward_lo = nextafterf(m, sign ? INFINITY : -INFINITY);
            float toward_hi = nextafterf(m, sign ? -INFINITY : INFINITY);
            assert_int_equal(half_from_float(toward_lo), lo);
            assert_int_equal(half_from_float(toward_hi), hi);
        }
    }
}

static void agrees_with_compiler_float16(void **st)
{
    (void)st;
#ifdef __FLT16_MAX__
    /* a stride through all 2^32 float patterns (a prime stride: every exponent and many
     * mantissa low bits), NaNs compared as NaN */
    for (uint64_t u = 0; u < (1ull << 32); u += 257) {
        float f = from_bits((uint32_t)u);
        _Float16 c = (_Float16)f;
        uint16_t cb;
        memcpy(&cb, &c, sizeof cb);
        uint16_t mine = half_from_float(f);
        if (isnan(f)) assert_true(is_nan_half(mine) && is_nan_half(cb));
        else if (mine != cb) fail_msg("float 0x%08x: 0x%04x, compiler 0x%04x", (unsigned)u, mine, cb);
    }
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splitmix_seeding_gives_known_stream),
        cmocka_unit_test(uniform_is_top_53_bits),
        cmocka_unit_test(below_is_in_range_and_unbiased),
        cmocka_unit_test(prepared_bound_draws_as_below),
        cmocka_unit_test(every_half_round_trips),
        cmocka_unit_test(known_roundings),
        cmocka_unit_test(every_midpoint_rounds_to_nearest_even),
        cmocka_unit_test(agrees_with_compiler_float16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
