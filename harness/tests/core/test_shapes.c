/* Shapes: parsing forms, validation messages, the standard sets, FLOPs and bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "core/shapes.h"

static void parses_every_form(void **st)
{
    (void)st;
    attn_shape s;
    char err[256];
    assert_int_equal(shape_parse("1,8,512,64", &s, err, sizeof err), 0);
    assert_int_equal(s.seq_q, 512);
    assert_int_equal(s.seq_kv, 512);
    assert_int_equal(s.causal, 0);
    assert_float_equal(s.scale, 0.125f, 1e-7);
    assert_int_equal(shape_parse("2,3,77,128,1", &s, err, sizeof err), 0);
    assert_int_equal(s.causal, 1);
    assert_int_equal(s.head_dim, 128);
    assert_int_equal(shape_parse("1,8,129,257,64,1", &s, err, sizeof err), 0);
    assert_int_equal(s.seq_q, 129);
    assert_int_equal(s.seq_kv, 257);
}

static void rejects_bad_shapes(void **st)
{
    (void)st;
    attn_shape s;
    char err[256];
    static const struct { const char *text, *words; } bad[] = {
        { "1,8,512", "malformed" }, { "1,8,512,64,1,0,9", "malformed" },
        { "1,8,x,64", "malformed" }, { "1,8,512,64,", "malformed" },
        { "0,8,512,64", "batch and heads" }, { "1,8,0,64", "sequence lengths" },
        { "1,8,512,-64", "head_dim" }, { "1,8,512,64,3", "causal must be 0 or 1" },
        { "1,8,512,64,99999999999", "out of range" },
        { "4096,64,65536,128", "overflow 32-bit indexing" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(shape_parse(bad[i].text, &s, err, sizeof err), -1);
        if (!strstr(err, bad[i].words)) fail_msg("'%s' gave '%s'", bad[i].text, err);
    }
}

static void standard_sets(void **st)
{
    (void)st;
    shape_point p[128];
    size_t n = shapes_headline(p, 128);
    assert_int_equal(n, 2);
    assert_int_equal(p[0].s.seq_q, 512);
    assert_int_equal(p[1].s.causal, 1);
    n = shapes_sweep(p, 128);
    assert_int_equal(n, 66);
    int saw_4k = 0, saw_16k = 0, saw_odd = 0, saw_no_key = 0, checked_inputs = 0;
    int decode = 0, decode_dims = 0, few_causal = 0, single_head = 0, long_keys = 0;
    /* batched decode (issue 52): batch 4-32, 8 and 32 heads, 1 to 16 queries, 1k-16k keys */
    int batched = 0, batched_dims = 0, batched_heads = 0, batched_queries = 0, batched_min_b = 1 << 30,
        batched_max_b = 0, batched_min_kv = 1 << 30, batched_max_kv = 0;
    for (size_t i = 0; i < n; i++) {
        char err[256];
        assert_int_equal(shape_validate(&p[i].s, err, sizeof err), 0);
        if (strcmp(p[i].tag, "decode") == 0) {
            /* one or a few queries against as many keys as a KV cache holds */
            decode++;
            assert_true(p[i].s.seq_q <= 16 && p[i].s.seq_kv >= 1024);
            decode_dims |= p[i].s.head_dim;
            few_causal += p[i].s.seq_q > 1 && p[i].s.causal;
            long_keys += p[i].s.seq_kv >= 32768;
            if (p[i].s.batch > 1) {
                batched++;
                assert_true(p[i].s.batch >= 4 && p[i].s.batch <= 32);
                assert_true(p[i].s.heads == 8 || p[i].s.heads == 32);
                assert_true(p[i].s.seq_kv >= 1024 && p[i].s.seq_kv <= 16384);
                batched_dims |= p[i].s.head_dim;
                batched_heads |= p[i].s.heads;
                batched_queries |= 1 << (p[i].s.seq_q > 1);
                if (p[i].s.batch < batched_min_b) batched_min_b = p[i].s.batch;
                if (p[i].s.batch > batched_max_b) batched_max_b = p[i].s.batch;
                if (p[i].s.seq_kv < batched_min_kv) batched_min_kv = p[i].s.seq_kv;
                if (p[i].s.seq_kv > batched_max_kv) batched_max_kv = p[i].s.seq_kv;
            }
        } else if (strcmp(p[i].tag, "single_head") == 0) {
            single_head++;
            assert_true(p[i].s.heads == 1 && p[i].s.seq_q >= 4096);
        }
        if (p[i].s.batch == 4 && p[i].s.heads == 16 && p[i].s.seq_q == 4096 && p[i].s.head_dim == 128) saw_4k = 1;
        if (p[i].s.batch == 1 && p[i].s.heads == 16 && p[i].s.seq_q == 16384) saw_16k = 1;
        if (p[i].s.seq_q == 129 && p[i].s.seq_kv == 257) saw_odd = 1;
        if (p[i].s.seq_q == 300 && p[i].s.seq_kv == 129 && p[i].s.causal) saw_no_key |= p[i].s.head_dim;
        if (p[i].extra_inputs == ((1u << DIST_PEAKED) | (1u << DIST_OUTLIERS))) checked_inputs++;
    }
    assert_true(saw_4k && saw_16k && saw_odd);
    assert_int_equal(saw_no_key, 64 | 128);   /* rows that see no key, at both head dims */
    /* the small ragged and decode points on every distribution */
    assert_int_equal(checked_inputs, 18);
    assert_int_equal(decode, 15);
    assert_int_equal(decode_dims, 64 | 128);
    assert_int_equal(few_causal, 4);          /* speculative decoding: 4 and 16 queries, alone and batched */
    assert_int_equal(batched, 8);
    assert_int_equal(batched_dims, 64 | 128);
    assert_int_equal(batched_heads, 8 | 32);
    assert_int_equal(batched_queries, 1 | 2); /* one query, and more */
    assert_int_equal(batched_min_b, 4);
    assert_int_equal(batched_max_b, 32);
    assert_int_equal(batched_min_kv, 1024);
    assert_int_equal(batched_max_kv, 16384);
    assert_int_equal(long_keys, 3);
    assert_int_equal(single_head, 1);
    /* the cap is honoured and the count still reported */
    assert_int_equal(shapes_sweep(p, 3), 66);
}

