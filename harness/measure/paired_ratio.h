/* measure/paired_ratio.h: an implementation timed in pairs with the baseline alone, the
 * way the A/B gate measures (interleave.h: same inputs and stream, order and buffer sets
 * drawn per pair), and a ratio as the median of paired quotients. The ladder run takes
 * its ratios from a rotation of every implementation (point_ratios.h) and pairs only
 * those far slower than the baseline. */
#ifndef ATTNLADDER_MEASURE_PAIRED_RATIO_H
#define ATTNLADDER_MEASURE_PAIRED_RATIO_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "measure/interleave.h"
#include "measure/measure_shape.h"

/* The interleaving of the run: its stop rule's counts and time limit, its minimum GPU
 * time (both sides together), its clock policy; `seed` draws the pairs' order. */
interleave_config paired_config(const measure_ctx *ctx, uint64_t seed);

/* Times impl against the baseline, writes results[].paired into res (SCHEMA.md), or
 * results[].paired_throttled when every pair fell under a clock event, and hands the
 * pairs back in *pairs (caller frees). 0, or -1 with err. */
int paired_measure(measure_ctx *ctx, const timed_impl *impl, const timed_impl *base,
                   const char *baseline_name, uint64_t seed, json_t *res,
                   interleave_result *pairs, char *err, size_t errlen);

/* A ratio from pairs (impl_us[i], base_us[i]): the median quotient impl/baseline, its
 * bootstrap CI over the pairs, method "paired"; JSON null when no ratio can be taken. */
json_t *paired_ratio_json(const measure_ctx *ctx, const double *impl_us, const double *base_us, size_t n,
                          const char *baseline_name);

#endif
