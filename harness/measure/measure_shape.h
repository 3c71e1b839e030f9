/* measure.h: one shape, every implementation: correctness against the reference, then
 * timing in the chosen modes, producing the evidence's result objects. */
#ifndef ATTNLADDER_MEASURE_H
#define ATTNLADDER_MEASURE_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "measure/correctness.h"
#include "measure/loader.h"
#include "core/shapes.h"
#include "measure/timing.h"

typedef struct {
    const loaded_impl **impls;     /* in measuring order; the baseline first if present */
    size_t n_impls;
    const char *baseline;          /* name of the ratio's denominator, or NULL */
    int modes[MODE_COUNT];         /* modes for headline points */
    int sweep_modes[MODE_COUNT];   /* modes for every other point */
    time_config tc;
    compare_bounds bounds;
    uint64_t seed;
    double full_ref_max_flops;     /* above this the CPU reference samples rows */
    size_t sample_rows;
    int ref_threads;
    volatile sig_atomic_t *stop;   /* set by SIGINT/SIGTERM: finish the point early */
    size_t progress_done, progress_total;   /* for the progress line */
} measure_ctx;

/* Appends one result object per implementation for this point to `results`.
 * Returns the number of correctness failures, or -1 on a fatal CUDA error (err). */
int measure_point(measure_ctx *ctx, const shape_point *pt, json_t *results,
                  char *err, size_t errlen);

/* Adds derived.ratio to every result of `results` from index `first` on whose shape the
 * baseline was timed (graph mode), and the TFLOP/s and GB/s figures. */
void measure_derive(json_t *results, size_t first, const char *baseline,
                    double fp16_tflops, double dram_gbps, const time_config *tc);

#endif
