/* test_evaluate.c: both gates (gate/evaluate.h) on the synthetic evidence of
 * harness/tests/data/gate/ (ci/tools/make_fixtures.py says what each file holds): a run
 * against itself and an A/A copy, a planted slowdown, a borderline case, a missing phase,
 * a phase without a bound, a bound missed, an incorrect phase and bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include "gate/config.h"
#include "gate/evaluate.h"
#include "evidence/reader.h"
#include "gate_fixture.h"

/* Runs both gates of DATA name against ref; returns -1 for bad input (err), else the
 * failures, with the outcomes left in *l and *r (valid while f->run is open). */
static long gate_file(fixture *f, const char *name, gate_outcome *l, gate_outcome *r, char *err,
                      size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, DATA "%s", name);
    memset(l, 0, sizeof *l);
    memset(r, 0, sizeof *r);
    run_close(&f->run);
    if (run_open(&f->run, path, err, errlen)) return -1;
    if (gate_ladder(&f->cfg, &f->run, l, err, errlen) == 0 &&
        gate_regression(&f->cfg, &f->run, &f->ref, NULL, r, err, errlen) == 0)
        return (long)(l->failures + r->failures);
    return -1;
}

static size_t count(const gate_outcome *o, check_kind k, const char *phase, int pass)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++)
        n += o->checks[i].kind == k && (!phase || !strcmp(o->checks[i].phase, phase)) &&
             o->checks[i].pass == pass;
    return n;
}

static size_t verdicts(const gate_outcome *o, drift_verdict v)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++)
        n += o->checks[i].kind == CHECK_REGRESSION && o->checks[i].has_shape && o->checks[i].verdict == v;
    return n;
}

static void passes_on_itself_and_aa(void **st)
{
    fixture *f = *st;
    gate_outcome l, r;
    char err[1024];
    assert_int_equal(gate_file(f, "ref.json", &l, &r, err, sizeof err), 0);
    assert_int_equal(verdicts(&r, DRIFT_WITHIN), r.n);
    assert_int_equal(count(&l, CHECK_BOUND, NULL, 1), 12);   /* 6 phases x 2 headline shapes */
    gate_outcome_free(&l);
    gate_outcome_free(&r);
    assert_int_equal(gate_file(f, "same.json", &l, &r, err, sizeof err), 0);
    assert_int_equal(verdicts(&r, DRIFT_SLOWER), 0);
    gate_outcome_free(&l);
    gate_outcome_free(&r);
    /* an improvement never fails */
    assert_int_equal(gate_file(f, "improved.json", &l, &r, err, sizeof err), 0);
    assert_true(verdicts(&r, DRIFT_FASTER) > 0);
    gate_outcome_free(&l);
    gate_outcome_free(&r);
}

static void fails_on_planted_slowdown(void **st)
{
    fixture *f = *st;
    gate_outcome l, r;
    char err[1024];
    long fails = gate_file(f, "slow.json", &l, &r, err, sizeof err);
    assert_true(fails > 0);
    assert_int_equal(l.failures, 0);
    /* every failure is 05_warp_specialized, at every shape it was timed at */
    assert_int_equal(count(&r, CHECK_REGRESSION, "05_warp_specialized", 0), (size_t)fails);
    assert_int_equal(count(&r, CHECK_REGRESSION, "05_warp_specialized", 1), 0);
    /* slower: the run's whole ratio CI above the reference's ratio x (1 + the floor, no set) */
    for (size_t i = 0; i < r.n; i++)
        if (!r.checks[i].pass) {
            assert_int_equal(r.checks[i].verdict, DRIFT_SLOWER);
            assert_float_equal(r.checks[i].change.change, 1.2, 1e-4);
            assert_float_equal(r.checks[i].ref_drift.tol, f->cfg.drift.floor, 1e-12);
            assert_true(r.checks[i].now_lo > r.checks[i].ref_drift.center * (1 + f->cfg.drift.floor));
        }
    gate_outcome_free(&l);
    gate_outcome_free(&r);
}