static void work_counts(void **st)
{
    (void)st;
    attn_shape s = { 1, 8, 512, 512, 64, 0, 0.125f };
    assert_float_equal(shape_flops(&s), 4.0 * 8 * 512 * 512 * 64, 1);
    s.causal = 1;
    /* causal: the visible (query, key) pairs, 512 * 513 / 2 per head, not half the square */
    assert_float_equal(shape_flops(&s), 4.0 * 8 * 64 * (512.0 * 513 / 2), 1);
    attn_shape more_q = { 1, 8, 300, 129, 64, 1, 0.125f };   /* 171 rows see no key */
    assert_float_equal(shape_visible_pairs(&more_q), 129.0 * 130 / 2, 0);
    attn_shape one_row = { 1, 8, 1, 300, 64, 1, 0.125f };    /* the last row sees every key */
    assert_float_equal(shape_visible_pairs(&one_row), 300, 0);
    attn_shape more_k = { 1, 8, 129, 257, 64, 1, 0.125f };   /* row i sees 129 + i keys */
    assert_float_equal(shape_visible_pairs(&more_k), 129.0 * 129 + 128.0 * 129 / 2, 0);
    more_k.causal = 0;
    assert_float_equal(shape_visible_pairs(&more_k), 129.0 * 257, 0);
    assert_float_equal(shape_bytes(&s), 4.0 * 8 * 512 * 64 * 2, 1);
    char text[64];
    shape_format(&s, text, sizeof text);
    assert_string_equal(text, "1x8x512x64 causal");
    attn_shape r = { 1, 8, 129, 257, 128, 0, 0.0f };
    shape_format(&r, text, sizeof text);
    assert_string_equal(text, "1x8x129:257x128");
}

/* The rule probes: the sweep's neighbours (rows, keys, batch doubled or halved), none a
 * sweep point, each valid, once, no more work than the sweep's largest point; among them
 * the shape where a short-key rule widened to several query blocks first shows. */
