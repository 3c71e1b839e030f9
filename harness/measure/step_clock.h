/* measure/step_clock.h: where a run's wall time goes. Every stage of a point (drawing the
 * inputs, the references, the checks, the timing loops, ...) adds its host time to one
 * bucket, per point and for the run; the evidence keeps both (cost.steps_s, cost.points),
 * so a slow run says which step to make faster. */
#ifndef ATTNLADDER_STEP_CLOCK_H
#define ATTNLADDER_STEP_CLOCK_H
#include <stddef.h>

typedef enum {
    STEP_INPUTS,        /* drawing the seeded inputs on the host */
    STEP_REF_CPU,       /* the CPU fp64 oracle (all rows or the sampled ones) */
    STEP_REF_GPU,       /* the GPU fp64 oracle, and its check against the CPU rows */
    STEP_DEVICE_MEM,    /* allocating, uploading, freeing device buffers */
    STEP_INIT,          /* implementations' init and fini */
    STEP_CHECK_RUN,     /* the checked launches (poison, run, copy back when on the host) */
    STEP_COMPARE,       /* comparing outputs with the reference (and the baseline) */
    STEP_TIMING,        /* time_measure: estimate, graph capture, warm-up, samples */
    STEP_RECHECK,       /* the check of the last timed launch's output */
    STEP_PAIRED,        /* the point's rotation (point_ratios.h) */
    STEP_OTHER_INPUTS,  /* the checks on the other input distributions */
    STEP_COUNT
} step_id;

typedef struct {
    double s[STEP_COUNT];
} step_times;

const char *step_name(step_id id);
/* Adds the seconds since t0 (time_now_s) to bucket id; returns the current time, so
 * consecutive steps chain: t = step_add(st, STEP_X, t). */
double step_add(step_times *st, step_id id, double t0);
void step_times_accumulate(step_times *into, const step_times *add);
/* "inputs 0.12, ref_cpu 0.30, ..." for the buckets of at least 5 ms. */
void step_times_text(const step_times *st, char *buf, size_t len);

#endif
