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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ptxas_report_per_arch),
        cmocka_unit_test(csv_split_quotes),
        cmocka_unit_test(ncu_raw_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
