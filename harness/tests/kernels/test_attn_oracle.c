/* test_attn_oracle.c: the fp64 oracle against a naive formulation written
 * differently (the whole score matrix in long double, exp without subtracting the
 * maximum), against cases whose answer is known exactly, across thread counts, and
 * the row sampler's promises. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "attn_oracle.h"
#include "core/half.h"
#include "measure/inputs.h"
#include "core/rng.h"

/* O for every row: S = scale Q K^T over the whole matrix, masked entries excluded,
 * P = exp(S) / sum exp(S); a row with no visible key stays zero. */
static void naive_attention(const attn_shape *s, const uint16_t *q, const uint16_t *k,
                            const uint16_t *v, long double *out)
{
    int sq = s->seq_q, skv = s->seq_kv, dim = s->head_dim;
    long double *sc = malloc((size_t)sq * skv * sizeof *sc);
    assert_non_null(sc);
    for (int bh = 0; bh < s->batch * s->heads; bh++) {
        const uint16_t *qb = q + (size_t)bh * sq * dim, *kb = k + (size_t)bh * skv * dim,
                       *vb = v + (size_t)bh * skv * dim;
        for (int i = 0; i < sq; i++)
            for (int j = 0; j < skv; j++) {
                long double dot = 0;
                for (int d = 0; d < dim; d++)
                    dot += (long double)half_to_float(qb[i * dim + d]) *
                           (long double)half_to_float(kb[j * dim + d]);
                sc[(size_t)i * skv + j] = (long double)s->scale * dot;
            }
        for (int i = 0; i < sq; i++) {
            long double *o = out + ((size_t)bh * sq + i) * dim;
            long double denom = 0;
            for (int d = 0; d < dim; d++) o[d] = 0;
            for (int j = 0; j < skv; j++) {
                if (s->causal && j > i + (skv - sq)) continue;
                long double p = expl(sc[(size_t)i * skv + j]);
                denom += p;
                for (int d = 0; d < dim; d++) o[d] += p * (long double)half_to_float(vb[j * dim + d]);
            }
            if (denom > 0)
                for (int d = 0; d < dim; d++) o[d] /= denom;
        }
    }
    free(sc);
}

static double *reference_all(const attn_shape *s, const host_inputs *in, int threads)
{
    double *out = malloc(oracle_total_rows(s) * (size_t)s->head_dim * sizeof *out);
    assert_non_null(out);
    assert_int_equal(oracle_attention_rows(s, in->q, in->k, in->v, NULL, oracle_total_rows(s), out,
                                        threads), 0);
    return out;
}

static void check_against_naive(attn_shape s, uint64_t seed)
{
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &s, seed, DIST_UNIFORM), 0);
    double *ref = reference_all(&s, &in, 3);
    long double *nv = malloc(in.nq * sizeof *nv);
    assert_non_null(nv);
    naive_attention(&s, in.q, in.k, in.v, nv);
    double worst = 0;
    for (size_t e = 0; e < in.nq; e++) {
        double d = fabs(ref[e] - (double)nv[e]);
        if (d > worst) worst = d;
    }
    if (worst > 1e-13)
        fail_msg("%dx%dx%dx%dx%d causal=%d: max |ref - naive| = %g", s.batch, s.heads, s.seq_q,
                 s.seq_kv, s.head_dim, s.causal, worst);
    free(nv);
    free(ref);
    inputs_free(&in);
}

static attn_shape shape(int b, int h, int sq, int skv, int d, int causal)
{
    return (attn_shape){ b, h, sq, skv, d, causal, (float)(1.0 / sqrt((double)d)) };
}

static void matches_naive_on_listed_shapes(void **st)
{
    (void)st;
    const attn_shape shapes[] = {
        shape(1, 2, 7, 7, 64, 0),    shape(2, 3, 33, 33, 64, 1),  shape(1, 2, 1, 300, 64, 1),
        shape(1, 1, 129, 257, 128, 1), shape(1, 2, 257, 129, 128, 1), shape(2, 1, 77, 77, 128, 0),
        shape(1, 1, 5, 3, 64, 0),    shape(1, 1, 1, 1, 128, 1),   shape(1, 2, 40, 17, 64, 1),
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) check_against_naive(shapes[i], 100 + i);
}

