/* The parsers of tool output: the ptxas resource report and ncu's raw CSV page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "measure/ncu_csv.h"
#include "measure/kernel_resources.h"

static const char PTXAS[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z6kernAv' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z6kernAv\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 1 barriers, 8192 bytes smem, 384 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function '_Z6kernAv' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z6kernAv\n"
    "    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 128 registers, used 1 barriers, 16384 bytes smem, 384 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function '_Z6kernBv' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z6kernBv\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 384 bytes cmem[0]\n";

static void ptxas_report_per_arch(void **st)
{
    (void)st;
    kernel_resources r;
    assert_int_equal(resources_parse(PTXAS, "sm_90", &r), 0);
    assert_int_equal(r.source, RESOURCES_PTXAS);
    assert_string_equal(r.arch, "sm_90");
    assert_int_equal(r.registers, 128);
    assert_int_equal(r.smem_static, 16384);
    assert_true(r.has_spills);
    assert_int_equal(r.spill_stores, 8);
    assert_int_equal(r.spill_loads, 12);
    assert_int_equal(r.stack_bytes, 16);
    assert_int_equal(r.n_kernels, 2);
    assert_string_equal(r.kernels[0].name, "_Z6kernAv");
    assert_int_equal(r.kernels[0].stack_bytes, 16);
    assert_int_equal(r.kernels[0].spill_loads, 12);
    assert_string_equal(r.kernels[1].name, "_Z6kernBv");
    assert_int_equal(r.kernels[1].registers, 32);
    assert_int_equal(r.kernels[1].smem_static, 0);
    resources_free(&r);
    assert_int_equal(resources_parse(PTXAS, "sm_80", &r), 0);
    assert_int_equal(r.registers, 40);
    assert_int_equal(r.spill_stores, 0);
    assert_int_equal(r.n_kernels, 1);
    resources_free(&r);
    assert_int_equal(resources_parse(PTXAS, "sm_89", &r), -1);
}

static void csv_split_quotes(void **st)
{
    (void)st;
    char line[] = "\"a\",\"b,c\",\"d\"\"e\",plain,\"\"";
    char *f[8];
    assert_int_equal(csv_split(line, f, 8), 5);
    assert_string_equal(f[0], "a");
    assert_string_equal(f[1], "b,c");
    assert_string_equal(f[2], "d\"e");
    assert_string_equal(f[3], "plain");
    assert_string_equal(f[4], "");
}

static void ncu_raw_page(void **st)
{
    (void)st;
    const char text[] =
        "==PROF== Connected to process 1\n"
        "\"ID\",\"Kernel Name\",\"launch__registers_per_thread\",\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\",\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\",\"other\"\n"
        "\"\",\"\",\"register/thread\",\"ratio\",\"ratio\",\"\"\n"
        "\"0\",\"flash_kernel<64>(Params)\",\"96\",\"0.50\",\"1,234.5\",\"x\"\n";
    static const char *const keep[] = { "launch__registers_per_thread", "smsp__average_warps_issue_stalled_*", NULL };
    json_t *k = ncu_parse_raw_csv(text, keep);
    assert_non_null(k);
    assert_int_equal(json_array_size(k), 1);
    json_t *row = json_array_get(k, 0);
    assert_string_equal(json_string_value(json_object_get(row, "kernel")), "flash_kernel<64>(Params)");
    json_t *m = json_object_get(row, "metrics");
    assert_float_equal(json_number_value(json_object_get(m, "launch__registers_per_thread")), 96, 1e-9);
    assert_float_equal(json_number_value(json_object_get(m,
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio")), 1234.5, 1e-9);
    assert_null(json_object_get(m, "other"));
    json_decref(k);
    assert_null(ncu_parse_raw_csv("==ERROR== no counters\n", keep));
}

/* One row of a parsed page: a kernel name and its launch shape. */
static json_t *kernel_row(const char *name, double grid, double block)
{
    return json_pack("{s:s, s:{s:f, s:f}}", "kernel", name, "metrics", "launch__grid_size", grid,
                     "launch__block_size", block);
}

static json_t *rows_of(const char *const *names)
{
    json_t *a = json_array();
    for (size_t i = 0; names[i]; i++) {
        int marker = strstr(names[i], "empty_kernel") != NULL;
        json_array_append_new(a, kernel_row(names[i], marker ? 1 : 132, marker ? 32 : 384));
    }
    return a;
}

/* One ncu process over several implementations: each group starts at a marker launch. */
static void ncu_groups_by_marker(void **st)
{
    (void)st;
    static const char *const two[] = { "(anonymous namespace)::empty_kernel()", "flash<64>(P)",
                                       "merge(P)", "(anonymous namespace)::empty_kernel()", "cudnn_sdpa", NULL };
    json_t *rows = rows_of(two);
    json_t *g = ncu_split_by_marker(rows, 2);
    assert_non_null(g);
    assert_int_equal(json_array_size(g), 2);
    assert_int_equal(json_array_size(json_array_get(g, 0)), 2);
    assert_int_equal(json_array_size(json_array_get(g, 1)), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_array_get(g, 0), 1), "kernel")),
                        "merge(P)");
    json_decref(g);
    assert_null(ncu_split_by_marker(rows, 3));   /* two markers, three implementations */
    json_decref(rows);

    static const char *const empty_group[] = { "empty_kernel()", "empty_kernel()", "k(P)", NULL };
    rows = rows_of(empty_group);
    assert_null(ncu_split_by_marker(rows, 2));   /* the first ran no kernel of its own */
    json_decref(rows);

    static const char *const no_lead[] = { "k(P)", "empty_kernel()", "k(P)", NULL };
    rows = rows_of(no_lead);
    assert_null(ncu_split_by_marker(rows, 1));   /* a kernel before any marker */
    json_decref(rows);

    /* a kernel named like the marker but launched wider is an implementation's */
    json_t *wide = json_array();
    json_array_append_new(wide, kernel_row("empty_kernel()", 1, 32));
    json_array_append_new(wide, kernel_row("empty_kernel()", 4, 32));
    g = ncu_split_by_marker(wide, 1);
    assert_non_null(g);
    assert_int_equal(json_array_size(json_array_get(g, 0)), 1);
    json_decref(g);
    json_decref(wide);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ptxas_report_per_arch),
        cmocka_unit_test(csv_split_quotes),
        cmocka_unit_test(ncu_raw_page),
        cmocka_unit_test(ncu_groups_by_marker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
