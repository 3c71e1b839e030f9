/* test_drift.c: the drift gate's decision against a reference set with between-run
 * structure (a session offset, not +-1% jitter), the tolerance from the runs' spread with
 * its floor and the pooled spread, the CI end that decides, and its config section. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include <jansson.h>
#include "gate/config.h"
#include "gate/drift.h"
#include "gate/drift_spread.h"
#include "measure/l2_copies.h"

static const drift_params P = { .k_sigma = 4.0, .floor = 0.02, .min_runs = 3, .floor_paired = 0.02 };

static void tolerance_comes_from_the_spread(void **st)
{
    (void)st;
    /* two sessions: three runs near 1.00, two 6% higher (the baseline ran faster there) */
    const double r[] = { 1.00, 1.01, 0.99, 1.06, 1.07 };
    drift_ref ref;
    assert_int_equal(drift_reference(r, 5, 0, &P, &ref), 0);
    double mean = 0, ss = 0;
    for (int i = 0; i < 5; i++) mean += log(r[i]) / 5;
    for (int i = 0; i < 5; i++) ss += (log(r[i]) - mean) * (log(r[i]) - mean);
    double sd = sqrt(ss / 4);
    assert_true(fabs(ref.center - exp(mean)) < 1e-12);
    assert_true(fabs(ref.spread - sd) < 1e-12);
    assert_true(fabs(ref.tol - expm1(4 * sd)) < 1e-12);
    assert_true(ref.tol > 0.13 && ref.tol < 0.17);   /* not a fixed 5%: 4 x 3.6% */
    assert_int_equal(ref.k, 5);
}

static void identical_runs_get_the_floor(void **st)
{
    (void)st;
    const double r[] = { 0.65, 0.65, 0.65 };
    drift_ref ref;
    assert_int_equal(drift_reference(r, 3, 0, &P, &ref), 0);
    assert_true(ref.spread < 1e-12);
    assert_true(fabs(ref.tol - 0.02) < 1e-12);
}

static void the_pooled_spread_is_a_floor(void **st)
{
    (void)st;
    const double r[] = { 0.65, 0.651, 0.649 };
    drift_ref ref;
    assert_int_equal(drift_reference(r, 3, 0.02, &P, &ref), 0);
    assert_true(fabs(ref.used_spread - 0.02) < 1e-12);
    assert_true(fabs(ref.tol - expm1(0.08)) < 1e-12);
    /* one run: no spread of its own, the pooled one */
    assert_int_equal(drift_reference(r, 1, 0.01, &P, &ref), 0);
    assert_true(ref.spread == 0 && fabs(ref.used_spread - 0.01) < 1e-12);
}

static void pooled_weights_by_degrees_of_freedom(void **st)
{
    (void)st;
    drift_ref rows[3] = { { .k = 5, .spread = 0.01 }, { .k = 2, .spread = 0.04 }, { .k = 1, .spread = 0.5 } };
    double want = sqrt((4 * 0.0001 + 1 * 0.0016) / 5);
    assert_true(fabs(drift_pooled(rows, 3) - want) < 1e-12);
    assert_true(drift_pooled(rows + 2, 1) == 0);   /* no row with two runs */
}

static void the_lower_ci_end_decides(void **st)
{
    (void)st;
    drift_ref ref = { .k = 5, .center = 1.0, .tol = 0.05 };
    /* point past the tolerance, CI not: reported, not blocking (a rule on the point
     * estimate would block it) */
    assert_int_equal(drift_decide(&ref, 1.08, 1.04, 1.10), DRIFT_UNSURE);
    /* the whole CI past it: slower (a rule on the upper end alone would block the
     * previous case too; one on the CI's width would miss this) */
    assert_int_equal(drift_decide(&ref, 1.08, 1.051, 1.10), DRIFT_SLOWER);
    assert_int_equal(drift_decide(&ref, 1.02, 1.00, 1.04), DRIFT_WITHIN);
    assert_int_equal(drift_decide(&ref, 0.90, 0.89, 0.94), DRIFT_FASTER);
    assert_int_equal(drift_decide(&ref, 0.94, 0.93, 0.96), DRIFT_UNSURE);
    assert_string_equal(drift_verdict_name(DRIFT_SLOWER), "slower");
}

