/* Gate decisions: the tolerance of a comparison of two runs (the drift rule's, from the
 * accepted set's spread) on synthetic numbers, the four-sample bootstrap,
 * ci/gate.json parsing, and both gates (and the command's exit status) on the synthetic
 * evidence of harness/tests/data/gate/ (ci/tools/make_fixtures.py says what each file holds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include "commands.h"
#include "gate/config.h"
#include "gate/decide.h"
#include "gate/drift_spread.h"
#include "gate/evaluate.h"
#include "gate/regression.h"
#include "evidence/reader.h"
#include "core/stats.h"

#define DATA "harness/tests/data/gate/"
#define CONFIG "harness/tests/data/gate_config.json"   /* ci/gate.json when the tests were written */

/* The tolerance of a compared row: the accepted set's spread at the row, at least the
 * spread pooled at its shape, at least the floor; the floor alone when the set is too
 * small or absent. Then the drift rule decides on the run's ratio CI against the
 * reference's ratio x (1 + tol). */
static void pair_rule_tolerance(void **st)
{
    (void)st;
    drift_params p = { 4.0, 0.05, 3 };
    attn_shape h = { 1, 8, 512, 512, 64, 0, 0 }, t = { 4, 16, 4096, 4096, 128, 0, 0 };
    attn_shape other = { 2, 8, 1000, 1000, 64, 0, 0 };
    spread_row rows[2] = {
        { "06_tiling", h, { 5, 0.65, 0.004, 0, 0 }, 0.003 },
        { "06_tiling", t, { 5, 1.30, 0.06, 0, 0 }, 0.05 },
    };
    drift_spread s = { rows, 2, 5, 1 };
    drift_ref r;
    /* a quiet row: the floor */
    drift_spread_ref(&s, &p, "06_tiling", &h, 0.70, &r);
    assert_float_equal(r.center, 0.70, 0);
    assert_float_equal(r.tol, 0.05, 1e-12);
    assert_int_equal(r.k, 5);
    /* a noisy row: exp(4 x 0.06) - 1 */
    drift_spread_ref(&s, &p, "06_tiling", &t, 1.0, &r);
    assert_float_equal(r.tol, expm1(0.24), 1e-12);
    assert_int_equal(drift_decide(&r, 1.30, 1.29, 1.31), DRIFT_SLOWER);
    assert_int_equal(drift_decide(&r, 1.20, 1.19, 1.21), DRIFT_WITHIN);
    assert_int_equal(drift_decide(&r, 1.30, 1.25, 1.35), DRIFT_UNSURE);
    assert_int_equal(drift_decide(&r, 0.75, 0.74, 0.76), DRIFT_FASTER);
    /* a phase the set has no ratio for takes the pooled spread at the shape */
    drift_spread_ref(&s, &p, "07_new", &t, 1.0, &r);
    assert_float_equal(r.tol, expm1(4 * 0.05), 1e-12);
    assert_int_equal(r.k, 0);
    /* a shape the set never timed, a set too small, no set: the floor alone */
    drift_spread_ref(&s, &p, "06_tiling", &other, 1.0, &r);
    assert_float_equal(r.tol, 0.05, 1e-12);
    s.measured = 0;
    drift_spread_ref(&s, &p, "06_tiling", &t, 1.0, &r);
    assert_float_equal(r.tol, 0.05, 1e-12);
    drift_spread_ref(NULL, &p, "06_tiling", &t, 1.0, &r);
    assert_float_equal(r.tol, 0.05, 1e-12);
    assert_string_equal(drift_verdict_name(DRIFT_SLOWER), "slower");
}

