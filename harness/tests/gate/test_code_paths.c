/* test_code_paths.c: a rung's path read from its init note (counts masked, choices kept),
 * on notes the committed rungs wrote, and the choice of one shape per path of either
 * build, the fixed shapes counted first. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "gate/code_paths.h"

static void key(const char *note, char *out)
{
    code_path_of_note(note, out, CODE_PATH_KEY_MAX);
}

static void same_path(const char *a, const char *b)
{
    char ka[CODE_PATH_KEY_MAX], kb[CODE_PATH_KEY_MAX];
    key(a, ka);
    key(b, kb);
    assert_string_equal(ka, kb);
}

static void other_path(const char *a, const char *b)
{
    char ka[CODE_PATH_KEY_MAX], kb[CODE_PATH_KEY_MAX];
    key(a, ka);
    key(b, kb);
    assert_string_not_equal(ka, kb);
}

static void counts_are_masked_choices_kept(void **st)
{
    (void)st;
    char k[CODE_PATH_KEY_MAX];
    key("bm=16,bn=64,w=4,st=2,split=1,wn=4 (table), 69632 B shared memory, 152 CTAs of 128 threads", k);
    assert_string_equal(k, "bm=16,bn=64,w=4,st=2,split=1,wn=4 (table), # B shared memory, # CTAs of # threads");
    key("1wg-overlap: 1 consumer warpgroup(s), BM=64 BN=128, 107632 B shared memory", k);
    assert_string_equal(k, "1wg-overlap: # consumer warpgroup(s), BM=64 BN=128, # B shared memory");
    key("cuDNN 9.14.0 loaded from /usr/lib/libcudnn.so.9.14.0; engine 2", k);
    assert_string_equal(k, "cuDNN # loaded from /usr/lib/libcudnn.so.9.14.0; engine #");
    key("sm_90a code, x-3 and 1.5e3 and (12) and 7", k);
    assert_string_equal(k, "sm_90a code, x-3 and 1.5e3 and (#) and #");
    key(NULL, k);
    assert_string_equal(k, "");
    key("", k);
    assert_string_equal(k, "");
    char small[8];
    code_path_of_note("a long note that does not fit", small, sizeof small);
    assert_string_equal(small, "a long ");
}

/* notes the committed runs hold (evidence/<gpu>/2*.json, results[].init_note) */
static void committed_notes(void **st)
{
    (void)st;
    /* 02: one path whatever the chunking */
    same_path("cuBLAS 130100: GEMM (fp32 scores) + warp-per-row softmax + GEMM; 1 chunk(s) of 1024 head(s) x 256 rows, workspace 436207616 bytes",
              "cuBLAS 130100: GEMM (fp32 scores) + warp-per-row softmax + GEMM; 1 chunk(s) of 8 head(s) x 1 rows, workspace 33569024 bytes");
    /* 06: one path per tile configuration, whatever the grid */
    same_path("bm=16,bn=128,w=4,st=2,split=1,wn=4 (table), 67584 B shared memory, 72 CTAs of 128 threads",
              "bm=16,bn=128,w=4,st=2,split=1,wn=4 (table), 67584 B shared memory, 8 CTAs of 128 threads");
    other_path("bm=16,bn=128,w=4,st=2,split=1,wn=4 (table), 67584 B shared memory, 72 CTAs of 128 threads",
               "bm=128,bn=128,w=4,st=2,split=1,wn=1 (table), 81920 B shared memory, 4096 CTAs of 128 threads");
    /* 07: the variant, its tile, and the scheduler's and the split tail's choices */
    same_path("1wg-overlap: 1 consumer warpgroup(s), BM=64 BN=128, 107632 B shared memory, 167 registers at entry (sm_90a code, wgmma), 24 work tiles on 24 CTAs of 256 threads, programmatic dependent launch",
              "1wg-overlap: 1 consumer warpgroup(s), BM=64 BN=128, 107632 B shared memory, 167 registers at entry (sm_90a code, wgmma), 256 work tiles on 256 CTAs of 256 threads, programmatic dependent launch");
    other_path("pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 1 head(s) per tile group, programmatic dependent launch",
               "pingpong-176: 2 consumer warpgroup(s), BM=128 BN=176, 1 head(s) per tile group, programmatic dependent launch");
    other_path("pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 132 CTAs, 8 head(s) per tile group, dynamic tile scheduler",
               "pingpong: 2 consumer warpgroup(s), BM=128 BN=128, 132 CTAs, 8 head(s) per tile group");
    other_path("3wg: 3 consumer warpgroup(s), BM=192 BN=128, split tail: 40 tiles as 120 key tiles over 132 CTAs",
               "3wg: 3 consumer warpgroup(s), BM=192 BN=128");
}

