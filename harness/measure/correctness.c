/* measure/correctness.c: max-abs and relative L2 error of an fp16 output, plus the count of
 * non-finite elements (the poison pattern 0xFFFF is a NaN, so an element the kernel
 * never wrote is counted there rather than hidden in an error norm). */
#include "measure/correctness.h"

#include <math.h>
#include "core/half.h"

compare_bounds compare_default_bounds(void)
{
    return (compare_bounds){ .rel_l2_max = 2e-3, .max_abs_max = 1e-2 };
}

typedef struct {
    compare_result r;
    double sum_d2, sum_r2;
} accum;

static void add(accum *a, double out, double ref, size_t row, int col)
{
    a->r.checked++;
    if (!isfinite(out) || !isfinite(ref)) {
        a->r.nonfinite++;
        return;
    }
    double d = out - ref;
    a->sum_d2 += d * d;
    a->sum_r2 += ref * ref;
    if (fabs(d) > a->r.max_abs) {
        a->r.max_abs = fabs(d);
        a->r.worst_row = row;
        a->r.worst_col = col;
    }
}

/* Nothing checked is not a pass. */
static compare_result finish(accum *a, compare_bounds b)
{
    a->r.rel_l2 = a->sum_r2 > 0 ? sqrt(a->sum_d2) / sqrt(a->sum_r2) : sqrt(a->sum_d2);
    a->r.pass = a->r.checked > 0 && a->r.nonfinite == 0 && a->r.rel_l2 <= b.rel_l2_max &&
                a->r.max_abs <= b.max_abs_max;
    return a->r;
}

compare_result compare_output(const attn_shape *s, const uint16_t *out,
                              const size_t *rows, size_t nrows, const double *ref,
                              compare_bounds b)
{
    accum a = { 0 };
    size_t dim = (size_t)s->head_dim;
    for (size_t r = 0; r < nrows; r++) {
        size_t row = rows ? rows[r] : r;
        for (size_t d = 0; d < dim; d++)
            add(&a, half_to_float(out[row * dim + d]), ref[r * dim + d], row, (int)d);
    }
    return finish(&a, b);
}

/* A non-finite element on either side counts: the baseline is trusted only where it
 * is finite. */
compare_result compare_half_outputs(const attn_shape *s, const uint16_t *out,
                                    const uint16_t *ref, compare_bounds b)
{
    accum a = { 0 };
    size_t dim = (size_t)s->head_dim;
    size_t nrows = (size_t)s->batch * (size_t)s->heads * (size_t)s->seq_q;
    for (size_t row = 0; row < nrows; row++)
        for (size_t d = 0; d < dim; d++)
            add(&a, half_to_float(out[row * dim + d]), half_to_float(ref[row * dim + d]), row,
                (int)d);
    return finish(&a, b);
}
