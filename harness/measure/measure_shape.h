/* measure/measure_shape.h: one shape, every implementation: correctness against the reference, then
 * timing in the chosen modes, producing the point's typed record (point_record.h) that
 * evidence/writer.c writes as the evidence's rows. */
#ifndef ATTNLADDER_MEASURE_H
#define ATTNLADDER_MEASURE_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "measure/correctness.h"
#include "measure/loader.h"
#include "core/shapes.h"
#include "measure/interleave.h"
#include "measure/oracle_gpu.h"
#include "measure/point_record.h"
#include "measure/step_clock.h"
#include "measure/timing.h"

/* The baseline's graph-mode samples at one shape: the denominator of every ratio there. */
typedef struct {
    attn_shape s;
    double *samples;
    size_t n;
} measure_baseline_timing;

typedef struct {
    const loaded_impl **impls;     /* in measuring order; the baseline first if present */
    size_t n_impls;
    const char *baseline;          /* name of the ratio's denominator, or NULL */
    int modes[MODE_COUNT];         /* modes for headline points */
    int sweep_modes[MODE_COUNT];   /* modes for every other point */
    time_config tc;
    compare_bounds bounds;
    uint64_t seed;
    double full_ref_max_flops;     /* without the GPU oracle: above this the CPU
                                      reference samples rows */
    double cpu_check_max_flops;    /* with it: the CPU rows that check it, all up to this */
    size_t sample_rows;
    int oracle_threads;
    oracle_gpu *gpu_ref;              /* the GPU fp64 oracle, or NULL (CPU oracle alone) */
    step_times steps;              /* where the points' wall time went, summed */
    volatile sig_atomic_t *stop;   /* set by SIGINT/SIGTERM: finish the point early */
    size_t progress_done, progress_total;   /* for the progress line */
    double fp16_tflops, dram_gbps; /* the run's ceilings (0 when not measured) */
    size_t l2_bytes;               /* the device's L2: memory-bound points are timed on
                                      input copies past it (l2_copies.h); 0: unknown */
    double gpu_timed_s;            /* device time inside every timed region so far */
    size_t measurements;           /* timed measurements so far */
    int paired;                    /* ratios from a rotation of the point's implementations
                                      (point_ratios.h); 0: from separate measurements */
    measure_baseline_timing *base; /* kept by measure_point; freed by measure_ctx_free */
    size_t n_base, cap_base;
} measure_ctx;

/* Fills rec (point_record_init'ed here; the caller frees it with point_record_free, whatever
 * the outcome) with one result per implementation at this point: the check on uniform
 * inputs (with the GPU oracle: every row, on the device; without it, on shapes too large
 * for the full CPU oracle: sampled rows plus the baseline's full output), the timing, the
 * check again on the output of the last timed launch, the derived figures. For the
 * point's other input distributions, one input check per implementation; the GPU
 * oracle's checks against the CPU rows; the point's cost once it is measured. Returns
 * the number of correctness failures, or -1 on a fatal CUDA error (err): rec then holds
 * what was measured before it. */
int measure_point(measure_ctx *ctx, const shape_point *pt, point_record *rec, char *err, size_t errlen);

void measure_ctx_free(measure_ctx *ctx);

#endif
