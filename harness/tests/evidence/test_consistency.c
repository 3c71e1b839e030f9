/* test_consistency.c: a run checked against its limits and against itself
 * (evidence/consistency.h). The accepted H100 run, edited in memory so that it lies about
 * itself in one way, is refused with the field named; the same run edited consistently
 * (summaries recomputed with the samples) still passes, so the rules refuse lies, not
 * edits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/stats.h"
#include "core/text_safe.h"
#include "evidence/run_lists.h"
#include "evidence/consistency.h"
#include "evidence/evidence_file.h"
#include "json_at.h"
#include "cut_rows.h"

/* The whole accepted run, read by committed_run_is_consistent alone (every row of a
 * committed run passes every rule: there the size is the point); the other cases edit a
 * copy cut to the shapes they edit (cut_rows.h): the headline pair and 4x16x4096x128,
 * where an external is bridged through a rung. 45 rows of 738; under ASan and UBSan
 * 20.7 -> 5.4 CPU s. Planted in evidence/consistency.c: a bridged ratio checked against
 * its own pairs alone, not times the bridge's: a_bridged_ratio_against_both_pairs failed
 * on the cut run. */
static json_t *g_whole, *g_run;
static size_t g_row;   /* a phase's row timed in graph mode with a ratio from its pairs */

static int load(void **st)
{
    (void)st;
    char name[256], path[1024], err[1024];
    if (evidence_accepted("evidence", "nvidia-h100-80gb-hbm3", name, sizeof name, path, sizeof path, err, sizeof err) != 1) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    g_whole = evidence_load(path, err, sizeof err);
    if (!g_whole) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    static const cut_shape keep[] = {
        { 1, 8, 512, 512, 64, 0 }, { 1, 8, 512, 512, 64, 1 }, { 4, 16, 4096, 4096, 128, 0 },
    };
    g_run = json_deep_copy(g_whole);
    if (!g_run || !cut_rows_to(g_run, keep, 3)) return -1;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(g_run, "results"), i, r) {
        json_t *d = json_object_get(r, "derived");
        /* with pairs: a rung slower than 4x the baseline keeps separate medians and none */
        if (json_object_get(json_object_get(r, "timing"), "graph") && json_is_object(json_object_get(d, "ratio")) &&
            json_is_object(json_object_get(r, "paired")) &&
            strcmp(json_string_value(json_object_get(r, "impl")), "sdpa_cudnn")) {
            g_row = i;
            return 0;
        }
    }
    return -1;
}

static int unload(void **st)
{
    (void)st;
    json_decref(g_run);
    json_decref(g_whole);
    return 0;
}

static json_t *row(json_t *doc, const char *rest)
{
    char p[128];
    snprintf(p, sizeof p, "results[%zu]%s%s", g_row, rest[0] ? "." : "", rest);
    return at(doc, p);
}

/* The error of the edited copy; "" when it passes. */
static const char *verdict(json_t *doc)
{
    static char err[1024];
    err[0] = '\0';
    if (evidence_validate(doc, err, sizeof err) == 0) err[0] = '\0';
    json_decref(doc);
    return err;
}

static void expect_refused(json_t *doc, const char *words)
{
    const char *err = verdict(doc);
    if (!err[0]) fail_msg("accepted; expected a refusal naming '%s'", words);
    if (!strstr(err, words)) fail_msg("'%s' does not name '%s'", err, words);
}

static void committed_run_is_consistent(void **st)
{
    (void)st;
    assert_string_equal(verdict(json_incref(g_whole)), "");   /* verdict drops one reference */
}

static void verdict_against_bounds(void **st)
{
    (void)st;
    json_t *d = json_deep_copy(g_run);
    json_object_set_new(row(d, "correctness"), "rel_l2", json_real(0.5));
    expect_refused(d, ".correctness.pass: true beside rel_l2 0.5");
    d = json_deep_copy(g_run);
    json_object_set_new(row(d, "correctness"), "nonfinite", json_integer(1000));
    expect_refused(d, ".correctness.pass: true beside 1000 non-finite");
    d = json_deep_copy(g_run);
    json_object_set_new(row(d, "correctness"), "max_abs", json_real(0.02));
    expect_refused(d, "over the run's bound 0.01");
    d = json_deep_copy(g_run);   /* the run's own bounds decide: wider bounds, the same error passes */
    json_object_set_new(row(d, "correctness"), "max_abs", json_real(0.02));
    json_object_set_new(at(d, "method.bounds"), "max_abs", json_real(0.05));
    assert_string_equal(verdict(d), "");
    d = json_deep_copy(g_run);
    json_object_set_new(row(d, "correctness"), "checked", json_integer(0));
    expect_refused(d, "true with nothing checked");
    d = json_deep_copy(g_run);   /* a pass the check after timing contradicts */
    json_object_set_new(row(d, "correctness"), "after_timing", json_pack("{s:b}", "pass", 0));
    expect_refused(d, "though the check after timing failed");
}