static code_path_probe probe(const char *b, const char *h, double work, int fixed)
{
    code_path_probe p;
    memset(&p, 0, sizeof p);
    key(b, p.base_key);
    key(h, p.head_key);
    p.work = work;
    p.fixed = fixed;
    return p;
}

static void one_shape_per_path(void **st)
{
    (void)st;
    code_path_probe p[] = {
        probe("A: 4 CTAs", "A: 4 CTAs", 10, 1),          /* fixed: reaches A */
        probe("A: 8 CTAs", "A: 8 CTAs", 50, 0),          /* A again: not needed */
        probe("B: 1 CTAs", "B: 1 CTAs", 5, 0),
        probe("B: 2 CTAs", "B: 2 CTAs", 40, 0),          /* B's largest under the cap */
        probe("B: 9 CTAs", "B: 9 CTAs", 500, 0),         /* over the cap */
        probe("C: 9 CTAs", "C: 9 CTAs", 300, 0),         /* C only over the cap: the smallest */
        probe("C: 7 CTAs", "C: 7 CTAs", 200, 0),
        probe("B: 3 CTAs", "D: 3 CTAs", 20, 0),          /* the head's new path D */
    };
    size_t n = sizeof p / sizeof p[0];
    assert_int_equal(code_paths_choose(p, n, 100.0), 3);
    int want[] = { 0, 0, 0, 1, 0, 0, 1, 1 };
    for (size_t i = 0; i < n; i++) assert_int_equal(p[i].chosen, want[i]);
    size_t first[8];
    assert_int_equal(code_paths_distinct(p, n, 0, first, 8), 3);   /* A B C */
    assert_int_equal(code_paths_distinct(p, n, 1, first, 8), 4);   /* A B C D */
    assert_int_equal(first[3], 7);
}

static void fixed_shapes_reach_everything(void **st)
{
    (void)st;
    code_path_probe p[] = { probe("x 1", "x 2", 1, 1), probe("x 3", "x 4", 2, 0), probe("", "", 3, 1) };
    assert_int_equal(code_paths_choose(p, 3, 100.0), 0);
    assert_int_equal(code_paths_choose(NULL, 0, 100.0), 0);
}

/* The rule probes (shapes off the sweep): one timed for each way the rule moved (base path
 * -> head path) among the probes whose notes differ, the largest within the cap, else the
 * smallest over it; a probe whose note did not move is never timed. */
static code_path_probe moved(const char *b, const char *h, double work)
{
    code_path_probe p = probe(b, h, work, 0);
    p.note_moved = 1;
    return p;
}

static void one_probe_per_moved_rule(void **st)
{
    (void)st;
    code_path_probe p[] = {
        probe("A: 4 CTAs", "A: 4 CTAs", 10, 0),          /* not moved: never */
        moved("A: 4 CTAs", "A, dyn: 4 CTAs", 30),     /* A -> A, dyn */
        moved("A: 8 CTAs", "A, dyn: 8 CTAs", 90),     /* the same move, the largest within */
        moved("A: 9 CTAs", "A, dyn: 9 CTAs", 900),    /* over the cap */
        moved("B: 2 CTAs", "A: 2 CTAs", 500),         /* B -> A: only over the cap */
        moved("B: 3 CTAs", "A: 3 CTAs", 400),         /* ... the smallest */
        moved("A: 4 CTAs", "A: 5 CTAs", 20),          /* the same path, other counts */
    };
    size_t n = sizeof p / sizeof p[0];
    assert_int_equal(code_paths_choose_moved(p, n, 100.0), 3);
    int want[] = { 0, 0, 1, 0, 0, 1, 1 };
    for (size_t i = 0; i < n; i++) assert_int_equal(p[i].chosen, want[i]);
    code_path_probe still[] = { probe("A 1", "A 2", 1, 0), probe("B", "B", 2, 0) };
    assert_int_equal(code_paths_choose_moved(still, 2, 100.0), 0);
    assert_int_equal(code_paths_choose_moved(NULL, 0, 100.0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_are_masked_choices_kept),
        cmocka_unit_test(committed_notes),
        cmocka_unit_test(one_shape_per_path),
        cmocka_unit_test(fixed_shapes_reach_everything),
        cmocka_unit_test(one_probe_per_moved_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
