/* test_baseline_libs.c: the report names each baseline's library and draws an external
 * baseline at the run baseline's time times its paired ratio (report/baseline_libs.h), and
 * quotes the paired method's targets from the accepted runs (report/targets.h). Read from
 * rung 21's H200 reference run (build fe23a4b, the first of the accepted set; PyTorch's rows
 * bridged through rung 10, the C baseline on PyTorch's cuDNN among them), then with its
 * rows re-pointed at `sdpa_cudnn` as a run of the method before the bridge wrote them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evidence/result_ratio.h"
#include "report/baseline_libs.h"
#include "report/targets.h"

#define H200_REF "evidence/nvidia-h200/20261204T192149Z_fe23a4b.json.gz"
#define H100_REF "evidence/nvidia-h100-80gb-hbm3/20261127T230115Z_49b36b5.json.gz"
#define H200_SECOND "evidence/nvidia-h200/20261204T193409Z_fe23a4b.json.gz"

static run_data g_run;
static const attn_shape THROUGHPUT = { 4, 16, 4096, 4096, 128, 0, 0 };
static const attn_shape LONG = { 1, 16, 16384, 16384, 128, 0, 0 };

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

/* What `print` writes for g_run with the baseline `sdpa_cudnn` and the rungs `phases`. */
static char *printed(void (*print)(FILE *, const report_ctx *, const run_data *), const char **phases, size_t n)
{
    gate_config cfg = { 0 };
    cfg.baseline = "sdpa_cudnn";
    report_ctx c = { .cfg = &cfg, .phases = phases, .n_phases = n };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    print(f, &c, &g_run);
    fclose(f);
    return text;
}

static char *paragraph(void) { return printed(report_libraries_paragraph, NULL, 0); }

static void has(const char *text, const char *words)
{
    if (!strstr(text, words)) fail_msg("'%s' does not say '%s'", text, words);
}

/* Re-pointed at `sdpa_cudnn` as the method before the bridge wrote PyTorch's rows: the
 * paragraph says so, and names both libraries. */
static void the_old_method_is_named_and_both_libraries_too(void **st)
{
    (void)st;
    char lib[96];
    report_baseline_library(lib, sizeof lib, &g_run);
    assert_string_equal(lib, "cuDNN 9.14.0 (the machine's)");
    const char **was = calloc(g_run.n_results, sizeof *was);
    assert_non_null(was);
    for (size_t k = 0; k < g_run.n_results; k++) {
        was[k] = g_run.results[k].paired_baseline;
        if (!strncmp(g_run.results[k].impl, "torch_", 6) && g_run.results[k].n_paired)
            g_run.results[k].paired_baseline = "sdpa_cudnn";
    }
    run_result *x = (run_result *)run_find(&g_run, "torch_cudnn", &THROUGHPUT);
    assert_non_null(x);
    assert_int_equal(report_external_source(&g_run, x), EXTERNAL_OLD_METHOD);
    char *text = paragraph();
    has(text, "`sdpa_cudnn` is cuDNN 9.14.0 (the machine's), loaded from `/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0`");
    has(text, "PyTorch's backends run on cuDNN 9.19.0 (PyTorch 2.11.0's)");
    has(text, "This run predates the bridge");
    has(text, "the gate judges every rung against it");
    free(text);
    for (size_t k = 0; k < g_run.n_results; k++) g_run.results[k].paired_baseline = was[k];
    free(was);
}

/* An external's time is the baseline's median times its ratio, not its own clock. */
static void an_external_is_drawn_at_the_baseline_time_times_its_ratio(void **st)
{
    (void)st;
    const run_result *x = run_find(&g_run, "torch_cudnn", &LONG), *b = run_find(&g_run, "sdpa_cudnn", &LONG);
    double us, q;
    assert_int_equal(report_external_time(&g_run, x, &us), 0);
    assert_int_equal(result_point_ratio(&g_run, x, "sdpa_cudnn", &q), 0);
    assert_true(fabs(us - b->median_us * q) <= 1e-9 * us);
    /* the H200 runs drew PyTorch's cuDNN at its own clock, off the pairs: at this 3.6 ms
     * point, where the clock sags under the power cap, +2.75% in this run (rung 20's
     * reference run read +3.85%, the sessions after it +1.92% and +2.36%); at 4x16x4096x128
     * -2.28% here (-2.29%, -0.52% and -1.06%) */
    assert_true(fabs(us / x->median_us - 1) > 0.01);
}

