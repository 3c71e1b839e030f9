/* gate_decide.c: the ladder and regression decisions.
 *
 * Why the default regression rule (REG_METHOD_RATIO_CI) needs two things to block:
 *  - change = ratio_now / ratio_ref > 1 + tol: the slowdown is large enough to matter.
 *    Ratios to the baseline measured in the same run cancel most of what differs
 *    between two runs (clocks, temperature, driver), but not all of it; the tolerance
 *    absorbs the rest, and the A/A runs measure how much that is.
 *  - the bootstrap CI of change lies entirely above 1 + tol/2: the slowdown is not
 *    sampling noise. Requiring the CI to clear only 1 would let a noisy point whose
 *    estimate just crosses the tolerance block a change; requiring it to clear 1 + tol
 *    would miss a true slowdown of a little more than tol about half of the time. The
 *    CIs come from samples within one run each, so they understate run-to-run
 *    variation; half the tolerance is the margin kept for that.
 * Improvements are decided symmetrically, so `compare` can say "improved" with the
 * same confidence. */
#include "gate/decide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"

int gate_ladder_pass(double ratio_ci_hi, double ratio_max)
{
    return isfinite(ratio_ci_hi) && ratio_ci_hi < ratio_max;
}

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* k-th smallest of x[0..n) (reorders x): Hoare partition around the middle element. */
static double select_kth(double *x, size_t n, size_t k)
{
    long lo = 0, hi = (long)n - 1, kk = (long)k;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        long i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i <= j) swap(&x[i++], &x[j--]);
        }
        if (kk <= j) hi = j;
        else if (kk >= i) lo = i;
        else break;
    }
    return x[kk];
}

/* Median as stats.h defines it (type 7 at p = 0.5: the mean of the middle pair). */
static double median_inplace(double *x, size_t n)
{
    double a = select_kth(x, n, (n - 1) / 2);
    if (n % 2) return a;
    double b = x[n / 2];
    for (size_t i = n / 2 + 1; i < n; i++)
        if (x[i] < b) b = x[i];
    return 0.5 * (a + b);
}

static double median_copy(const double *x, size_t n, double *scratch)
{
    memcpy(scratch, x, n * sizeof *x);
    return median_inplace(scratch, n);
}

static double resampled_median(rng_state *r, const double *x, size_t n, double *scratch)
{
    for (size_t i = 0; i < n; i++) scratch[i] = x[rng_below(r, n)];
    return median_inplace(scratch, n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The percentile interval of sorted values, with type-7 interpolation. */
static void interval(double *v, size_t n, double conf, double *lo, double *hi)
{
    qsort(v, n, sizeof *v, cmp_double);
    double a = (1.0 - conf) / 2.0;
    double pos[2] = { a * (double)(n - 1), (1.0 - a) * (double)(n - 1) };
    double *out[2] = { lo, hi };
    for (int k = 0; k < 2; k++) {
        size_t i = (size_t)floor(pos[k]);
        double f = pos[k] - (double)i;
        *out[k] = i + 1 < n ? v[i] + f * (v[i + 1] - v[i]) : v[i];
    }
}

int gate_change_ci(const double *p_now, size_t n_pn, const double *b_now, size_t n_bn,
                   const double *p_ref, size_t n_pr, const double *b_ref, size_t n_br,
                   size_t resamples, uint64_t seed, double conf, reg_change *out)
{
    if (!n_pn || !n_bn || !n_pr || !n_br || resamples < 2 || !(conf > 0 && conf < 1)) return -1;
    size_t nmax = n_pn;
    if (n_bn > nmax) nmax = n_bn;
    if (n_pr > nmax) nmax = n_pr;
    if (n_br > nmax) nmax = n_br;
    double *scratch = malloc(nmax * sizeof *scratch);
    double *ch = malloc(3 * resamples * sizeof *ch);
    if (!scratch || !ch) {
        free(scratch);
        free(ch);
        return -1;
    }
    double *rn = ch + resamples, *rr = ch + 2 * resamples;
    out->now = median_copy(p_now, n_pn, scratch) / median_copy(b_now, n_bn, scratch);
    out->ref = median_copy(p_ref, n_pr, scratch) / median_copy(b_ref, n_br, scratch);
    out->change = out->now / out->ref;
    rng_state r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < resamples; i++) {
        double pn = resampled_median(&r, p_now, n_pn, scratch);
        double bn = resampled_median(&r, b_now, n_bn, scratch);
        double pr = resampled_median(&r, p_ref, n_pr, scratch);
        double br = resampled_median(&r, b_ref, n_br, scratch);
        rn[i] = pn / bn;
        rr[i] = pr / br;
        ch[i] = rn[i] / rr[i];
    }
    interval(ch, resamples, conf, &out->lo, &out->hi);
    interval(rn, resamples, conf, &out->now_lo, &out->now_hi);
    interval(rr, resamples, conf, &out->ref_lo, &out->ref_hi);
    free(scratch);
    free(ch);
    return 0;
}

reg_verdict gate_regression_decide(const regression_params *p, const reg_change *c)
{
    double up = 1.0 + p->tolerance, down = 1.0 / up;
    double up_ci = 1.0 + p->tolerance * p->ci_floor_fraction, down_ci = 1.0 / up_ci;
    if (!(c->change > 0) || !isfinite(c->change)) return REG_INCONCLUSIVE;
    int worse = c->change > up, better = c->change < down;
    if (!worse && !better) return REG_UNCHANGED;
    int sure;
    switch (p->method) {
    case REG_METHOD_POINT:
        sure = 1;
        break;
    case REG_METHOD_CI_NONOVERLAP:
        sure = worse ? c->now_lo > c->ref_hi : c->now_hi < c->ref_lo;
        break;
    case REG_METHOD_RATIO_CI:
    default:
        sure = worse ? c->lo > up_ci : c->hi < down_ci;
        break;
    }
    if (!sure) return REG_INCONCLUSIVE;
    return worse ? REG_REGRESSED : REG_IMPROVED;
}

const char *reg_verdict_name(reg_verdict v)
{
    switch (v) {
    case REG_UNCHANGED: return "unchanged";
    case REG_REGRESSED: return "regressed";
    case REG_IMPROVED: return "improved";
    case REG_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}
