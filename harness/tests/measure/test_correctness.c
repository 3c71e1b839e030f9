/* test_correctness.c: the comparator's verdicts at and around each bound, its handling of
 * non-finite and unwritten (poisoned) elements, where it says the worst error is, the
 * sampled-rows path reading only the rows it was given, and the bounds themselves: an
 * emulated fp16 kernel passes them, the same with a causal mask one key off fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include "attn_oracle.h"
#include "measure/correctness.h"
#include "core/half.h"
#include "measure/inputs.h"
#include "core/rng.h"

#define D 64
static const attn_shape S = { 1, 2, 5, 5, D, 0, 0.125f };   /* 10 rows, 640 elements */
#define N (10 * D)

static const compare_bounds B = { 2e-3, 1e-2 };

static void default_bounds(void **st)
{
    (void)st;
    compare_bounds b = compare_default_bounds();
    assert_true(b.rel_l2_max == 2e-3);
    assert_true(b.max_abs_max == 1e-2);
}

/* An output equal to the reference passes with zero error; one that is the reference
 * rounded to fp16 passes with the rounding error alone. */
static void exact_and_rounded_outputs_pass(void **st)
{
    (void)st;
    uint16_t out[N];
    double ref[N];
    rng_state r;
    rng_seed(&r, 1);
    for (int i = 0; i < N; i++) {
        out[i] = half_from_float((float)(rng_uniform(&r) - 0.5));
        ref[i] = half_to_float(out[i]);
    }
    compare_result c = compare_output(&S, out, NULL, 10, ref, B);
    assert_true(c.pass);
    assert_int_equal(c.checked, N);
    assert_int_equal(c.nonfinite, 0);
    assert_true(c.max_abs == 0 && c.rel_l2 == 0);

    for (int i = 0; i < N; i++) {
        ref[i] = rng_uniform(&r) - 0.5;
        out[i] = half_from_float((float)ref[i]);
    }
    c = compare_output(&S, out, NULL, 10, ref, B);
    assert_true(c.pass);
    assert_true(c.max_abs > 0 && c.max_abs <= 0x1p-12);     /* half an ulp below 0.5 */
    assert_true(c.rel_l2 > 0 && c.rel_l2 < 5e-4);
}

static void nonfinite_elements_fail(void **st)
{
    (void)st;
    const uint16_t bad[] = { HALF_POISON, 0x7e00u /* NaN */, 0x7c00u /* +Inf */,
                             0xfc00u /* -Inf */ };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        uint16_t out[N];
        double ref[N];
        for (int i = 0; i < N; i++) {
            out[i] = half_from_float(0.25f);
            ref[i] = 0.25;
        }
        out[3 * D + 17] = bad[b];
        compare_result c = compare_output(&S, out, NULL, 10, ref, B);
        assert_false(c.pass);
        assert_int_equal(c.nonfinite, 1);
        assert_int_equal(c.checked, N);
        assert_true(c.max_abs == 0 && c.rel_l2 == 0);   /* the finite part is exact */
    }
}

/* out = 0.5 everywhere; ref = 0.5 except one element off by delta. ||ref|| ~ 12.6, so
 * rel-L2 stays ~8e-4 and only the max-abs bound decides. */
static void max_abs_bound(void **st)
{
    (void)st;
    uint16_t out[N];
    double ref[N];
    for (int i = 0; i < N; i++) out[i] = half_from_float(0.5f);
    const double deltas[] = { 0.0099, 0.0101 };
    const int expect[] = { 1, 0 };
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < N; i++) ref[i] = 0.5;
        ref[7 * D + 33] = 0.5 - deltas[t];
        compare_result c = compare_output(&S, out, NULL, 10, ref, B);
        assert_true(fabs(c.max_abs - deltas[t]) < 1e-15);
        assert_true(c.rel_l2 < 1e-3);
        assert_int_equal(c.pass, expect[t]);
        assert_int_equal(c.worst_row, 7);
        assert_int_equal(c.worst_col, 33);
    }
}

/* ref = 0.5 +- e alternating, out = 0.5: rel-L2 = e / sqrt(0.25 + e^2) exactly, and
 * max-abs e is far under its bound, so only the rel-L2 bound decides. */