/* The bridged run as committed: the paragraph names the bridge and lists the shapes
 * where the two cuDNNs differ past 2% (6 of the 8; 4x32x4096x64: 9.19 11.8% slower; 11.5%
 * in rung 20's reference run), not those where they agree (4x16x4096x128, 9.19 0.8% faster
 * in rung 20's reference run, computed apart from the harness). */
static void a_bridged_run_shows_where_the_two_cudnns_differ(void **st)
{
    (void)st;
    run_result *x = (run_result *)run_find(&g_run, "torch_cudnn", &THROUGHPUT);
    assert_non_null(x);
    assert_int_equal(report_external_source(&g_run, x), EXTERNAL_PAIRED);
    char *text = paragraph();
    has(text, "beside a rung timed in both processes (the bridge)");
    has(text, "The two cuDNNs differ by more than 2% at");
    has(text, "| 4x32x4096x64 |");
    if (strstr(text, "| 4x16x4096x128 |")) fail_msg("'%s' lists 4x16x4096x128, where the cuDNNs agree", text);
    free(text);
}

static void targets_from_the_accepted_runs(void **st)
{
    (void)st;
    const run_data *runs[1] = { &g_run };
    size_t n;
    double lo, hi;
    report_spread sp;
    assert_int_equal(report_same_kernel_spread(runs, 1, &sp), 0);
    n = sp.n_pairs, lo = sp.lo.d, hi = sp.hi.d;
    /* every two rungs whose init notes agree at a point (2821 pairs in build fe23a4b's
     * reference): the low end at 1x8x300:129x64 causal, a 10 us point where rungs 10-21 run
     * rung 10's latency kernel, 15 over 10 -1.27%; the high end at the 4 us headline
     * 1x8x512x64, the same kernel, 20 over 11 +1.78% (the quotients of their paired
     * medians, computed apart from the harness: 2823 pairs there, the harness leaves out two,
     * the same extremes). Both ends are past the 1% target, one kernel read twice, and the
     * report names both; a target of 1.5% names the high end alone, 1.8% neither. */
    assert_true(n >= 90);
    if (!(lo > -0.0129 && lo < -0.0126 && hi > 0.0176 && hi < 0.0179))
        fail_msg("same-kernel spread %.4f..%.4f (n %zu), expected -0.0127..+0.0178", lo, hi, n);
    char warn[512];
    assert_int_equal(report_spread_past_target(warn, sizeof warn, &sp, 0.01), 1);
    has(warn, "1x8x300:129x64 causal: `15_q_ahead` over `10_latency` -1.27%");
    has(warn, "1x8x512x64: `20_store_loads_first` over `11_split_keys` +1.78%");
    assert_int_equal(report_spread_past_target(warn, sizeof warn, &sp, 0.015), 1);
    has(warn, "`20_store_loads_first` over `11_split_keys` +1.78%");
    if (strstr(warn, "15_q_ahead")) fail_msg("'%s' names the end inside the target", warn);
    assert_int_equal(report_spread_past_target(warn, sizeof warn, &sp, 0.018), 0);   /* inside: nothing said */
    size_t rows, within;
    report_reproduction(&g_run, &g_run, 0.02, &rows, &within);
    assert_true(rows > 500 && within == rows);
    /* the set's second session (193409Z, the same build and H200): of the 1309 rows whose
     * ratios both come from the rotation's pairs, 1288 within 2% (computed apart from the
     * harness), the furthest rung 20 at 1x8x512x64, -2.7%: further than the same code read
     * twice, within the 9 in 10 asked here. */
    run_data second;
    char err[1024];
    if (run_open(&second, H200_SECOND, err, sizeof err)) fail_msg("%s", err);
    report_reproduction(&g_run, &second, 0.02, &rows, &within);
    assert_true(within < rows && within > rows * 9 / 10);
    run_close(&second);
}

/* Two rungs whose notes agree but whose code does not read as one kernel measured twice:
 * a spread past its target names the pair, so that a reader can see which. Planted: rung
 * 09's note at 1x8x512x64 made rung 10's, whose latency kernel is about 25% faster there. */
