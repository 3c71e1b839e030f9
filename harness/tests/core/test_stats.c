/* test_stats.c: percentiles on hand-computed sets, bootstrap intervals against an
 * independent computation (harness/tests/core/stats_expected.py) and against properties no
 * wrong implementation satisfies by accident, and every decision of the stop rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"
#include "core/stats.h"

static const double X[] = { 10.0, 12.5, 11.0, 13.25, 9.5, 10.75, 12.0, 11.5, 14.0, 10.25 };
static const double Y[] = { 20.0, 21.5, 19.0, 22.25, 20.5, 23.0, 18.75 };
#define NX (sizeof X / sizeof X[0])
#define NY (sizeof Y / sizeof Y[0])

static void percentiles_by_hand(void **st)
{
    (void)st;
    const double even[] = { 1, 2, 3, 4 };
    assert_true(stats_percentile_sorted(even, 4, 0.5) == 2.5);
    assert_true(fabs(stats_percentile_sorted(even, 4, 0.1) - 1.3) < 1e-15);
    assert_true(fabs(stats_percentile_sorted(even, 4, 0.9) - 3.7) < 1e-15);
    assert_true(stats_percentile_sorted(even, 4, 0.0) == 1);
    assert_true(stats_percentile_sorted(even, 4, 1.0) == 4);
    const double odd[] = { 1, 3, 7 };
    assert_true(stats_percentile_sorted(odd, 3, 0.5) == 3);
    assert_true(stats_percentile_sorted(odd, 3, 0.25) == 2);
    assert_true(stats_percentile_sorted(odd, 3, 0.75) == 5);
    const double one[] = { 42 };
    assert_true(stats_percentile_sorted(one, 1, 0.0) == 42);
    assert_true(stats_percentile_sorted(one, 1, 0.37) == 42);
    assert_true(stats_percentile_sorted(one, 1, 1.0) == 42);
}

static void median_leaves_input_alone(void **st)
{
    (void)st;
    double x[] = { 5, 1, 4, 2, 3 }, copy[5];
    memcpy(copy, x, sizeof x);
    assert_true(stats_median(x, 5) == 3);
    assert_memory_equal(x, copy, sizeof x);
    double y[] = { 9, 1, 4, 2 };
    assert_true(stats_median(y, 4) == 3);   /* (2 + 4) / 2 */
    double z[] = { 7.5 };
    assert_true(stats_median(z, 1) == 7.5);
    assert_true(stats_median(X, NX) == 11.25);
}

static void bootstrap_matches_independent_computation(void **st)
{
    (void)st;
    double lo, hi;
    assert_int_equal(stats_bootstrap_median_ci(X, NX, 1000, 42, 0.90, &lo, &hi), 0);
    assert_true(lo == 10.375 && hi == 12.5);
    assert_int_equal(stats_bootstrap_median_ci(Y, NY, 999, 5, 0.95, &lo, &hi), 0);
    assert_true(lo == 19 && hi == 22.25);
    double r;
    assert_int_equal(stats_ratio_ci(X, NX, Y, NY, 500, 7, 0.95, &r, &lo, &hi), 0);
    assert_true(fabs(r - 0.54878048780487809) < 1e-15);
    assert_true(fabs(lo - 0.48030207280080894) < 1e-15);
    assert_true(fabs(hi - 0.63157894736842102) < 1e-15);
}

/* Skewed, timing-like samples: 10 us times a lognormal-ish factor. */
static void timing_like(double *x, size_t n, uint64_t seed)
{
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        double u = rng_uniform(&r) + rng_uniform(&r) + rng_uniform(&r) - 1.5;
        x[i] = 10.0 * exp(0.1 * u);
    }
}

static void bootstrap_properties(void **st)
{
    (void)st;
    enum { BIG = 2000, SMALL = 20 };
    double *big = malloc(BIG * sizeof *big);
    assert_non_null(big);
    timing_like(big, BIG, 3);
    double lo_s, hi_s, lo_b, hi_b, lo2, hi2;
    assert_int_equal(stats_bootstrap_median_ci(big, SMALL, 2000, 11, 0.95, &lo_s, &hi_s), 0);
    assert_int_equal(stats_bootstrap_median_ci(big, BIG, 2000, 11, 0.95, &lo_b, &hi_b), 0);
    double m_s = stats_median(big, SMALL), m_b = stats_median(big, BIG);
    assert_true(lo_s <= m_s && m_s <= hi_s);
    assert_true(lo_b <= m_b && m_b <= hi_b);
    assert_true(lo_s < hi_s && lo_b < hi_b);
    assert_true((hi_b - lo_b) * 4 < hi_s - lo_s);        /* ~ 1/sqrt(n): 10x narrower */
    assert_int_equal(stats_bootstrap_median_ci(big, BIG, 2000, 11, 0.95, &lo2, &hi2), 0);
    assert_true(lo2 == lo_b && hi2 == hi_b);              /* same seed, same interval */
    assert_int_equal(stats_bootstrap_median_ci(big, BIG, 2000, 12, 0.95, &lo2, &hi2), 0);
    assert_true(lo2 != lo_b || hi2 != hi_b);              /* another seed, another one */
    assert_int_equal(stats_bootstrap_median_ci(big, BIG, 2000, 11, 0.50, &lo2, &hi2), 0);
    assert_true(lo2 >= lo_b && hi2 <= hi_b && hi2 - lo2 < hi_b - lo_b);   /* lower level */
    /* a constant sample has a zero-width interval at its value */
    double c[7] = { 3, 3, 3, 3, 3, 3, 3 };
    assert_int_equal(stats_bootstrap_median_ci(c, 7, 100, 1, 0.95, &lo2, &hi2), 0);
    assert_true(lo2 == 3 && hi2 == 3);
    free(big);
}

