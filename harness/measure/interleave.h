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
#include "measure/clock_watch.h"

/* An implementation with two sets of output and workspace buffers. The two sides of a
 * pair never share a set, and which side gets which set is drawn per pair: where a
 * kernel's speed depends on its buffers' addresses (seen on the H100: cuBLAS and cuDNN
 * ran 1-2% apart on two output buffers of the same size), that lands on both sides alike
 * instead of on one build. */
typedef struct {
    const attn_phase *ph;
    void *state;
    attn_args args, args_alt;     /* same inputs and stream, the other buffer set */
} timed_impl;

typedef struct {
    size_t min_samples, max_samples;
    double min_gpu_s;             /* at least this much timed device time (both together) */
    double max_seconds;           /* wall time limit of the sampling loop */
    int inner_max;                /* launches per graph (fewer for slow kernels) */
    double graph_target_us;       /* a replay of the slower one stays near this */
    int warmup;                   /* replays of each discarded before sampling */
    uint64_t seed;                /* draws the order of each pair */
    clock_policy clock;           /* read after each pair; a throttled pair is discarded */
} interleave_config;

typedef struct {
    double *a_us, *b_us;          /* per launch, pair i = (a_us[i], b_us[i]) */
    unsigned char *a_first;       /* 1 when A ran first in pair i */
    unsigned char *a_alt;         /* 1 when A used its args_alt (and B its args) in pair i */
    size_t n;
    int inner;
    double gpu_s, wall_s;
    const char *stop;             /* "min_gpu_time", "max_samples", "max_time", "throttled" */
    unsigned *sm_mhz;             /* after pair i (0: not read) */
    clock_tally tally;            /* discarded pairs, power-capped pairs, reasons seen */
} interleave_result;

/* 0, or -1 with err naming the failing call. */
int interleave_measure(const timed_impl *a, const timed_impl *b, const interleave_config *cfg,
                       interleave_result *out, char *err, size_t errlen);
void interleave_result_free(interleave_result *r);

#endif