static void a_spread_past_its_target_names_its_pair(void **st)
{
    (void)st;
    const attn_shape head = { 1, 8, 512, 512, 64, 0, 0 };
    run_result *a = (run_result *)run_find(&g_run, "09_tile_scheduling", &head);
    const run_result *b = run_find(&g_run, "10_latency", &head);
    assert_non_null(a);
    assert_non_null(b);
    const char *was = a->init_note;
    a->init_note = b->init_note;
    const run_data *runs[1] = { &g_run };
    report_spread sp;
    assert_int_equal(report_same_kernel_spread(runs, 1, &sp), 0);
    a->init_note = was;
    /* rungs 10-21 write rung 10's note there: the lowest is one of them over rung 09 (about
     * -25%) */
    if (!(sp.lo.d < -0.2 && sp.lo.d > -0.3)) fail_msg("lowest %.4f, expected a rung 10-21 over rung 09, about -0.25", sp.lo.d);
    assert_string_equal(sp.lo.earlier, "09_tile_scheduling");
    assert_true(strcmp(sp.lo.later, "10_latency") >= 0 && strcmp(sp.lo.later, "22") < 0);
    assert_true(shape_same(&sp.lo.at, &head));
    /* the other end as it was (+1.78%, targets_from_the_accepted_runs): inside a target of
     * 1.8%, not named there */
    assert_true(sp.hi.d > 0.0176 && sp.hi.d < 0.0179);
    char warn[512], want[96];
    assert_int_equal(report_spread_past_target(warn, sizeof warn, &sp, 0.018), 1);
    snprintf(want, sizeof want, "1x8x512x64: `%s` over `09_tile_scheduling` -2", sp.lo.later);
    has(warn, want);
    has(warn, "past the target");
    const char *first = strstr(warn, "` over `");
    if (first && strstr(first + 1, "` over `")) fail_msg("'%s' names the end inside the target too", warn);
}

/* report_top_rung_step's figures for a run at a 1% threshold: its top rung, the points with
 * a step, those where one kernel runs below and above, none over 1%, the worst step inside
 * (lo, hi) at `at`. */
static void expect_top_step(const run_data *r, const char *top, size_t points, size_t one_kernel, double lo,
                            double hi, attn_shape at)
{
    report_top_step t;
    assert_int_equal(report_top_rung_step(r, 0.01, &t), 0);
    assert_string_equal(t.top, top);
    assert_int_equal(t.points, points);
    assert_int_equal(t.one_kernel, one_kernel);
    assert_int_equal(t.over, 0);
    if (!(t.worst > lo && t.worst < hi)) fail_msg("%s: worst step %.5f, expected in (%.5f, %.5f)", top, t.worst, lo, hi);
    assert_true(shape_same(&t.worst_at, &at));
}

/* The top rung against the best rung below at every point (targets.h): in build fe23a4b's
 * reference run, rung 21 at its 68 points, rungs of one kernel counted once at their
 * median; the worst 1x1x16384x128 +0.77%, none more than 1% slower, one past 0.5%
 * (computed apart from the harness: 68 points, the same worst; rung 20's reference run
 * read +0.64% there). */
static void top_rung_against_the_best_below(void **st)
{
    (void)st;
    expect_top_step(&g_run, "21_dynamic_3wg", 68, 0, 0.0076, 0.0077, (attn_shape){ 1, 1, 16384, 16384, 128, 0, 0 });
    /* a stricter threshold counts the points past it (1 past 0.5%: this one) */
    report_top_step t;
    assert_int_equal(report_top_rung_step(&g_run, 0.005, &t), 0);
    assert_true(t.over >= 1 && t.over < t.points);
    /* the H100 reference (rung 11 on top): 58 points with a step, the worst +0.149% at
     * 1x8x1:300x128; at 2 more every rung below runs rung 11's kernel. Where rung 11 shares
     * its kernel with rungs below, their median stands for it: taken alone it would read
     * +0.223% (1x8x129:257x64 causal), its kernel's rungs counted as another kernel +0.328%
     * (computed apart from the harness) */
    run_data h100;
    char err[1024];
    if (run_open(&h100, H100_REF, err, sizeof err)) fail_msg("%s", err);
    expect_top_step(&h100, "11_split_keys", 58, 2, 0.00145, 0.00153, (attn_shape){ 1, 8, 1, 300, 128, 0, 0 });
    run_close(&h100);
}

/* report_rung_vs_baseline's figures for a rung: points, those at or below 1.00, the
 * geometric mean inside (lo, hi), the highest ratio inside (hlo, hhi) at `at`. */
