/* test_writer_ab.c: the A/B comparison's file as evidence/writer_ab.c writes it from typed
 * values: the document, a row in each of its three outcomes (a failed check, throttled
 * pairs, a decision) and a phase's code paths, each against the keys, order and number
 * forms the A/B command wrote before the writer (spelled out here, as it packed them), with
 * schema 3's additions: each row's wall time (`wall_s`). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/writer.h"

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

static void same_text(const json_t *written, const json_t *want)
{
    char *a = json_dumps(written, DUMP_FLAGS), *b = json_dumps(want, DUMP_FLAGS);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* `ab --out`'s file: the keys, order and types the A/B command wrote before the writer. */
static void ab_document_is_written_as_before(void **state)
{
    (void)state;
    device_gpu g = { .known = 1, .sm_count = 132, .cc_major = 9, .l2_bytes = 52428800, .index = 0 };
    snprintf(g.name, sizeof g.name, "NVIDIA H100 80GB HBM3");
    snprintf(g.slug, sizeof g.slug, "nvidia-h100-80gb-hbm3");
    snprintf(g.uuid, sizeof g.uuid, "GPU-0");
    device_versions v = { .cuda_driver = 13000, .cuda_runtime = 13000, .cudnn = DEVICE_CUDNN_NOT_LOADED, .nvcc = "13.0.88" };
    device_git base = { .commit = "aaaa", .dirty = 0, .source = "git" }, head = { .commit = "bbbb", .dirty = 1, .source = "git" };
    json_t *paths = json_pack("{s:[]}", "06_tiling"), *rows = json_pack("[{s:s}]", "impl", "06_tiling");
    run_ab_document d = { .gpu = &g, .versions = &v, .base_git = &base, .head_git = &head, .head_first = 1,
                          .seed = 42, .tolerance = 0.01, .baseline_tolerance = 0.03, .min_samples = 30,
                          .max_samples = 2000, .min_gpu_s = 0.5, .max_seconds = 20, .warmup = 3, .per_pair = 0,
                          .watch_why_not = "no NVML", .discard = "thermal", .discard_limit = 0.25,
                          .paths = paths, .rows = rows };
    json_t *w = run_write_ab(&d);
    json_t *want = json_pack("{s:s, s:i, s:o, s:o, s:o, s:s, s:I, s:f, s:f, s:o, s:o, s:O, s:O}",
                             "schema", "attnladder-ab", "schema_version", 3,
                             "gpu", run_write_gpu(&g), "versions", run_write_versions(&v),
                             "builds", json_pack("{s:o, s:o}", "base", run_write_git(&base), "head", run_write_git(&head)),
                             "loaded_first", "head", "seed", (json_int_t)42, "tolerance", 0.01,
                             "baseline_tolerance", 0.03,
                             "method", json_pack("{s:I, s:I, s:f, s:f, s:i, s:s}", "min_samples", (json_int_t)30,
                                                 "max_samples", (json_int_t)2000, "min_gpu_s", 0.5, "max_seconds", 20.0,
                                                 "warmup", 3, "change",
                                                 "median of paired head/base quotients, 95% percentile bootstrap CI"),
                             "clock_watch", json_pack("{s:b, s:s, s:s, s:f}", "per_pair", 0, "why_not", "no NVML",
                                                      "discard", "thermal", "discard_limit", 0.25),
                             "paths", paths, "rows", rows);
    assert_non_null(w);
    assert_non_null(want);
    same_text(w, want);
    json_decref(w);
    json_decref(want);
    json_decref(paths);
    json_decref(rows);
}

/* The row's first keys, as every outcome begins. */
static json_t *row_start(void)
{
    json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:b}", "impl", "06_tiling", "kind", "phase", "shape",
                            "1x8x512x64", "selected", "path", "correct", 1);
    json_object_set_new(row, "base_note", json_string("tile 128x64"));
    json_object_set_new(row, "head_note", json_string("tile 128x128"));
    json_object_set_new(row, "wall_s", json_real(1.5));   /* schema 3: each row's wall time */
    return row;
}

static json_t *pairs_clock(void)
{
    return json_pack("{s:i, s:i}", "sm_mhz", 1980, "discarded_pairs", 0);
}

static const double base_us[] = { 10.5, 10.25, 10.75 }, head_us[] = { 10.625, 10.125, 11.0 };

