/* test_drift_spread.c: the tolerance of a comparison of two runs (the drift rule's, from
 * the accepted set's spread; gate/drift_spread.h) on synthetic numbers, and the drift
 * rule's verdict with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include "gate/config.h"
#include "gate/drift.h"
#include "gate/drift_spread.h"

/* The tolerance of a compared row: the accepted set's spread at the row, at least the
 * spread pooled at its shape, at least the floor; the floor alone when the set is too
 * small or absent. Then the drift rule decides on the run's ratio CI against the
 * reference's ratio x (1 + tol). */
static void pair_rule_tolerance(void **st)
{
    (void)st;
    drift_params p = { .k_sigma = 4.0, .floor = 0.05, .min_runs = 3, .floor_paired = 0.05 };
    attn_shape h = { 1, 8, 512, 512, 64, 0, 0 }, t = { 4, 16, 4096, 4096, 128, 0, 0 };
    attn_shape other = { 2, 8, 1000, 1000, 64, 0, 0 };
    spread_row rows[2] = {
        { "06_tiling", h, { 5, 0.65, 0.004, 0, 0 }, 0.003, 0 },
        { "06_tiling", t, { 5, 1.30, 0.06, 0, 0 }, 0.05, 0 },
    };
    drift_spread s = { .rows = rows, .n = 2, .n_runs = 5, .measured = 1, .params = p };
    drift_ref r;
    /* a quiet row: the floor */
    drift_spread_ref(&s, &p, "06_tiling", &h, 0.70, &r);
    assert_float_equal(r.center, 0.70, 0);
    assert_float_equal(r.tol, 0.05, 1e-12);
    assert_int_equal(r.k, 5);
    /* a noisy row: exp(4 x 0.06) - 1 */
    drift_spread_ref(&s, &p, "06_tiling", &t, 1.0, &r);
    assert_float_equal(r.tol, expm1(0.24), 1e-12);
    assert_int_equal(drift_decide(&r, 1.30, 1.29, 1.31), DRIFT_SLOWER);
    assert_int_equal(drift_decide(&r, 1.20, 1.19, 1.21), DRIFT_WITHIN);
    assert_int_equal(drift_decide(&r, 1.30, 1.25, 1.35), DRIFT_UNSURE);
    assert_int_equal(drift_decide(&r, 0.75, 0.74, 0.76), DRIFT_FASTER);
    /* a phase the set has no ratio for takes the pooled spread at the shape */
    drift_spread_ref(&s, &p, "07_new", &t, 1.0, &r);
    assert_float_equal(r.tol, expm1(4 * 0.05), 1e-12);
    assert_int_equal(r.k, 0);
    /* a shape the set never timed, a set too small, no set: the floor alone */
    drift_spread_ref(&s, &p, "06_tiling", &other, 1.0, &r);
    assert_float_equal(r.tol, 0.05, 1e-12);
    s.measured = 0;
    drift_spread_ref(&s, &p, "06_tiling", &t, 1.0, &r);
    assert_float_equal(r.tol, 0.05, 1e-12);
    drift_spread_ref(NULL, &p, "06_tiling", &t, 1.0, &r);
    assert_float_equal(r.tol, 0.05, 1e-12);
    assert_string_equal(drift_verdict_name(DRIFT_SLOWER), "slower");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pair_rule_tolerance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
