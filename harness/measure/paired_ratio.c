/* measure/paired_ratio.c: a ratio from paired times (paired_ratio.h). */
#include "measure/paired_ratio.h"

#include <string.h>
#include "core/stats.h"

int paired_ratio(const measure_ctx *ctx, const double *impl_us, const double *base_us, size_t n,
                 const char *baseline_name, derived_ratio *out)
{
    const time_config *tc = &ctx->tc;
    double r, lo, hi;
    if (n == 0 || stats_paired_ratio_ci(impl_us, base_us, n, tc->resamples, tc->seed, tc->ci_level, &r, &lo, &hi))
        return -1;
    *out = (derived_ratio){ .baseline = baseline_name, .method = "paired", .median = r, .ci_lo = lo, .ci_hi = hi };
    return 0;
}
