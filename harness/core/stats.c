/* core/stats.c: percentiles, bootstrap intervals and the stop rule.
 *
 * A bootstrap resample of a sample set is drawn as n indices (rng_below(n), in order,
 * through a bound prepared once: rng_range_below) into the set as the caller gives it;
 * only how often each value was drawn matters for an order statistic, so the drawn
 * indices are counted at their samples' positions in the sorted set and the resample's
 * median is read off the cumulative counts in O(n) instead of sorting every resample. The interval is the type-7 percentile pair
 * (1-conf)/2 and (1+conf)/2 of the resampled statistic. */
#include "core/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/memo.h"
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

/* The k-th smallest of v[0..n) (k < n), v partly reordered: Hoare's FIND as Wirth
 * writes it, the pivot the median of the range's first, middle and last values. */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double x = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        ptrdiff_t i = lo, j = hi;
        do {
            while (v[i] < x) i++;
            while (x < v[j]) j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (kk <= j) hi = j;
        else if (kk >= i) lo = i;
        else break;   /* between the two parts: equal to the pivot */
    }
    return v[k];
}

double stats_percentile_select(double *v, size_t n, double p)
{
    /* the order qsort leaves NaNs and signed zeros in is its own: sort those */
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i]) || v[i] == 0) {
            qsort(v, n, sizeof *v, cmp_double);
            return stats_percentile_sorted(v, n, p);
        }
    /* the branches and arithmetic of stats_percentile_sorted, on order statistics */
    if (n == 1 || p <= 0) return select_kth(v, n, 0);
    if (p >= 1) return select_kth(v, n, n - 1);
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1) return select_kth(v, n, n - 1);
    double a = select_kth(v, n, lo), b = v[lo + 1];
    for (size_t i = lo + 2; i < n; i++)   /* above a: the next order statistic is their least */
        if (v[i] < b) b = v[i];
    return a + (h - (double)lo) * (b - a);
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

/* A sample set prepared for resampling: its values ascending, and where each sample (in
 * the order given) stands among them, so that drawn indices count at sorted positions. */
typedef struct {
    double *sorted;
    uint32_t *rank;
    size_t n;
    rng_range below_n;   /* the draws' bound, prepared once */
} ranked_set;

typedef struct {
    double value;
    uint32_t index;
} indexed_value;

static int cmp_indexed(const void *a, const void *b)
{
    return cmp_double(&((const indexed_value *)a)->value, &((const indexed_value *)b)->value);
}

/* 0, or -1 on allocation failure (what was allocated stays in r for ranked_free). */
static int ranked_init(ranked_set *r, const double *x, size_t n)
{
    indexed_value *iv = malloc(n * sizeof *iv);
    r->sorted = malloc(n * sizeof *r->sorted);
    r->rank = malloc(n * sizeof *r->rank);
    r->n = n;
    rng_range_init(&r->below_n, n);
    if (!iv || !r->sorted || !r->rank) {
        free(iv);
        return -1;
    }
    for (size_t i = 0; i < n; i++) iv[i] = (indexed_value){ x[i], (uint32_t)i };
    qsort(iv, n, sizeof *iv, cmp_indexed);
    for (size_t j = 0; j < n; j++) {
        r->sorted[j] = iv[j].value;
        r->rank[iv[j].index] = (uint32_t)j;
    }
    free(iv);
    return 0;
}

static void ranked_free(ranked_set *r)
{
    free(r->sorted);
    free(r->rank);
}

/* One resample of the set and its type-7 median (the same arithmetic as
 * stats_percentile_sorted at p = 0.5). counts: n zeroed entries, left zeroed.
 * The median's order statistics k1 = (n-1)/2 and k2 = n/2 of the resample are the values
 * at the first sorted positions where the running count of draws passes k1 and k2 (a
 * count jumps there, so each such position was drawn). The scan adds every count without
 * testing it for zero (the test mispredicted at random: a resample leaves about a third of
 * the positions undrawn), tallies the positions whose running count is still at most k1
 * (the index of the first past k1, since running counts never fall) and stops at the first
 * past k2: the positions, values and arithmetic of a scan that skips the zeros, so the
 * same median bit for bit. */
static double resample_median(const ranked_set *s, uint32_t *counts, rng_state *r)
{
    const size_t n = s->n;
    for (size_t i = 0; i < n; i++) counts[s->rank[rng_range_below(r, &s->below_n)]]++;
    const size_t k1 = (n - 1) / 2, k2 = n / 2;
    size_t seen = 0, at1 = 0, i = 0;
    do {
        seen += counts[i++];
        at1 += seen <= k1;
    } while (seen <= k2);
    memset(counts, 0, n * sizeof *counts);
    double v1 = s->sorted[at1], v2 = s->sorted[i - 1];
    return k1 == k2 ? v1 : v1 + 0.5 * (v2 - v1);
}

static int bad_args(size_t n, size_t resamples, double conf)
{
    return n == 0 || n > UINT32_MAX || resamples == 0 || !(conf > 0 && conf < 1);
}

