/* test_rotation.c: the rotation's loop (measure/rotation.h) against a fake GPU whose
 * clock drifts by up to 40% over the rounds: ratios of planted speeds come back within a
 * fraction of a percent where timing one implementation after another would carry the
 * drift; every implementation runs once a round, in drawn orders; the stop rule, the
 * limits and a failing replay. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"
#include "core/stats.h"
#include "measure/rotation.h"

/* A GPU whose clock moves slowly (a slow sine plus steps) and whose replays also carry
 * 1% of independent noise. Implementation i takes speed[i] us at the nominal clock. */
typedef struct {
    const double *speed;
    size_t k, calls, fail_at;      /* fail_at: the replay that fails (0: none) */
    size_t *seen;                  /* replays per implementation */
    size_t round_calls;            /* replays in the current round */
    double clock;                  /* the current slowdown factor */
    rng_state rng;
    int last_alt[8];
} fake_gpu;

static int fake_replay(void *ctx, size_t impl, int alt, double *us, char *err, size_t errlen)
{
    fake_gpu *g = ctx;
    g->calls++;
    if (g->fail_at && g->calls == g->fail_at) {
        snprintf(err, errlen, "fake replay failed");
        return -1;
    }
    /* the clock moves between replays: a drift of up to 40% across a run */
    double t = (double)g->calls / 50.0;
    g->clock = 1.0 + 0.2 * sin(t) + 0.2 * (((g->calls / 97) & 1) ? 1 : 0);
    double noise = 1.0 + 0.01 * (rng_uniform(&g->rng) - 0.5);
    *us = g->speed[impl] * g->clock * noise;
    g->seen[impl]++;
    g->last_alt[impl] = alt;
    return 0;
}

static rotation_rule rule_default(void)
{
    return (rotation_rule){ .min_rounds = 20, .max_rounds = 400, .min_gpu_s = 0, .max_seconds = 30,
                            .rel_ci_target = 0.01, .check_every = 5, .resamples = 500, .ci_level = 0.95,
                            .seed = 7, .alt_sets = 1 };
}

static double ratio_of(const rotation_result *r, size_t i)
{
    double *a = NULL, *b = NULL;
    unsigned char *f = NULL;
    assert_int_equal(rotation_pairs(r, i, &a, &b, &f), 0);
    double q, lo, hi;
    assert_int_equal(stats_paired_ratio_ci(a, b, r->n, 500, 1, 0.95, &q, &lo, &hi), 0);
    free(a);
    free(b);
    free(f);
    return q;
}

/* The same code twice (impl 1 and 2 at the baseline's speed) and planted slowdowns of 3%
 * and 10%: each ratio within 0.5% of what was planted, under a 40% clock drift. */
static void ratios_survive_a_drifting_clock(void **st)
{
    (void)st;
    const double speed[] = { 100.0, 100.0, 100.0, 103.0, 110.0 };
    size_t seen[5] = { 0 };
    fake_gpu g = { .speed = speed, .k = 5, .seen = seen };
    rng_seed(&g.rng, 3);
    rotation_rule rule = rule_default();
    rotation_result r;
    char err[128] = "";
    assert_int_equal(rotation_run(5, 0, fake_replay, &g, &rule, &r, err, sizeof err), 0);
    assert_true(r.n >= rule.min_rounds);
    assert_true(fabs(ratio_of(&r, 1) - 1.00) < 0.005);
    assert_true(fabs(ratio_of(&r, 2) - 1.00) < 0.005);
    assert_true(fabs(ratio_of(&r, 3) - 1.03) < 0.005);
    assert_true(fabs(ratio_of(&r, 4) - 1.10) < 0.005);
    /* the two copies of the same code agree far better than the drift */
    assert_true(fabs(ratio_of(&r, 1) / ratio_of(&r, 2) - 1) < 0.005);
    rotation_result_free(&r);
}

