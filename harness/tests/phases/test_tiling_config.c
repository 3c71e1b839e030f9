/* Phase 06's configuration table (phases/06_tiling/config_table.h): the choices it makes
 * for representative shapes, and that every configuration it returns is one the phase can
 * run: a compiled kernel, whole warps of 16 or 32 rows, shared memory within the device's
 * limit, a supported head_dim, a split count in range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "../../../phases/06_tiling/config_table.h"

typedef struct {
    const char *name;
    int sms;
    size_t smem;
} device;

/* H100 SXM (the tuned device), A100, L4 (the seeds' GPU, 99 KB of shared memory). */
static const device DEVICES[] = {
    { "h100", 132, 232448 }, { "a100", 108, 166912 }, { "l4", 58, 101376 },
};

static attn_shape shape(int b, int h, int sq, int skv, int d, int causal)
{
    attn_shape s = { b, h, sq, skv, d, causal, 0.125f };
    return s;
}

static void check_valid(const attn_shape *s, const device *dev, const tile_config *c)
{
    const char *why = tiling_invalid(c, dev->smem);
    if (why) {
        char buf[64];
        tiling_format(c, buf, sizeof buf);
        fail_msg("%s: %dx%dx%d:%dx%d c%d -> %s: %s", dev->name, s->batch, s->heads, s->seq_q,
                 s->seq_kv, s->head_dim, s->causal, buf, why);
    }
    assert_int_equal(c->head_dim, s->head_dim);
    assert_true(tiling_smem_bytes(c) <= dev->smem);
    /* A split never outnumbers the key tiles (an empty split is legal, but wasted). */
    assert_true(c->split <= tiling_cdiv(s->seq_kv, c->bn) || c->split == 1);
    if (c->split > 1) assert_true(tiling_workspace_bytes(s, c) > 0);
    else assert_int_equal(tiling_workspace_bytes(s, c), 0);
}

static void every_choice_is_valid(void **st)
{
    (void)st;
    static const int seqs[] = { 1, 7, 64, 77, 128, 256, 300, 512, 1000, 1024, 2048, 4096, 8192, 16384 };
    static const int bhs[][2] = { { 1, 1 }, { 1, 8 }, { 2, 8 }, { 4, 16 }, { 32, 32 }, { 128, 32 } };
    for (size_t di = 0; di < sizeof DEVICES / sizeof DEVICES[0]; di++)
        for (int d = 64; d <= 128; d += 64)
            for (int c = 0; c <= 1; c++)
                for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
                    for (size_t j = 0; j < sizeof seqs / sizeof seqs[0]; j += 3)
                        for (size_t k = 0; k < sizeof bhs / sizeof bhs[0]; k++) {
                            attn_shape s = shape(bhs[k][0], bhs[k][1], seqs[i], seqs[j], d, c);
                            tile_config t = choose_config(&s, DEVICES[di].sms, DEVICES[di].smem);
                            check_valid(&s, &DEVICES[di], &t);
                        }
}

static void sweep_shapes_are_valid(void **st)
{
    (void)st;
    for (size_t di = 0; di < sizeof DEVICES / sizeof DEVICES[0]; di++)
        for (int d = 64; d <= 128; d += 64)
            for (int c = 0; c <= 1; c++)
                for (int s = 128; s <= 16384; s *= 2) {
                    attn_shape sh = shape(16384 / s, 2048 / d, s, s, d, c);
                    tile_config t = choose_config(&sh, DEVICES[di].sms, DEVICES[di].smem);
                    check_valid(&sh, &DEVICES[di], &t);
                    /* The sweep always has at least one wave of CTAs: no split. */
                    assert_int_equal(t.split, 1);
                }
}

