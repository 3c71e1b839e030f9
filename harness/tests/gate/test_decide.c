/* test_decide.c: the ladder decision and the bootstrap of a change (gate/decide.h): the
 * bound is strict, the four-sample bootstrap to the bit on odd and even sizes, its median
 * against a sort, a change asked for again answered from the memo for the same inputs only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include "gate/decide.h"
#include "core/stats.h"

static void ladder_rule(void **st)
{
    (void)st;
    assert_true(gate_ladder_pass(0.94, 0.95));
    assert_false(gate_ladder_pass(0.95, 0.95));   /* strictly under */
    assert_false(gate_ladder_pass(0.0 / 0.0, 0.95));
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void change_bootstrap(void **st)
{
    (void)st;
    double p[41], b[41], p2[41];
    for (int i = 0; i < 41; i++) {
        p[i] = 20.0 + 0.2 * ((i * 7) % 41) / 41.0;
        b[i] = 10.0 + 0.1 * ((i * 11) % 41) / 41.0;
        p2[i] = 1.2 * p[i];
    }
    reg_change c;
    const ratio_samples sep = { p, 41, b, 41 }, sep2 = { p2, 41, b, 41 };
    assert_int_equal(gate_change_ci(&sep, &sep, 1000, 7, 0.95, &c), 0);
    assert_float_equal(c.change, 1.0, 1e-12);
    assert_true(c.lo < 1.0 && c.hi > 1.0 && c.hi - c.lo < 0.03);
    assert_int_equal(gate_change_ci(&sep2, &sep, 1000, 7, 0.95, &c), 0);
    assert_float_equal(c.change, 1.2, 1e-12);
    assert_true(c.lo > 1.17 && c.hi < 1.23);
    /* the point ratios agree with stats.h's median */
    assert_float_equal(c.now, stats_median(p2, 41) / stats_median(b, 41), 1e-12);
    /* same seed, same interval */
    reg_change d;
    assert_int_equal(gate_change_ci(&sep2, &sep, 1000, 7, 0.95, &d), 0);
    assert_memory_equal(&c, &d, sizeof c);
    /* to the bit, on odd and even sizes: the committed reports and the golden compare
     * tables are printed from these numbers, so a change to the resampling, the median or
     * the interval shows here first */
    const reg_change odd = { 0x1p+1, 0x1.ff018d92caa36p+0, 0x1.007fd5e9d42f8p+1,
                             0x1.3333333333333p+1, 0x1.3287bd0e16d0ep+1, 0x1.33df1e5b5b4b5p+1,
                             0x1.3333333333333p+0, 0x1.324e8b3553e0ep+0, 0x1.342ba25f1a0ebp+0 };
    assert_memory_equal(&c, &odd, sizeof c);
    assert_int_equal(gate_change_ci(&(ratio_samples){ p2, 40, b, 38 }, &(ratio_samples){ p, 39, b, 40 }, 500, 11,
                                    0.9, &d), 0);
    const reg_change even = { 0x1.fff0175dae67ep+0, 0x1.ff2184a5d7p+0, 0x1.00775ff692484p+1,
                              0x1.33201d39a6201p+1, 0x1.329a9aa0f585bp+1, 0x1.33b8fabca660cp+1,
                              0x1.3329a882576e6p+0, 0x1.326180cdafb47p+0, 0x1.33f2eb6005b02p+0 };
    assert_memory_equal(&d, &even, sizeof d);
    /* a rotation's ratio is its quotients' median (den NULL), alone or beside one of
     * separate medians; its CI narrows with the quotients' own spread */
    const ratio_samples qs = { p, 41, NULL, 0 }, qs2 = { p2, 41, NULL, 0 };
    assert_int_equal(gate_change_ci(&qs2, &qs, 1000, 7, 0.95, &d), 0);
    assert_float_equal(d.now, stats_median(p2, 41), 1e-12);
    assert_float_equal(d.ref, stats_median(p, 41), 1e-12);
    assert_float_equal(d.change, 1.2, 1e-12);
    assert_true(d.lo > 1.18 && d.hi < 1.22);
    assert_int_equal(gate_change_ci(&qs, &sep, 1000, 7, 0.95, &d), 0);
    assert_float_equal(d.now, stats_median(p, 41), 1e-12);
    assert_float_equal(d.ref, stats_median(p, 41) / stats_median(b, 41), 1e-12);
    assert_float_equal(d.change, stats_median(b, 41), 1e-12);
    assert_int_equal(gate_change_ci(&(ratio_samples){ p, 0, NULL, 0 }, &qs, 1000, 7, 0.95, &c), -1);
    assert_int_equal(gate_change_ci(&(ratio_samples){ p, 0, b, 41 }, &sep, 1000, 7, 0.95, &c), -1);
    assert_int_equal(gate_change_ci(&sep, &sep, 1000, 7, 1.5, &c), -1);
}

