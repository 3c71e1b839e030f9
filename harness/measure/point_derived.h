/* measure/point_derived.h: what a point's results say beyond their samples: the derived
 * figures (FLOPs, bytes, TFLOP/s, GB/s, fractions of the ceilings, the ratio to the
 * baseline) and the progress lines printed as each measurement ends. */
#ifndef ATTNLADDER_MEASURE_POINT_DERIVED_H
#define ATTNLADDER_MEASURE_POINT_DERIVED_H
#include <stddef.h>
#include "measure/measure_shape.h"
#include "measure/point_record.h"

/* The derived figures of a result timed at s (the evidence's `derived`): FLOPs, bytes, TFLOP/s, GB/s,
 * fractions of the ceilings (from its own graph median: the sustained regime), and the
 * ratio to the baseline: from the paired times when there are any (n_pairs > 0: the
 * rotation's rounds, method "paired"), else from the
 * baseline's separate samples at the same shape in this run (its CI resamples both sample
 * sets, method "independent"), computed from the samples themselves. */
result_derived measure_derived(const measure_ctx *ctx, const attn_shape *s, const double *samples, size_t n,
                               double median_us, const double *pair_impl, const double *pair_base, size_t n_pairs);

/* A ratio's progress line ("ratio  0.9512 [0.9498, 0.9530] rotation n=40 inner=2 (noise)"). */
void measure_progress_ratio(measure_ctx *ctx, const char *impl, const char *shape_text, const char *design,
                            const result_derived *d, size_t n, int inner, const char *stop);
/* One progress line: "[  12/380] impl  shape  what". */
void measure_progress(measure_ctx *ctx, const char *impl, const char *shape, const char *what);

#endif