static int same(const attn_shape *a, const attn_shape *b)
{
    return a->batch == b->batch && a->heads == b->heads && a->seq_q == b->seq_q && a->seq_kv == b->seq_kv &&
           a->head_dim == b->head_dim && a->causal == b->causal;
}

static void rule_probes(void **st)
{
    (void)st;
    static shape_point sweep[128], pr[1024];
    size_t ns = shapes_sweep(sweep, 128), np = shapes_rule_probes(pr, 1024);
    assert_true(np > ns && np < 1024);
    double most = 0;
    for (size_t i = 0; i < ns; i++)
        if (shape_flops(&sweep[i].s) > most) most = shape_flops(&sweep[i].s);
    attn_shape widened = { 128, 16, 256, 128, 128, 0, 0.0f }, halved_keys = { 64, 16, 256, 128, 128, 0, 0.0f };
    int seen_widened = 0, seen_halved = 0;
    char err[160];
    for (size_t i = 0; i < np; i++) {
        assert_string_equal(pr[i].tag, "probe");
        assert_int_equal(shape_validate(&pr[i].s, err, sizeof err), 0);
        assert_true(shape_flops(&pr[i].s) <= most);
        for (size_t j = 0; j < ns; j++) assert_false(same(&pr[i].s, &sweep[j].s));
        for (size_t j = 0; j < i; j++) assert_false(same(&pr[i].s, &pr[j].s));
        seen_widened += same(&pr[i].s, &widened);
        seen_halved += same(&pr[i].s, &halved_keys);
    }
    assert_int_equal(seen_widened, 1);
    assert_int_equal(seen_halved, 1);
    /* the cap is honoured, the count still reported, the first ones the same */
    shape_point few[3];
    assert_int_equal(shapes_rule_probes(few, 3), np);
    for (size_t i = 0; i < 3; i++) assert_true(same(&few[i].s, &pr[i].s));
}

/* The neighbours of a list built so that they meet: 1x8x128:256x64 doubles its rows into
 * 1x8x256:256x64 and 1x8x256:256x64 halves its rows into 1x8x128:256x64, each a base shape
 * (left out); none above the bases' largest work. Then bases whose neighbours meet (each
 * listed once). */
static void neighbours_meet(void **st)
{
    (void)st;
    shape_point base[2] = { { { 1, 8, 128, 256, 64, 0, 0.125f }, "sweep", 0 },
                            { { 1, 8, 256, 256, 64, 0, 0.125f }, "sweep", 0 } };
    shape_point out[16];
    size_t n = shapes_neighbours(base, 2, out, 16);
    /* first base: 256:256 (a base), 64:256, 128:512 (as much work as 256:256), 128:128,
     * 2x8x128:256, 0x.. (halved batch: none). Second: 512:256 (more work), 128:256 (the
     * first base), 256:512 (more work), 256:128, 2x8x256:256 (more work), none. */
    attn_shape want[] = { { 1, 8, 64, 256, 64, 0, 0.125f }, { 1, 8, 128, 512, 64, 0, 0.125f },
                          { 1, 8, 128, 128, 64, 0, 0.125f }, { 2, 8, 128, 256, 64, 0, 0.125f },
                          { 1, 8, 256, 128, 64, 0, 0.125f } };
    assert_int_equal(n, 5);
    for (size_t i = 0; i < 5; i++) assert_true(same(&out[i].s, &want[i]));
    base[1].s.batch = 2;   /* 2x8x256x64: its halved batch is the first base's doubled rows */
    n = shapes_neighbours(base, 2, out, 16);
    size_t twice = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) twice += same(&out[i].s, &out[j].s);
    assert_int_equal(twice, 0);
    attn_shape met = { 1, 8, 256, 256, 64, 0, 0.125f };
    size_t found = 0;
    for (size_t i = 0; i < n; i++) found += same(&out[i].s, &met);
    assert_int_equal(found, 1);
    for (size_t i = 0; i < n; i++) assert_false(same(&out[i].s, &base[0].s) || same(&out[i].s, &base[1].s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_every_form),
        cmocka_unit_test(rejects_bad_shapes),
        cmocka_unit_test(standard_sets),
        cmocka_unit_test(work_counts),
        cmocka_unit_test(rule_probes),
        cmocka_unit_test(neighbours_meet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
