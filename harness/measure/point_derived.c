/* measure/point_derived.c: a result's derived figures and the progress lines
 * (point_derived.h). */
#include "measure/point_derived.h"

#include <math.h>
#include <stdio.h>
#include "core/stats.h"
#include "measure/paired_ratio.h"

static int same_shape(const attn_shape *a, const attn_shape *b)
{
    return a->batch == b->batch && a->heads == b->heads && a->seq_q == b->seq_q &&
           a->seq_kv == b->seq_kv && a->head_dim == b->head_dim && a->causal == b->causal &&
           a->scale == b->scale;
}

void measure_progress(measure_ctx *ctx, const char *impl, const char *shape, const char *what)
{
    ctx->progress_done++;
    fprintf(stderr, "[%4zu/%zu] %-22s %-24s %s\n", ctx->progress_done, ctx->progress_total,
            impl, shape, what);
}

void measure_progress_ratio(measure_ctx *ctx, const char *impl, const char *shape_text, const char *design,
                            const result_derived *d, size_t n, int inner, const char *stop)
{
    char line[160];
    if (d->has_ratio)
        snprintf(line, sizeof line, "ratio  %.4f [%.4f, %.4f] %s n=%zu inner=%d (%s)", d->ratio.median,
                 d->ratio.ci_lo, d->ratio.ci_hi, design, n, inner, stop);
    else
        snprintf(line, sizeof line, "ratio  none (%s, %s)", design, stop);
    measure_progress(ctx, impl, shape_text, line);
}

result_derived measure_derived(const measure_ctx *ctx, const attn_shape *s, const double *samples, size_t n,
                               double median_us, const double *pair_impl, const double *pair_base, size_t n_pairs)
{
    double flops = shape_flops(s), bytes = shape_bytes(s);
    double tflops = flops / (median_us * 1e-6) / 1e12, gbps = bytes / (median_us * 1e-6) / 1e9;
    result_derived d = { .flops = flops, .bytes = bytes, .tflops = tflops, .gbps = gbps,
                         .frac_fp16_peak = ctx->fp16_tflops > 0 ? tflops / ctx->fp16_tflops : NAN,
                         .frac_dram = ctx->dram_gbps > 0 ? gbps / ctx->dram_gbps : NAN };
    /* measured in rotation or in pairs with the baseline: the median of the paired
     * quotients; else the two separate measurements' medians */
    if (n_pairs && ctx->baseline) {
        d.has_ratio = paired_ratio(ctx, pair_impl, pair_base, n_pairs, ctx->baseline, &d.ratio) == 0;
        return d;
    }
    const time_config *tc = &ctx->tc;
    for (size_t j = 0; ctx->baseline && j < ctx->n_base; j++) {
        const measure_baseline_timing *b = &ctx->base[j];
        if (!same_shape(&b->s, s)) continue;
        double r, lo, hi;
        if (stats_ratio_ci(samples, n, b->samples, b->n, tc->resamples, tc->seed, tc->ci_level,
                           &r, &lo, &hi) == 0) {
            d.has_ratio = 1;
            d.ratio = (derived_ratio){ .baseline = ctx->baseline, .method = "independent", .median = r,
                                       .ci_lo = lo, .ci_hi = hi };
        }
        break;
    }
    return d;
}
