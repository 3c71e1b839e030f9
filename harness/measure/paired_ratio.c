/* measure/paired_ratio.c: a ratio from paired times (paired_ratio.h). */
#include "measure/paired_ratio.h"

#include <string.h>
#include "core/stats.h"

json_t *paired_ratio_json(const measure_ctx *ctx, const double *impl_us, const double *base_us, size_t n,
                          const char *baseline_name)
{
    const time_config *tc = &ctx->tc;
    double r, lo, hi;
    if (n == 0 || stats_paired_ratio_ci(impl_us, base_us, n, tc->resamples, tc->seed, tc->ci_level, &r, &lo, &hi))
        return json_null();
    return json_pack("{s:s, s:f, s:f, s:f, s:s}", "baseline", baseline_name, "median", r, "ci_lo", lo,
                     "ci_hi", hi, "method", "paired");
}