static void interval(double *values, size_t resamples, double conf, double *lo, double *hi)
{
    *lo = stats_percentile_select(values, resamples, (1 - conf) / 2);
    *hi = stats_percentile_select(values, resamples, (1 + conf) / 2);
}

static int bad_spec(const stats_bootstrap_spec *s, size_t resamples, double conf)
{
    if (!s || !s->sets || !s->n || !s->k || !s->statistic || !s->n_values) return 1;
    for (size_t j = 0; j < s->k; j++)
        if (!s->sets[j] || bad_args(s->n[j], resamples, conf)) return 1;
    return 0;
}

/* What one bootstrap holds: the ranked sets, the counts one resample is tallied in, the
 * sets' medians of the current resample, and every resample's statistic (value v of
 * resample i at values[v * resamples + i]). */
typedef struct {
    ranked_set *sets;
    uint32_t *counts;
    double *medians, *one, *values;
} bootstrap_work;

static void work_free(bootstrap_work *w, size_t k)
{
    for (size_t j = 0; w->sets && j < k; j++) ranked_free(&w->sets[j]);
    free(w->sets);
    free(w->counts);
    free(w->medians);
    free(w->one);
    free(w->values);
}

static int work_init(bootstrap_work *w, const stats_bootstrap_spec *s, size_t resamples)
{
    size_t nmax = 0;
    for (size_t j = 0; j < s->k; j++)
        if (s->n[j] > nmax) nmax = s->n[j];
    w->sets = calloc(s->k, sizeof *w->sets);
    w->counts = calloc(nmax, sizeof *w->counts);
    w->medians = malloc(s->k * sizeof *w->medians);
    w->one = malloc(s->n_values * sizeof *w->one);
    w->values = malloc(s->n_values * resamples * sizeof *w->values);
    if (!w->sets || !w->counts || !w->medians || !w->one || !w->values) return -1;
    for (size_t j = 0; j < s->k; j++)
        if (ranked_init(&w->sets[j], s->sets[j], s->n[j])) return -1;
    return 0;
}

static void point_estimate(const stats_bootstrap_spec *s, bootstrap_work *w, double *point)
{
    for (size_t j = 0; j < s->k; j++)
        w->medians[j] = stats_percentile_sorted(w->sets[j].sorted, w->sets[j].n, 0.5);
    s->statistic(w->medians, point, s->ctx);
}

static void resample_all(const stats_bootstrap_spec *s, bootstrap_work *w, size_t resamples,
                         uint64_t seed)
{
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < resamples; i++) {
        for (size_t j = 0; j < s->k; j++) w->medians[j] = resample_median(&w->sets[j], w->counts, &r);
        s->statistic(w->medians, w->one, s->ctx);
        for (size_t v = 0; v < s->n_values; v++) w->values[v * resamples + i] = w->one[v];
    }
}

int stats_bootstrap_medians(const stats_bootstrap_spec *s, size_t resamples, uint64_t seed,
                            double conf, double *point, double *lo, double *hi)
{
    if (!lo || !hi || bad_spec(s, resamples, conf)) return -1;
    bootstrap_work w = { 0 };
    int rc = work_init(&w, s, resamples);
    if (rc == 0) {
        if (point) point_estimate(s, &w, point);
        resample_all(s, &w, resamples, seed);
        for (size_t v = 0; v < s->n_values; v++)
            interval(w.values + v * resamples, resamples, conf, &lo[v], &hi[v]);
    }
    work_free(&w, s->k);
    return rc;
}

static void first_median(const double *medians, double *out, void *ctx)
{
    (void)ctx;
    out[0] = medians[0];
}

static void median_ratio(const double *medians, double *out, void *ctx)
{
    (void)ctx;
    out[0] = medians[0] / medians[1];
}

/* The sorted sample is what gets resampled, so the draws are those of
 * harness/tests/core/stats_expected.py and of the intervals already in the evidence. */