static void bad_arguments_refused(void **st)
{
    (void)st;
    double lo, hi, r;
    assert_int_equal(stats_bootstrap_median_ci(X, 0, 100, 1, 0.95, &lo, &hi), -1);
    assert_int_equal(stats_bootstrap_median_ci(X, NX, 0, 1, 0.95, &lo, &hi), -1);
    assert_int_equal(stats_bootstrap_median_ci(X, NX, 100, 1, 0.0, &lo, &hi), -1);
    assert_int_equal(stats_bootstrap_median_ci(X, NX, 100, 1, 1.0, &lo, &hi), -1);
    assert_int_equal(stats_bootstrap_median_ci(X, NX, 100, 1, NAN, &lo, &hi), -1);
    assert_int_equal(stats_ratio_ci(X, NX, Y, 0, 100, 1, 0.95, &r, &lo, &hi), -1);
    assert_int_equal(stats_ratio_ci(X, 0, Y, NY, 100, 1, 0.95, &r, &lo, &hi), -1);
    stats_summary s;
    assert_int_equal(stats_summarize(X, 0, 100, 1, 0.95, &s), -1);
}

static void ratio_properties(void **st)
{
    (void)st;
    enum { N = 200 };
    double a[N], b[N];
    timing_like(a, N, 21);
    double r, lo, hi;
    assert_int_equal(stats_ratio_ci(a, N, a, N, 1000, 5, 0.95, &r, &lo, &hi), 0);
    assert_true(r == 1.0);
    assert_true(lo < 1.0 && 1.0 < hi);                   /* independent resamples */
    assert_true(hi - lo < 0.1);
    for (int i = 0; i < N; i++) b[i] = a[i] * 1.1;
    assert_int_equal(stats_ratio_ci(b, N, a, N, 1000, 5, 0.95, &r, &lo, &hi), 0);
    assert_true(fabs(r - 1.1) < 1e-12);
    assert_true(lo < 1.1 && 1.1 < hi);
    assert_true(lo > 1.0);                               /* a clear 10% is resolved */
    assert_int_equal(stats_ratio_ci(a, N, b, N, 1000, 5, 0.95, &r, &lo, &hi), 0);
    assert_true(fabs(r - 1 / 1.1) < 1e-12 && hi < 1.0);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A percentile by selection is the percentile of the sorted values, bit for bit, at every
 * level a bootstrap interval asks for and at the ends, with ties, for every size. */
static void percentile_by_selection_is_the_sorted_one(void **st)
{
    (void)st;
    enum { N = 2003 };
    static double v[N], s[N], w[N];
    static const double ps[] = { 0, 1e-9, 0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.975,
                                 0.995, 1 - 1e-9, 1, -0.5, 1.5 };
    rng_state r;
    rng_seed(&r, 77);
    for (size_t n = 1; n <= N; n += n < 40 ? 1 : 97) {
        for (int ties = 0; ties < 2; ties++) {
            for (size_t i = 0; i < n; i++)
                v[i] = ties ? (double)(1 + rng_below(&r, 7)) : 10.0 * exp(0.3 * (rng_uniform(&r) - 0.5));
            memcpy(s, v, n * sizeof *s);
            qsort(s, n, sizeof *s, cmp_dbl);
            for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
                memcpy(w, v, n * sizeof *w);
                double want = stats_percentile_sorted(s, n, ps[k]);
                double got = stats_percentile_select(w, n, ps[k]);
                if (memcmp(&want, &got, sizeof want))
                    fail_msg("n %zu ties %d p %g: selection %.17g, sorted %.17g", n, ties, ps[k], got, want);
            }
        }
    }
}

/* A ratio asked for again is answered from the memo with what the bootstrap gives, and
 * only for the same inputs: the same buffer with one sample changed, another seed,
 * level or count of resamples each get their own bootstrap. */