/* A change asked for again is answered from the memo (core/memo.h) with what the bootstrap
 * gave, and only for the same inputs: a set's samples edited in the same buffer (either
 * run's, numerator or denominator), another seed, level or count of resamples, and the
 * same samples as quotients instead of separate medians each get their own bootstrap. */
static void repeated_change_is_the_same_and_only_for_the_same_inputs(void **st)
{
    (void)st;
    double p[41], b[41], q[41];
    for (int i = 0; i < 41; i++) {
        p[i] = 30.0 + 0.3 * ((i * 5) % 41) / 41.0;
        b[i] = 15.0 + 0.2 * ((i * 13) % 41) / 41.0;
        q[i] = 0.9 * p[i];
    }
    const ratio_samples now = { p, 41, b, 41 }, ref = { q, 41, NULL, 0 };
    reg_change first, c;
    assert_int_equal(gate_change_ci(&now, &ref, 700, 5, 0.95, &first), 0);
    for (int pass = 0; pass < 2; pass++) {   /* answered twice */
        assert_int_equal(gate_change_ci(&now, &ref, 700, 5, 0.95, &c), 0);
        assert_memory_equal(&c, &first, sizeof c);
    }
    double *const sets[] = { p, b, q };
    for (size_t s = 0; s < 3; s++) {   /* every sample of one set scaled, in place */
        double keep[41];
        memcpy(keep, sets[s], sizeof keep);
        for (int i = 0; i < 41; i++) sets[s][i] *= 1.25;
        assert_int_equal(gate_change_ci(&now, &ref, 700, 5, 0.95, &c), 0);
        assert_true(fabs(c.change / first.change - 1) > 0.1);
        memcpy(sets[s], keep, sizeof keep);
    }
    assert_int_equal(gate_change_ci(&now, &ref, 700, 5, 0.95, &c), 0);
    assert_memory_equal(&c, &first, sizeof c);   /* the same bytes again: the same answer */
    assert_int_equal(gate_change_ci(&now, &ref, 700, 6, 0.95, &c), 0);
    assert_true(c.change == first.change && (c.lo != first.lo || c.hi != first.hi));
    assert_int_equal(gate_change_ci(&now, &ref, 700, 5, 0.5, &c), 0);
    assert_true(c.lo > first.lo && c.hi < first.hi);
    assert_int_equal(gate_change_ci(&now, &ref, 701, 5, 0.95, &c), 0);
    assert_true(c.lo != first.lo || c.hi != first.hi);
    assert_int_equal(gate_change_ci(&(ratio_samples){ p, 41, NULL, 0 }, &ref, 700, 5, 0.95, &c), 0);
    assert_true(fabs(c.now - stats_median(p, 41)) < 1e-12);
}

/* The gate's median against a sort, on even and odd sizes with ties. */
static void median_matches_sort(void **st)
{
    (void)st;
    unsigned seed = 1;
    for (size_t n = 1; n < 60; n++) {
        double x[64], y[64], one[1] = { 1.0 };
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            x[i] = (double)((seed >> 16) % 13);
            y[i] = x[i];
        }
        qsort(y, n, sizeof *y, cmp);
        double want = n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
        reg_change c;
        assert_int_equal(gate_change_ci(&(ratio_samples){ x, n, one, 1 }, &(ratio_samples){ one, 1, one, 1 }, 10, 1, 0.9,
                                        &c), 0);
        assert_float_equal(c.now, want, 1e-12);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ladder_rule),
        cmocka_unit_test(change_bootstrap),
        cmocka_unit_test(median_matches_sort),
        cmocka_unit_test(repeated_change_is_the_same_and_only_for_the_same_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
