/* `compare`: the markdown for pairs of synthetic runs against golden files in
 * harness/tests/data/golden/ (ATTN_UPDATE_GOLDEN=1 rewrites them; review the diff), and
 * its bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmd/commands.h"
#include "gate/config.h"
#include "gate/evaluate.h"
#include "evidence/reader.h"
#include "core/files.h"
#include "cmd/compare.h"
#include "evidence/evidence_file.h"
#include "../evidence/cut_rows.h"
#include "fifo_set.h"

#define DATA "harness/tests/data/"

/* The markdown of compare(a, b); *regressed gets the return value. */
static char *compare_text(const char *a, const char *b, const compare_opts *o, int *regressed)
{
    gate_config cfg;
    run_data ra, rb;
    char err[1024];
    assert_int_equal(gate_config_load(DATA "gate_config.json", &cfg, err, sizeof err), 0);
    if (run_open(&ra, a, err, sizeof err) || run_open(&rb, b, err, sizeof err)) fail_msg("%s", err);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    *regressed = runs_compare_markdown(f, &cfg, &ra, &rb, NULL, 0, o, err, sizeof err);
    fclose(f);
    run_close(&ra);
    run_close(&rb);
    gate_config_free(&cfg);
    return text;
}

static void check_golden(const char *a, const char *b, const compare_opts *o, const char *golden,
                         int want_regressed)
{
    int regressed;
    char *text = compare_text(a, b, o, &regressed);
    assert_int_equal(regressed, want_regressed);
    char path[256];
    snprintf(path, sizeof path, DATA "golden/%s", golden);
    const char *update = getenv("ATTN_UPDATE_GOLDEN");
    if (update && !strcmp(update, "1")) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
    }
    size_t len = 0;
    char *want = files_read(path, &len);
    if (!want) fail_msg("%s is missing (ATTN_UPDATE_GOLDEN=1 writes it)", path);
    if (strlen(text) != len || memcmp(text, want, len) != 0) {
        size_t k = 0, line = 1;
        while (text[k] && k < len && text[k] == want[k]) line += text[k++] == '\n';
        fail_msg("compare %s %s differs from %s at line %zu (ATTN_UPDATE_GOLDEN=1 rewrites it)", a, b,
                 path, line);
    }
    free(want);
    free(text);
}

static void golden_slowdown(void **st)
{
    (void)st;
    compare_opts o = { 0 };
    check_golden(DATA "gate/ref.json", DATA "gate/slow.json", &o, "compare_ref_slow.md", 14);
}

static void golden_borderline_changed_only(void **st)
{
    (void)st;
    compare_opts o = { .changed_only = 1 };
    check_golden(DATA "gate/ref.json", DATA "gate/borderline.json", &o, "compare_ref_borderline.md", 0);
}

static void golden_missing_phase_with_externals(void **st)
{
    (void)st;
    compare_opts o = { .all_impls = 1, .changed_only = 1 };
    check_golden(DATA "gate/ref.json", DATA "gate/missing_phase.json", &o, "compare_ref_missing_phase.md", 0);
}

static void golden_other_gpu_is_noted(void **st)
{
    (void)st;
    compare_opts o = { .changed_only = 1 };
    check_golden(DATA "gate/ref.json", DATA "gate/other_gpu.json", &o, "compare_ref_other_gpu.md", 0);
}

static void reversed_pair_improves(void **st)
{
    (void)st;
    compare_opts o = { .changed_only = 1 };
    int regressed;
    char *text = compare_text(DATA "gate/slow.json", DATA "gate/ref.json", &o, &regressed);
    assert_int_equal(regressed, 0);
    assert_non_null(strstr(text, "**0 slower, 14 faster"));
    free(text);
}

/* The gate and `compare` judge the same rows alike, by one rule: the same count line, and
 * compare's return the gate's slower rows; with every shape judged, and with only the
 * headline shapes judged (ci/gate.json's setting, where compare once judged every shape
 * and the gate only the headline ones). */