static void repeated_ratio_is_the_same_and_only_for_the_same_inputs(void **st)
{
    (void)st;
    double x[NX], r, lo, hi, r2, lo2, hi2;
    memcpy(x, X, sizeof x);
    for (int pass = 0; pass < 3; pass++) {   /* computed, then answered twice */
        assert_int_equal(stats_ratio_ci(x, NX, Y, NY, 500, 7, 0.95, &r, &lo, &hi), 0);
        assert_true(fabs(r - 0.54878048780487809) < 1e-15);
        assert_true(fabs(lo - 0.48030207280080894) < 1e-15);
        assert_true(fabs(hi - 0.63157894736842102) < 1e-15);
    }
    x[4] = 12.25;   /* 9.5 -> 12.25: the median of x moves from 11.25 to 11.75 */
    assert_int_equal(stats_ratio_ci(x, NX, Y, NY, 500, 7, 0.95, &r2, &lo2, &hi2), 0);
    assert_true(fabs(r2 - 11.75 / 20.5) < 1e-15);
    x[4] = 9.5;
    assert_int_equal(stats_ratio_ci(x, NX, Y, NY, 500, 7, 0.95, &r2, &lo2, &hi2), 0);
    assert_true(r2 == r && lo2 == lo && hi2 == hi);
    assert_int_equal(stats_ratio_ci(x, NX, Y, NY, 500, 8, 0.95, &r2, &lo2, &hi2), 0);
    assert_true(r2 == r && (lo2 != lo || hi2 != hi));   /* another seed, other draws */
    assert_int_equal(stats_ratio_ci(x, NX, Y, NY, 500, 7, 0.5, &r2, &lo2, &hi2), 0);
    assert_true(lo2 > lo && hi2 < hi);
    assert_int_equal(stats_ratio_ci(x, NX, Y, NY, 501, 7, 0.95, &r2, &lo2, &hi2), 0);
    assert_true(lo2 != lo || hi2 != hi);
    assert_int_equal(stats_ratio_ci(x, NX - 1, Y, NY, 500, 7, 0.95, &r2, &lo2, &hi2), 0);
    assert_true(r2 != r);
}

/* The point ratio alone (no resampling: what the accepted set's spread reads) is the
 * ratio stats_ratio_ci reports, bit for bit, and is refused where it is refused. */
static void median_ratio_is_the_ci_point(void **st)
{
    (void)st;
    enum { N = 201 };
    double a[N], b[N], zero[5] = { 0, 0, 0, 1, 2 };
    timing_like(a, N, 31);
    timing_like(b, N, 32);
    double r, lo, hi, p;
    for (size_t na = 1; na <= N; na += 20)
        for (size_t nb = 1; nb <= N; nb += 25) {
            assert_int_equal(stats_ratio_ci(a, na, b, nb, 100, 3, 0.95, &r, &lo, &hi), 0);
            p = NAN;
            assert_int_equal(stats_median_ratio(a, na, b, nb, &p), 0);
            assert_true(p == r);
        }
    assert_int_equal(stats_median_ratio(X, NX, Y, NY, &p), 0);
    assert_true(fabs(p - 0.54878048780487809) < 1e-15);
    assert_int_equal(stats_median_ratio(X, 0, Y, NY, &p), -1);
    assert_int_equal(stats_median_ratio(X, NX, Y, 0, &p), -1);
    assert_int_equal(stats_ratio_ci(X, NX, zero, 5, 100, 3, 0.95, &r, &lo, &hi), -1);
    assert_int_equal(stats_median_ratio(X, NX, zero, 5, &p), -1);   /* b's median is 0 */
}

/* Paired samples: the median of the per-pair quotients, its CI resampling pairs. A
 * drift common to both sides (a clock step between pairs) cancels in every quotient,
 * so the CI is narrow where the independent ratio's is wide. */
static void paired_ratio_properties(void **st)
{
    (void)st;
    enum { N = 200 };
    double a[N], b[N];
    timing_like(a, N, 21);
    for (int i = 0; i < N; i++) {
        a[i] *= 1.0 + 0.3 * (i >= N / 2);            /* a 30% step shared by both sides */
        b[i] = a[i] * (1.05 + 0.001 * (i % 5));      /* quotients 1.050 .. 1.054, median 1.052 */
    }
    double r, lo, hi, ri, loi, hii;
    assert_int_equal(stats_paired_ratio_ci(b, a, N, 1000, 5, 0.95, &r, &lo, &hi), 0);
    assert_true(fabs(r - 1.052) < 1e-12);
    assert_true(lo >= 1.050 && hi <= 1.054 && lo <= r && r <= hi);
    assert_int_equal(stats_ratio_ci(b, N, a, N, 1000, 5, 0.95, &ri, &loi, &hii), 0);
    assert_true(hii - loi > 10 * (hi - lo));          /* the step widens the independent CI */
    /* the order of the arguments: numerator first */
    assert_int_equal(stats_paired_ratio_ci(a, b, N, 1000, 5, 0.95, &r, &lo, &hi), 0);
    assert_true(fabs(r - 1 / 1.052) < 1e-12);
    /* the point alone is the same median of quotients */
    double pm = 0;
    assert_int_equal(stats_paired_median(b, a, N, &pm), 0);
    assert_true(fabs(pm - 1.052) < 1e-12);
    /* a pair with a non-positive or non-finite time has no quotient */
    b[7] = 0;
    assert_int_equal(stats_paired_ratio_ci(b, a, N, 1000, 5, 0.95, &r, &lo, &hi), -1);
    assert_int_equal(stats_paired_median(b, a, N, &pm), -1);
    b[7] = NAN;
    assert_int_equal(stats_paired_ratio_ci(a, b, N, 1000, 5, 0.95, &r, &lo, &hi), -1);
    assert_int_equal(stats_paired_median(a, b, N, &pm), -1);
    assert_int_equal(stats_paired_ratio_ci(a, a, 0, 1000, 5, 0.95, &r, &lo, &hi), -1);
    assert_int_equal(stats_paired_median(a, a, 0, &pm), -1);
}

