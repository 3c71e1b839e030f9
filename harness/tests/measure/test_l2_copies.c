/* test_l2_copies.c: how many copies of a memory-bound point's inputs keep them cold in L2
 * (measure/l2_copies.h): the count for the H100's and H200's L2 at the decode points, the
 * points cold by size, the points left resident (compute-bound, L2 unknown, the memory and
 * launch bounds), a graph's launches rounded to the copies, each launch's addresses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include "measure/l2_copies.h"

#define H100_L2 ((size_t)50 << 20)
#define H200_L2 ((size_t)60 << 20)
#define FREE_80G ((size_t)79 << 30)

static attn_shape shape(int b, int h, int sq, int skv, int d, int causal)
{
    return (attn_shape){ b, h, sq, skv, d, causal, 0.125f };
}

static void test_bytes(void **st)
{
    (void)st;
    attn_shape s = shape(1, 32, 1, 4096, 64, 0);
    assert_int_equal(l2_kv_bytes(&s), (size_t)33554432);          /* K and V: 32 MiB */
    assert_int_equal(l2_qkv_bytes(&s), (size_t)33554432 + 4096);  /* + Q: 32 heads x 64 x 2 B */
}

static void test_memory_bound(void **st)
{
    (void)st;
    attn_shape dec = shape(1, 32, 1, 4096, 64, 0), spec = shape(1, 8, 16, 32768, 128, 1),
               head = shape(1, 8, 512, 512, 64, 0), train = shape(4, 16, 4096, 4096, 128, 0);
    assert_true(l2_memory_bound(&dec));
    assert_true(l2_memory_bound(&spec));
    assert_false(l2_memory_bound(&head));    /* 256 FLOPs a byte */
    assert_false(l2_memory_bound(&train));
}

/* The case: 33 MB of K and V in the H100's 50 MB L2. 3 x 50 MiB over 32 MiB + 4 KiB
 * a copy is 4.69: five copies; the H200's 60 MiB, 5.62: six. */
static void test_decode_copies(void **st)
{
    (void)st;
    attn_shape s = shape(1, 32, 1, 4096, 64, 0);
    l2_plan p = l2_plan_for(&s, H100_L2, FREE_80G);
    assert_int_equal(p.state, L2_ROTATED);
    assert_int_equal(p.copies, 5);
    assert_int_equal(p.copy_bytes, l2_qkv_bytes(&s));
    assert_int_equal(p.l2_bytes, H100_L2);
    assert_true((size_t)p.copies * p.copy_bytes >= L2_COLD_FACTOR * H100_L2);
    assert_true((size_t)(p.copies - 1) * p.copy_bytes < L2_COLD_FACTOR * H100_L2);   /* the fewest */
    p = l2_plan_for(&s, H200_L2, FREE_80G);
    assert_int_equal(p.state, L2_ROTATED);
    assert_int_equal(p.copies, 6);
    /* 128 MiB of K and V: fits no L2 but not three of them; two copies */
    attn_shape big = shape(1, 8, 1, 65536, 64, 0);
    p = l2_plan_for(&big, H100_L2, FREE_80G);
    assert_int_equal(p.state, L2_ROTATED);
    assert_int_equal(p.copies, 2);
    /* a short context: 4 MiB a copy, 38 of them on the H100 */
    attn_shape small = shape(1, 8, 1, 1024, 128, 0);
    p = l2_plan_for(&small, H100_L2, FREE_80G);
    assert_int_equal(p.state, L2_ROTATED);
    assert_int_equal(p.copies, 38);
}

static void test_cold_by_size(void **st)
{
    (void)st;
    attn_shape s = shape(16, 32, 1, 8192, 128, 0);   /* 2 GiB of K and V */
    l2_plan p = l2_plan_for(&s, H100_L2, FREE_80G);
    assert_int_equal(p.state, L2_COLD_BY_SIZE);
    assert_int_equal(p.copies, 1);
    /* exactly three L2s of K and V: cold by size; a byte less: rotated */
    attn_shape edge = shape(1, 1, 1, 150 * 1024 * 1024 / 256, 64, 0);
    assert_int_equal(l2_kv_bytes(&edge), 3 * H100_L2);
    assert_int_equal(l2_plan_for(&edge, H100_L2, FREE_80G).state, L2_COLD_BY_SIZE);
    assert_int_equal(l2_plan_for(&edge, H100_L2 + 1, FREE_80G).state, L2_ROTATED);
}