int stats_bootstrap_median_ci(const double *x, size_t n, size_t resamples, uint64_t seed,
                              double conf, double *lo, double *hi)
{
    if (!x || bad_args(n, resamples, conf)) return -1;
    double *s = sorted_copy(x, n);
    if (!s) return -1;
    const double *sets[1] = { s };
    stats_bootstrap_spec spec = { sets, &n, 1, first_median, 1, NULL };
    int rc = stats_bootstrap_medians(&spec, resamples, seed, conf, NULL, lo, hi);
    free(s);
    return rc;
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

/* Each resample draws a's n_a indices, then b's n_b, from one stream, into the sorted
 * samples (as stats_bootstrap_median_ci). */
int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                   size_t resamples, uint64_t seed, double conf,
                   double *ratio, double *lo, double *hi)
{
    if (!a || !b || bad_args(na, resamples, conf) || bad_args(nb, resamples, conf)) return -1;
    /* the same ratio is asked for again (a report's tables and plots, a gate's checks):
     * answered from the memo, keyed by every input */
    const memo_part key[] = { { "stats_ratio_ci", 14 }, { a, na * sizeof *a }, { b, nb * sizeof *b },
                              { &resamples, sizeof resamples }, { &seed, sizeof seed }, { &conf, sizeof conf } };
    double got[3];
    if (memo_get(key, sizeof key / sizeof key[0], got, sizeof got)) {
        *ratio = got[0];
        *lo = got[1];
        *hi = got[2];
        return 0;
    }
    double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
    int rc = -1;
    if (sa && sb && stats_percentile_sorted(sb, nb, 0.5) != 0) {
        const double *sets[2] = { sa, sb };
        size_t n[2] = { na, nb };
        stats_bootstrap_spec spec = { sets, n, 2, median_ratio, 1, NULL };
        rc = stats_bootstrap_medians(&spec, resamples, seed, conf, &got[0], &got[1], &got[2]);
    }
    free(sa);
    free(sb);
    if (rc == 0) {
        memo_put(key, sizeof key / sizeof key[0], got, sizeof got);
        *ratio = got[0];
        *lo = got[1];
        *hi = got[2];
    }
    return rc;
}

/* The same sorted copies and type-7 medians as stats_ratio_ci's point estimate, so the
 * two agree bit for bit. */
int stats_median_ratio(const double *a, size_t na, const double *b, size_t nb, double *ratio)
{
    if (!a || !b || !ratio || na == 0 || nb == 0 || na > UINT32_MAX || nb > UINT32_MAX) return -1;
    double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
    int rc = -1;
    if (sa && sb) {
        double mb = stats_percentile_sorted(sb, nb, 0.5);
        if (mb != 0) {
            double medians[2] = { stats_percentile_sorted(sa, na, 0.5), mb };
            median_ratio(medians, ratio, NULL);
            rc = 0;
        }
    }
    free(sa);
    free(sb);
    return rc;
}

/* The one place pairs become quotients (stats.h). */
double *stats_paired_quotients(const double *a, const double *b, size_t n)
{
    if (!a || !b || n == 0) return NULL;
    double *q = malloc(n * sizeof *q);
    if (!q) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(a[i]) && a[i] > 0 && isfinite(b[i]) && b[i] > 0)) {
            free(q);
            return NULL;
        }
        q[i] = a[i] / b[i];
    }
    return q;
}

int stats_paired_ratio_ci(const double *a, const double *b, size_t n, size_t resamples,
                          uint64_t seed, double conf, double *ratio, double *lo, double *hi)
{
    if (!a || !b || bad_args(n, resamples, conf)) return -1;
    double *q = stats_paired_quotients(a, b, n);
    if (!q) return -1;
    *ratio = stats_median(q, n);
    int rc = stats_bootstrap_median_ci(q, n, resamples, seed, conf, lo, hi);
    free(q);
    return rc;
}

int stats_paired_median(const double *a, const double *b, size_t n, double *ratio)
{
    if (!a || !b || n == 0) return -1;
    double *q = stats_paired_quotients(a, b, n);
    if (!q) return -1;
    *ratio = stats_median(q, n);
    free(q);
    return 0;
}

/* The statistic of a bridged ratio: the product of the two sets' medians. */
static void product_of_medians(const double *medians, double *out, void *ctx)
{
    (void)ctx;
    out[0] = medians[0] * medians[1];
}

int stats_bridged_ratio_ci(const double *a1, const double *b1, size_t n1, const double *a2,
                           const double *b2, size_t n2, size_t resamples, uint64_t seed,
                           double conf, double *ratio, double *lo, double *hi)
{
    if (!a1 || !b1 || !a2 || !b2 || !ratio || bad_args(n1, resamples, conf) || bad_args(n2, resamples, conf))
        return -1;
    double *q1 = stats_paired_quotients(a1, b1, n1), *q2 = stats_paired_quotients(a2, b2, n2);
    int rc = -1;
    if (q1 && q2) {
        const double *sets[2] = { q1, q2 };
        const size_t n[2] = { n1, n2 };
        stats_bootstrap_spec spec = { .sets = sets, .n = n, .k = 2, .statistic = product_of_medians,
                                      .n_values = 1, .ctx = NULL };
        rc = stats_bootstrap_medians(&spec, resamples, seed, conf, ratio, lo, hi);
    }
    free(q1);
    free(q2);
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
    case STOP_THROTTLED: return "throttled";
    }
    return "unknown";
}

stop_reason stats_should_stop_after(const double *x, size_t n, double elapsed_s, double gpu_s, double min_gpu_s,
                                    const stop_rule *rule, uint64_t seed)
{
    int limit = n >= rule->max_samples || elapsed_s >= rule->max_seconds;
    if (gpu_s < min_gpu_s && !limit) return STOP_CONTINUE;
    /* past the floor every stop counts; at a limit the noise test still names the reason */
    return stats_should_stop(x, n, elapsed_s, rule, seed);
}