static void expect_vs_baseline(const run_data *r, const char *rung, size_t points, size_t below, double lo,
                               double hi, double hlo, double hhi, attn_shape at)
{
    report_vs_baseline v;
    assert_int_equal(report_rung_vs_baseline(r, rung, &v), 0);
    assert_int_equal(v.points, points);
    assert_int_equal(v.at_or_below, below);
    if (!(v.geomean > lo && v.geomean < hi)) fail_msg("%s: geometric mean %.5f, expected in (%.5f, %.5f)", rung, v.geomean, lo, hi);
    if (!(v.highest > hlo && v.highest < hhi)) fail_msg("%s: highest %.5f, expected in (%.5f, %.5f)", rung, v.highest, hlo, hhi);
    assert_true(shape_same(&v.highest_at, &at));
    assert_true(v.lowest <= v.geomean && v.geomean <= v.highest);
}

/* Each rung against the baseline across the run (targets.h), in build fe23a4b's reference
 * run and the H100's, against figures computed apart from the harness (each rung's first
 * row at a shape, derived.ratio.median): rung 21 at or below 1.00 at 67 of 68 points, above
 * at 64x16x256x128 causal (1.0110); rung 20 66, rung 18 63 (32x16x512x128 at 1.0019 is
 * above), rung 12 58; rung 01 at none, 439x at
 * 1x8x1:65536x64; on the H100, rung 11 51 of 60. A rung the run lacks has no figures, and
 * the table has a row for each rung of the run and none for another. */
static void each_rung_against_the_baseline(void **st)
{
    (void)st;
    expect_vs_baseline(&g_run, "21_dynamic_3wg", 68, 67, 0.7531, 0.7532, 1.0110, 1.0111,
                       (attn_shape){ 64, 16, 256, 256, 128, 1, 0 });
    expect_vs_baseline(&g_run, "20_store_loads_first", 68, 66, 0.7551, 0.7553, 1.0234, 1.0235,
                       (attn_shape){ 8, 32, 2048, 2048, 64, 1, 0 });
    /* rung 18 reads 1.0019 at 32x16x512x128: above, however close */
    expect_vs_baseline(&g_run, "18_short_dynamic", 68, 63, 0.7576, 0.7577, 1.0340, 1.0341,
                       (attn_shape){ 64, 16, 256, 256, 128, 1, 0 });
    expect_vs_baseline(&g_run, "12_decode_rows", 68, 58, 0.7651, 0.7652, 1.1308, 1.1309,
                       (attn_shape){ 16, 32, 1024, 1024, 64, 0, 0 });
    expect_vs_baseline(&g_run, "01_scalar", 68, 0, 23.61, 23.62, 439.30, 439.31,
                       (attn_shape){ 1, 8, 1, 65536, 64, 0, 0 });
    report_vs_baseline v;
    assert_int_equal(report_rung_vs_baseline(&g_run, "22_not_a_rung", &v), -1);
    assert_int_equal(v.points, 0);
    run_data h100;
    char err[1024];
    if (run_open(&h100, H100_REF, err, sizeof err)) fail_msg("%s", err);
    expect_vs_baseline(&h100, "11_split_keys", 60, 51, 0.7471, 0.7472, 1.1321, 1.1322,
                       (attn_shape){ 16, 32, 1024, 1024, 64, 0, 0 });
    run_close(&h100);

    const char *phases[] = { "01_scalar", "21_dynamic_3wg", "22_not_a_rung" };
    char *text = printed(report_vs_baseline_table, phases, 3);
    has(text, "### Each rung against sdpa_cudnn across the run");
    has(text, "ratio to `sdpa_cudnn`, cuDNN 9.14.0 (the machine's) (");   /* its library named */
    has(text, "| [21_dynamic_3wg](phases/21_dynamic_3wg.md) | 68 | 67 | 0.753 | 1.011 (64x16x256x128 causal) | "
              "0.113 (1x8x16:32768x128 causal) |");
    has(text, "| [01_scalar](phases/01_scalar.md) | 68 | 0 | 23.62 | 439.3 (1x8x1:65536x64) |");
    if (strstr(text, "22_not_a_rung")) fail_msg("a row for a rung the run lacks: %s", text);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_old_method_is_named_and_both_libraries_too),
        cmocka_unit_test(an_external_is_drawn_at_the_baseline_time_times_its_ratio),
        cmocka_unit_test(a_bridged_run_shows_where_the_two_cudnns_differ),
        cmocka_unit_test(targets_from_the_accepted_runs),
        cmocka_unit_test(a_spread_past_its_target_names_its_pair),
        cmocka_unit_test(top_rung_against_the_best_below),
        cmocka_unit_test(each_rung_against_the_baseline),
    };
    return cmocka_run_group_tests(tests, open_run, close_run);
}