static void matches_naive_on_random_shapes(void **st)
{
    (void)st;
    rng_state r;
    rng_seed(&r, 2024);
    for (int t = 0; t < 12; t++) {
        attn_shape s = shape(1 + (int)rng_below(&r, 2), 1 + (int)rng_below(&r, 3),
                             1 + (int)rng_below(&r, 90), 1 + (int)rng_below(&r, 90),
                             rng_below(&r, 2) ? 128 : 64, (int)rng_below(&r, 2));
        s.scale = (float)(0.05 + rng_uniform(&r) * 0.4);
        check_against_naive(s, 500 + (uint64_t)t);
    }
}

static void fill_half(uint16_t *x, size_t n, float value)
{
    for (size_t i = 0; i < n; i++) x[i] = half_from_float(value);
}

/* Q = 0 makes every score equal: each row is the mean of the V rows it sees. */
static void equal_scores_give_mean_of_v(void **st)
{
    (void)st;
    for (int causal = 0; causal < 2; causal++) {
        attn_shape s = shape(1, 2, 6, 9, 64, causal);
        host_inputs in;
        assert_int_equal(inputs_generate(&in, &s, 7, DIST_UNIFORM), 0);
        fill_half(in.q, in.nq, 0.0f);
        double *ref = reference_all(&s, &in, 2);
        for (int bh = 0; bh < 2; bh++)
            for (int i = 0; i < s.seq_q; i++) {
                int keys = causal ? i + (s.seq_kv - s.seq_q) + 1 : s.seq_kv;
                for (int d = 0; d < 64; d++) {
                    long double mean = 0;
                    for (int j = 0; j < keys; j++)
                        mean += half_to_float(in.v[((size_t)bh * s.seq_kv + j) * 64 + d]);
                    mean /= keys;
                    assert_true(fabs(ref[((size_t)bh * s.seq_q + i) * 64 + d] - (double)mean) < 1e-15);
                }
            }
        free(ref);
        inputs_free(&in);
    }
}

/* One key's score 64 above the others: its weight is 1 - O(e^-64), the row is that V. */
static void dominant_score_selects_its_v_row(void **st)
{
    (void)st;
    attn_shape s = shape(1, 1, 3, 50, 64, 0);
    s.scale = 1.0f;
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &s, 8, DIST_UNIFORM), 0);
    fill_half(in.q, in.nq, 0.0f);
    const int pick[3] = { 0, 31, 49 };
    /* row i meets key pick[i] in dimension 1 + i, where every other key is 0 */
    for (int i = 0; i < 3; i++) {
        in.q[i * 64 + 1 + i] = half_from_float(8.0f);
        for (int j = 0; j < 50; j++) in.k[j * 64 + 1 + i] = half_from_float(j == pick[i] ? 8.0f : 0.0f);
    }
    double *ref = reference_all(&s, &in, 1);
    for (int i = 0; i < 3; i++)
        for (int d = 0; d < 64; d++)
            assert_true(fabs(ref[i * 64 + d] - half_to_float(in.v[pick[i] * 64 + d])) < 1e-24);
    free(ref);
    inputs_free(&in);
}

/* Causal, seq_q == seq_kv: row 0 sees key 0 alone and is V[0] exactly. With
 * seq_q > seq_kv the first seq_q - seq_kv rows see nothing and are zeros; the next one
 * sees key 0 alone. */
static void causal_edges_exact(void **st)
{
    (void)st;
    attn_shape s = shape(2, 2, 20, 20, 128, 1);
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &s, 9, DIST_UNIFORM), 0);
    double *ref = reference_all(&s, &in, 3);
    for (int bh = 0; bh < 4; bh++)
        for (int d = 0; d < 128; d++)
            assert_true(ref[(size_t)bh * 20 * 128 + d] == half_to_float(in.v[(size_t)bh * 20 * 128 + d]));
    free(ref);
    inputs_free(&in);

    s = shape(1, 3, 10, 4, 64, 1);
    assert_int_equal(inputs_generate(&in, &s, 10, DIST_UNIFORM), 0);
    ref = reference_all(&s, &in, 2);
    for (int bh = 0; bh < 3; bh++) {
        for (int i = 0; i < 6; i++)
            for (int d = 0; d < 64; d++) assert_true(ref[((size_t)bh * 10 + i) * 64 + d] == 0.0);
        for (int d = 0; d < 64; d++)
            assert_true(ref[((size_t)bh * 10 + 6) * 64 + d] == half_to_float(in.v[(size_t)bh * 4 * 64 + d]));
        for (int d = 0; d < 64; d++) assert_true(ref[((size_t)bh * 10 + 7) * 64 + d] != 0.0);
    }
    free(ref);
    inputs_free(&in);
}

