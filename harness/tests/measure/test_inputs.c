/* test_inputs.c: the inputs are reproducible from the seed, uniform over [-1, 1),
 * free of zeros and non-finite values, and q, k and v come from separate streams. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/half.h"
#include "measure/inputs.h"
#include "core/rng.h"

static const attn_shape S = { 2, 3, 129, 257, 64, 1, 0.125f };

static void sizes(void **st)
{
    (void)st;
    assert_int_equal(inputs_q_elems(&S), 2 * 3 * 129 * 64);
    assert_int_equal(inputs_kv_elems(&S), 2 * 3 * 257 * 64);
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &S, 1, DIST_UNIFORM), 0);
    assert_int_equal(in.nq, 2 * 3 * 129 * 64);
    assert_int_equal(in.nkv, 2 * 3 * 257 * 64);
    inputs_free(&in);
    assert_null(in.q);
    assert_null(in.k);
    assert_null(in.v);
}

static void same_seed_same_bits_other_seed_other_bits(void **st)
{
    (void)st;
    host_inputs a, b, c;
    assert_int_equal(inputs_generate(&a, &S, 42, DIST_UNIFORM), 0);
    assert_int_equal(inputs_generate(&b, &S, 42, DIST_UNIFORM), 0);
    assert_int_equal(inputs_generate(&c, &S, 43, DIST_UNIFORM), 0);
    assert_memory_equal(a.q, b.q, a.nq * 2);
    assert_memory_equal(a.k, b.k, a.nkv * 2);
    assert_memory_equal(a.v, b.v, a.nkv * 2);
    size_t same = 0;
    for (size_t i = 0; i < a.nq; i++) same += a.q[i] == c.q[i];
    assert_true(same < a.nq / 100);   /* coincidences only */
    inputs_free(&a);
    inputs_free(&b);
    inputs_free(&c);
}

static void streams_are_separate(void **st)
{
    (void)st;
    attn_shape sq = { 1, 1, 300, 300, 64, 0, 0.125f };
    host_inputs a, b;
    assert_int_equal(inputs_generate(&a, &sq, 5, DIST_UNIFORM), 0);
    size_t qk = 0, kv = 0;
    for (size_t i = 0; i < a.nq; i++) {
        qk += a.q[i] == a.k[i];
        kv += a.k[i] == a.v[i];
    }
    assert_true(qk < a.nq / 100 && kv < a.nq / 100);
    /* k and v do not move when only q's length changes */
    attn_shape longer_q = sq;
    longer_q.seq_q = 1000;
    assert_int_equal(inputs_generate(&b, &longer_q, 5, DIST_UNIFORM), 0);
    assert_memory_equal(a.k, b.k, a.nkv * 2);
    assert_memory_equal(a.v, b.v, a.nkv * 2);
    assert_memory_equal(a.q, b.q, a.nq * 2);   /* q's prefix is the same stream */
    inputs_free(&a);
    inputs_free(&b);

    /* q is the first word of the seed's stream seeding its own generator, with a
     * 24-bit uniform rounded to fp16 */
    assert_int_equal(inputs_generate(&a, &sq, 77, DIST_UNIFORM), 0);
    rng_state m, r;
    rng_seed(&m, 77);
    rng_seed(&r, rng_next(&m));
    int32_t x = (int32_t)(rng_next(&r) >> 40) - (1 << 23);
    uint16_t first = half_from_float((float)x / 8388608.0f);
    if ((first & 0x7fff) != 0 && first != 0x3c00) assert_int_equal(a.q[0], first);
    inputs_free(&a);
}

static void uniform_in_range_without_zeros(void **st)
{
    (void)st;
    attn_shape big = { 4, 8, 512, 512, 128, 0, 0.125f };
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &big, 9, DIST_UNIFORM), 0);
    const uint16_t *arrays[3] = { in.q, in.k, in.v };
    for (int t = 0; t < 3; t++) {
        size_t bins[20] = { 0 }, n = in.nq;
        double sum = 0, sum2 = 0, lo = 1, hi = -1;
        for (size_t i = 0; i < n; i++) {
            float f = half_to_float(arrays[t][i]);
            assert_true(isfinite(f));
            assert_true(f >= -1.0f && f < 1.0f);
            assert_true(f != 0.0f);
            sum += f;
            sum2 += (double)f * f;
            lo = f < lo ? f : lo;
            hi = f > hi ? f : hi;
            bins[(int)((f + 1.0f) * 10.0f)]++;
        }
        double mean = sum / (double)n, var = sum2 / (double)n - mean * mean;
        assert_true(fabs(mean) < 0.005);
        assert_true(fabs(var - 1.0 / 3.0) < 0.005);
        assert_true(lo < -0.999 && hi > 0.999);
        for (int b = 0; b < 20; b++)
            assert_true(fabs((double)bins[b] / (double)n - 0.05) < 0.002);
    }
    inputs_free(&in);
}

/* Peaked: Q and V are the uniform ones; each head's keys grow along the sequence, so a
 * row's largest score sits in its last keys. */