static void summary_fields(void **st)
{
    (void)st;
    stats_summary s;
    assert_int_equal(stats_summarize(X, NX, 1000, 42, 0.90, &s), 0);
    assert_int_equal(s.n, NX);
    assert_true(s.median == 11.25);
    assert_true(s.min == 9.5 && s.max == 14.0);
    assert_true(fabs(s.mean - 11.475) < 1e-12);
    /* sorted: 9.5 10 10.25 10.75 11 11.5 12 12.5 13.25 14; h = 0.9 and 8.1 */
    assert_true(fabs(s.p10 - 9.95) < 1e-12);
    assert_true(fabs(s.p90 - 13.325) < 1e-12);
    assert_true(s.ci_lo == 10.375 && s.ci_hi == 12.5);   /* as the bootstrap alone */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of one resample drawn as values from x as given and sorted (no counting). */
static double drawn_median(const double *x, size_t n, rng_state *r)
{
    double v[16];
    for (size_t i = 0; i < n; i++) v[i] = x[rng_below(r, n)];
    qsort(v, n, sizeof *v, cmp_double);
    return stats_percentile_sorted(v, n, 0.5);
}

static void medians_and_ratio(const double *m, double *out, void *ctx)
{
    (void)ctx;
    out[0] = m[0];
    out[1] = m[0] / m[1];
}

static void first_only(const double *m, double *out, void *ctx)
{
    (void)ctx;
    out[0] = m[0];
}

/* Several sets resampled in the order given, against resamples drawn as values. */
static void bootstrap_of_medians_resamples_as_given(void **st)
{
    (void)st;
    enum { R = 301 };
    const double *sets[2] = { X, Y };
    size_t n[2] = { NX, NY };
    stats_bootstrap_spec spec = { sets, n, 2, medians_and_ratio, 2, NULL };
    double point[2], lo[2], hi[2];
    assert_int_equal(stats_bootstrap_medians(&spec, R, 9, 0.9, point, lo, hi), 0);
    assert_true(point[0] == stats_median(X, NX));
    assert_true(point[1] == stats_median(X, NX) / stats_median(Y, NY));
    double med[R], ratio[R];
    rng_state r;
    rng_seed(&r, 9);
    for (size_t i = 0; i < R; i++) {
        med[i] = drawn_median(X, NX, &r);
        ratio[i] = med[i] / drawn_median(Y, NY, &r);
    }
    qsort(med, R, sizeof *med, cmp_double);
    qsort(ratio, R, sizeof *ratio, cmp_double);
    double p_lo = (1 - 0.9) / 2, p_hi = (1 + 0.9) / 2;
    assert_true(lo[0] == stats_percentile_sorted(med, R, p_lo));
    assert_true(hi[0] == stats_percentile_sorted(med, R, p_hi));
    assert_true(lo[1] == stats_percentile_sorted(ratio, R, p_lo));
    assert_true(hi[1] == stats_percentile_sorted(ratio, R, p_hi));
    /* the median CI draws its indices into the sorted sample (as stats_expected.py) */
    double sorted[NX], lo_s, hi_s;
    memcpy(sorted, X, sizeof X);
    qsort(sorted, NX, sizeof *sorted, cmp_double);
    assert_int_equal(stats_bootstrap_median_ci(X, NX, R, 9, 0.9, &lo_s, &hi_s), 0);
    const double *one[1] = { sorted };
    stats_bootstrap_spec sorted_spec = { one, n, 1, first_only, 1, NULL };
    assert_int_equal(stats_bootstrap_medians(&sorted_spec, R, 9, 0.9, NULL, lo, hi), 0);
    assert_true(lo[0] == lo_s && hi[0] == hi_s);   /* the median CI resamples the sorted copy */
}

static void bootstrap_of_medians_refuses_bad_arguments(void **st)
{
    (void)st;
    const double *sets[2] = { X, NULL };
    size_t n[2] = { NX, NY };
    double lo[2], hi[2];
    stats_bootstrap_spec s = { sets, n, 1, first_only, 1, NULL };
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 0.95, NULL, lo, hi), 0);
    assert_int_equal(stats_bootstrap_medians(NULL, 100, 1, 0.95, NULL, lo, hi), -1);
    assert_int_equal(stats_bootstrap_medians(&s, 0, 1, 0.95, NULL, lo, hi), -1);
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 1.0, NULL, lo, hi), -1);
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 0.95, NULL, NULL, hi), -1);
    s.k = 2;   /* a NULL set */
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 0.95, NULL, lo, hi), -1);
    s.k = 0;
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 0.95, NULL, lo, hi), -1);
    s.k = 1;
    s.n_values = 0;
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 0.95, NULL, lo, hi), -1);
    s.n_values = 1;
    s.statistic = NULL;
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 0.95, NULL, lo, hi), -1);
    s.statistic = first_only;
    n[0] = 0;
    assert_int_equal(stats_bootstrap_medians(&s, 100, 1, 0.95, NULL, lo, hi), -1);
}

