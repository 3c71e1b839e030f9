/* measure/correctness.h: the correctness comparator (an fp16 output against the fp64 oracle). */
#ifndef ATTNLADDER_COMPARE_H
#define ATTNLADDER_COMPARE_H
#include <stddef.h>
#include <stdint.h>
#include "attn_phase.h"

typedef struct {
    double rel_l2_max;   /* pass needs rel_l2 <= this */
    double max_abs_max;  /* and max_abs <= this */
} compare_bounds;

/* The project's bounds (see the README of harness/ for how they were chosen). */
compare_bounds compare_default_bounds(void);

typedef struct {
    size_t checked;        /* elements compared */
    size_t nonfinite;      /* NaN or Inf in the output (unwritten poison shows here);
                              compare_half_outputs counts a non-finite baseline too */
    double max_abs;        /* max |out - ref| over finite elements */
    double rel_l2;         /* ||out - ref||_2 / ||ref||_2 (||ref|| == 0: absolute) */
    size_t worst_row;      /* flat row index of max_abs */
    int worst_col;
    int pass;              /* nonfinite == 0 && rel_l2 <= .. && max_abs <= .. */
} compare_result;

/* out: the whole fp16 output (B*H*Sq*D, BHSD) copied back from the device.
 * rows/nrows: the rows the reference computed (rows == NULL: all rows, in order);
 * ref[r * head_dim + d] for the r-th of those rows. */
compare_result compare_output(const attn_shape *s, const uint16_t *out,
                              const size_t *rows, size_t nrows, const double *ref,
                              compare_bounds b);

/* Same for two fp16 outputs (an implementation against the cuDNN baseline on shapes
 * too large for the full CPU oracle); `ref` is the fp16 baseline output. */
compare_result compare_half_outputs(const attn_shape *s, const uint16_t *out,
                                    const uint16_t *ref, compare_bounds b);

#endif