static void rel_l2_bound(void **st)
{
    (void)st;
    uint16_t out[N];
    double ref[N];
    for (int i = 0; i < N; i++) out[i] = half_from_float(0.5f);
    const double targets[] = { 1.9e-3, 2.1e-3 };
    for (int t = 0; t < 2; t++) {
        double rel = targets[t], e = 0.5 * rel / sqrt(1 - rel * rel);
        for (int i = 0; i < N; i++) ref[i] = 0.5 + ((i & 1) ? e : -e);
        compare_result c = compare_output(&S, out, NULL, 10, ref, B);
        assert_true(fabs(c.rel_l2 - rel) < 1e-9);
        assert_true(c.max_abs < 2e-3);
        assert_int_equal(c.pass, t == 0);
    }
}

/* Rows that see no key have a zero reference: the error is then absolute. */
static void zero_reference_uses_absolute_error(void **st)
{
    (void)st;
    uint16_t out[N];
    double ref[N] = { 0 };
    for (int i = 0; i < N; i++) out[i] = 0;
    compare_result c = compare_output(&S, out, NULL, 10, ref, B);
    assert_true(c.pass && c.rel_l2 == 0);
    out[5] = half_from_float(0.001f);
    c = compare_output(&S, out, NULL, 10, ref, B);
    assert_true(fabs(c.rel_l2 - half_to_float(out[5])) < 1e-12);
    assert_true(c.pass);
    out[5] = half_from_float(0.003f);
    c = compare_output(&S, out, NULL, 10, ref, B);
    assert_false(c.pass);
    assert_int_equal(c.worst_row, 0);
    assert_int_equal(c.worst_col, 5);
}

/* Only the listed rows are read: the others hold poison and do not count. */
static void sampled_rows_path(void **st)
{
    (void)st;
    uint16_t out[N];
    for (int i = 0; i < N; i++) out[i] = HALF_POISON;
    const size_t rows[] = { 3, 7, 9 };
    double ref[3 * D];
    for (int r = 0; r < 3; r++)
        for (int d = 0; d < D; d++) {
            ref[r * D + d] = 0.125 * (d % 5) - 0.25;
            out[rows[r] * D + d] = half_from_float((float)ref[r * D + d]);
        }
    ref[1 * D + 5] += 0.008;   /* the worst error: flat row 7, column 5 */
    ref[2 * D + 9] += 0.002;
    compare_result c = compare_output(&S, out, rows, 3, ref, B);
    assert_int_equal(c.checked, 3 * D);
    assert_int_equal(c.nonfinite, 0);
    assert_true(fabs(c.max_abs - 0.008) < 1e-15);
    assert_int_equal(c.worst_row, 7);
    assert_int_equal(c.worst_col, 5);
    assert_true(c.rel_l2 > 3e-3 && c.rel_l2 < 4e-3);   /* 8.2e-3 / ||ref|| 2.45 */
    assert_false(c.pass);
    /* the same rows with an unwritten element among them fail as non-finite */
    out[9 * D + 63] = HALF_POISON;
    ref[1 * D + 5] -= 0.008;
    ref[2 * D + 9] -= 0.002;
    c = compare_output(&S, out, rows, 3, ref, B);
    assert_int_equal(c.nonfinite, 1);
    assert_false(c.pass);
    /* nothing checked is no pass */
    c = compare_output(&S, out, rows, 0, ref, B);
    assert_int_equal(c.checked, 0);
    assert_false(c.pass);
}

static void half_against_half(void **st)
{
    (void)st;
    uint16_t a[N], b[N];
    rng_state r;
    rng_seed(&r, 4);
    for (int i = 0; i < N; i++) a[i] = b[i] = half_from_float((float)(rng_uniform(&r) - 0.5));
    compare_result c = compare_half_outputs(&S, a, b, B);
    assert_true(c.pass && c.max_abs == 0 && c.rel_l2 == 0);
    assert_int_equal(c.checked, N);
    b[9 * D + 2] = half_from_float(half_to_float(a[9 * D + 2]) + 0.0078125f);   /* 2^-7 */
    c = compare_half_outputs(&S, a, b, B);
    assert_true(fabs(c.max_abs - 0.0078125) < 1e-6);
    assert_int_equal(c.worst_row, 9);
    assert_int_equal(c.worst_col, 2);
    b[0] = HALF_POISON;   /* a non-finite baseline element is not trusted either */
    c = compare_half_outputs(&S, a, b, B);
    assert_int_equal(c.nonfinite, 1);
    assert_false(c.pass);
    b[0] = a[0];
    a[1] = 0x7c00u;
    c = compare_half_outputs(&S, a, b, B);
    assert_int_equal(c.nonfinite, 1);
    assert_false(c.pass);
}