/* Every implementation exactly once a round, its place a permutation; the orders vary
 * between rounds, every implementation is sometimes first and sometimes last, and both
 * buffer sets are used. */
static void each_round_is_a_permutation(void **st)
{
    (void)st;
    const double speed[] = { 10.0, 20.0, 30.0, 40.0 };
    size_t seen[4] = { 0 };
    fake_gpu g = { .speed = speed, .k = 4, .seen = seen };
    rng_seed(&g.rng, 5);
    rotation_rule rule = rule_default();
    rule.min_rounds = rule.max_rounds = 60;
    rotation_result r;
    char err[128];
    assert_int_equal(rotation_run(4, 2, fake_replay, &g, &rule, &r, err, sizeof err), 0);
    assert_int_equal(r.n, 60);
    assert_int_equal(r.k, 4);
    assert_int_equal(r.base, 2);
    size_t first[4] = { 0 }, last[4] = { 0 }, alt1 = 0, orders_differ = 0;
    for (size_t i = 0; i < 4; i++) assert_int_equal(seen[i], 60);
    for (size_t rd = 0; rd < r.n; rd++) {
        unsigned mask = 0;
        for (size_t i = 0; i < 4; i++) {
            unsigned p = r.pos[rd * 4 + i];
            assert_true(p < 4);
            mask |= 1u << p;
            first[i] += p == 0;
            last[i] += p == 3;
            alt1 += r.alt[rd * 4 + i];
            /* the times are the ones the replays returned: speed times the clock */
            assert_true(r.us[rd * 4 + i] > speed[i] * 0.7 && r.us[rd * 4 + i] < speed[i] * 1.5);
        }
        assert_int_equal(mask, 0xf);
        if (rd && memcmp(&r.pos[rd * 4], &r.pos[(rd - 1) * 4], 4)) orders_differ++;
    }
    for (size_t i = 0; i < 4; i++) {
        assert_true(first[i] > 0);
        assert_true(last[i] > 0);
    }
    assert_true(orders_differ > 30);
    assert_true(alt1 > 60 && alt1 < 180);
    /* the pairs say whether the implementation ran before the baseline */
    double *a, *b;
    unsigned char *f;
    assert_int_equal(rotation_pairs(&r, 0, &a, &b, &f), 0);
    for (size_t rd = 0; rd < r.n; rd++) {
        assert_true(a[rd] == r.us[rd * 4 + 0]);
        assert_true(b[rd] == r.us[rd * 4 + 2]);
        assert_int_equal(f[rd], r.pos[rd * 4 + 0] < r.pos[rd * 4 + 2]);
    }
    free(a);
    free(b);
    free(f);
    rotation_result_free(&r);
}

/* The same seed draws the same orders. */
static void orders_come_from_the_seed(void **st)
{
    (void)st;
    const double speed[] = { 10.0, 20.0, 30.0 };
    rotation_result r1, r2;
    char err[128];
    for (int t = 0; t < 2; t++) {
        size_t seen[3] = { 0 };
        fake_gpu g = { .speed = speed, .k = 3, .seen = seen };
        rng_seed(&g.rng, 5);
        rotation_rule rule = rule_default();
        rule.min_rounds = rule.max_rounds = 40;
        assert_int_equal(rotation_run(3, 0, fake_replay, &g, &rule, t ? &r2 : &r1, err, sizeof err), 0);
    }
    assert_memory_equal(r1.pos, r2.pos, 40 * 3);
    assert_memory_equal(r1.alt, r2.alt, 40 * 3);
    rotation_result_free(&r1);
    rotation_result_free(&r2);
}