static void peaked_keys_grow_along_the_sequence(void **st)
{
    (void)st;
    attn_shape s = { 2, 4, 64, 640, 64, 0, 0.125f };
    host_inputs u, p;
    assert_int_equal(inputs_generate(&u, &s, 21, DIST_UNIFORM), 0);
    assert_int_equal(inputs_generate(&p, &s, 21, DIST_PEAKED), 0);
    assert_memory_equal(u.q, p.q, u.nq * 2);
    assert_memory_equal(u.v, p.v, u.nkv * 2);
    size_t d = 64, skv = 640;
    for (size_t bh = 0; bh < 8; bh++) {
        double first = 0, last = 0;
        for (size_t j = 0; j < 64; j++)
            for (size_t c = 0; c < d; c++) {
                float a = half_to_float(p.k[(bh * skv + j) * d + c]);
                float b = half_to_float(p.k[(bh * skv + skv - 64 + j) * d + c]);
                assert_true(a != 0.0f && b != 0.0f && fabsf(a) <= 0.2f && fabsf(b) <= 8.0f);
                first += fabs(a);
                last += fabs(b);
            }
        assert_true(last > 20 * first);   /* rms factor ~7.6 vs ~0.1 */
    }
    /* the row's best key (largest q.k) lies in its last tenth, for most rows */
    size_t late = 0, rows = 64;
    for (size_t i = 0; i < rows; i++) {
        double best = -1e30;
        size_t arg = 0;
        for (size_t j = 0; j < skv; j++) {
            double dot = 0;
            for (size_t c = 0; c < d; c++)
                dot += half_to_float(p.q[i * d + c]) * half_to_float(p.k[j * d + c]);
            if (dot > best) best = dot, arg = j;
        }
        late += arg >= skv * 9 / 10;
    }
    assert_true(late >= rows * 3 / 4);
    inputs_free(&u);
    inputs_free(&p);
}

/* Outliers: about one element in 256 of Q and K has magnitude in [8, 32); the rest and
 * all of V are the uniform [-1, 1) ones; none is zero. */
static void outliers_are_rare_and_large(void **st)
{
    (void)st;
    attn_shape s = { 4, 8, 512, 512, 128, 0, 0.125f };
    host_inputs in;
    assert_int_equal(inputs_generate(&in, &s, 33, DIST_OUTLIERS), 0);
    const uint16_t *qk[2] = { in.q, in.k };
    for (int t = 0; t < 2; t++) {
        size_t big = 0;
        for (size_t i = 0; i < in.nq; i++) {
            float f = fabsf(half_to_float(qk[t][i]));
            assert_true(f != 0.0f && f <= 32.0f);
            if (f > 1.0f) {   /* -1.0 is a uniform value */
                assert_true(f >= 8.0f);
                big++;
            }
        }
        double frac = (double)big / (double)in.nq;
        assert_true(frac > 0.8 / 256 && frac < 1.2 / 256);
    }
    for (size_t i = 0; i < in.nkv; i++) assert_true(fabsf(half_to_float(in.v[i])) <= 1.0f);
    inputs_free(&in);
}

/* Tensors past one chunk (INPUTS_CHUNK_ELEMS) are drawn chunk by chunk on several threads:
 * the bits do not depend on the thread count, the first chunk is the single stream every
 * smaller tensor gets, and the next chunk is not that stream continued. */
static void chunked_draw_is_thread_count_free(void **st)
{
    (void)st;
    attn_shape s = { 1, 1, 3 * INPUTS_CHUNK_ELEMS / 128 + 77, 64, 128, 0, 0.125f };
    attn_shape small = { 1, 1, INPUTS_CHUNK_ELEMS / 128, 64, 128, 0, 0.125f };
    host_inputs one, many, first;
    assert_int_equal(inputs_generate_threads(&one, &s, 8, DIST_OUTLIERS, 1), 0);
    assert_int_equal(inputs_generate_threads(&many, &s, 8, DIST_OUTLIERS, 5), 0);
    assert_memory_equal(one.q, many.q, one.nq * 2);
    assert_memory_equal(one.k, many.k, one.nkv * 2);
    assert_memory_equal(one.v, many.v, one.nkv * 2);
    assert_int_equal(inputs_generate_threads(&first, &small, 8, DIST_OUTLIERS, 3), 0);
    assert_memory_equal(first.q, one.q, first.nq * 2);
    /* the second chunk starts a stream of its own: q drawn as one uniform stream (a
     * transcription of inputs.c's draw, zeros and 1.0 drawn again) matches the first
     * chunk and not the second */
    host_inputs u;
    assert_int_equal(inputs_generate_threads(&u, &s, 8, DIST_UNIFORM, 2), 0);
    rng_state m, r;
    rng_seed(&m, 8);
    rng_seed(&r, rng_next(&m));
    size_t same_first = 0, same_second = 0;
    for (size_t i = 0; i < 2 * INPUTS_CHUNK_ELEMS; i++) {
        uint16_t h;
        do {
            int32_t x = (int32_t)(rng_next(&r) >> 40) - (1 << 23);
            h = half_from_float((float)x * 0x1.0p-23f);
        } while ((h & 0x7fffu) == 0 || h == 0x3c00u);
        if (i < INPUTS_CHUNK_ELEMS) same_first += u.q[i] == h;
        else same_second += u.q[i] == h;
    }
    assert_int_equal(same_first, INPUTS_CHUNK_ELEMS);
    assert_true(same_second < INPUTS_CHUNK_ELEMS / 100);
    /* nor the first stream started again: a tensor repeating itself every chunk */
    size_t repeats = 0;
    for (size_t i = 0; i < INPUTS_CHUNK_ELEMS; i++) repeats += u.q[INPUTS_CHUNK_ELEMS + i] == u.q[i];
    assert_true(repeats < INPUTS_CHUNK_ELEMS / 100);
    inputs_free(&u);
    inputs_free(&one);
    inputs_free(&many);
    inputs_free(&first);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(same_seed_same_bits_other_seed_other_bits),
        cmocka_unit_test(streams_are_separate),
        cmocka_unit_test(uniform_in_range_without_zeros),
        cmocka_unit_test(peaked_keys_grow_along_the_sequence),
        cmocka_unit_test(outliers_are_rare_and_large),
        cmocka_unit_test(chunked_draw_is_thread_count_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
