/* core/stats.c: percentiles, bootstrap intervals and the stop rule.
 *
 * A bootstrap resample of a sorted sample is drawn as n indices (rng_below(n), in
 * order) into the sorted array; only how often each index was drawn matters for an
 * order statistic, so the resample's median is read off the cumulative counts in O(n)
 * instead of sorting every resample. The interval is the type-7 percentile pair
 * (1-conf)/2 and (1+conf)/2 of the resample medians. */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"

/* the stop rule's noise test: few resamples (it runs after every sample), 95% level */
#define STOP_RESAMPLES 200
#define STOP_CONF 0.95

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 1 || p <= 0) return sorted[0];
    if (p >= 1) return sorted[n - 1];
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1) return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc(n * sizeof *s);
    if (!s) return NULL;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

double stats_median(const double *x, size_t n)
{
    if (n == 0) return NAN;
    double *s = sorted_copy(x, n);
    if (!s) return NAN;
    double m = stats_percentile_sorted(s, n, 0.5);
    free(s);
    return m;
}

/* One resample of sorted[0..n) and its type-7 median (the same arithmetic as
 * stats_percentile_sorted at p = 0.5). counts: n zeroed entries, left zeroed. */
static double resample_median(const double *sorted, size_t n, uint32_t *counts, rng_state *r)
{
    for (size_t i = 0; i < n; i++) counts[rng_below(r, n)]++;
    size_t k1 = (n - 1) / 2, k2 = n / 2, seen = 0;
    double v1 = 0, v2 = 0;
    int have1 = 0;
    for (size_t i = 0; i < n; i++) {
        if (!counts[i]) continue;
        seen += counts[i];
        counts[i] = 0;
        if (!have1 && seen > k1) { v1 = sorted[i]; have1 = 1; }
        if (seen > k2) {
            v2 = sorted[i];
            for (size_t j = i + 1; j < n; j++) counts[j] = 0;
            break;
        }
    }
    return k1 == k2 ? v1 : v1 + 0.5 * (v2 - v1);
}

static int bad_args(size_t n, size_t resamples, double conf)
{
    return n == 0 || n > UINT32_MAX || resamples == 0 || !(conf > 0 && conf < 1);
}

static void interval(double *meds, size_t resamples, double conf, double *lo, double *hi)
{
    qsort(meds, resamples, sizeof *meds, cmp_double);
    *lo = stats_percentile_sorted(meds, resamples, (1 - conf) / 2);
    *hi = stats_percentile_sorted(meds, resamples, (1 + conf) / 2);
}

int stats_bootstrap_median_ci(const double *x, size_t n, size_t resamples, uint64_t seed,
                              double conf, double *lo, double *hi)
{
    if (!x || bad_args(n, resamples, conf)) return -1;
    double *s = sorted_copy(x, n), *meds = malloc(resamples * sizeof *meds);
    uint32_t *counts = calloc(n, sizeof *counts);
    if (!s || !meds || !counts) {
        free(s);
        free(meds);
        free(counts);
        return -1;
    }
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < resamples; i++) meds[i] = resample_median(s, n, counts, &r);
    interval(meds, resamples, conf, lo, hi);
    free(s);
    free(meds);
    free(counts);
    return 0;
}

int stats_summarize(const double *x, size_t n, size_t resamples, uint64_t seed,
                    double conf, stats_summary *out)
{
    if (!x || !out || bad_args(n, resamples, conf)) return -1;
    double *s = sorted_copy(x, n);
    if (!s) return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += s[i];
    out->n = n;
    out->median = stats_percentile_sorted(s, n, 0.5);
    out->p10 = stats_percentile_sorted(s, n, 0.10);
    out->p90 = stats_percentile_sorted(s, n, 0.90);
    out->mean = sum / (double)n;
    out->min = s[0];
    out->max = s[n - 1];
    free(s);
    return stats_bootstrap_median_ci(x, n, resamples, seed, conf, &out->ci_lo, &out->ci_hi);
}

/* Each resample draws a's n_a indices, then b's n_b, from one stream. */
int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                   size_t resamples, uint64_t seed, double conf,
                   double *ratio, double *lo, double *hi)
{
    if (!a || !b || bad_args(na, resamples, conf) || bad_args(nb, resamples, conf)) return -1;
    double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
    double *meds = malloc(resamples * sizeof *meds);
    uint32_t *counts = calloc(na > nb ? na : nb, sizeof *counts);
    int rc = -1;
    if (!sa || !sb || !meds || !counts) goto out;
    double mb = stats_percentile_sorted(sb, nb, 0.5);
    if (mb == 0) goto out;
    *ratio = stats_percentile_sorted(sa, na, 0.5) / mb;
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < resamples; i++) {
        double ma = resample_median(sa, na, counts, &r);
        meds[i] = ma / resample_median(sb, nb, counts, &r);
    }
    interval(meds, resamples, conf, lo, hi);
    rc = 0;
out:
    free(sa);
    free(sb);
    free(meds);
    free(counts);
    return rc;
}

stop_reason stats_should_stop(const double *x, size_t n, double elapsed_s,
                              const stop_rule *rule, uint64_t seed)
{
    int out_of_time = elapsed_s >= rule->max_seconds;
    if (n < rule->min_samples) return out_of_time ? STOP_MAX_TIME : STOP_CONTINUE;
    if (n >= 2) {
        double lo, hi, med = stats_median(x, n);
        if (med > 0 &&
            stats_bootstrap_median_ci(x, n, STOP_RESAMPLES, seed, STOP_CONF, &lo, &hi) == 0 &&
            (hi - lo) / med <= rule->rel_ci_target)
            return STOP_NOISE;
    }
    if (n >= rule->max_samples) return STOP_MAX_SAMPLES;
    if (out_of_time) return STOP_MAX_TIME;
    return STOP_CONTINUE;
}

const char *stop_reason_name(stop_reason r)
{
    switch (r) {
    case STOP_CONTINUE: return "continue";
    case STOP_NOISE: return "noise";
    case STOP_MAX_SAMPLES: return "max_samples";
    case STOP_MAX_TIME: return "max_time";
    }
    return "unknown";
}