static void ladder_rule(void **st)
{
    (void)st;
    assert_true(gate_ladder_pass(0.94, 0.95));
    assert_false(gate_ladder_pass(0.95, 0.95));   /* strictly under */
    assert_false(gate_ladder_pass(0.0 / 0.0, 0.95));
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void change_bootstrap(void **st)
{
    (void)st;
    double p[41], b[41], p2[41];
    for (int i = 0; i < 41; i++) {
        p[i] = 20.0 + 0.2 * ((i * 7) % 41) / 41.0;
        b[i] = 10.0 + 0.1 * ((i * 11) % 41) / 41.0;
        p2[i] = 1.2 * p[i];
    }
    reg_change c;
    assert_int_equal(gate_change_ci(p, 41, b, 41, p, 41, b, 41, 1000, 7, 0.95, &c), 0);
    assert_float_equal(c.change, 1.0, 1e-12);
    assert_true(c.lo < 1.0 && c.hi > 1.0 && c.hi - c.lo < 0.03);
    assert_int_equal(gate_change_ci(p2, 41, b, 41, p, 41, b, 41, 1000, 7, 0.95, &c), 0);
    assert_float_equal(c.change, 1.2, 1e-12);
    assert_true(c.lo > 1.17 && c.hi < 1.23);
    /* the point ratios agree with stats.h's median */
    assert_float_equal(c.now, stats_median(p2, 41) / stats_median(b, 41), 1e-12);
    /* same seed, same interval */
    reg_change d;
    assert_int_equal(gate_change_ci(p2, 41, b, 41, p, 41, b, 41, 1000, 7, 0.95, &d), 0);
    assert_memory_equal(&c, &d, sizeof c);
    /* to the bit, on odd and even sizes: the committed reports and the golden compare
     * tables are printed from these numbers, so a change to the resampling, the median or
     * the interval shows here first */
    const reg_change odd = { 0x1p+1, 0x1.ff018d92caa36p+0, 0x1.007fd5e9d42f8p+1,
                             0x1.3333333333333p+1, 0x1.3287bd0e16d0ep+1, 0x1.33df1e5b5b4b5p+1,
                             0x1.3333333333333p+0, 0x1.324e8b3553e0ep+0, 0x1.342ba25f1a0ebp+0 };
    assert_memory_equal(&c, &odd, sizeof c);
    assert_int_equal(gate_change_ci(p2, 40, b, 38, p, 39, b, 40, 500, 11, 0.9, &d), 0);
    const reg_change even = { 0x1.fff0175dae67ep+0, 0x1.ff2184a5d7p+0, 0x1.00775ff692484p+1,
                              0x1.33201d39a6201p+1, 0x1.329a9aa0f585bp+1, 0x1.33b8fabca660cp+1,
                              0x1.3329a882576e6p+0, 0x1.326180cdafb47p+0, 0x1.33f2eb6005b02p+0 };
    assert_memory_equal(&d, &even, sizeof d);
    assert_int_equal(gate_change_ci(p, 0, b, 41, p, 41, b, 41, 1000, 7, 0.95, &c), -1);
    assert_int_equal(gate_change_ci(p, 41, b, 41, p, 41, b, 41, 1000, 7, 1.5, &c), -1);
}

/* The gate's median against a sort, on even and odd sizes with ties. */
static void median_matches_sort(void **st)
{
    (void)st;
    unsigned seed = 1;
    for (size_t n = 1; n < 60; n++) {
        double x[64], y[64], one[1] = { 1.0 };
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            x[i] = (double)((seed >> 16) % 13);
            y[i] = x[i];
        }
        qsort(y, n, sizeof *y, cmp);
        double want = n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
        reg_change c;
        assert_int_equal(gate_change_ci(x, n, one, 1, one, 1, one, 1, 10, 1, 0.9, &c), 0);
        assert_float_equal(c.now, want, 1e-12);
    }
}

static void config_parsing(void **st)
{
    (void)st;
    gate_config c;
    char err[512];
    /* the committed config parses; the numbers below are the test copy's */
    assert_int_equal(gate_config_load("ci/gate.json", &c, err, sizeof err), 0);
    gate_config_free(&c);
    assert_int_equal(gate_config_load(CONFIG, &c, err, sizeof err), 0);
    assert_string_equal(c.baseline, "sdpa_cudnn");
    assert_int_equal(c.n_headline, 2);
    assert_int_equal(c.headline[1].causal, 1);
    assert_non_null(gate_config_bound(&c, "06_tiling"));
    assert_null(gate_config_bound(&c, "07_none"));
    assert_int_equal(c.reg.all_shapes, 1);
    gate_config_free(&c);
    static const struct { const char *json, *words; } bad[] = {
        { "[]", "not a JSON object" },
        { "{\"headline\": [[1,8,512,512,64,0]], \"bounds\": {}}", "baseline" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512]], \"bounds\": {}}", "headline[0]" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {\"x\": {}}}",
          "bounds.x.ratio_max" },
        /* the two-run rule's own parameters are gone: a config naming one is refused */
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {},"
          " \"regression\": {\"method\": \"ratio_ci\"}}", "regression.method: no longer read" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {},"
          " \"regression\": {\"tolerance\": 0.05}}", "regression.tolerance: no longer read" },
        { "{\"baseline\": \"b\", \"headline\": [[1,8,512,512,64,0]], \"bounds\": {},"
          " \"regression\": {\"ci_level\": 2}}", "regression.ci_level" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = json_loads(bad[i].json, 0, NULL);
        assert_non_null(j);
        assert_int_equal(gate_config_from_json(j, "cfg.json", &c, err, sizeof err), -1);
        if (!strstr(err, bad[i].words) || !strstr(err, "cfg.json")) fail_msg("'%s' -> '%s'", bad[i].json, err);
        json_decref(j);
    }
}

