/* gate/decide.c: the ladder decision and the bootstrap of a change between two runs.
 * A change between two runs is judged by the drift rule (gate/drift.c), the one rule of
 * the gate, compare and the report; the bootstrapped change is what they show beside it. */
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
