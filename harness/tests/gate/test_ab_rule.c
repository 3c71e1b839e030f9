/* test_ab_rule.c: the A/B decision on paired samples: unchanged pairs, a slowdown past the
 * tolerance, one inside it, and the cases that tell the rule apart from weaker ones (the
 * point estimate alone, the CI's other end). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include "core/rng.h"
#include "gate/ab_rule.h"

#define N 60

/* base ~ 10 us with drift shared by the pair, head = base * factor * (1 + noise) */
static void pairs(double factor, double noise, uint64_t seed, double *base, double *head)
{
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < N; i++) {
        double drift = 1.0 + 0.05 * rng_uniform(&r);   /* a clock change: both see it */
        base[i] = 10.0 * drift * (1.0 + noise * (rng_uniform(&r) - 0.5));
        head[i] = 10.0 * drift * factor * (1.0 + noise * (rng_uniform(&r) - 0.5));
    }
}

static ab_verdict verdict_of(double factor, double noise, uint64_t seed, double tol, ab_change *c)
{
    double base[N], head[N];
    pairs(factor, noise, seed, base, head);
    assert_int_equal(ab_change_ci(base, head, N, 2000, 7, 0.95, c), 0);
    return ab_decide(c, tol);
}

static void same_build_is_unchanged_despite_drift(void **st)
{
    (void)st;
    ab_change c;
    for (uint64_t s = 1; s <= 20; s++) {
        assert_int_equal(verdict_of(1.0, 0.004, s, 0.01, &c), AB_UNCHANGED);
        assert_true(fabs(c.change - 1.0) < 0.003);
    }
}

static void two_percent_slower_is_regressed(void **st)
{
    (void)st;
    ab_change c;
    for (uint64_t s = 1; s <= 20; s++) {
        assert_int_equal(verdict_of(1.02, 0.004, s, 0.01, &c), AB_REGRESSED);
        assert_true(c.lo > 1.01 && c.change > 1.015 && c.change < 1.025);
    }
    assert_int_equal(verdict_of(1.0 / 1.02, 0.004, 3, 0.01, &c), AB_IMPROVED);
}

static void inside_the_tolerance_never_blocks(void **st)
{
    (void)st;
    ab_change c;
    for (uint64_t s = 1; s <= 20; s++) assert_int_not_equal(verdict_of(1.005, 0.004, s, 0.01, &c), AB_REGRESSED);
}

/* The rule reads the CI's lower end: a median past the tolerance with a CI that is not
 * (noisy pairs) is inconclusive, which a point-estimate rule would call regressed; a CI
 * whose upper end alone crosses the tolerance is unchanged, which an upper-end rule would
 * block. */
static void the_lower_end_decides(void **st)
{
    (void)st;
    ab_change wide = { 1.015, 1.004, 1.026 };
    assert_int_equal(ab_decide(&wide, 0.01), AB_INCONCLUSIVE);
    ab_change upper_only = { 1.004, 0.998, 1.012 };
    assert_int_equal(ab_decide(&upper_only, 0.01), AB_UNCHANGED);
    ab_change clear = { 1.02, 1.011, 1.03 };
    assert_int_equal(ab_decide(&clear, 0.01), AB_REGRESSED);
    ab_change at_edge = { 1.02, 1.01, 1.03 };                /* lo == 1 + tol: not clear of it */
    assert_int_equal(ab_decide(&at_edge, 0.01), AB_INCONCLUSIVE);
    assert_string_equal(ab_verdict_name(AB_REGRESSED), "regressed");
}

static void bad_input_refused(void **st)
{
    (void)st;
    double a[2] = { 1, 2 }, b[2] = { 1, 0 };
    ab_change c;
    assert_int_equal(ab_change_ci(a, b, 2, 100, 1, 0.95, &c), -1);
    assert_int_equal(ab_change_ci(a, a, 0, 100, 1, 0.95, &c), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_build_is_unchanged_despite_drift),
        cmocka_unit_test(two_percent_slower_is_regressed),
        cmocka_unit_test(inside_the_tolerance_never_blocks),
        cmocka_unit_test(the_lower_end_decides),
        cmocka_unit_test(bad_input_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