static run_ab_row typed_row(run_ab_outcome outcome)
{
    return (run_ab_row){ .outcome = outcome, .impl = "06_tiling", .kind = "phase", .shape = "1x8x512x64",
                         .selected = "path", .correct = outcome != RUN_AB_FAILED, .base_note = "tile 128x64",
                         .head_note = "tile 128x128", .error = "max_abs 0.5 over 1e-2",
                         .clock = outcome == RUN_AB_FAILED ? NULL : pairs_clock(), .tolerance = 0.01,
                         .bootstrap_seed = 0x7fffffffffffffffULL, .change = 1.0125, .change_lo = 0.99,
                         .change_hi = 1.03, .verdict = "unchanged", .pairs = 3, .base_first = 2, .inner = 20,
                         .stop = outcome == RUN_AB_THROTTLED ? "throttled" : "noise", .gpu_s = 0.75,
                         .base = { base_us, 10.5 }, .head = { head_us, 10.625 }, .wall_s = 1.5 };
}

static json_t *side(const double *x, double median)
{
    return json_pack("{s:f, s:[f, f, f]}", "median_us", median, "samples_us", x[0], x[1], x[2]);
}

static void ab_rows_are_written_as_before(void **state)
{
    (void)state;
    run_ab_row failed = typed_row(RUN_AB_FAILED);
    failed.correct = 0;
    json_t *want = row_start(), *w = run_write_ab_row(&failed);
    json_object_set_new(want, "correct", json_false());
    json_object_set_new(want, "error", json_string("max_abs 0.5 over 1e-2"));
    json_object_set_new(want, "verdict", json_string("failed"));
    same_text(w, want);
    json_decref(w);
    json_decref(want);

    run_ab_row throttled = typed_row(RUN_AB_THROTTLED);
    throttled.base_note = throttled.head_note = NULL;   /* builds that say nothing: no notes */
    want = json_pack("{s:s, s:s, s:s, s:s, s:b}", "impl", "06_tiling", "kind", "phase", "shape", "1x8x512x64",
                     "selected", "path", "correct", 1);
    w = run_write_ab_row(&throttled);
    json_object_set_new(want, "wall_s", json_real(1.5));
    json_object_set_new(want, "clock", pairs_clock());
    json_object_set_new(want, "verdict", json_string("throttled"));
    json_object_set_new(want, "pairs", json_integer(3));
    json_object_set_new(want, "stop", json_string("throttled"));
    same_text(w, want);
    json_decref(w);
    json_decref(want);

    run_ab_row decided = typed_row(RUN_AB_DECIDED);
    want = row_start();
    w = run_write_ab_row(&decided);
    json_object_set_new(want, "clock", pairs_clock());
    json_object_set_new(want, "tolerance", json_real(0.01));
    json_object_set_new(want, "bootstrap_seed", json_integer((json_int_t)0x7fffffffffffffffULL));
    json_object_set_new(want, "change", json_pack("{s:f, s:f, s:f}", "median", 1.0125, "ci_lo", 0.99, "ci_hi", 1.03));
    json_object_set_new(want, "verdict", json_string("unchanged"));
    json_object_set_new(want, "pairs", json_integer(3));
    json_object_set_new(want, "base_first", json_integer(2));
    json_object_set_new(want, "inner", json_integer(20));
    json_object_set_new(want, "stop", json_string("noise"));
    json_object_set_new(want, "gpu_s", json_real(0.75));
    json_object_set_new(want, "base", side(base_us, 10.5));
    json_object_set_new(want, "head", side(head_us, 10.625));
    same_text(w, want);
    json_decref(w);
    json_decref(want);
}

/* paths{impl}: each build's list, the shape that times each path and by what. */
static void ab_paths_are_written_as_before(void **state)
{
    (void)state;
    run_ab_path base[] = { { "tile 128x64", "1x8x512x64", 1 }, { "split-kv 4", "1x8x1x8192x128", 0 } };
    run_ab_path head[] = { { "tile 128x128", "-", 0 } };
    json_t *w = run_write_ab_paths(base, 2, head, 1);
    json_t *want = json_pack("{s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}], s:[{s:s, s:s, s:s}]}",
                             "base", "path", "tile 128x64", "shape", "1x8x512x64", "by", "fixed",
                             "path", "split-kv 4", "shape", "1x8x1x8192x128", "by", "added",
                             "head", "path", "tile 128x128", "shape", "-", "by", "added");
    same_text(w, want);
    json_decref(w);
    json_decref(want);
    w = run_write_ab_paths(NULL, 0, NULL, 0);   /* a phase no shape could init in both builds */
    want = json_pack("{s:[], s:[]}", "base", "head");
    same_text(w, want);
    json_decref(w);
    json_decref(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ab_document_is_written_as_before),
        cmocka_unit_test(ab_rows_are_written_as_before),
        cmocka_unit_test(ab_paths_are_written_as_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
