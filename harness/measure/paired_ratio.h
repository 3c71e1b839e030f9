/* measure/paired_ratio.h: a ratio as the median of paired quotients, for the times of an
 * implementation and the baseline taken in the same rounds of a point's rotation
 * (point_ratios.h). */
#ifndef ATTNLADDER_MEASURE_PAIRED_RATIO_H
#define ATTNLADDER_MEASURE_PAIRED_RATIO_H
#include <stddef.h>
#include <stdint.h>
#include "measure/interleave.h"
#include "measure/measure_shape.h"
#include "measure/point_record.h"

/* A ratio from pairs (impl_us[i], base_us[i]): the median quotient impl/baseline, its
 * bootstrap CI over the pairs, method "paired". 0, or -1 when no ratio can be taken
 * (written null). */
int paired_ratio(const measure_ctx *ctx, const double *impl_us, const double *base_us, size_t n,
                 const char *baseline_name, derived_ratio *out);

#endif
