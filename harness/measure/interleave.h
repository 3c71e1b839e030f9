/* measure/interleave.h: two implementations timed in alternation, in one process, on the
 * same inputs and stream: the paired measurement of the A/B regression gate. Each sample
 * is one replay of each one's CUDA graph, back to back, in an order drawn per sample, so
 * a clock change, a neighbour's load or a thermal drift falls on both alike and cancels
 * in the pair's ratio. */
#ifndef ATTNLADDER_MEASURE_INTERLEAVE_H
#define ATTNLADDER_MEASURE_INTERLEAVE_H
#include <stddef.h>
#include <stdint.h>
#include "attn_phase.h"

typedef struct {
    const attn_phase *ph;
    void *state;
    attn_args args;               /* both use the same stream */
} timed_impl;

typedef struct {
    size_t min_samples, max_samples;
    double min_gpu_s;             /* at least this much timed device time (both together) */
    double max_seconds;           /* wall time limit of the sampling loop */
    int inner_max;                /* launches per graph (fewer for slow kernels) */
    double graph_target_us;       /* a replay of the slower one stays near this */
    int warmup;                   /* replays of each discarded before sampling */
    uint64_t seed;                /* draws the order of each pair */
} interleave_config;

typedef struct {
    double *a_us, *b_us;          /* per launch, pair i = (a_us[i], b_us[i]) */
    unsigned char *a_first;       /* 1 when A ran first in pair i */
    size_t n;
    int inner;
    double gpu_s, wall_s;
    const char *stop;             /* "min_gpu_time", "max_samples", "max_time" */
} interleave_result;

/* 0, or -1 with err naming the failing call. */
int interleave_measure(const timed_impl *a, const timed_impl *b, const interleave_config *cfg,
                       interleave_result *out, char *err, size_t errlen);
void interleave_result_free(interleave_result *r);

#endif