static void stop_rule_decisions(void **st)
{
    (void)st;
    stop_rule rule = { .min_samples = 10, .max_samples = 50, .max_seconds = 1.0,
                       .rel_ci_target = 0.02 };
    double flat[60], noisy[60];
    for (int i = 0; i < 60; i++) {
        flat[i] = 10.0 + 0.001 * (i % 3);                 /* CI width ~1e-4 relative */
        noisy[i] = (i % 2) ? 10.0 : 20.0;                 /* median jumps 10..20 */
    }
    /* below min_samples: continue, unless out of time (a slow kernel) */
    assert_int_equal(stats_should_stop(flat, 5, 0.1, &rule, 1), STOP_CONTINUE);
    assert_int_equal(stats_should_stop(flat, 9, 0.1, &rule, 1), STOP_CONTINUE);
    assert_int_equal(stats_should_stop(flat, 5, 1.5, &rule, 1), STOP_MAX_TIME);
    /* quiet samples stop on noise as soon as min_samples is reached */
    assert_int_equal(stats_should_stop(flat, 10, 0.1, &rule, 1), STOP_NOISE);
    /* noise is checked before the sample cap and the clock */
    assert_int_equal(stats_should_stop(flat, 50, 5.0, &rule, 1), STOP_NOISE);
    /* noisy samples run on until the cap or the clock */
    assert_int_equal(stats_should_stop(noisy, 20, 0.1, &rule, 1), STOP_CONTINUE);
    assert_int_equal(stats_should_stop(noisy, 50, 0.1, &rule, 1), STOP_MAX_SAMPLES);
    assert_int_equal(stats_should_stop(noisy, 60, 0.1, &rule, 1), STOP_MAX_SAMPLES);
    assert_int_equal(stats_should_stop(noisy, 20, 1.0, &rule, 1), STOP_MAX_TIME);
    assert_int_equal(stats_should_stop(noisy, 50, 2.0, &rule, 1), STOP_MAX_SAMPLES);
    /* a looser target accepts the noisy set's interval */
    rule.rel_ci_target = 2.0;
    assert_int_equal(stats_should_stop(noisy, 20, 0.1, &rule, 1), STOP_NOISE);

    assert_string_equal(stop_reason_name(STOP_CONTINUE), "continue");
    assert_string_equal(stop_reason_name(STOP_NOISE), "noise");
    assert_string_equal(stop_reason_name(STOP_MAX_SAMPLES), "max_samples");
    assert_string_equal(stop_reason_name(STOP_MAX_TIME), "max_time");
}

/* The stop rule with a floor of timed GPU work (time_measure's): what the plain rule says,
 * but a noise stop before the floor is no stop, short of the sample and time limits. Its
 * decisions are that composition's at every sample count, GPU time and elapsed time, on
 * quiet and noisy samples; and before the floor, short of the limits, it decides without
 * reading the samples (the bootstrap each sample would take, thrown away, is not run). */
static void stop_rule_with_a_gpu_time_floor(void **st)
{
    (void)st;
    enum { N = 200 };
    double flat[N], noisy[N];
    rng_state g;
    rng_seed(&g, 11);
    for (int i = 0; i < N; i++) {
        flat[i] = 9.2 + (double)(rng_next(&g) % 100) / 10000.0;
        noisy[i] = (i % 2) ? 10.0 : 20.0;
    }
    stop_rule rule = { .min_samples = 10, .max_samples = N, .max_seconds = 1.0, .rel_ci_target = 0.02 };
    const double floor_s = 0.25, gpus[] = { 0.0, 0.1, 0.2499, 0.25, 0.9 }, els[] = { 0.0, 0.5, 0.9999, 1.0, 3.0 };
    const double *sets[] = { flat, noisy };
    size_t compared = 0, stops = 0;
    for (size_t s = 0; s < 2; s++)
        for (size_t n = 1; n <= N; n++)
            for (size_t gi = 0; gi < sizeof gpus / sizeof gpus[0]; gi++)
                for (size_t ei = 0; ei < sizeof els / sizeof els[0]; ei++) {
                    stop_reason want = stats_should_stop(sets[s], n, els[ei], &rule, 5 + n);
                    if (want == STOP_NOISE && gpus[gi] < floor_s && n < rule.max_samples && els[ei] < rule.max_seconds)
                        want = STOP_CONTINUE;
                    stop_reason got = stats_should_stop_after(sets[s], n, els[ei], gpus[gi], floor_s, &rule, 5 + n);
                    if (got != want)
                        fail_msg("set %zu, n %zu, gpu %.4f s, elapsed %.4f s: %s, expected %s", s, n, gpus[gi], els[ei],
                                 stop_reason_name(got), stop_reason_name(want));
                    compared++;
                    stops += got != STOP_CONTINUE;
                }
    assert_int_equal(compared, 2 * N * 25);
    assert_true(stops > 0 && stops < compared);
    /* before the floor and short of the limits: no sample is read */
    assert_int_equal(stats_should_stop_after(NULL, 150, 0.5, 0.2, floor_s, &rule, 1), STOP_CONTINUE);
    assert_int_equal(stats_should_stop_after(NULL, 3, 0.5, 0.2, floor_s, &rule, 1), STOP_CONTINUE);
}