typedef struct {
    gate_config cfg;
    run_data ref;
    run_data run;        /* the run under test: the checks borrow its names */
} fixture;

static int setup(void **st)
{
    fixture *f = calloc(1, sizeof *f);
    char err[1024];
    if (!f || gate_config_load(CONFIG, &f->cfg, err, sizeof err) ||
        run_open(&f->ref, DATA "ref.json", err, sizeof err)) {
        fprintf(stderr, "setup: %s\n", err);
        return -1;
    }
    *st = f;
    return 0;
}

static int teardown(void **st)
{
    fixture *f = *st;
    run_close(&f->run);
    run_close(&f->ref);
    gate_config_free(&f->cfg);
    free(f);
    return 0;
}

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

static int any_phase(const run_data *r, const char *impl, void *ctx)
{
    (void)ctx;
    const run_impl *im = run_find_impl(r, impl);
    return im && strcmp(im->kind, "phase") == 0;
}

/* Rows in order (name, then shape), each shape once; a compared row's change is the
 * bootstrap of its four sample sets, its verdict the drift rule's on the two runs' ratios. */
static void check_rows(const fixture *f, const reg_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const reg_row *w = &rows[i], *prev = i ? &rows[i - 1] : NULL;
        if (prev) {
            int c = strcmp(prev->impl, w->impl);
            assert_true(c < 0 || (c == 0 && run_shape_order(&prev->shape, &w->shape, f->cfg.headline,
                                                              f->cfg.n_headline) < 0));
        }
        if (w->state != REG_ROW_COMPARED) continue;
        reg_change c;
        assert_int_equal(gate_change_ci(w->now->samples, w->now->n_samples, w->base_now->samples,
                                        w->base_now->n_samples, w->ref->samples, w->ref->n_samples,
                                        w->base_ref->samples, w->base_ref->n_samples,
                                        f->cfg.reg.resamples, f->cfg.reg.seed, f->cfg.reg.ci_level, &c), 0);
        assert_memory_equal(&c, &w->change, sizeof c);
        assert_true(w->judged);   /* the test config judges every shape */
        double centre, lo, hi, now, now_lo, now_hi;
        assert_int_equal(gate_result_ratio(&f->cfg, &f->ref, w->ref, &centre, &lo, &hi), 0);
        assert_int_equal(gate_result_ratio(&f->cfg, &f->run, w->now, &now, &now_lo, &now_hi), 0);
        drift_ref want;
        drift_spread_ref(NULL, &f->cfg.drift, w->impl, &w->shape, centre, &want);
        assert_memory_equal(&want, &w->ref_drift, sizeof want);
        assert_int_equal(w->verdict, drift_decide(&want, now, now_lo, now_hi));
    }
}

static void regression_rows_walk(void **st)
{
    fixture *f = *st;
    char err[1024];
    assert_int_equal(run_open(&f->run, DATA "missing_phase.json", err, sizeof err), 0);
    reg_row *rows;
    size_t n;
    reg_row_filter all = { any_phase, NULL, 0 };
    assert_int_equal(reg_rows(&f->cfg, &f->ref, &f->run, NULL, &all, &rows, &n), 0);
    assert_true(n > 0);
    check_rows(f, rows, n);
    /* the phase the run lacks: one row per shape of the reference, none compared */
    size_t only_ref = 0, in_ref = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].state == REG_ROW_ONLY_REF) {
            only_ref++;
            assert_string_equal(rows[i].impl, "05_warp_specialized");
            assert_null(rows[i].now);
        }
    for (size_t i = 0; i < f->ref.n_results; i++)
        in_ref += strcmp(f->ref.results[i].impl, "05_warp_specialized") == 0;
    assert_true(only_ref > 0);
    assert_int_equal(only_ref, in_ref);
    free(rows);
    /* the judged shapes alone: with regression.shapes "headline", the headline shapes
     * (the test config has no throughput shapes) */
    size_t every = n;
    f->cfg.reg.all_shapes = 0;
    reg_row_filter judged = { any_phase, NULL, 1 };
    assert_int_equal(reg_rows(&f->cfg, &f->ref, &f->run, NULL, &judged, &rows, &n), 0);
    assert_true(n > 0 && n < every);
    for (size_t i = 0; i < n; i++) assert_true(reg_is_headline(&f->cfg, &rows[i].shape));
    free(rows);
    f->cfg.reg.all_shapes = 1;
}