static void a_session_offset_is_no_drift_but_a_large_change_is(void **st)
{
    (void)st;
    const double r[] = { 1.85, 1.86, 2.01, 1.74, 1.84 };   /* 06 at 4x16x4096x128, H100 set */
    drift_ref ref;
    assert_int_equal(drift_reference(r, 5, 0, &P, &ref), 0);
    assert_int_equal(drift_decide(&ref, 2.00, 1.99, 2.02), DRIFT_WITHIN);     /* like the 2.01 run */
    assert_int_equal(drift_decide(&ref, 2.60, 2.58, 2.62), DRIFT_SLOWER);     /* +40% */
}

static void bad_ratios_are_refused(void **st)
{
    (void)st;
    drift_ref ref;
    const double bad[] = { 1.0, 0.0 }, nan_[] = { 1.0, NAN };
    assert_int_equal(drift_reference(bad, 0, 0, &P, &ref), -1);
    assert_int_equal(drift_reference(bad, 2, 0, &P, &ref), -1);
    assert_int_equal(drift_reference(nan_, 2, 0, &P, &ref), -1);
}

/* An accepted set whose every run measured its ratios in rotation takes floor_paired; one
 * run of separate medians in it, or no run, takes floor. */
static void a_paired_set_takes_its_own_floor(void **st)
{
    (void)st;
    drift_params p = { .k_sigma = 4.0, .floor = 0.20, .min_runs = 3, .floor_paired = 0.03 };
    run_data set[3];
    memset(set, 0, sizeof set);
    for (size_t i = 0; i < 3; i++) set[i].ratio_rotation = 1;
    assert_true(drift_params_for_set(&p, set, 3).floor == 0.03);
    set[1].ratio_rotation = 0;
    assert_true(drift_params_for_set(&p, set, 3).floor == 0.20);
    assert_true(drift_params_for_set(&p, NULL, 0).floor == 0.20);
    assert_true(drift_params_for_set(&p, set, 3).k_sigma == 4.0);
    /* a run of separate medians against a paired set: the config's floor (a difference of
     * method is no drift) */
    gate_config c;
    memset(&c, 0, sizeof c);
    c.drift = p;
    set[1].ratio_rotation = 1;
    drift_spread sp;
    memset(&sp, 0, sizeof sp);
    sp.params = drift_params_for_set(&p, set, 3);
    run_data paired = { 0 }, separate = { 0 };
    paired.ratio_rotation = 1;
    assert_true(drift_params_for_runs(&sp, &c, &paired, NULL)->floor == 0.03);
    assert_true(drift_params_for_runs(&sp, &c, &paired, &paired)->floor == 0.03);
    assert_true(drift_params_for_runs(&sp, &c, &separate, NULL)->floor == 0.20);
    assert_true(drift_params_for_runs(&sp, &c, &paired, &separate)->floor == 0.20);
    assert_true(drift_params_for_runs(NULL, &c, &paired, NULL)->floor == 0.20);
}

/* Inside a paired run, a rung more than slow_factor times slower than the baseline keeps
 * the quotient of separate medians (its ratio carries the clock's wander, +4% between two
 * H100s at 4x16x4096x128 where the paired rows moved by 1%): such a row takes the
 * config's floor, whether its ratio is of separate medians in the judged run, in the
 * compared run or in any run of the set; a row the rotation's pairs decide everywhere
 * takes floor_paired. */
static void a_row_of_separate_medians_takes_the_floor(void **st)
{
    (void)st;
    drift_params p = { .k_sigma = 4.0, .floor = 0.20, .min_runs = 3, .floor_paired = 0.03 };
    gate_config c;
    memset(&c, 0, sizeof c);
    c.drift = p;
    attn_shape t = { 4, 16, 4096, 4096, 128, 0, 0 };
    run_result pairs = { 0 }, medians = { 0 };
    pairs.impl = medians.impl = "01_scalar";
    pairs.shape = medians.shape = t;
    pairs.timed = medians.timed = 1;
    double q[1] = { 1.0 };
    pairs.paired_impl = pairs.paired_base = q;
    pairs.n_paired = 1;
    pairs.paired_rotation = 1;
    pairs.paired_baseline = "sdpa_cudnn";
    run_data run = { 0 };
    run.ratio_rotation = 1;
    spread_row row = { "01_scalar", t, { 3, 62.5, 0.004, 0, 0 }, 0.003, 0 };
    drift_spread sp = { .rows = &row, .n = 1, .n_runs = 3, .measured = 1, .params = drift_params_for_set(&p, &run, 1) };
    assert_true(drift_params_for_results(&sp, &c, &run, &pairs, NULL, NULL)->floor == 0.03);
    assert_true(drift_params_for_results(&sp, &c, &run, &pairs, &run, &pairs)->floor == 0.03);
    assert_true(drift_params_for_results(&sp, &c, &run, &medians, NULL, NULL)->floor == 0.20);
    assert_true(drift_params_for_results(&sp, &c, &run, &pairs, &run, &medians)->floor == 0.20);
    row.separate = 1;
    assert_true(drift_params_for_results(&sp, &c, &run, &pairs, NULL, NULL)->floor == 0.20);
    row.separate = 0;
    /* a run of separate medians: the config's floor for every row, as before */
    run_data old = { 0 };
    assert_true(drift_params_for_results(&sp, &c, &old, &pairs, NULL, NULL)->floor == 0.20);
    assert_true(drift_params_for_results(NULL, &c, &run, &pairs, NULL, NULL)->floor == 0.20);
}