/* The choices the tuning data supports on the H100 (README.md, "The table"). */
static void h100_choices(void **st)
{
    (void)st;
    const device *h100 = &DEVICES[0];
    char buf[64];
    /* Headline: 8 heads x 512 rows would be 32 CTAs of 128 rows; the table cuts the query
     * rows finer and shares each row's keys among warps, to fill at least half the SMs. */
    static const struct { int causal; const char *want; } headline[] = {
        { 0, "bm=32,bn=128,w=4,st=2,split=1,wn=2" }, { 1, "bm=32,bn=128,w=4,st=2,split=1,wn=2" },
    };
    for (size_t i = 0; i < 2; i++) {
        attn_shape s = shape(1, 8, 512, 512, 64, headline[i].causal);
        tile_config t = choose_config(&s, h100->sms, h100->smem);
        tiling_format(&t, buf, sizeof buf);
        assert_string_equal(buf, headline[i].want);
        assert_true(t.wn > 1 || t.split > 1);
        assert_true(tiling_ctas(&s, &t) >= h100->sms / 2);
    }
    /* Large shapes: many CTAs already, no split, 128-row tiles of 32 rows per warp. */
    attn_shape big[] = { shape(4, 16, 4096, 4096, 128, 0), shape(1, 16, 16384, 16384, 128, 0),
                         shape(4, 16, 4096, 4096, 128, 1), shape(4, 32, 4096, 4096, 64, 0) };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        tile_config t = choose_config(&big[i], h100->sms, h100->smem);
        assert_int_equal(t.split, 1);
        assert_int_equal(t.wn, 1);
        assert_int_equal(t.bm, 128);
        assert_int_equal(t.warps, 4);
    }
    /* The bucket edges: 16 CTAs of 128 rows is bucket 0, 17 is bucket 1, > 256 the last. */
    attn_shape e16 = shape(1, 16, 128, 128, 64, 0), e17 = shape(1, 17, 128, 128, 64, 0);
    attn_shape e257 = shape(1, 257, 128, 128, 64, 0);
    assert_int_equal(tiling_bucket(&e16), 0);
    assert_int_equal(tiling_bucket(&e17), 1);
    assert_int_equal(tiling_bucket(&e257), TILING_BUCKETS - 1);
}

/* Every table entry is a compiled, valid configuration of its own head_dim on the H100. */
static void table_entries_are_valid(void **st)
{
    (void)st;
    for (int d = 0; d < 2; d++)
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < TILING_BUCKETS; b++) {
                const tile_config *t = &TILING_TABLE[d][c][b];
                assert_int_equal(t->head_dim, d ? 128 : 64);
                if (tiling_invalid(t, 232448)) fail_msg("table[%d][%d][%d]: %s", d, c, b, tiling_invalid(t, 232448));
            }
}

/* On the L4 the 128 KB three-stage D=128 kernels do not fit: the table must degrade. */
static void small_smem_degrades(void **st)
{
    (void)st;
    for (int c = 0; c <= 1; c++) {
        attn_shape s = shape(4, 16, 4096, 4096, 128, c);
        tile_config t = choose_config(&s, 58, 101376);
        assert_null(tiling_invalid(&t, 101376));
        assert_true(tiling_smem_bytes(&t) <= 101376);
    }
}