static void untimed_reasons_and_baseline_gap(void **st)
{
    fixture *f = *st;
    char err[1024];
    run_result r;
    memset(&r, 0, sizeof r);
    assert_string_equal(reg_untimed_reason(&r), "unsupported");
    r.reason = "head_dim 96";
    assert_string_equal(reg_untimed_reason(&r), "head_dim 96");
    r.supported = r.checked = 1;
    assert_string_equal(reg_untimed_reason(&r), "failed correctness");
    r.correct = 1;
    assert_string_equal(reg_untimed_reason(&r), "no graph timing");
    assert_null(reg_baseline_gap(&f->cfg, &f->ref, NULL));
    assert_int_equal(run_open(&f->run, DATA "missing_baseline.json", err, sizeof err), 0);
    const run_result *found = &r;
    const attn_shape *gap = reg_baseline_gap(&f->cfg, &f->run, &found);
    assert_non_null(gap);
    assert_true(reg_is_headline(&f->cfg, gap));
    assert_ptr_equal(found, run_find(&f->run, f->cfg.baseline, gap));
}

static int run_cmd(const char *const *args, int n)
{
    char *argv[16];
    for (int i = 0; i < n; i++) argv[i] = (char *)args[i];
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = cmd_gate(n, argv);
    fclose(stdout);
    stdout = saved;
    return rc;
}

static void command_exit_status_and_json(void **st)
{
    (void)st;
#define CFG "--config", CONFIG
    const char *pass[] = { "gate", DATA "same.json", "--against", DATA "ref.json", CFG };
    const char *fail[] = { "gate", DATA "slow.json", "--against", DATA "ref.json", "--brief", CFG };
    const char *bad1[] = { "gate", DATA "missing_baseline.json", CFG };
    const char *bad2[] = { "gate", DATA "other_gpu.json", "--against", DATA "ref.json", CFG };
    const char *bad3[] = { "gate", DATA "partial.json", CFG };
    const char *bad4[] = { "gate", DATA "ref.json", "--config", DATA "nope.json" };
    const char *bad5[] = { "gate", DATA "ref.json", "--frobnicate" };
    const char *okp[] = { "gate", DATA "partial.json", "--include-partial", CFG };
    assert_int_equal(run_cmd(pass, 6), EXIT_OK);
    assert_int_equal(run_cmd(fail, 7), EXIT_GATE);
    assert_int_equal(run_cmd(bad1, 4), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad2, 6), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad3, 4), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad4, 4), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(bad5, 3), EXIT_BAD_INPUT);
    assert_int_equal(run_cmd(okp, 5), EXIT_OK);
    char json[] = "/tmp/attn_gate_XXXXXX";
    int fd = mkstemp(json);
    assert_true(fd >= 0);
    close(fd);
    const char *withjson[] = { "gate", DATA "slow.json", "--against", DATA "ref.json", "--json", json, CFG };
    assert_int_equal(run_cmd(withjson, 8), EXIT_GATE);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    unlink(json);
    assert_non_null(j);
    assert_true(json_is_false(json_object_get(j, "pass")));
    assert_true(json_integer_value(json_object_get(j, "failures")) > 0);
    json_t *reg = json_object_get(j, "regression");
    size_t i, slower = 0;
    json_t *v;
    json_array_foreach(reg, i, v) {
        const char *verdict = json_string_value(json_object_get(v, "verdict"));
        if (verdict && !strcmp(verdict, "slower")) {
            slower++;
            assert_string_equal(json_string_value(json_object_get(v, "phase")), "05_warp_specialized");
            assert_true(json_real_value(json_object_get(json_object_get(v, "change"), "ci_lo")) > 1.1);
        }
    }
    assert_true(slower > 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "rule"), "method")), "drift");
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pair_rule_tolerance),
        cmocka_unit_test(ladder_rule),
        cmocka_unit_test(change_bootstrap),
        cmocka_unit_test(median_matches_sort),
        cmocka_unit_test(config_parsing),
        cmocka_unit_test_setup_teardown(passes_on_itself_and_aa, setup, teardown),
        cmocka_unit_test_setup_teardown(fails_on_planted_slowdown, setup, teardown),
        cmocka_unit_test_setup_teardown(borderline_is_inconclusive_not_failed, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_phase_fails_both_gates, setup, teardown),
        cmocka_unit_test_setup_teardown(phase_without_bound_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(over_bound_and_incorrect_fail_the_ladder, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(regression_rows_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(untimed_reasons_and_baseline_gap, setup, teardown),
        cmocka_unit_test(command_exit_status_and_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