static int load(const char *drift, gate_config *c, char *err, size_t errlen)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"baseline\": \"sdpa_cudnn\", \"headline\": [[1, 8, 512, 512, 64, 0]], "
             "\"bounds\": {\"06_tiling\": {\"ratio_max\": 0.95}}%s%s}", drift ? ", \"drift\": " : "", drift ? drift : "");
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    int rc = gate_config_from_json(j, "gate.json", c, err, errlen);
    json_decref(j);
    return rc;
}

static void config_section(void **st)
{
    (void)st;
    gate_config c;
    char err[512];
    assert_int_equal(load(NULL, &c, err, sizeof err), 0);
    assert_true(c.drift.k_sigma == 4.0 && c.drift.floor == 0.02 && c.drift.min_runs == 3);
    gate_config_free(&c);
    assert_int_equal(load("{\"k_sigma\": 3, \"floor\": 0.05, \"min_runs\": 4}", &c, err, sizeof err), 0);
    assert_true(c.drift.k_sigma == 3.0 && c.drift.floor == 0.05 && c.drift.min_runs == 4);
    assert_true(c.drift.floor_paired == 0.05);   /* unless said, one floor */
    gate_config_free(&c);
    assert_int_equal(load("{\"floor\": 0.2, \"floor_paired\": 0.03}", &c, err, sizeof err), 0);
    assert_true(c.drift.floor == 0.2 && c.drift.floor_paired == 0.03);
    gate_config_free(&c);
    assert_int_equal(load("{\"floor_paired\": 1.5}", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift.floor_paired: must be a number in [0, 1]"));
    assert_int_equal(load("{\"k_sigma\": -1}", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift.k_sigma: must be a number in [0.5, 20]"));
    assert_int_equal(load("{\"min_runs\": 2.5}", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift.min_runs: must be a whole number"));
    assert_int_equal(load("{\"tolerance\": 0.05}", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift.tolerance: unknown key"));
    assert_int_equal(load("[]", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift: not an object"));
}

/* Rows that move together: the median of the rows in rotation at a shape is the shape's
 * move (the baseline's), and a row is slower only past its tolerance against the centre
 * and against the centre moved by it; one changed rung cannot set the median. */
static void the_shape_move_is_the_median_of_enough_rows(void **st)
{
    (void)st;
    drift_params p = { .shape_rows = 5 }, off = { .shape_rows = 0 }, three = { .shape_rows = 3 };
    double all[] = { log(1.05), log(1.049), log(1.052), log(1.05), log(1.051) };
    assert_true(fabs(drift_shape_move(all, 5, &p) - 1.05) < 1e-9);
    double one[] = { 0, log(1.001), log(1.36), log(0.999), 0 };   /* one rung changed */
    assert_true(fabs(drift_shape_move(one, 5, &p) - 1.0) < 1e-9);
    double few[] = { log(1.05), log(1.05), log(1.05), log(1.05) };
    assert_true(drift_shape_move(few, 4, &p) == 1.0);   /* fewer rows than asked: no move */
    assert_true(drift_shape_move(all, 5, &off) == 1.0);
    double even[] = { log(1.02), log(1.04), log(1.06), log(1.08) };
    assert_true(fabs(drift_shape_move(even, 4, &three) - sqrt(1.04 * 1.06)) < 1e-9);
    /* the floor: a move within 1% is none, one past it counts past it, either way */
    drift_params fl = { .shape_rows = 5, .shape_floor = 0.01 };
    double small[] = { log(1.006), log(1.005), log(1.007), log(1.006), log(1.004) };
    assert_true(drift_shape_move(small, 5, &fl) == 1.0);
    double up[] = { log(1.05), log(1.049), log(1.052), log(1.05), log(1.051) };
    assert_true(fabs(drift_shape_move(up, 5, &fl) - 1.05 / 1.01) < 1e-9);
    double down[] = { log(0.95), log(0.949), log(0.952), log(0.95), log(0.951) };
    assert_true(fabs(drift_shape_move(down, 5, &fl) - 0.95 * 1.01) < 1e-9);
}

static void a_row_moving_with_its_shape_is_within(void **st)
{
    (void)st;
    drift_ref r = { .k = 2, .center = 1.0, .tol = 0.03 };
    /* every rung 5% slower: slower against the centre, within with the move */
    assert_int_equal(drift_decide(&r, 1.05, 1.045, 1.055), DRIFT_SLOWER);
    assert_int_equal(drift_decide_moved(&r, 1.05, 1.05, 1.045, 1.055), DRIFT_WITHIN);
    /* one rung 5% slower on top of the shape's 5%: slower */
    assert_int_equal(drift_decide_moved(&r, 1.05, 1.1025, 1.098, 1.107), DRIFT_SLOWER);
    /* the others 5% faster, this one where it was: not slower (the move excuses a row
     * only the way the shape moved, and never makes one slower) */
    assert_int_equal(drift_decide_moved(&r, 0.95, 1.0, 0.998, 1.002), DRIFT_WITHIN);
    assert_int_equal(drift_decide_moved(&r, 0.95, 1.05, 1.045, 1.055), DRIFT_SLOWER);
    /* faster the same way: the shape 5% faster, the row with it */
    assert_int_equal(drift_decide_moved(&r, 0.95, 0.95, 0.945, 0.955), DRIFT_WITHIN);
    assert_int_equal(drift_decide_moved(&r, 1.0, 0.95, 0.945, 0.955), DRIFT_FASTER);
}

static void config_shape_move_and_other_gpu(void **st)
{
    (void)st;
    gate_config c;
    char err[512];
    assert_int_equal(load("{\"floor_paired\": 0.03}", &c, err, sizeof err), 0);
    assert_true(c.drift.shape_rows == 0 && c.drift.shape_floor == 0 && c.drift.floor_other_gpu == 0.03);
    gate_config_free(&c);   /* unless said: off */
    assert_int_equal(load("{\"floor_paired\": 0.03, \"floor_other_gpu\": 0.05, \"shape_move_rows\": 5, "
                          "\"shape_move_floor\": 0.01}", &c, err, sizeof err), 0);
    assert_true(c.drift.shape_rows == 5 && c.drift.floor_other_gpu == 0.05 && c.drift.shape_floor == 0.01);
    gate_config_free(&c);
    assert_int_equal(load("{\"shape_move_floor\": 2}", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift.shape_move_floor: must be a number in [0, 1]"));
    gate_config_free(&c);
    assert_int_equal(load("{\"shape_move_rows\": 2}", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift.shape_move_rows: must be 0 (off) or a whole number in [3, 1000]"));
    assert_int_equal(load("{\"shape_move_rows\": 4.5}", &c, err, sizeof err), -1);
    assert_int_equal(load("{\"floor_other_gpu\": -0.1}", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "drift.floor_other_gpu: must be a number in [0, 1]"));
}

static void another_gpu_takes_its_floor(void **st)
{
    (void)st;
    gate_config c = { 0 };
    c.drift = (drift_params){ .k_sigma = 4, .floor = 0.2, .floor_paired = 0.03, .floor_other_gpu = 0.05, .min_runs = 2 };
    run_data set[2] = { { 0 }, { 0 } }, run = { 0 }, old = { 0 };
    set[0].ratio_rotation = set[1].ratio_rotation = run.ratio_rotation = old.ratio_rotation = 1;
    set[0].ctx.uuid = set[1].ctx.uuid = "GPU-a";
    drift_spread sp;
    char err[256];
    assert_int_equal(drift_spread_of(&c, set, 2, &sp, err, sizeof err), 0);
    run.ctx.uuid = "GPU-a";
    assert_true(drift_params_for_runs(&sp, &c, &run, NULL)->floor == 0.03);
    run.ctx.uuid = "GPU-b";
    assert_true(drift_params_for_runs(&sp, &c, &run, NULL)->floor == 0.05);
    assert_true(drift_params_for_runs(&sp, &c, &run, &set[0])->floor == 0.05);   /* against one run: its GPU */
    assert_true(drift_params_for_runs(&sp, &c, &old, NULL)->floor == 0.03);      /* no uuid: not told apart */
    drift_spread_free(&sp);
}

/* A row whose inputs were cold (K and V streamed from DRAM: rotated past the L2 or larger
 * than it) takes the other-GPU floor on the set's own GPU too: its ratio moves with the
 * session's memory. Two sessions of build b0ea766 on one H200, 11 minutes apart: rungs
 * 03-06 and 08 at 8x32x1:4096x128 (batched decode, cold by size) +3.9..+5.2% together,
 * the other 14 rungs within 0.3%, past the 3% floor (evidence/STUDIES.md, the drift study).
 * A resident row keeps the paired floor; a row of separate medians the config's. */
static void cold_inputs_take_the_other_gpu_floor(void **st)
{
    (void)st;
    gate_config c = { 0 };
    c.drift = (drift_params){ .k_sigma = 4, .floor = 0.2, .floor_paired = 0.03, .floor_other_gpu = 0.05, .min_runs = 2 };
    run_data set[2] = { { 0 }, { 0 } }, run = { 0 };
    set[0].ratio_rotation = set[1].ratio_rotation = run.ratio_rotation = 1;
    set[0].ctx.uuid = set[1].ctx.uuid = run.ctx.uuid = "GPU-a";
    drift_spread sp;
    char err[256];
    assert_int_equal(drift_spread_of(&c, set, 2, &sp, err, sizeof err), 0);
    run_result x = { .impl = "04_cp_async", .n_paired = 40, .paired_rotation = 1, .l2_state = L2_RESIDENT };
    x.shape = (attn_shape){ 8, 32, 1, 4096, 128, 0, 0 };
    assert_true(drift_params_for_results(&sp, &c, &run, &x, NULL, NULL)->floor == 0.03);
    x.l2_state = L2_COLD_BY_SIZE;
    assert_true(drift_params_for_results(&sp, &c, &run, &x, NULL, NULL)->floor == 0.05);
    x.l2_state = L2_ROTATED;
    assert_true(drift_params_for_results(&sp, &c, &run, &x, NULL, NULL)->floor == 0.05);
    x.l2_state = -1;   /* not recorded: judged as before */
    assert_true(drift_params_for_results(&sp, &c, &run, &x, NULL, NULL)->floor == 0.03);
    /* against one run: cold in either takes it */
    run_result y = x;
    x.l2_state = L2_RESIDENT, y.l2_state = L2_COLD_BY_SIZE;
    assert_true(drift_params_for_results(&sp, &c, &run, &x, &set[0], &y)->floor == 0.05);
    y.l2_state = L2_RESIDENT;
    assert_true(drift_params_for_results(&sp, &c, &run, &x, &set[0], &y)->floor == 0.03);
    /* separate medians keep the config's floor, cold or not */
    x.l2_state = L2_COLD_BY_SIZE, x.paired_rotation = 0;
    assert_true(drift_params_for_results(&sp, &c, &run, &x, NULL, NULL)->floor == 0.2);
    drift_spread_free(&sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tolerance_comes_from_the_spread),
        cmocka_unit_test(identical_runs_get_the_floor),
        cmocka_unit_test(the_pooled_spread_is_a_floor),
        cmocka_unit_test(pooled_weights_by_degrees_of_freedom),
        cmocka_unit_test(the_lower_ci_end_decides),
        cmocka_unit_test(a_session_offset_is_no_drift_but_a_large_change_is),
        cmocka_unit_test(bad_ratios_are_refused),
        cmocka_unit_test(config_section),
        cmocka_unit_test(a_paired_set_takes_its_own_floor),
        cmocka_unit_test(a_row_of_separate_medians_takes_the_floor),
        cmocka_unit_test(the_shape_move_is_the_median_of_enough_rows),
        cmocka_unit_test(a_row_moving_with_its_shape_is_within),
        cmocka_unit_test(config_shape_move_and_other_gpu),
        cmocka_unit_test(another_gpu_takes_its_floor),
        cmocka_unit_test(cold_inputs_take_the_other_gpu_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