/* A ratio through a bridge: impl/bridge paired in one process (a1, b1), bridge/baseline
 * paired in another (a2, b2). The point is the product of the two medians of quotients;
 * the CI resamples both sets of rounds, so it holds the product of the two point values,
 * is wider than either factor's relative CI alone, and equals, for a bridge exactly 1.0
 * in the run, the first rotation's own paired CI. */
static void bridged_ratio_is_the_product_of_two_paired_ratios(void **st)
{
    (void)st;
    enum { N1 = 41, N2 = 57 };
    double a1[N1], b1[N1], a2[N2], b2[N2];
    rng_state seed;
    rng_seed(&seed, 7);
    for (int i = 0; i < N1; i++) {
        b1[i] = 100.0 + (double)(rng_next(&seed) % 1000) / 100.0;      /* the bridge, PyTorch's process */
        a1[i] = b1[i] * (0.90 + (double)(rng_next(&seed) % 100) / 5000.0);
    }
    for (int i = 0; i < N2; i++) {
        b2[i] = 95.0 + (double)(rng_next(&seed) % 1000) / 100.0;       /* the run's baseline */
        a2[i] = b2[i] * (1.10 + (double)(rng_next(&seed) % 100) / 5000.0);
    }
    double r, lo, hi, r1, lo1, hi1, r2, lo2, hi2;
    assert_int_equal(stats_bridged_ratio_ci(a1, b1, N1, a2, b2, N2, 2000, 3, 0.95, &r, &lo, &hi), 0);
    assert_int_equal(stats_paired_ratio_ci(a1, b1, N1, 2000, 3, 0.95, &r1, &lo1, &hi1), 0);
    assert_int_equal(stats_paired_ratio_ci(a2, b2, N2, 2000, 3, 0.95, &r2, &lo2, &hi2), 0);
    assert_true(fabs((r) - (r1 * r2)) <= 1e-12);
    assert_true(lo <= r && r <= hi);
    assert_true((hi - lo) / r > (hi1 - lo1) / r1);
    assert_true((hi - lo) / r > (hi2 - lo2) / r2);
    assert_true(lo > lo1 * lo2 * 0.999 && hi < hi1 * hi2 * 1.001);
    /* a bridge that reads exactly 1.0 in the run leaves the first ratio as it is */
    double ones[N2];
    for (int i = 0; i < N2; i++) ones[i] = b2[i];
    assert_int_equal(stats_bridged_ratio_ci(a1, b1, N1, ones, b2, N2, 2000, 3, 0.95, &r, &lo, &hi), 0);
    assert_true(fabs((r) - (r1)) <= 1e-12);
    assert_true(lo >= lo1 * 0.995 && hi <= hi1 * 1.005 && lo <= r1 && r1 <= hi);
    /* the same inputs and seed: the same interval */
    double lo_again, hi_again, r_again;
    assert_int_equal(stats_bridged_ratio_ci(a1, b1, N1, ones, b2, N2, 2000, 3, 0.95, &r_again, &lo_again, &hi_again), 0);
    assert_true(fabs((lo_again) - (lo)) <= 0);
    assert_true(fabs((hi_again) - (hi)) <= 0);
    /* refused: an empty side, a time not > 0, bad bootstrap arguments */
    assert_int_equal(stats_bridged_ratio_ci(a1, b1, 0, a2, b2, N2, 2000, 3, 0.95, &r, &lo, &hi), -1);
    assert_int_equal(stats_bridged_ratio_ci(a1, b1, N1, a2, b2, 0, 2000, 3, 0.95, &r, &lo, &hi), -1);
    b2[3] = 0;
    assert_int_equal(stats_bridged_ratio_ci(a1, b1, N1, a2, b2, N2, 2000, 3, 0.95, &r, &lo, &hi), -1);
    b2[3] = 100;
    assert_int_equal(stats_bridged_ratio_ci(a1, b1, N1, a2, b2, N2, 0, 3, 0.95, &r, &lo, &hi), -1);
}

/* The bootstrap's exact outputs, pinned: every resample's medians (hashed bit for bit, in
 * the order drawn) and the intervals, for odd and even counts, ties, one and two values,
 * one set and two, three seeds and resample counts. Recorded from core/stats.c as of
 * 1281c42; a change to the draws, their order, or which middle values a median takes fails
 * it; one that only makes the bootstrap faster must not. The samples are made with arithmetic
 * only (no libm), so the figures hold whatever the C library's exp. */
typedef struct {
    uint64_t hash;   /* FNV-1a over the medians' bits, every resample in turn */
    size_t k;
} medians_trace;

static void traced_medians(const double *m, double *out, void *ctx)
{
    medians_trace *t = ctx;
    for (size_t j = 0; j < t->k; j++) {
        uint64_t bits;
        memcpy(&bits, &m[j], sizeof bits);
        for (int b = 0; b < 64; b += 8) t->hash = (t->hash ^ ((bits >> b) & 0xff)) * 0x100000001b3ull;
    }
    out[0] = m[0];
    out[1] = t->k > 1 ? m[0] / m[1] : m[0];
}

