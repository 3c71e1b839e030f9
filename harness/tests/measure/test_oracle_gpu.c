/* test_oracle_gpu.c: what the harness does with the GPU oracle's comparison, on the
 * CPU: partials made the way the device makes them (each block's grid-stride share of the
 * elements) reduce to compare_output's verdict and figures, a NaN anywhere fails, the
 * worst element is found, and the reduction is the same bits every time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/half.h"
#include "core/rng.h"
#include "measure/oracle_gpu.h"

#define THREADS 256   /* the comparison kernel's block */

/* The device's split: element i goes to block (i / THREADS) % PARTIALS. */
static void partials_of(const uint16_t *out, const double *ref, size_t n, attn_reference_gpu_partial *p)
{
    for (size_t b = 0; b < ATTN_REFERENCE_GPU_PARTIALS; b++)
        p[b] = (attn_reference_gpu_partial){ 0, 0, 0, 0, 0, ~0ull };
    for (size_t i = 0; i < n; i++) {
        attn_reference_gpu_partial *a = &p[(i / THREADS) % ATTN_REFERENCE_GPU_PARTIALS];
        double o = half_to_float(out[i]), r = ref[i];
        a->checked++;
        if (!isfinite(o) || !isfinite(r)) {
            a->nonfinite++;
            continue;
        }
        double d = o - r;
        a->sum_d2 += d * d;
        a->sum_r2 += r * r;
        if (fabs(d) > a->max_abs || (fabs(d) == a->max_abs && i < a->worst)) {
            a->max_abs = fabs(d);
            a->worst = i;
        }
    }
}

static void reduce_matches_compare_output(void **st)
{
    (void)st;
    attn_shape s = { 2, 4, 300, 300, 64, 1, 0.125f };
    size_t n = 2 * 4 * 300 * 64;
    uint16_t *out = malloc(n * sizeof *out);
    double *ref = malloc(n * sizeof *ref);
    attn_reference_gpu_partial *p = malloc(ATTN_REFERENCE_GPU_PARTIALS * sizeof *p);
    assert_true(out && ref && p);
    rng_state r;
    rng_seed(&r, 5);
    for (size_t i = 0; i < n; i++) {
        ref[i] = 2 * rng_uniform(&r) - 1;
        out[i] = half_from_float((float)(ref[i] + 1e-3 * (rng_uniform(&r) - 0.5)));
    }
    out[77777] = half_from_float((float)(ref[77777] + 0.004));   /* the worst element */
    compare_bounds b = compare_default_bounds();
    compare_result want = compare_output(&s, out, NULL, n / 64, ref, b);
    partials_of(out, ref, n, p);
    compare_result got = oracle_gpu_reduce(p, ATTN_REFERENCE_GPU_PARTIALS, 64, b);
    assert_int_equal(got.checked, want.checked);
    assert_int_equal(got.nonfinite, 0);
    assert_true(got.max_abs == want.max_abs);
    assert_true(fabs(got.rel_l2 - want.rel_l2) <= 1e-12 * want.rel_l2);
    assert_int_equal(got.pass, want.pass);
    assert_int_equal(got.worst_row, 77777 / 64);
    assert_int_equal(got.worst_col, 77777 % 64);
    compare_result again = oracle_gpu_reduce(p, ATTN_REFERENCE_GPU_PARTIALS, 64, b);
    assert_memory_equal(&again.rel_l2, &got.rel_l2, sizeof got.rel_l2);

    /* A tie for the worst: the same error at two elements, the lower index in a later
     * partial. compare_output names the first; the order partials are merged in must not
     * change that. */
    size_t lo = THREADS + 3, hi = (size_t)ATTN_REFERENCE_GPU_PARTIALS * THREADS + 3;
    assert_true(hi < n);
    ref[lo] = ref[hi] = 0.25;
    out[lo] = out[hi] = half_from_float(0.25f + 0.008f);
    want = compare_output(&s, out, NULL, n / 64, ref, b);
    partials_of(out, ref, n, p);
    got = oracle_gpu_reduce(p, ATTN_REFERENCE_GPU_PARTIALS, 64, b);
    assert_true(got.max_abs == want.max_abs);
    assert_int_equal(want.worst_row, lo / 64);
    assert_int_equal(got.worst_row, want.worst_row);
    assert_int_equal(got.worst_col, want.worst_col);

    out[5] = 0xffff;   /* the poison: an element never written */
    partials_of(out, ref, n, p);
    got = oracle_gpu_reduce(p, ATTN_REFERENCE_GPU_PARTIALS, 64, b);
    assert_int_equal(got.nonfinite, 1);
    assert_false(got.pass);

    /* nothing compared is no pass */
    for (size_t i = 0; i < ATTN_REFERENCE_GPU_PARTIALS; i++)
        p[i] = (attn_reference_gpu_partial){ 0, 0, 0, 0, 0, ~0ull };
    got = oracle_gpu_reduce(p, ATTN_REFERENCE_GPU_PARTIALS, 64, b);
    assert_false(got.pass);
    free(out);
    free(ref);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reduce_matches_compare_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