static void summaries_against_samples(void **st)
{
    (void)st;
    static const char *const keys[] = { "median_us", "p10_us", "p90_us", "ci_lo_us", "ci_hi_us", "mean_us",
                                        "min_us", "max_us" };
    json_t *d = json_deep_copy(g_run);
    json_t *g = row(d, "timing.graph");
    for (size_t k = 0; k < 8; k++)   /* every summary x3, still ordered */
        json_object_set_new(g, keys[k], json_real(3 * json_number_value(json_object_get(g, keys[k]))));
    expect_refused(d, "timing.graph.median_us:");
    d = json_deep_copy(g_run);   /* and the samples x3 with them: consistent (the ratio then is not) */
    g = row(d, "timing.graph");
    for (size_t k = 0; k < 8; k++)
        json_object_set_new(g, keys[k], json_real(3 * json_number_value(json_object_get(g, keys[k]))));
    json_t *s = json_object_get(g, "samples_us");
    for (size_t i = 0; i < json_array_size(s); i++)
        json_array_set_new(s, i, json_real(3 * json_number_value(json_array_get(s, i))));
    expect_refused(d, "derived.tflops");
    d = json_deep_copy(g_run);
    g = row(d, "timing.graph");
    json_object_set_new(g, "mean_us", json_object_get(g, "max_us") ? json_real(json_number_value(json_object_get(g, "max_us")) * 2) : NULL);
    expect_refused(d, "timing.graph.mean_us:");
}

static void derived_against_timing(void **st)
{
    (void)st;
    json_t *d = json_deep_copy(g_run);
    json_t *ratio = row(d, "derived.ratio");
    json_object_set_new(ratio, "median", json_real(0.010));
    json_object_set_new(ratio, "ci_lo", json_real(0.009));
    json_object_set_new(ratio, "ci_hi", json_real(0.011));
    /* the reference run's ratios are its rotation's: judged against its pairs */
    expect_refused(d, "derived.ratio.median: 0.01, but the pairs of results[].paired give");
    /* a ratio that says it came from the separate measurements: against the graph medians */
    d = json_deep_copy(g_run);
    ratio = row(d, "derived.ratio");
    json_object_set_new(ratio, "median", json_real(0.010));
    json_object_set_new(ratio, "ci_lo", json_real(0.009));
    json_object_set_new(ratio, "ci_hi", json_real(0.011));
    json_object_set_new(ratio, "method", json_string("independent"));
    expect_refused(d, "derived.ratio.median: 0.01, but the graph medians");
    d = json_deep_copy(g_run);
    json_object_set_new(row(d, "derived"), "gbps", json_real(1e6));
    expect_refused(d, "derived.gbps");
}

/* The index of impl's row at 4x16x4096x128 non-causal in doc. */
static size_t throughput_row(json_t *doc, const char *impl)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "results"), i, r) {
        json_t *sh = json_object_get(r, "shape");
        if (!strcmp(json_string_value(json_object_get(r, "impl")), impl) &&
            json_integer_value(json_object_get(sh, "batch")) == 4 && json_integer_value(json_object_get(sh, "seq_q")) == 4096 &&
            json_integer_value(json_object_get(sh, "head_dim")) == 128 && !json_integer_value(json_object_get(sh, "causal")))
            return i;
    }
    fail_msg("no %s row at 4x16x4096x128", impl);
    return 0;
}

static double pairs_median(json_t *paired)
{
    json_t *a = json_object_get(paired, "impl_us"), *b = json_object_get(paired, "baseline_us");
    size_t n = json_array_size(a);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), m = NAN;
    for (size_t i = 0; x && y && i < n; i++) {
        x[i] = json_number_value(json_array_get(a, i));
        y[i] = json_number_value(json_array_get(b, i));
    }
    if (!x || !y || stats_paired_median(x, y, n, &m)) fail_msg("pairs");
    free(x);
    free(y);
    return m;
}

/* An external paired with a rung in its own process (a bridge): its ratio is the product
 * of its pairs' median and the rung's pairs' median in this run. */
static void a_bridged_ratio_against_both_pairs(void **st)
{
    (void)st;
    json_t *d = json_deep_copy(g_run);
    json_t *results = json_object_get(d, "results");
    json_t *ext = json_array_get(results, throughput_row(d, "torch_cudnn"));
    json_t *bridge = json_array_get(results, throughput_row(d, "10_latency"));
    json_object_set_new(json_object_get(ext, "paired"), "baseline", json_string("10_latency"));
    double want = pairs_median(json_object_get(ext, "paired")) * pairs_median(json_object_get(bridge, "paired"));
    json_t *ratio = json_object_get(json_object_get(ext, "derived"), "ratio");
    json_object_set_new(ratio, "median", json_real(want));
    json_object_set_new(ratio, "ci_lo", json_real(want * 0.99));
    json_object_set_new(ratio, "ci_hi", json_real(want * 1.01));
    json_object_set_new(ratio, "method", json_string("bridged"));
    json_object_set_new(ratio, "bridge", json_string("10_latency"));
    json_t *copy = json_deep_copy(d);
    assert_string_equal(verdict(copy), "");
    json_object_set_new(ratio, "median", json_real(want * 1.005));
    expect_refused(json_deep_copy(d), "but its pairs with 10_latency and 10_latency's with the baseline give");
    json_object_set_new(ratio, "median", json_real(want));
    json_object_set_new(json_object_get(ext, "paired"), "baseline", json_string("torch_flash"));
    expect_refused(d, "is not a rung of the run timed at this shape");
}