/* n timing-like values, a tenth of them in a slow tail, every seventh a repeat of another */
static void pinned_samples(double *x, size_t n, uint64_t seed)
{
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        double u = rng_uniform(&r);
        x[i] = 10.0 * (1.0 + 0.05 * u + (u > 0.9 ? 0.5 * u : 0.0));
    }
    for (size_t i = 0; i < n; i += 7) x[i] = x[(i * 3 + 1) % n];
}

enum { PIN_ODD, PIN_EVEN, PIN_TWO, PIN_ONE, PIN_151, PIN_150, PIN_SETS };

typedef struct {
    int a, b;             /* the sets resampled (b -1: one set) */
    uint64_t seed;
    size_t resamples;
    uint64_t hash;        /* of the medians */
    double lo[2], hi[2];  /* the first set's median; the ratio of the two (or the median again) */
} pinned_bootstrap;

static const pinned_bootstrap PINNED[] = {
    { PIN_ODD, -1, 1, 1,
      0xa8c83832281aa685ull, { 0x1p+1, 0x1p+1 }, { 0x1p+1, 0x1p+1 } },
    { PIN_ODD, -1, 7, 2,
      0x6212281e87320198ull, { 0x1.0cccccccccccdp+0, 0x1.0cccccccccccdp+0 }, { 0x1.f333333333333p+0, 0x1.f333333333333p+0 } },
    { PIN_ODD, -1, 2026, 1000,
      0x832dc1d24cdb02e4ull, { 0x1p+0, 0x1p+0 }, { 0x1.4p+2, 0x1.4p+2 } },
    { PIN_EVEN, -1, 1, 1,
      0xa898243227f160c7ull, { 0x1.2p+2, 0x1.2p+2 }, { 0x1.2p+2, 0x1.2p+2 } },
    { PIN_EVEN, -1, 7, 2,
      0x75dcbad8458634d5ull, { 0x1.5p+1, 0x1.5p+1 }, { 0x1.38p+2, 0x1.38p+2 } },
    { PIN_EVEN, -1, 2026, 1000,
      0x6e91d8ba60b4d466ull, { 0x1.4p+1, 0x1.4p+1 }, { 0x1.ap+2, 0x1.ap+2 } },
    { PIN_TWO, -1, 1, 1,
      0xa8c0ec32281406b3ull, { 0x1.6p+1, 0x1.6p+1 }, { 0x1.6p+1, 0x1.6p+1 } },
    { PIN_TWO, -1, 7, 2,
      0x236ed81c056d80e5ull, { 0x1p+2, 0x1p+2 }, { 0x1p+2, 0x1p+2 } },
    { PIN_TWO, -1, 2026, 1000,
      0xc2d5fc244d7b0aa7ull, { 0x1.8p+0, 0x1.8p+0 }, { 0x1p+2, 0x1p+2 } },
    { PIN_ONE, -1, 1, 1,
      0xa873423227d27784ull, { 0x1.9p+2, 0x1.9p+2 }, { 0x1.9p+2, 0x1.9p+2 } },
    { PIN_ONE, -1, 7, 2,
      0xfae9f3c6b5315245ull, { 0x1.9p+2, 0x1.9p+2 }, { 0x1.9p+2, 0x1.9p+2 } },
    { PIN_ONE, -1, 2026, 1000,
      0xd712a6bad3ac3da5ull, { 0x1.9p+2, 0x1.9p+2 }, { 0x1.9p+2, 0x1.9p+2 } },
    { PIN_151, -1, 1, 1,
      0xd77145671f5bb433ull, { 0x1.46a36fb843948p+3, 0x1.46a36fb843948p+3 }, { 0x1.46a36fb843948p+3, 0x1.46a36fb843948p+3 } },
    { PIN_151, -1, 7, 2,
      0x7e7f45e2e618366cull, { 0x1.47faa65e49924p+3, 0x1.47faa65e49924p+3 }, { 0x1.4820bfbb42c2bp+3, 0x1.4820bfbb42c2bp+3 } },
    { PIN_151, -1, 2026, 1000,
      0x56819c76c568812aull, { 0x1.45b9ba47cf7aep+3, 0x1.45b9ba47cf7aep+3 }, { 0x1.48ea146290b3cp+3, 0x1.48ea146290b3cp+3 } },
    { PIN_150, -1, 1, 1,
      0xedf7839f2c60f97bull, { 0x1.4793c2022b544p+3, 0x1.4793c2022b544p+3 }, { 0x1.4793c2022b544p+3, 0x1.4793c2022b544p+3 } },
    { PIN_150, -1, 7, 2,
      0x454fcd8508ca96c9ull, { 0x1.485c1684dd985p+3, 0x1.485c1684dd985p+3 }, { 0x1.48d9f99dfb383p+3, 0x1.48d9f99dfb383p+3 } },
    { PIN_150, -1, 2026, 1000,
      0xdc109fb2e8dd2900ull, { 0x1.47185b86ede95p+3, 0x1.47185b86ede95p+3 }, { 0x1.49764a395a612p+3, 0x1.49764a395a612p+3 } },
    { PIN_ODD, PIN_EVEN, 1, 1,
      0x62a79f1e87b0efc1ull, { 0x1p+1, 0x1.999999999999ap-1 }, { 0x1p+1, 0x1.999999999999ap-1 } },
    { PIN_ODD, PIN_EVEN, 7, 2,
      0xcfde562cb8528440ull, { 0x1.0666666666666p+1, 0x1.039d36d06a03ap-1 }, { 0x1.799999999999ap+1, 0x1.29dd104376a9ep+0 } },
    { PIN_ODD, PIN_EVEN, 2026, 1000,
      0x5b2a25df7c10f946ull, { 0x1p+0, 0x1.3b13b13b13b14p-2 }, { 0x1.4p+2, 0x1.d1745d1745d17p+0 } },
    { PIN_150, PIN_151, 1, 1,
      0x1315f1e83130bbc7ull, { 0x1.4793c2022b544p+3, 0x1.00884558412e9p+0 }, { 0x1.4793c2022b544p+3, 0x1.00884558412e9p+0 } },
    { PIN_150, PIN_151, 7, 2,
      0x8336185d5083dc57ull, { 0x1.47bbd74cd0a0dp+3, 0x1.ffcaf6fd18aap-1 }, { 0x1.48d18a80157cp+3, 0x1.007f37032310fp+0 } },
    { PIN_150, PIN_151, 2026, 1000,
      0xc66de67540630171ull, { 0x1.47185b86ede95p+3, 0x1.fe81ced18a8cep-1 }, { 0x1.49552d0444509p+3, 0x1.0253ffcbecf19p+0 } },
    { PIN_ONE, PIN_TWO, 1, 1,
      0xfa8eb1c6b4e43672ull, { 0x1.9p+2, 0x1.22e8ba2e8ba2fp+1 }, { 0x1.9p+2, 0x1.22e8ba2e8ba2fp+1 } },
    { PIN_ONE, PIN_TWO, 7, 2,
      0x3887560f9fb73565ull, { 0x1.9p+2, 0x1.9p+0 }, { 0x1.9p+2, 0x1.9p+0 } },
    { PIN_ONE, PIN_TWO, 2026, 1000,
      0xc5d8d933ad62e517ull, { 0x1.9p+2, 0x1.9p+0 }, { 0x1.9p+2, 0x1.0aaaaaaaaaaabp+2 } },
};

