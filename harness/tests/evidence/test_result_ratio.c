/* test_result_ratio.c: a result's ratio to the run's baseline through a bridge
 * (result_ratio.h). An external timed in another process (PyTorch's) is paired there with a
 * rung, the bridge, that the run also timed in its rotation with its own baseline: its
 * ratio to the baseline is the product of the two processes' paired ratios, with a CI that
 * resamples both (stats_bridged_ratio_ci). Read from rung 21's H200 reference run
 * (build fe23a4b), whose torch_cudnn rows PyTorch's process paired with rung 10 (at
 * 4x16x4096x128: 30 pairs, and rung 10 69 with sdpa_cudnn in the rotation). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "core/stats.h"
#include "evidence/reader.h"
#include "evidence/result_ratio.h"

#define H200_REF "evidence/nvidia-h200/20261204T192149Z_fe23a4b.json.gz"

static run_data g_run;

static int open_run(void **st)
{
    (void)st;
    char err[1024];
    if (run_open(&g_run, H200_REF, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int close_run(void **st)
{
    (void)st;
    run_close(&g_run);
    return 0;
}

static run_result *find(const char *impl, const attn_shape *s)
{
    return (run_result *)run_find(&g_run, impl, s);
}

static const attn_shape THROUGHPUT = { 4, 16, 4096, 4096, 128, 0, 0 };

static void a_bridged_row_reads_the_product_of_both_processes(void **st)
{
    (void)st;
    run_result *ext = find("torch_cudnn", &THROUGHPUT), *bridge = find("10_latency", &THROUGHPUT);
    assert_non_null(ext);
    assert_non_null(bridge);
    assert_true(result_pairs_decide(&g_run, ext) && result_pairs_decide(&g_run, bridge));
    assert_string_equal(bridge->paired_baseline, "sdpa_cudnn");
    const char *was = ext->paired_baseline;
    ext->paired_baseline = "10_latency";
    double r, lo, hi, want, wlo, whi, point;
    assert_int_equal(result_ratio(&g_run, ext, "sdpa_cudnn", &r, &lo, &hi), 0);
    assert_int_equal(stats_bridged_ratio_ci(ext->paired_impl, ext->paired_base, ext->n_paired, bridge->paired_impl,
                                            bridge->paired_base, bridge->n_paired, g_run.resamples,
                                            g_run.stats_seed, g_run.ci_level, &want, &wlo, &whi), 0);
    assert_true(r == want && lo == wlo && hi == whi);
    double m1, m2;
    assert_int_equal(stats_paired_median(ext->paired_impl, ext->paired_base, ext->n_paired, &m1), 0);
    assert_int_equal(stats_paired_median(bridge->paired_impl, bridge->paired_base, bridge->n_paired, &m2), 0);
    assert_true(fabs(r - m1 * m2) <= 1e-12 * r);
    assert_int_equal(result_point_ratio(&g_run, ext, "sdpa_cudnn", &point), 0);
    assert_true(fabs(point - r) <= 1e-12 * r);
    /* a ratio to the bridge itself is the first process's alone */
    assert_int_equal(result_point_ratio(&g_run, ext, "10_latency", &point), 0);
    assert_true(fabs(point - m1) <= 1e-12 * m1);
    ext->paired_baseline = was;
}

/* No ratio where the bridge cannot carry one: not in the run at the shape, its pairs of
 * another baseline, or not timed in the rotation; and never a bridge through a bridge. */
static void no_ratio_without_a_bridge_in_the_run(void **st)
{
    (void)st;
    run_result *ext = find("torch_cudnn", &THROUGHPUT), *bridge = find("10_latency", &THROUGHPUT);
    const char *was = ext->paired_baseline;
    double r, lo, hi;
    ext->paired_baseline = "99_absent";
    assert_int_equal(result_ratio(&g_run, ext, "sdpa_cudnn", &r, &lo, &hi), -1);
    assert_int_equal(result_point_ratio(&g_run, ext, "sdpa_cudnn", &r), -1);
    ext->paired_baseline = "10_latency";
    const char *bwas = bridge->paired_baseline;
    bridge->paired_baseline = "09_tile_scheduling";
    assert_int_equal(result_ratio(&g_run, ext, "sdpa_cudnn", &r, &lo, &hi), -1);
    assert_int_equal(result_point_ratio(&g_run, ext, "sdpa_cudnn", &r), -1);
    bridge->paired_baseline = bwas;
    int rot = bridge->paired_rotation;
    bridge->paired_rotation = 0;
    assert_int_equal(result_ratio(&g_run, ext, "sdpa_cudnn", &r, &lo, &hi), -1);
    bridge->paired_rotation = rot;
    /* the bridge's row itself re-pointed at a third row: not followed */
    run_result *other = find("torch_flash", &THROUGHPUT);
    const char *owas = other->paired_baseline;
    other->paired_baseline = "torch_cudnn";
    assert_int_equal(result_ratio(&g_run, other, "sdpa_cudnn", &r, &lo, &hi), -1);
    other->paired_baseline = owas;
    ext->paired_baseline = was;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bridged_row_reads_the_product_of_both_processes),
        cmocka_unit_test(no_ratio_without_a_bridge_in_the_run),
    };
    return cmocka_run_group_tests(tests, open_run, close_run);
}