static void gate_and_compare_agree(void **st)
{
    (void)st;
    static const char *const pairs[][2] = {
        { DATA "gate/ref.json", DATA "gate/slow.json" },
        { DATA "gate/slow.json", DATA "gate/ref.json" },
        { DATA "gate/ref.json", DATA "gate/borderline.json" },
    };
    for (int all = 1; all >= 0; all--)
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            gate_config cfg;
            run_data ra, rb;
            char err[1024];
            assert_int_equal(gate_config_load(DATA "gate_config.json", &cfg, err, sizeof err), 0);
            cfg.reg.all_shapes = all;
            if (run_open(&ra, pairs[p][0], err, sizeof err) || run_open(&rb, pairs[p][1], err, sizeof err))
                fail_msg("%s", err);
            gate_outcome o = { 0 };
            assert_int_equal(gate_regression(&cfg, &rb, &ra, NULL, &o, err, sizeof err), 0);
            size_t n[4] = { 0 };
            for (size_t i = 0; i < o.n; i++)
                if (o.checks[i].kind == CHECK_REGRESSION && o.checks[i].has_shape) n[o.checks[i].verdict]++;
            char want[160];
            snprintf(want, sizeof want, "**%zu slower, %zu faster, %zu unsure, %zu within; ", n[DRIFT_SLOWER],
                     n[DRIFT_FASTER], n[DRIFT_UNSURE], n[DRIFT_WITHIN]);
            compare_opts opts = { .changed_only = 1 };
            char *text = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&text, &len);
            int slower = runs_compare_markdown(f, &cfg, &ra, &rb, NULL, 0, &opts, err, sizeof err);
            fclose(f);
            if (!strstr(text, want))
                fail_msg("%s %s (every shape judged: %d): the gate counts %s", pairs[p][0], pairs[p][1], all, want);
            assert_int_equal((size_t)slower, n[DRIFT_SLOWER]);
            assert_int_equal(o.failures, n[DRIFT_SLOWER]);
            free(text);
            gate_outcome_free(&o);
            run_close(&ra);
            run_close(&rb);
            gate_config_free(&cfg);
        }
}

static void missing_baseline_is_bad_input(void **st)
{
    (void)st;
    gate_config cfg;
    run_data ra, rb;
    char err[1024];
    compare_opts o = { 0 };
    assert_int_equal(gate_config_load(DATA "gate_config.json", &cfg, err, sizeof err), 0);
    assert_int_equal(run_open(&ra, DATA "gate/ref.json", err, sizeof err), 0);
    assert_int_equal(run_open(&rb, DATA "gate/missing_baseline.json", err, sizeof err), 0);
    FILE *f = fopen("/dev/null", "w");
    assert_int_equal(runs_compare_markdown(f, &cfg, &ra, &rb, NULL, 0, &o, err, sizeof err), -1);
    fclose(f);
    assert_non_null(strstr(err, "missing_baseline.json"));
    assert_non_null(strstr(err, "sdpa_cudnn"));
    run_close(&ra);
    run_close(&rb);
    gate_config_free(&cfg);
}

static void command_line(void **st)
{
    (void)st;
    char *one[] = { "compare", DATA "gate/ref.json" };
    char *bad[] = { "compare", DATA "gate/ref.json", DATA "gate/missing_baseline.json" };
    char *missing[] = { "compare", DATA "gate/ref.json", DATA "gate/does_not_exist.json" };
    char *broken[] = { "compare", DATA "gate/ref.json",
                       DATA "evidence_bad/nvidia-test-gpu/20260201T000000Z_bbbbbbb.json" };
    char out[] = "/tmp/attn_compare_XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    char *ok[] = { "compare", DATA "gate/ref.json", DATA "gate/slow.json", "--changed", "--out", out,
                   "--config", DATA "gate_config.json" };
    assert_int_equal(cmd_compare(2, one), EXIT_BAD_INPUT);
    assert_int_equal(cmd_compare(3, bad), EXIT_BAD_INPUT);
    assert_int_equal(cmd_compare(3, missing), EXIT_BAD_INPUT);
    assert_int_equal(cmd_compare(3, broken), EXIT_BAD_INPUT);
    assert_int_equal(cmd_compare(8, ok), EXIT_OK);   /* a regression is reported, not an error */
    size_t len;
    char *text = files_read(out, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "| 05_warp_specialized | 1x8x512x64 | 2.000"));
    assert_non_null(strstr(text, "**slower**"));
    free(text);
    remove(out);
}