static void pinned_run(const pinned_bootstrap *c, uint64_t *hash, double *lo, double *hi)
{
    static const double odd[] = { 3, 1, 4, 1, 5, 9, 2 };              /* ties: 1, 1 */
    static const double even[] = { 2.5, 2.5, 7, 1, 8, 2.5, 3, 6 };    /* ties: 2.5 x3 */
    static const double two[] = { 4, 1.5 }, one[] = { 6.25 };
    double x151[151], x150[150];
    pinned_samples(x151, 151, 11);
    pinned_samples(x150, 150, 12);
    const double *set[PIN_SETS] = { odd, even, two, one, x151, x150 };
    const size_t size[PIN_SETS] = { 7, 8, 2, 1, 151, 150 };
    const double *sets[2] = { set[c->a], c->b < 0 ? NULL : set[c->b] };
    size_t n[2] = { size[c->a], c->b < 0 ? 0 : size[c->b] };
    medians_trace t = { 0xcbf29ce484222325ull, c->b < 0 ? 1 : 2 };
    stats_bootstrap_spec spec = { sets, n, t.k, traced_medians, 2, &t };
    assert_int_equal(stats_bootstrap_medians(&spec, c->resamples, c->seed, 0.9, NULL, lo, hi), 0);
    *hash = t.hash;
}

static void bootstrap_outputs_pinned(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof PINNED / sizeof PINNED[0]; i++) {
        const pinned_bootstrap *c = &PINNED[i];
        uint64_t hash;
        double lo[2], hi[2];
        pinned_run(c, &hash, lo, hi);
        if (hash != c->hash) fail_msg("pinned case %zu: medians hash %#llx, pinned %#llx", i,
                                      (unsigned long long)hash, (unsigned long long)c->hash);
        for (int v = 0; v < 2; v++)
            if (memcmp(&lo[v], &c->lo[v], sizeof lo[v]) || memcmp(&hi[v], &c->hi[v], sizeof hi[v]))
                fail_msg("pinned case %zu value %d: [%a, %a], pinned [%a, %a]", i, v, lo[v], hi[v],
                         c->lo[v], c->hi[v]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(percentiles_by_hand),
        cmocka_unit_test(median_leaves_input_alone),
        cmocka_unit_test(bootstrap_matches_independent_computation),
        cmocka_unit_test(bootstrap_properties),
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(ratio_properties),
        cmocka_unit_test(median_ratio_is_the_ci_point),
        cmocka_unit_test(repeated_ratio_is_the_same_and_only_for_the_same_inputs),
        cmocka_unit_test(percentile_by_selection_is_the_sorted_one),
        cmocka_unit_test(paired_ratio_properties),
        cmocka_unit_test(summary_fields),
        cmocka_unit_test(stop_rule_decisions),
        cmocka_unit_test(stop_rule_with_a_gpu_time_floor),
        cmocka_unit_test(bootstrap_of_medians_resamples_as_given),
        cmocka_unit_test(bootstrap_of_medians_refuses_bad_arguments),
        cmocka_unit_test(bridged_ratio_is_the_product_of_two_paired_ratios),
        cmocka_unit_test(bootstrap_outputs_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