/* Without a second buffer set every replay uses the first. */
static void one_buffer_set(void **st)
{
    (void)st;
    const double speed[] = { 10.0, 20.0 };
    size_t seen[2] = { 0 };
    fake_gpu g = { .speed = speed, .k = 2, .seen = seen };
    rng_seed(&g.rng, 5);
    rotation_rule rule = rule_default();
    rule.alt_sets = 0;
    rule.min_rounds = rule.max_rounds = 30;
    rotation_result r;
    char err[128];
    assert_int_equal(rotation_run(2, 0, fake_replay, &g, &rule, &r, err, sizeof err), 0);
    for (size_t i = 0; i < r.n * 2; i++) assert_int_equal(r.alt[i], 0);
    rotation_result_free(&r);
}

/* The noise rule stops a quiet rotation early, after the minimum; a noisy one runs to
 * the round limit. */
static void stopping(void **st)
{
    (void)st;
    const double speed[] = { 100.0, 100.0 };
    size_t seen[2] = { 0 };
    fake_gpu g = { .speed = speed, .k = 2, .seen = seen };
    rng_seed(&g.rng, 9);
    rotation_rule rule = rule_default();
    rule.rel_ci_target = 0.02;
    rotation_result r;
    char err[128];
    assert_int_equal(rotation_run(2, 0, fake_replay, &g, &rule, &r, err, sizeof err), 0);
    assert_string_equal(r.stop, "noise");
    assert_true(r.n >= rule.min_rounds && r.n < 60);
    assert_true(rotation_widest_ci(&r, 500, 1, 0.95) <= 0.02);
    rotation_result_free(&r);

    /* an unreachable target: the round limit */
    rule.rel_ci_target = 1e-9;
    rule.max_rounds = 45;
    memset(seen, 0, sizeof seen);
    assert_int_equal(rotation_run(2, 0, fake_replay, &g, &rule, &r, err, sizeof err), 0);
    assert_string_equal(r.stop, "max_samples");
    assert_int_equal(r.n, 45);
    rotation_result_free(&r);

    /* the minimum GPU time holds the noise rule back */
    rule.rel_ci_target = 0.02;
    rule.max_rounds = 400;
    rule.min_gpu_s = 100 * 200 * 1e-6 * 1.5;   /* about 150 rounds of 200 us */
    assert_int_equal(rotation_run(2, 0, fake_replay, &g, &rule, &r, err, sizeof err), 0);
    assert_string_equal(r.stop, "noise");
    assert_true(r.gpu_s >= rule.min_gpu_s);
    assert_true(r.n > 100);
    rotation_result_free(&r);
}

/* A failed replay fails the rotation, names the cause and leaves nothing allocated. */
static void a_failed_replay(void **st)
{
    (void)st;
    const double speed[] = { 10.0, 20.0, 30.0 };
    size_t seen[3] = { 0 };
    fake_gpu g = { .speed = speed, .k = 3, .seen = seen, .fail_at = 17 };
    rng_seed(&g.rng, 5);
    rotation_rule rule = rule_default();
    rotation_result r;
    char err[128] = "";
    assert_int_equal(rotation_run(3, 0, fake_replay, &g, &rule, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "fake replay failed"));
    assert_null(r.us);
    assert_int_equal(r.n, 0);
}

/* k and base out of range are refused. */
static void bad_arguments(void **st)
{
    (void)st;
    rotation_rule rule = rule_default();
    rotation_result r;
    char err[128];
    assert_int_equal(rotation_run(1, 0, fake_replay, NULL, &rule, &r, err, sizeof err), -1);
    assert_int_equal(rotation_run(3, 3, fake_replay, NULL, &rule, &r, err, sizeof err), -1);
    assert_int_equal(rotation_run(300, 0, fake_replay, NULL, &rule, &r, err, sizeof err), -1);
    rule.min_rounds = 0;
    assert_int_equal(rotation_run(3, 0, fake_replay, NULL, &rule, &r, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ratios_survive_a_drifting_clock),
        cmocka_unit_test(each_round_is_a_permutation),
        cmocka_unit_test(orders_come_from_the_seed),
        cmocka_unit_test(one_buffer_set),
        cmocka_unit_test(stopping),
        cmocka_unit_test(a_failed_replay),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
