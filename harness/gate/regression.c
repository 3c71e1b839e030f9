/* regression.c: the rows two runs are compared on (see regression.h). */
#include "gate/regression.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/stats.h"
#include "gate/baseline_lib.h"
#include "gate/drift_gate.h"
#include "evidence/result_ratio.h"
#include "gate/ratio.h"

typedef struct {
    reg_row row;
    const gate_config *c;    /* the headline shapes, for the comparator */
} row_item;

/* Room for every row: each result of either run makes at most one. */
typedef struct {
    row_item *items;
    size_t n;
} row_list;

static int has_row(const row_list *l, const char *impl, const attn_shape *s)
{
    for (size_t k = 0; k < l->n; k++)
        if (strcmp(l->items[k].row.impl, impl) == 0 && shape_same(&l->items[k].row.shape, s))
            return 1;
    return 0;
}

/* The rows of `from` not yet listed; `other` is the second run. */
static void collect(row_list *l, const run_data *from, const run_data *other, int from_is_ref,
                    const gate_config *c, const reg_row_filter *f)
{
    for (size_t i = 0; i < from->n_results; i++) {
        const run_result *r = &from->results[i];
        if (!f->wanted(from, r->impl, f->ctx)) continue;
        if (f->judged_only && !drift_judged_shape(c, &r->shape)) continue;
        if (has_row(l, r->impl, &r->shape)) continue;
        row_item *it = &l->items[l->n++];
        memset(it, 0, sizeof *it);
        it->c = c;
        reg_row *w = &it->row;
        w->impl = r->impl;
        w->shape = r->shape;
        const run_result *o = run_find(other, r->impl, &r->shape);
        w->ref = from_is_ref ? r : o;
        w->now = from_is_ref ? o : r;
    }
}

static int cmp_item(const void *pa, const void *pb)
{
    const row_item *a = pa, *b = pb;
    int c = strcmp(a->row.impl, b->row.impl);
    if (c) return c;
    return run_shape_order(&a->row.shape, &b->row.shape, a->c->headline, a->c->n_headline);
}

static int timed(const run_result *r) { return r && r->timed; }

static int is_phase(const run_data *r, const char *name)
{
    const run_impl *im = run_find_impl(r, name);
    return im && strcmp(im->kind, "phase") == 0;
}

/* A result's ratio samples by its run's rule (evidence/result_ratio.h): the rotation's
 * quotients where its pairs decide (*owned: them, to be freed), else its and the
 * baseline's separate samples. 0, or -1 out of memory or on a pair that is no time. */
static int ratio_samples_of(const run_data *run, const run_result *res, const run_result *base,
                            const char *baseline, ratio_samples *out, double **owned)
{
    *owned = NULL;
    if (result_pairs_decide(run, res) && strcmp(res->paired_baseline, baseline) == 0) {
        *owned = stats_paired_quotients(res->paired_impl, res->paired_base, res->n_paired);
        *out = (ratio_samples){ *owned, res->n_paired, NULL, 0 };
        return *owned ? 0 : -1;
    }
    *out = (ratio_samples){ res->samples, res->n_samples, base->samples, base->n_samples };
    return 0;
}

/* A compared row's change, each run's ratio read by that run's own rule, so that the change
 * shown is of the ratios the drift rule judges. 0, or -1 when the bootstrap failed. */
static int row_change(reg_row *w, const gate_config *c, const run_data *ref, const run_data *now)
{
    ratio_samples rn, rr;
    double *qn = NULL, *qr = NULL;
    int rc = ratio_samples_of(now, w->now, w->base_now, c->baseline, &rn, &qn) ||
             ratio_samples_of(ref, w->ref, w->base_ref, c->baseline, &rr, &qr) ||
             gate_change_ci(&rn, &rr, c->reg.resamples, c->reg.seed, c->reg.ci_level, &w->change);
    free(qn);
    free(qr);
    return rc ? -1 : 0;
}

/* The row's state, and for a comparable row its change and, where judged, its verdict.
 * 0, or -1 when the bootstrap failed. */
static int settle(reg_row *w, const gate_config *c, const run_data *ref, const run_data *now,
                  const drift_spread *spread)
{
    w->base_ref = run_find(ref, c->baseline, &w->shape);
    w->base_now = run_find(now, c->baseline, &w->shape);
    if (!w->ref) w->state = REG_ROW_ONLY_NOW;
    else if (!w->now) w->state = REG_ROW_ONLY_REF;
    else if (!w->ref->timed || !w->now->timed) w->state = REG_ROW_UNTIMED;
    else if (!timed(w->base_ref) || !timed(w->base_now)) w->state = REG_ROW_NO_BASELINE;
    else w->state = REG_ROW_COMPARED;
    if (w->state != REG_ROW_COMPARED) return 0;
    if (row_change(w, c, ref, now)) return -1;
    /* the drift rule reads each run's ratio as the drift gate does, so a row judged here
     * and the same row of the drift gate see the same numbers */
    /* ratios to two different baseline libraries: shown, never judged as drift */
    if (baseline_lib_of(now, ref, 1).verdict == BASELINE_LIB_CHANGED) return 0;
    /* inputs rotated past the L2 in one run and not the other: another measurement */
    if (drift_inputs_rotated(w->now) != drift_inputs_rotated(w->ref)) return 0;
    double centre;
    if (!is_phase(ref, w->impl) || !is_phase(now, w->impl) || !drift_judged_shape(c, &w->shape) ||
        gate_result_point_ratio(c, ref, w->ref, &centre) ||
        gate_result_ratio(c, now, w->now, &w->ratio, &w->ratio_lo, &w->ratio_hi))
        return 0;
    const drift_params *p = drift_params_for_results(spread, c, now, w->now, ref, w->ref);
    drift_spread_ref(spread, p, w->impl, &w->shape, centre, &w->ref_drift);
    w->plain = w->verdict = drift_decide(&w->ref_drift, w->ratio, w->ratio_lo, w->ratio_hi);
    w->rotation = p != &c->drift;
    w->move = 1;
    w->judged = 1;
    return 0;
}

