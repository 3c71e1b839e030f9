/* measure/point_ratios.h: a point's ratios to the baseline, measured once every
 * implementation there has passed its check and its own timing.
 *
 * Those implementations stay initialised; the baseline and every one no slower than
 * POINT_SLOW_FACTOR times it are then timed in rotation (rotation.h), and each ratio is the
 * median of its per-round quotients with a bootstrap CI over rounds (results[].paired,
 * design "rotation"; derived.ratio method "paired"). A much slower one (the scalar and early
 * rungs at long shapes) would make each round mostly its own low-power replay and move the
 * others' clocks (with rungs 01 and 02 in the rotation at 4x16x4096x128, every other rung's
 * ratio moved by 1.3-6.8%:
 * evidence/nvidia-h100-80gb-hbm3/studies/rotation/slow_rungs_in_rotation_20261128T030133Z.json);
 * it keeps the quotient of its own and the baseline's separate medians (method "independent"). Paired with the baseline alone instead, as builds up to 1ded564
 * did (design "pair"), its ratio moved by up to 29% between H100 machines where the
 * separate medians moved by at most 6.6% (evidence/STUDIES.md), and the pairs cost about
 * 36 s of a sweep. The implementation's own timing stays in results[].timing (the
 * sustained, one-at-a-time regime: the absolute figures and TFLOP/s). */
#ifndef ATTNLADDER_MEASURE_POINT_RATIOS_H
#define ATTNLADDER_MEASURE_POINT_RATIOS_H
#include <stddef.h>
#include "measure/measure_shape.h"
#include "measure/point_derived.h"
#include "measure/rotation.h"
#include "measure/step_clock.h"

/* Slower than this many times the baseline: out of the rotation, its separate medians. */
#define POINT_SLOW_FACTOR 4.0

/* An implementation kept initialised after its own measurement. */
typedef struct {
    const loaded_impl *im;
    void *state;
    size_t ws;                 /* its workspace bytes */
    result_record *res;        /* its result (borrowed: the point's record holds it) */
    const time_result *graph;  /* its own graph-mode measurement, in res */
} kept_impl;

/* The point's buffers the ratios are measured on: inputs, and two sets of output and
 * workspace (o2/ws2 NULL: one set). */
typedef struct {
    const void *q, *k, *v;
    void *o, *ws, *o2, *ws2;
    l2_layout copies;          /* q, k and v hold this many copies (measure/l2_copies.h) */
} point_buffers;

/* Measures the ratios of every kept implementation and gives each its pairs (res->paired)
 * and derived figures (the baseline's and those that could not be paired: derived from
 * their own samples, method "independent"). 0, or -1 with err (a CUDA failure). */
int point_ratios(measure_ctx *ctx, const attn_shape *s, const char *shape_text, const point_buffers *b,
                 cudaStream_t stream, kept_impl *kept, size_t n_kept, step_times *st, char *err, size_t errlen);

/* The rotation's settings from the run's (measure_ctx.tc): its round limits, time limit,
 * GPU time and CI target. */
rotation_rule point_rotation_rule(const measure_ctx *ctx, uint64_t seed, int alt_sets);

#endif
