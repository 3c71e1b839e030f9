/* test_regression.c: the one walk over two runs' rows (gate/regression.h) that gate,
 * compare and the report share, on the synthetic evidence of harness/tests/data/gate/:
 * rows in order, each compared row's change and verdict, the rows only the reference
 * has, the judged shapes alone, the reasons a row is untimed and the baseline's gap. */
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
#include "gate/decide.h"
#include "gate/drift_spread.h"
#include "gate/evaluate.h"
#include "gate/ratio.h"
#include "gate/regression.h"
#include "evidence/reader.h"
#include "gate_fixture.h"

static int any_phase(const run_data *r, const char *impl, void *ctx)
{
    (void)ctx;
    const run_impl *im = run_find_impl(r, impl);
    return im && strcmp(im->kind, "phase") == 0;
}

/* Rows in order (name, then shape), each shape once; a compared row's change is the
 * bootstrap of its four sample sets (these runs' ratios are of separate medians), its
 * verdict the drift rule's on the two runs' ratios. */
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
        const ratio_samples rn = { w->now->samples, w->now->n_samples, w->base_now->samples,
                                   w->base_now->n_samples },
                            rr = { w->ref->samples, w->ref->n_samples, w->base_ref->samples,
                                   w->base_ref->n_samples };
        assert_int_equal(gate_change_ci(&rn, &rr, f->cfg.reg.resamples, f->cfg.reg.seed,
                                        f->cfg.reg.ci_level, &c), 0);
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

/* Give `res` a rotation's pairs (design "rotation") whose quotients are q[i] / 1 and mark
 * its run as one of paired ratios: the result's ratio is then the median of q
 * (evidence/result_ratio.h). */
static void give_pairs(run_data *run, run_result *res, const char *baseline, const double *q, size_t n)
{
    run->ratio_rotation = 1;
    res->paired_impl = malloc(n * sizeof *res->paired_impl);
    res->paired_base = malloc(n * sizeof *res->paired_base);
    assert_non_null(res->paired_impl);
    assert_non_null(res->paired_base);
    for (size_t i = 0; i < n; i++) {
        res->paired_impl[i] = 10.0 * q[i];   /* a baseline of 10 us a round */
        res->paired_base[i] = 10.0;
    }
    res->n_paired = n;
    res->paired_rotation = 1;
    res->paired_baseline = baseline;
}

static const reg_row *row_of(const reg_row *rows, size_t n, const char *impl, const attn_shape *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].impl, impl) == 0 && shape_same(&rows[i].shape, s)) return &rows[i];
    return NULL;
}

/* A row's change follows each run's own ratio rule, the one the drift verdict reads: where
 * a run took the result's ratio in rotation, the change and the ratios shown are of the
 * paired quotients, not of the separate medians (which the sequential timing moves with the
 * clock). Here the run's separate samples are 10% slower than the reference's while its
 * pairs are the same: the paired change is exactly 1; with the reference's ratio of separate
 * medians instead, the change is the paired ratio over that one. */
static void paired_runs_change_by_their_pairs(void **st)
{
    fixture *f = *st;
    char err[1024];
    assert_int_equal(run_open(&f->run, DATA "ref.json", err, sizeof err), 0);
    run_result *a = NULL, *b = NULL, *a2 = NULL, *b2 = NULL;
    for (size_t i = 0; i < f->ref.n_results && !a2; i++) {
        run_result *r = &f->ref.results[i];
        if (!r->timed || strcmp(r->impl, f->cfg.baseline) == 0) continue;
        run_result *o = (run_result *)run_find(&f->run, r->impl, &r->shape);
        if (!o || !o->timed) continue;
        if (!a) { a = r; b = o; }
        else if (strcmp(r->impl, a->impl) || !shape_same(&r->shape, &a->shape)) { a2 = r; b2 = o; }
    }
    assert_non_null(a2);
    const double q[7] = { 0.93, 0.91, 0.90, 0.90, 0.89, 0.92, 0.88 };   /* median 0.90 */
    give_pairs(&f->ref, a, f->cfg.baseline, q, 7);
    give_pairs(&f->run, b, f->cfg.baseline, q, 7);
    give_pairs(&f->run, b2, f->cfg.baseline, q, 7);   /* a2 keeps its separate medians */
    for (size_t i = 0; i < b->n_samples; i++) b->samples[i] *= 1.1;
    for (size_t i = 0; i < b2->n_samples; i++) b2->samples[i] *= 1.1;
    reg_row *rows;
    size_t n;
    reg_row_filter all = { any_phase, NULL, 0 };
    assert_int_equal(reg_rows(&f->cfg, &f->ref, &f->run, NULL, &all, &rows, &n), 0);
    const reg_row *w = row_of(rows, n, a->impl, &a->shape), *w2 = row_of(rows, n, a2->impl, &a2->shape);
    assert_non_null(w);
    assert_non_null(w2);
    assert_int_equal(w->state, REG_ROW_COMPARED);
    assert_float_equal(w->change.ref, 0.90, 1e-12);
    assert_float_equal(w->change.now, 0.90, 1e-12);
    assert_float_equal(w->change.change, 1.0, 1e-12);
    assert_true(w->change.lo <= 1.0 && w->change.hi >= 1.0);
    double sep;
    assert_int_equal(gate_result_point_ratio(&f->cfg, &f->ref, a2, &sep), 0);
    assert_int_equal(w2->state, REG_ROW_COMPARED);
    assert_float_equal(w2->change.ref, sep, 1e-12);
    assert_float_equal(w2->change.now, 0.90, 1e-12);
    assert_float_equal(w2->change.change, 0.90 / sep, 1e-12);
    free(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(regression_rows_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(untimed_reasons_and_baseline_gap, setup, teardown),
        cmocka_unit_test_setup_teardown(paired_runs_change_by_their_pairs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