/* A copy of the committed H100 run NAME (.json.gz) cut to its headline rows
 * (cut_rows.h), written as dir/nvidia-h100-80gb-hbm3/NAME less .gz; its path to path. */
static void headline_copy(const char *name, const char *dir, char *path, size_t len)
{
    static const cut_shape headline[] = { { 1, 8, 512, 512, 64, 0 }, { 1, 8, 512, 512, 64, 1 } };
    char src[512], err[1024];
    snprintf(src, sizeof src, "evidence/nvidia-h100-80gb-hbm3/%s", name);
    json_t *doc = evidence_load(src, err, sizeof err);
    if (!doc) fail_msg("%s", err);
    assert_true(cut_rows_to(doc, headline, 2) > 0);
    snprintf(path, len, "%s/nvidia-h100-80gb-hbm3/%.*s", dir, (int)(strlen(name) - 3), name);
    if (evidence_write_atomic(doc, path, err, sizeof err)) fail_msg("%s", err);
    json_decref(doc);
}

/* What each run cost is in the comment, "not recorded" for a run made before the cost was.
 * The cost is the run's own record, not its rows': two committed runs cut to their
 * headline rows (read whole, this binary took 12.0 CPU s under ASan and UBSan; 9.3 cut).
 * Planted in cmd/compare.c: B's cost printed from A's run ("B not recorded."): failed. */
static void cost_of_each_run(void **st)
{
    (void)st;
    compare_opts o = { 0 };
    int regressed;
    char dir[] = "/tmp/test_compare_cmd.XXXXXX", a[512], b[512];
    assert_non_null(mkdtemp(dir));
    headline_copy("20261122T113359Z_e46f08b.json.gz", dir, a, sizeof a);
    headline_copy("20261123T082246Z_27d5592.json.gz", dir, b, sizeof b);
    char *text = compare_text(a, b, &o, &regressed);
    assert_non_null(strstr(text, "Cost of the runs: A not recorded; B 66.02 s wall, 12.57 s of timed GPU "
                                 "work (216 measurements)."));
    free(text);
    assert_int_equal(files_remove_tree(dir), 0);
}

/* --out and both runs are checked before either run or the accepted set is read (on a GPU:
 * two 8 MB runs, then three more): with the set a FIFO, refused by name when read, each
 * refusal names the argument, never the FIFO. */
static void arguments_refused_before_the_runs(void **st)
{
    (void)st;
    char root[64], err[4096], out[128];
    assert_int_equal(fifo_set_make(root), 0);
    snprintf(out, sizeof out, "%s_no_such_folder/table.md", root);
#define CMP_CFG "--config", DATA "gate_config.json", "--evidence", root
    const char *bad_out[] = { "compare", DATA "gate/ref.json", DATA "gate/slow.json", "--out", out, CMP_CFG };
    const char *dir_b[] = { "compare", DATA "gate/ref.json", DATA "gate", CMP_CFG };
    const char *good[] = { "compare", DATA "gate/ref.json", DATA "gate/slow.json", CMP_CFG };
    fifo_set_refuses(cmd_compare, bad_out, 9, "--out");
    fifo_set_refuses(cmd_compare, dir_b, 7, "a directory");
    /* and the set is read when the arguments are right: the FIFO refused by name */
    assert_int_equal(fifo_set_run(cmd_compare, good, 7, err, sizeof err), EXIT_BAD_INPUT);
    assert_non_null(strstr(err, FIFO_SET_RUN));
#undef CMP_CFG
    fifo_set_remove(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_slowdown),
        cmocka_unit_test(golden_borderline_changed_only),
        cmocka_unit_test(golden_missing_phase_with_externals),
        cmocka_unit_test(golden_other_gpu_is_noted),
        cmocka_unit_test(reversed_pair_improves),
        cmocka_unit_test(gate_and_compare_agree),
        cmocka_unit_test(missing_baseline_is_bad_input),
        cmocka_unit_test(command_line),
        cmocka_unit_test(arguments_refused_before_the_runs),
        cmocka_unit_test(cost_of_each_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