static void every_compiled_variant_is_consistent(void **st)
{
    (void)st;
#define CHECK_VARIANT(D, BM, BN, W, ST, WN)                                   \
    {                                                                         \
        tile_config c = { D, BM, BN, W, ST, 1, WN };                          \
        assert_null(tiling_invalid(&c, 232448));                              \
        assert_true(BM / (16 * (W / WN)) == 1 || BM / (16 * (W / WN)) == 2); \
        c.split = 2;                                                          \
        if (WN > 1) assert_non_null(tiling_invalid(&c, 232448));              \
        else assert_null(tiling_invalid(&c, 232448));                         \
    }
    TILING_VARIANTS(CHECK_VARIANT)
#undef CHECK_VARIANT
    tile_config bad = { 64, 48, 64, 4, 2, 1, 1 };
    assert_non_null(tiling_invalid(&bad, 232448));
    tile_config d96 = { 96, 64, 64, 4, 2, 1, 1 };
    assert_non_null(tiling_invalid(&d96, 232448));
    tile_config big = { 128, 128, 64, 4, 3, 1, 1 };
    assert_null(tiling_invalid(&big, 232448));
    assert_non_null(tiling_invalid(&big, 101376));
    tile_config split0 = { 64, 64, 64, 4, 2, 0, 1 };
    assert_non_null(tiling_invalid(&split0, 232448));
    tile_config split9 = { 64, 64, 64, 4, 2, 9, 1 };
    assert_non_null(tiling_invalid(&split9, 232448));
    tile_config wn3 = { 64, 64, 96, 6, 2, 1, 3 };
    assert_non_null(tiling_invalid(&wn3, 232448));   /* well formed, not compiled */
}

static void parses_override(void **st)
{
    (void)st;
    tile_config c;
    assert_int_equal(tiling_parse("bm=64,bn=64,w=4,st=2,split=4", 64, &c), 0);
    assert_int_equal(c.bm, 64);
    assert_int_equal(c.bn, 64);
    assert_int_equal(c.warps, 4);
    assert_int_equal(c.stages, 2);
    assert_int_equal(c.split, 4);
    assert_int_equal(c.head_dim, 64);
    assert_int_equal(c.wn, 1);
    assert_int_equal(tiling_parse("split=1,st=3,w=4,bn=32,bm=128", 128, &c), 0);
    assert_int_equal(c.bn, 32);
    assert_int_equal(c.head_dim, 128);
    assert_int_equal(tiling_parse("bm=16,bn=128,w=4,st=2,split=1,wn=4", 64, &c), 0);
    assert_int_equal(c.wn, 4);
    static const char *bad[] = { "", "bm=64", "bm=64,bn=64,w=4,st=2", "bm=64,bn=64,w=4,st=2,split=",
                                 "bm=64,bn=64,w=4,st=2,split=4,", "bm=64,bn=64,w=4,st=2,split=x",
                                 "bm=64,bn=64,w=4,st=2,spilt=4", "bm=-64,bn=64,w=4,st=2,split=4",
                                 "bm=64;bn=64,w=4,st=2,split=4", "averyveryverylongkey=1",
                                 "bm=64,bn=64,w=4,st=2,split=1,wn=2,wn=2", "wn=2" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (tiling_parse(bad[i], 64, &c) != -1) fail_msg("'%s' was accepted", bad[i]);
    char buf[64];
    tile_config f = { 64, 64, 128, 4, 2, 3, 1 };
    tiling_format(&f, buf, sizeof buf);
    assert_string_equal(buf, "bm=64,bn=128,w=4,st=2,split=3,wn=1");
    assert_int_equal(tiling_parse(buf, 64, &c), 0);
    assert_memory_equal(&c, &f, sizeof c);
}

static void workspace_size(void **st)
{
    (void)st;
    attn_shape s = shape(1, 8, 512, 512, 64, 0);
    tile_config c = { 64, 64, 64, 4, 2, 4, 1 };
    /* 4 splits x 8 heads x 512 rows: 64 fp32 of O and a (max, sum) pair each. */
    assert_int_equal(tiling_workspace_bytes(&s, &c), (size_t)4 * 8 * 512 * (64 * 4 + 8));
    c.split = 1;
    assert_int_equal(tiling_workspace_bytes(&s, &c), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_choice_is_valid),
        cmocka_unit_test(sweep_shapes_are_valid),
        cmocka_unit_test(h100_choices),
        cmocka_unit_test(table_entries_are_valid),
        cmocka_unit_test(small_smem_degrades),
        cmocka_unit_test(every_compiled_variant_is_consistent),
        cmocka_unit_test(parses_override),
        cmocka_unit_test(workspace_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