static void test_resident(void **st)
{
    (void)st;
    attn_shape head = shape(1, 8, 512, 512, 64, 0), dec = shape(1, 32, 1, 4096, 64, 0);
    l2_plan p = l2_plan_for(&head, H100_L2, FREE_80G);
    assert_int_equal(p.state, L2_RESIDENT);
    assert_int_equal(p.copies, 1);
    /* no L2 size known: nothing to plan against */
    assert_int_equal(l2_plan_for(&dec, 0, FREE_80G).state, L2_RESIDENT);
    /* tiny: 9,500 copies would be needed, past the launch bound; the sweep's 1x8x1:300x64
     * (0.6 MB a copy) needs 256 */
    attn_shape tiny = shape(1, 1, 1, 64, 64, 0);
    p = l2_plan_for(&tiny, H100_L2, FREE_80G);
    assert_int_equal(p.state, L2_RESIDENT);
    assert_int_equal(p.copies, 1);
    attn_shape ragged = shape(1, 8, 1, 300, 64, 0);
    assert_true(l2_memory_bound(&ragged));
    assert_int_equal(l2_plan_for(&ragged, H100_L2, FREE_80G).state, L2_RESIDENT);
    /* the last count within the bound: 64 copies of 2.4 MiB */
    attn_shape edge = shape(1, 8, 1, 1200, 64, 0);    /* 2,458,624 bytes a copy: 63.97 of them */
    p = l2_plan_for(&edge, H100_L2, FREE_80G);
    assert_int_equal(p.state, L2_ROTATED);
    assert_int_equal(p.copies, L2_COPIES_MAX);
}

/* The memory bound: the four extra copies of 1x32x1x4096x64 (134 MB) need 536 MB free; a
 * byte less and the point is timed resident, never over fewer copies. */
static void test_memory_cap(void **st)
{
    (void)st;
    attn_shape dec = shape(1, 32, 1, 4096, 64, 0);
    size_t extra = 4 * l2_qkv_bytes(&dec);
    assert_int_equal(l2_plan_for(&dec, H100_L2, 4 * extra).state, L2_ROTATED);
    assert_int_equal(l2_plan_for(&dec, H100_L2, 4 * extra - 4).state, L2_RESIDENT);
    /* however much is free, at most L2_COPIES_MAX_BYTES beyond the first set: an L2 of
     * 400 MiB would need 1.2 GiB of copies */
    attn_shape big = shape(1, 8, 1, 65536, 64, 0);
    assert_int_equal(l2_plan_for(&big, (size_t)400 << 20, (size_t)1 << 40).state, L2_RESIDENT);
    assert_int_equal(l2_plan_for(&big, (size_t)300 << 20, (size_t)1 << 40).state, L2_ROTATED);
}

static void test_graph_inner(void **st)
{
    (void)st;
    assert_int_equal(l2_graph_inner(20, 1), 20);
    assert_int_equal(l2_graph_inner(20, 0), 20);
    assert_int_equal(l2_graph_inner(20, 5), 20);
    assert_int_equal(l2_graph_inner(20, 6), 24);
    assert_int_equal(l2_graph_inner(3, 38), 38);
    assert_int_equal(l2_graph_inner(0, 4), 4);
}

static void test_launch_args(void **st)
{
    (void)st;
    static char q[600], k[6000], v[6000], o[8];
    attn_args a = { q, k, v, o, NULL, NULL };
    l2_layout lay = { 5, 100, 1000 };
    attn_args x = l2_launch_args(&a, &lay, 7);   /* copy 2 */
    assert_ptr_equal(x.q, (const char *)q + 200);
    assert_ptr_equal(x.k, (const char *)k + 2000);
    assert_ptr_equal(x.v, (const char *)v + 2000);
    assert_ptr_equal(x.o, o);                     /* the output is not copied */
    x = l2_launch_args(&a, &lay, 10);             /* copy 0 again */
    assert_ptr_equal(x.q, q);
    lay.copies = 1;
    x = l2_launch_args(&a, &lay, 7);
    assert_ptr_equal(x.k, k);
    x = l2_launch_args(&a, NULL, 7);
    assert_ptr_equal(x.v, v);
}

static void test_names(void **st)
{
    (void)st;
    for (int i = 0; i < L2_STATE_COUNT; i++) assert_int_equal(l2_state_parse(l2_state_name((l2_state)i)), i);
    assert_string_equal(l2_state_name(L2_COLD_BY_SIZE), "cold_by_size");
    assert_int_equal(l2_state_parse("hot"), -1);
    assert_int_equal(l2_state_parse("Rotated"), -1);
    assert_int_equal(l2_state_parse(NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),        cmocka_unit_test(test_memory_bound),
        cmocka_unit_test(test_decode_copies), cmocka_unit_test(test_cold_by_size),
        cmocka_unit_test(test_resident),     cmocka_unit_test(test_memory_cap),
        cmocka_unit_test(test_graph_inner),  cmocka_unit_test(test_launch_args),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
