/* test_external_bridge.c: `run --external`'s ratio through a bridge (external_bridge.h),
 * on made-up results: the product of the external's pairs with the rung in PyTorch's
 * process and the rung's pairs with the baseline in the run, the same figure the readers
 * recompute (stats_bridged_ratio_ci); no ratio where the run has no such row; refused
 * where the pairs are malformed or name something that is not a rung of the run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "core/stats.h"
#include "evidence/external_bridge.h"

static const bridge_bootstrap BS = { 2000, 20261122, 0.95 };

static const double EXT[] = { 110, 111, 109, 112, 110.5, 108, 111.5 }, BR1[] = { 90, 91, 89, 92, 90, 88.5, 91 };
static const double BR2[] = { 90, 89.5, 91, 90.5, 88, 90, 92, 91 }, BASE[] = { 95, 94, 96, 95.5, 93, 95, 97, 96 };

static json_t *times(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_real(x[i]));
    return a;
}

static json_t *shape(int b)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "batch", b, "heads", 16, "seq_q", 4096, "seq_kv", 4096,
                     "head_dim", 128, "causal", 0, "scale", 0.08838834764831845);
}

static json_t *row(const char *impl, int b, const char *paired_with, const double *a, const double *p, size_t n)
{
    return json_pack("{s:s, s:o, s:{s:s, s:s, s:i, s:o, s:o}}", "impl", impl, "shape", shape(b), "paired",
                     "baseline", paired_with, "design", "rotation", "n", (int)n, "impl_us", times(a, n),
                     "baseline_us", times(p, n));
}

typedef struct { json_t *impls, *results, *ext; } fixture;

static int setup(void **st)
{
    static fixture f;
    f.impls = json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]", "name", "10_latency", "kind", "phase", "name",
                        "sdpa_cudnn", "kind", "baseline", "name", "torch_flash", "kind", "external");
    f.results = json_array();
    json_array_append_new(f.results, row("10_latency", 1, "sdpa_cudnn", BR2, BASE, 8));
    json_array_append_new(f.results, row("10_latency", 4, "sdpa_cudnn", BR2, BASE, 8));
    json_array_append_new(f.results, row("torch_flash", 4, "sdpa_cudnn", BR2, BASE, 8));
    f.ext = row("torch_cudnn", 4, "10_latency", EXT, BR1, 7);
    *st = &f;
    return 0;
}

static int teardown(void **st)
{
    fixture *f = *st;
    json_decref(f->impls);
    json_decref(f->results);
    json_decref(f->ext);
    return 0;
}

static void the_product_of_both_processes(void **st)
{
    fixture *f = *st;
    char err[256] = "";
    double r, lo, hi, want, wlo, whi;
    assert_int_equal(external_bridged_ratio(f->ext, f->impls, f->results, "sdpa_cudnn", &BS, &r, &lo, &hi, err,
                                            sizeof err), 1);
    assert_int_equal(stats_bridged_ratio_ci(EXT, BR1, 7, BR2, BASE, 8, BS.resamples, BS.seed, BS.ci_level, &want,
                                            &wlo, &whi), 0);
    assert_true(r == want && lo == wlo && hi == whi);
    /* 110/90 x 90/95 = 110/95, near enough on these samples */
    assert_true(fabs(r / (110.0 / 95.0) - 1) < 0.02);
}

static void no_ratio_where_the_run_has_no_bridge_row(void **st)
{
    fixture *f = *st;
    char err[256] = "";
    double r, lo, hi;
    json_object_set_new(f->ext, "shape", shape(2));
    assert_int_equal(external_bridged_ratio(f->ext, f->impls, f->results, "sdpa_cudnn", &BS, &r, &lo, &hi, err,
                                            sizeof err), 0);
    json_object_set_new(f->ext, "shape", shape(4));
}

static void refused(void **st, const char *why_has)
{
    fixture *f = *st;
    char err[256] = "";
    double r, lo, hi;
    assert_int_equal(external_bridged_ratio(f->ext, f->impls, f->results, "sdpa_cudnn", &BS, &r, &lo, &hi, err,
                                            sizeof err), -1);
    if (!strstr(err, why_has)) fail_msg("'%s' does not say '%s'", err, why_has);
}

static void refused_where_the_bridge_is_not_a_rung_or_the_pairs_are_bad(void **st)
{
    fixture *f = *st;
    json_t *pb = json_object_get(f->ext, "paired");
    json_object_set_new(pb, "baseline", json_string("torch_flash"));   /* an external: no bridge */
    refused(st, "torch_flash");
    json_object_set_new(pb, "baseline", json_string("99_absent"));
    refused(st, "99_absent");
    json_object_set_new(pb, "baseline", json_string("10_latency"));
    json_array_set_new(json_object_get(pb, "baseline_us"), 2, json_real(0));
    refused(st, "paired");
    json_array_set_new(json_object_get(pb, "baseline_us"), 2, json_real(BR1[2]));
    json_array_remove(json_object_get(pb, "impl_us"), 0);
    refused(st, "paired");
    json_array_insert_new(json_object_get(pb, "impl_us"), 0, json_real(EXT[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_product_of_both_processes),
        cmocka_unit_test(no_ratio_where_the_run_has_no_bridge_row),
        cmocka_unit_test(refused_where_the_bridge_is_not_a_rung_or_the_pairs_are_bad),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