static void borderline_is_inconclusive_not_failed(void **st)
{
    fixture *f = *st;
    gate_outcome l, r;
    char err[1024];
    assert_int_equal(gate_file(f, "borderline.json", &l, &r, err, sizeof err), 0);
    assert_true(verdicts(&r, DRIFT_UNSURE) > 0);
    assert_int_equal(verdicts(&r, DRIFT_SLOWER), 0);
    gate_outcome_free(&l);
    gate_outcome_free(&r);
}

static void missing_phase_fails_both_gates(void **st)
{
    fixture *f = *st;
    gate_outcome l, r;
    char err[1024];
    assert_int_equal(gate_file(f, "missing_phase.json", &l, &r, err, sizeof err), 2);
    assert_int_equal(count(&l, CHECK_MISSING, "05_warp_specialized", 0), 1);
    assert_int_equal(count(&r, CHECK_MISSING, "05_warp_specialized", 0), 1);
    for (size_t i = 0; i < l.n; i++)
        if (!l.checks[i].pass) assert_non_null(strstr(l.checks[i].message, "missing"));
    gate_outcome_free(&l);
    gate_outcome_free(&r);
}

static void phase_without_bound_fails(void **st)
{
    fixture *f = *st;
    gate_outcome l, r;
    char err[1024];
    assert_int_equal(gate_file(f, "no_bound.json", &l, &r, err, sizeof err), 1);
    assert_int_equal(count(&l, CHECK_NO_BOUND, "07_new", 0), 1);
    for (size_t i = 0; i < l.n; i++)
        if (l.checks[i].kind == CHECK_NO_BOUND) assert_non_null(strstr(l.checks[i].message, "no bound in " CONFIG));
    /* new in the run: nothing to regress against, not a failure */
    assert_int_equal(count(&r, CHECK_REGRESSION, "07_new", 1), 1);
    gate_outcome_free(&l);
    gate_outcome_free(&r);
}

static void over_bound_and_incorrect_fail_the_ladder(void **st)
{
    fixture *f = *st;
    gate_outcome l, r;
    char err[1024];
    assert_true(gate_file(f, "over_bound.json", &l, &r, err, sizeof err) > 0);
    assert_int_equal(count(&l, CHECK_BOUND, "06_tiling", 0), 2);
    char v[256];
    gate_phase_verdict(&l, "06_tiling", &f->cfg.headline[0], v, sizeof v);
    assert_non_null(strstr(v, "FAIL"));
    gate_phase_verdict(&l, "04_cp_async", &f->cfg.headline[0], v, sizeof v);
    assert_string_equal(v, "pass");
    gate_outcome_free(&l);
    gate_outcome_free(&r);
    assert_true(gate_file(f, "incorrect.json", &l, &r, err, sizeof err) > 0);
    assert_int_equal(count(&l, CHECK_CORRECT, "04_cp_async", 0), 1);
    gate_phase_verdict(&l, "04_cp_async", &f->cfg.headline[0], v, sizeof v);
    assert_string_equal(v, "FAIL: incorrect on 1 shape");
    gate_outcome_free(&l);
    gate_outcome_free(&r);
}

static void bad_inputs(void **st)
{
    fixture *f = *st;
    gate_outcome l, r;
    char err[1024];
    assert_int_equal(gate_file(f, "missing_baseline.json", &l, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "baseline 'sdpa_cudnn'"));
    assert_non_null(strstr(err, "missing_baseline.json"));
    gate_outcome_free(&l);
    gate_outcome_free(&r);
    assert_int_equal(gate_file(f, "other_gpu.json", &l, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "same GPU"));
    gate_outcome_free(&l);
    gate_outcome_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(passes_on_itself_and_aa, setup, teardown),
        cmocka_unit_test_setup_teardown(fails_on_planted_slowdown, setup, teardown),
        cmocka_unit_test_setup_teardown(borderline_is_inconclusive_not_failed, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_phase_fails_both_gates, setup, teardown),
        cmocka_unit_test_setup_teardown(phase_without_bound_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(over_bound_and_incorrect_fail_the_ladder, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_inputs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