static void threads_and_subsets_are_bit_identical(void **st)
{
    (void)st;
    attn_shape s = shape(2, 3, 100, 90, 64, 1);
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &s, 11, DIST_UNIFORM), 0);
    size_t n = oracle_total_rows(&s) * 64;
    double *one = reference_all(&s, &in, 1), *four = reference_all(&s, &in, 4),
           *autot = reference_all(&s, &in, 0), *many = reference_all(&s, &in, 64);
    assert_memory_equal(one, four, n * sizeof *one);
    assert_memory_equal(one, autot, n * sizeof *one);
    assert_memory_equal(one, many, n * sizeof *one);
    /* a subset, out of order and with a repeat, gives the same rows */
    const size_t rows[] = { 599, 0, 37, 300, 299, 37, 150 };
    const size_t nr = sizeof rows / sizeof rows[0];
    double sub[7 * 64];
    assert_int_equal(oracle_attention_rows(&s, in.q, in.k, in.v, rows, nr, sub, 3), 0);
    for (size_t r = 0; r < nr; r++) assert_memory_equal(sub + r * 64, one + rows[r] * 64, 64 * sizeof *sub);
    free(one);
    free(four);
    free(autot);
    free(many);
    inputs_free(&in);
}

/* Rows of one head are computed together, keys in blocks: a row's bits must not depend on
 * which rows it is grouped with, nor on where a key block ends (Skv past several blocks,
 * causal with Sq != Skv, rows of two heads in one grab). */
static void grouped_rows_are_bit_identical(void **st)
{
    (void)st;
    attn_shape s = shape(1, 2, 40, 1300, 128, 1);
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &s, 13, DIST_UNIFORM), 0);
    size_t rows = oracle_total_rows(&s);
    double *all = reference_all(&s, &in, 1), alone[128];
    for (size_t r = 0; r < rows; r++) {
        assert_int_equal(oracle_attention_rows(&s, in.q, in.k, in.v, &r, 1, alone, 1), 0);
        assert_memory_equal(alone, all + r * 128, sizeof alone);
    }
    free(all);
    inputs_free(&in);
}

static void bad_arguments_refused(void **st)
{
    (void)st;
    attn_shape s = shape(1, 1, 4, 4, 64, 0);
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &s, 12, DIST_UNIFORM), 0);
    double out[4 * 64];
    const size_t past_end[] = { 4 };
    assert_int_equal(oracle_attention_rows(&s, in.q, in.k, in.v, past_end, 1, out, 1), -1);
    assert_int_equal(oracle_attention_rows(&s, NULL, in.k, in.v, NULL, 4, out, 1), -1);
    attn_shape bad = s;
    bad.head_dim = 0;
    assert_int_equal(oracle_attention_rows(&bad, in.q, in.k, in.v, NULL, 4, out, 1), -1);
    assert_int_equal(oracle_attention_rows(&s, in.q, in.k, in.v, NULL, 0, out, 1), 0);
    inputs_free(&in);
}

static void flops_count_visible_keys(void **st)
{
    (void)st;
    attn_shape s = shape(2, 4, 512, 512, 64, 0);
    assert_true(oracle_total_rows(&s) == 2 * 4 * 512);
    assert_true(oracle_row_flops(&s, 10) == 4.0 * 64 * 512 * 10);
    s.causal = 1;   /* row i sees i + 1 keys: mean (512 + 1) / 2 */
    assert_true(fabs(oracle_row_flops(&s, 10) - 4.0 * 64 * 256.5 * 10) < 1e-6);
    s = shape(1, 1, 10, 4, 64, 1);   /* rows 6..9 see 1..4 keys: mean 1 */
    assert_true(fabs(oracle_row_flops(&s, 1) - 4.0 * 64 * 1.0) < 1e-9);
}

