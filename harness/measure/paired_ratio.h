/* measure/paired_ratio.h: the ladder run's ratio, measured the way the A/B gate measures.
 * At each shape the baseline is kept initialised after its own measurement; every
 * implementation after it that passed the check is then timed interleaved with it
 * (interleave.h: same inputs and stream, order and buffer sets drawn per pair), and the
 * ratio is the median of the per-pair quotients. A clock step, the power cap or a
 * neighbour's load between two separate measurements would move one side's median and
 * not the other's; inside a pair it falls on both. */
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

/* derived.ratio from the pairs: median quotient impl/baseline, its bootstrap CI, the
 * method named; JSON null when no ratio can be taken. */
json_t *paired_ratio_json(const measure_ctx *ctx, const interleave_result *pairs, const char *baseline_name);

#endif
