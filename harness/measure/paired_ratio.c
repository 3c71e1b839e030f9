/* measure/paired_ratio.c: the interleaved ratio of the ladder run (paired_ratio.h). */
#include "measure/paired_ratio.h"

#include <string.h>
#include "core/stats.h"
#include "measure/planted_slowdown.h"

interleave_config paired_config(const measure_ctx *ctx, uint64_t seed)
{
    const time_config *tc = &ctx->tc;
    /* Warm-up: three replays of each of the four graphs (two per side, one per buffer
     * set) before the first pair; the first replay after a capture is the slowest. */
    return (interleave_config){ .min_samples = tc->rule.min_samples, .max_samples = tc->rule.max_samples,
                                .min_gpu_s = tc->min_gpu_s, .max_seconds = tc->rule.max_seconds,
                                .inner_max = tc->inner_max, .graph_target_us = tc->graph_target_us,
                                .warmup = 3, .seed = seed, .clock = tc->clock };
}

static json_t *times_json(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_real(x[i]));
    return a;
}

static json_t *pairs_json(const interleave_result *r, const char *baseline_name, const clock_policy *p)
{
    json_t *first = json_array();
    for (size_t i = 0; i < r->n; i++) json_array_append_new(first, json_integer(r->a_first[i]));
    json_t *o = json_pack("{s:s, s:i, s:I, s:s, s:f, s:f, s:o, s:o, s:o}", "baseline", baseline_name,
                          "inner", r->inner, "n", (json_int_t)r->n, "stop", r->stop, "gpu_s", r->gpu_s,
                          "wall_s", r->wall_s, "impl_us", times_json(r->a_us, r->n), "baseline_us",
                          times_json(r->b_us, r->n), "impl_first", first);
    json_object_set_new(o, "clock", interleave_clock_json(r, p));
    return o;
}

int paired_measure(measure_ctx *ctx, const timed_impl *impl, const timed_impl *base,
                   const char *baseline_name, uint64_t seed, json_t *res,
                   interleave_result *pairs, char *err, size_t errlen)
{
    /* a planted slowdown (test-only) applies to whichever side it names */
    timed_impl a = *impl, b = *base;
    a.ph = plant_wrap(impl->ph);
    b.ph = plant_wrap(base->ph);
    interleave_config ic = paired_config(ctx, seed);
    if (interleave_measure(&a, &b, &ic, pairs, err, errlen)) return -1;
    ctx->gpu_timed_s += pairs->gpu_s;
    ctx->measurements++;
    if (pairs->n == 0) {
        /* every pair fell under a clock event: recorded as such, no samples to keep */
        json_object_set_new(res, "paired_throttled", json_pack("{s:s, s:I}", "baseline", baseline_name,
                                                                "discarded_pairs", (json_int_t)pairs->tally.discarded));
        return 0;
    }
    /* stopped "throttled" with pairs kept: the reader marks the result throttled and no
     * gate passes it silently */
    json_object_set_new(res, "paired", pairs_json(pairs, baseline_name, &ic.clock));
    return 0;
}

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