static void method_in_range(void **st)
{
    (void)st;
    long long bad[] = { -5, 0, 99, 10001, 1000000000 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *d = json_deep_copy(g_run);
        json_object_set_new(at(d, "method"), "bootstrap_resamples", json_integer(bad[i]));
        expect_refused(d, "method.bootstrap_resamples");
    }
    json_t *d = json_deep_copy(g_run);
    json_object_set_new(at(d, "method"), "min_samples", json_integer(500));
    expect_refused(d, "method.min_samples: 500 exceeds");
    double bounds[] = { 0, -0.01, 1.5 };   /* a bound is in (0, 1] */
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        d = json_deep_copy(g_run);
        json_object_set_new(at(d, "method.bounds"), "max_abs", json_real(bounds[i]));
        expect_refused(d, "method.bounds.max_abs:");
        d = json_deep_copy(g_run);
        json_object_set_new(at(d, "method.bounds"), "rel_l2", json_real(bounds[i]));
        expect_refused(d, "method.bounds.rel_l2:");
    }
}

static void printed_fields_have_their_form(void **st)
{
    (void)st;
    struct { const char *parent, *key, *value, *words; } cases[] = {
        { "context.git", "commit", "abc|def", "context.git.commit" },
        { "context.git", "commit", "ABCDEF0", "context.git.commit" },
        { "context.versions", "driver", "580 | x", "context.versions.driver" },
        { "context.gpu", "uuid", "<b>", "context.gpu.uuid" },
        { "context.gpu", "name", "H100 [x](y)", "context.gpu.name" },
        { "context.gpu", "slug", "nvidia-h200", "is not the slug of the GPU's name" },
        { "implementations[0]", "title", "a\x1b[2Jb", "implementations[0].title: holds a control" },
        { "implementations[0]", "title", "\xff", "not UTF-8" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *d = json_deep_copy(g_run);
        json_object_set_new(at(d, cases[i].parent), cases[i].key, json_stringn_nocheck(cases[i].value, strlen(cases[i].value)));
        expect_refused(d, cases[i].words);
    }
    json_t *d = json_deep_copy(g_run);   /* free text with markdown in it is text: accepted */
    json_object_set_new(at(d, "implementations[0]"), "title", json_string("<b>bold</b> | [x](javascript:y)"));
    assert_string_equal(verdict(d), "");
}

static void limits(void **st)
{
    (void)st;
    json_t *d = json_deep_copy(g_run);
    json_t *g = row(d, "timing.graph");
    json_t *s = json_array();
    double m = json_number_value(json_object_get(g, "median_us"));
    for (int i = 0; i < EVIDENCE_MAX_SAMPLES + 1; i++) json_array_append_new(s, json_real(m));
    json_object_set_new(g, "samples_us", s);
    json_object_set_new(g, "n", json_integer(EVIDENCE_MAX_SAMPLES + 1));
    expect_refused(d, "samples_us: 100001 elements, more than the 100000");
    d = json_deep_copy(g_run);
    json_t *big = json_object();
    for (int i = 0; i < EVIDENCE_MAX_MEMBERS + 1; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        json_object_set_new(big, k, json_integer(i));
    }
    json_object_set_new(at(d, "context"), "extra", big);
    expect_refused(d, "context.extra: 1025 members");
    d = json_deep_copy(g_run);
    json_t *longs = json_string("");
    char *text = malloc(TEXT_MAX_LINE + 2);
    memset(text, 'x', TEXT_MAX_LINE + 1);
    text[TEXT_MAX_LINE + 1] = '\0';
    json_string_set(longs, text);
    free(text);
    json_object_set_new(at(d, "context"), "note", longs);
    expect_refused(d, "context.note: 1025 bytes long");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(committed_run_is_consistent),
        cmocka_unit_test(verdict_against_bounds),
        cmocka_unit_test(summaries_against_samples),
        cmocka_unit_test(derived_against_timing),
        cmocka_unit_test(a_bridged_ratio_against_both_pairs),
        cmocka_unit_test(method_in_range),
        cmocka_unit_test(printed_fields_have_their_form),
        cmocka_unit_test(limits),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