/* The sampler's promises for one shape and count. */
static size_t check_sample(const attn_shape *s, size_t nwant, uint64_t seed, size_t *rows)
{
    size_t total = oracle_total_rows(s), sq = (size_t)s->seq_q, nbh = total / sq;
    size_t n = oracle_sample_rows(s, nwant, seed, rows);
    assert_true(n <= nwant && n <= total);
    if (nwant >= total) {
        assert_int_equal(n, total);
        for (size_t r = 0; r < n; r++) assert_int_equal(rows[r], r);
        return n;
    }
    for (size_t r = 0; r < n; r++) {
        assert_true(rows[r] < total);
        if (r) assert_true(rows[r] > rows[r - 1]);        /* sorted, distinct */
    }
    size_t per = ref_sample_head_rows(sq);
    if (nwant < per) {                                    /* part of one head */
        assert_int_equal(n, nwant);
        assert_int_equal(rows[0] % sq, 0);
        assert_int_equal(rows[n - 1] / sq, rows[0] / sq);
        return n;
    }
    size_t nheads = nwant / per < nbh ? nwant / per : nbh;
    assert_int_equal(n, nheads * per);
    /* head t of the sample lies in the t-th of nheads equal strata of the heads, and
     * brings its first row, its last row and a row in every 64-row tile */
    size_t tiles = (sq + 63) / 64;
    char *seen = calloc(tiles, 1);
    assert_non_null(seen);
    for (size_t t = 0; t < nheads; t++) {
        const size_t *h = rows + t * per;
        size_t bh = h[0] / sq;
        assert_true(bh >= t * nbh / nheads && bh < (t + 1) * nbh / nheads);
        assert_int_equal(h[0], bh * sq);
        assert_int_equal(h[per - 1], bh * sq + sq - 1);
        memset(seen, 0, tiles);
        for (size_t r = 0; r < per; r++) {
            assert_int_equal(h[r] / sq, bh);
            seen[(h[r] % sq) / 64] = 1;
        }
        for (size_t k = 0; k < tiles; k++) assert_true(seen[k]);
    }
    free(seen);
    return n;
}

static void sampled_rows_properties(void **st)
{
    (void)st;
    size_t *a = malloc(70000 * sizeof *a), *b = malloc(70000 * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    const attn_shape shapes[] = { shape(4, 16, 4096, 4096, 128, 1), shape(1, 8, 512, 512, 64, 0),
                                  shape(1, 16, 1, 300, 64, 1), shape(3, 5, 2, 2, 64, 0),
                                  shape(1, 1, 129, 257, 128, 1), shape(2, 2, 3, 3, 64, 1),
                                  shape(32, 32, 512, 512, 64, 1), shape(1, 16, 16384, 16384, 128, 0),
                                  shape(16, 16, 1024, 1024, 128, 0), shape(1, 8, 300, 129, 64, 1) };
    const size_t wants[] = { 1, 2, 3, 7, 31, 64, 65, 127, 128, 129, 512, 1000, 4096, 70000 };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t w = 0; w < sizeof wants / sizeof wants[0]; w++) {
            size_t n = check_sample(&shapes[i], wants[w], 77, a);
            size_t m = check_sample(&shapes[i], wants[w], 77, b);
            assert_int_equal(n, m);
            assert_memory_equal(a, b, n * sizeof *a);     /* same seed, same rows */
        }
    /* another seed picks other interior rows */
    size_t n = check_sample(&shapes[0], 512, 1, a), m = check_sample(&shapes[0], 512, 2, b);
    assert_int_equal(n, m);
    assert_true(memcmp(a, b, n * sizeof *a) != 0);
    /* the default budget (4096) reaches interior rows of many heads on every sweep point
     * where it samples: 32x32x512 causal gets 409 of its 1024 heads, 1x16x16384 15 of 16 */
    assert_int_equal(check_sample(&shapes[6], 4096, 5, a), 409 * 10);
    assert_int_equal(check_sample(&shapes[7], 4096, 5, a), 15 * 258);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_naive_on_listed_shapes),
        cmocka_unit_test(matches_naive_on_random_shapes),
        cmocka_unit_test(equal_scores_give_mean_of_v),
        cmocka_unit_test(dominant_score_selects_its_v_row),
        cmocka_unit_test(causal_edges_exact),
        cmocka_unit_test(threads_and_subsets_are_bit_identical),
        cmocka_unit_test(grouped_rows_are_bit_identical),
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(flops_count_visible_keys),
        cmocka_unit_test(sampled_rows_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
