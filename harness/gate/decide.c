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
#include "core/stats.h"

int gate_ladder_pass(double ratio_ci_hi, double ratio_max)
{
    return isfinite(ratio_ci_hi) && ratio_ci_hi < ratio_max;
}

/* The three values bootstrapped from one resample of the four sets, in reg_change's
 * order; the sets are (phase now, baseline now, phase ref, baseline ref). */
enum { CH_REF, CH_NOW, CH_CHANGE, CH_VALUES };

static void change_of_medians(const double *m, double *out, void *ctx)
{
    (void)ctx;
    out[CH_NOW] = m[0] / m[1];
    out[CH_REF] = m[2] / m[3];
    out[CH_CHANGE] = out[CH_NOW] / out[CH_REF];
}

int gate_change_ci(const double *p_now, size_t n_pn, const double *b_now, size_t n_bn,
                   const double *p_ref, size_t n_pr, const double *b_ref, size_t n_br,
                   size_t resamples, uint64_t seed, double conf, reg_change *out)
{
    if (resamples < 2) return -1;
    const double *sets[4] = { p_now, b_now, p_ref, b_ref };
    size_t n[4] = { n_pn, n_bn, n_pr, n_br };
    stats_bootstrap_spec spec = { sets, n, 4, change_of_medians, CH_VALUES, NULL };
    double point[CH_VALUES], lo[CH_VALUES], hi[CH_VALUES];
    if (stats_bootstrap_medians(&spec, resamples, seed, conf, point, lo, hi)) return -1;
    *out = (reg_change){ point[CH_REF], lo[CH_REF], hi[CH_REF], point[CH_NOW], lo[CH_NOW],
                         hi[CH_NOW], point[CH_CHANGE], lo[CH_CHANGE], hi[CH_CHANGE] };
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