/* The move of shape s between ref and now (gate/drift.h, drift_shape_move): over every
 * phase both runs timed there whose row is judged at the set's paired floor, whatever rows
 * the caller asked for (the gate asks one phase at a time). 0, or -1 out of memory. */
static int shape_move(const gate_config *c, const run_data *ref, const run_data *now, const drift_spread *spread,
                      const attn_shape *s, double *move)
{
    double *logs = malloc((now->n_results + 1) * sizeof *logs);
    if (!logs) return -1;
    size_t m = 0;
    for (size_t i = 0; i < now->n_results; i++) {
        const run_result *rn = &now->results[i], *rr;
        double a, b;
        if (!shape_same(&rn->shape, s) || run_find(now, rn->impl, s) != rn || !timed(rn) ||
            !is_phase(now, rn->impl) || !is_phase(ref, rn->impl) || !timed(rr = run_find(ref, rn->impl, s)) ||
            drift_inputs_rotated(rn) != drift_inputs_rotated(rr) ||
            drift_params_for_results(spread, c, now, rn, ref, rr) == &c->drift ||
            gate_result_point_ratio(c, now, rn, &a) || gate_result_point_ratio(c, ref, rr, &b))
            continue;
        logs[m++] = log(a / b);
    }
    *move = drift_shape_move(logs, m, &c->drift);
    free(logs);
    return 0;
}

/* The judged rows of the rotation decided again with their shape's move (the drift gate's
 * rule, gate/drift_gate.c), each shape's move computed once. 0, or -1 out of memory. */
static int apply_shape_moves(const gate_config *c, const run_data *ref, const run_data *now,
                             const drift_spread *spread, reg_row *rows, size_t n)
{
    size_t *first = malloc((n + 1) * sizeof *first);   /* the row whose shape's move a row takes */
    if (!first) return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        reg_row *w = &rows[i];
        if (!w->judged || !w->rotation || !c->drift.shape_rows) continue;
        first[i] = i;
        for (size_t j = 0; j < i; j++)
            if (rows[j].judged && rows[j].rotation && shape_same(&rows[j].shape, &w->shape)) {
                first[i] = first[j];
                break;
            }
        if (first[i] == i) rc = shape_move(c, ref, now, spread, &w->shape, &w->move);
        else w->move = rows[first[i]].move;
        w->verdict = drift_decide_moved(&w->ref_drift, w->move, w->ratio, w->ratio_lo, w->ratio_hi);
    }
    free(first);
    return rc;
}

int reg_rows(const gate_config *c, const run_data *ref, const run_data *now, const drift_spread *spread,
             const reg_row_filter *filter, reg_row **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    row_list l = { malloc((ref->n_results + now->n_results + 1) * sizeof *l.items), 0 };
    if (!l.items) return -1;
    collect(&l, ref, now, 1, c, filter);
    collect(&l, now, ref, 0, c, filter);
    qsort(l.items, l.n, sizeof *l.items, cmp_item);
    reg_row *out = malloc((l.n + 1) * sizeof *out);
    int rc = out ? 0 : -1;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        out[i] = l.items[i].row;
        rc = settle(&out[i], c, ref, now, spread);
    }
    if (rc == 0) rc = apply_shape_moves(c, ref, now, spread, out, l.n);
    free(l.items);
    if (rc) {
        free(out);
        return -1;
    }
    *rows = out;
    *n = l.n;
    return 0;
}

int reg_is_headline(const gate_config *c, const attn_shape *s)
{
    for (size_t i = 0; i < c->n_headline; i++)
        if (shape_same(s, &c->headline[i])) return 1;
    return 0;
}

const attn_shape *reg_baseline_gap(const gate_config *c, const run_data *run,
                                   const run_result **found)
{
    for (size_t i = 0; i < c->n_headline; i++) {
        const run_result *b = run_find(run, c->baseline, &c->headline[i]);
        if (timed(b)) continue;
        if (found) *found = b;
        return &c->headline[i];
    }
    return NULL;
}

const char *reg_untimed_reason(const run_result *r)
{
    if (!r->supported) return r->reason ? r->reason : "unsupported";
    if (r->checked && !r->correct) return "failed correctness";
    return "no graph timing";
}