/* What a correct fp16 kernel does to the numbers: fp32 scores, P = exp(s - max)
 * rounded to fp16 for the P.V product, fp32 accumulation, O rounded to fp16. `extra`
 * lets each causal row see that many keys too many (a mask bug). */
static void emulate_fp16_kernel(const attn_shape *s, const host_inputs *in, int extra,
                                uint16_t *o)
{
    size_t dim = (size_t)s->head_dim, skv = (size_t)s->seq_kv;
    float *p = malloc(skv * sizeof *p), *acc = malloc(dim * sizeof *acc);
    assert_non_null(p);
    assert_non_null(acc);
    for (size_t r = 0; r < oracle_total_rows(s); r++) {
        size_t bh = r / (size_t)s->seq_q, i = r % (size_t)s->seq_q;
        long last = s->causal ? (long)i + s->seq_kv - s->seq_q + extra : (long)skv - 1;
        size_t nk = last < 0 ? 0 : (size_t)last + 1 < skv ? (size_t)last + 1 : skv;
        float mx = -INFINITY, l = 0;
        for (size_t j = 0; j < nk; j++) {
            float a = 0;
            for (size_t d = 0; d < dim; d++)
                a += half_to_float(in->q[r * dim + d]) * half_to_float(in->k[(bh * skv + j) * dim + d]);
            p[j] = a * s->scale;
            mx = p[j] > mx ? p[j] : mx;
        }
        for (size_t d = 0; d < dim; d++) acc[d] = 0;
        for (size_t j = 0; j < nk; j++) {
            float e = expf(p[j] - mx), e16 = half_to_float(half_from_float(e));
            l += e;
            for (size_t d = 0; d < dim; d++) acc[d] += e16 * half_to_float(in->v[(bh * skv + j) * dim + d]);
        }
        for (size_t d = 0; d < dim; d++) o[r * dim + d] = half_from_float(nk ? acc[d] / l : 0.0f);
    }
    free(p);
    free(acc);
}

/* The bounds pass a correct fp16 computation with room to spare and fail a causal
 * mask that lets each row see one key too many. */
static void bounds_admit_fp16_and_reject_a_mask_bug(void **st)
{
    (void)st;
    const attn_shape shapes[] = { { 1, 4, 256, 256, 64, 1, 0.125f },
                                  { 1, 2, 129, 257, 128, 1, 0.08838835f },
                                  { 1, 2, 200, 200, 64, 0, 0.125f } };
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        const attn_shape *s = &shapes[t];
        host_inputs in;
        assert_int_equal(inputs_generate(&in, s, 3, DIST_UNIFORM), 0);
        size_t rows = oracle_total_rows(s), n = rows * (size_t)s->head_dim;
        double *ref = malloc(n * sizeof *ref);
        uint16_t *o = malloc(n * sizeof *o);
        assert_non_null(ref);
        assert_non_null(o);
        assert_int_equal(oracle_attention_rows(s, in.q, in.k, in.v, NULL, rows, ref, 0), 0);
        emulate_fp16_kernel(s, &in, 0, o);
        compare_result c = compare_output(s, o, NULL, rows, ref, compare_default_bounds());
        assert_true(c.pass);
        assert_true(c.rel_l2 < 5e-4 && c.max_abs < 5e-4);   /* 4x and 20x under the bounds */
        if (s->causal) {
            emulate_fp16_kernel(s, &in, 1, o);
            c = compare_output(s, o, NULL, rows, ref, compare_default_bounds());
            assert_false(c.pass);
            assert_true(c.rel_l2 > 2e-3 && c.max_abs > 1e-2);
        }
        free(ref);
        free(o);
        inputs_free(&in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_bounds),
        cmocka_unit_test(exact_and_rounded_outputs_pass),
        cmocka_unit_test(nonfinite_elements_fail),
        cmocka_unit_test(max_abs_bound),
        cmocka_unit_test(rel_l2_bound),
        cmocka_unit_test(zero_reference_uses_absolute_error),
        cmocka_unit_test(sampled_rows_path),
        cmocka_unit_test(half_against_half),
        cmocka_unit_test(bounds_admit_fp16_and_reject_a_mask_bug),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
