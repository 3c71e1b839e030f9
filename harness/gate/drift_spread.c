/* gate/drift_spread.c: the accepted set's spread per row (drift_spread.h). */
#include "gate/drift_spread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gate/ratio.h"
#include "evidence/result_ratio.h"
#include "measure/l2_copies.h"

int drift_judged_shape(const gate_config *c, const attn_shape *s)
{
    if (c->reg.all_shapes) return 1;
    for (size_t i = 0; i < c->n_headline; i++)
        if (shape_same(s, &c->headline[i])) return 1;
    for (size_t i = 0; i < c->n_throughput; i++)
        if (shape_same(s, &c->throughput[i])) return 1;
    return 0;
}

void drift_spread_free(drift_spread *s)
{
    free(s->rows);
    free(s->gpus);
    memset(s, 0, sizeof *s);
}

const spread_row *drift_spread_find(const drift_spread *s, const char *phase, const attn_shape *shape)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (!strcmp(s->rows[i].phase, phase) && shape_same(&s->rows[i].shape, shape)) return &s->rows[i];
    return NULL;
}

/* The ratio of the phase at shape in every run of the set that timed it; their count. */
static size_t set_ratios(const gate_config *c, const run_data *set, size_t n, const char *phase,
                         const attn_shape *shape, double *ratios)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const run_result *r = run_find(&set[i], phase, shape);
        double x;
        if (r && r->timed && gate_result_point_ratio(c, &set[i], r, &x) == 0) ratios[k++] = x;
    }
    return k;
}

/* Whether a run of the set timed the phase at shape with a ratio of separate medians. */
static int set_has_separate(const run_data *set, size_t n, const char *phase, const attn_shape *shape)
{
    for (size_t i = 0; i < n; i++) {
        const run_result *r = run_find(&set[i], phase, shape);
        if (r && r->timed && !result_pairs_decide(&set[i], r)) return 1;
    }
    return 0;
}

drift_params drift_params_for_set(const drift_params *p, const run_data *set, size_t n)
{
    drift_params q = *p;
    size_t paired = 0;
    for (size_t i = 0; i < n; i++) paired += set[i].ratio_rotation != 0;
    if (n > 0 && paired == n) q.floor = p->floor_paired;
    return q;
}

int drift_spread_of(const gate_config *c, const run_data *set, size_t n, drift_spread *s, char *err,
                    size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->n_runs = n;
    s->params = drift_params_for_set(&c->drift, set, n);
    s->measured = n >= c->drift.min_runs;
    s->params_other_gpu = s->params;
    if (s->params_other_gpu.floor < c->drift.floor_other_gpu) s->params_other_gpu.floor = c->drift.floor_other_gpu;
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) cap += set[i].n_results;
    s->rows = calloc(cap, sizeof *s->rows);
    s->gpus = calloc(n + 1, sizeof *s->gpus);
    double *ratios = malloc((n + 1) * sizeof *ratios);
    if (!s->rows || !s->gpus || !ratios) {
        free(ratios);
        drift_spread_free(s);
        snprintf(err, errlen, "out of memory reading the accepted set's spread");
        return -1;
    }
    for (size_t i = 0; i < n; i++) s->gpus[i] = set[i].ctx.uuid;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < set[i].n_results; k++) {
            const run_result *r = &set[i].results[k];
            const run_impl *im = run_find_impl(&set[i], r->impl);
            if (!im || strcmp(im->kind, "phase") || !drift_judged_shape(c, &r->shape) ||
                drift_spread_find(s, r->impl, &r->shape))
                continue;
            size_t m = set_ratios(c, set, n, r->impl, &r->shape, ratios);
            spread_row *row = &s->rows[s->n];
            row->phase = r->impl;
            row->shape = r->shape;
            row->separate = set_has_separate(set, n, r->impl, &r->shape);
            if (m && drift_reference(ratios, m, 0, &s->params, &row->ref) == 0) s->n++;
        }
    free(ratios);
    /* a row's own spread from a few runs may be small by chance: none is taken below the
     * spread pooled over the phases at its shape (what moves between sessions moves a
     * shape: the baseline's own speed there) */
    drift_ref *same = malloc((s->n + 1) * sizeof *same);
    if (!same) {
        drift_spread_free(s);
        snprintf(err, errlen, "out of memory reading the accepted set's spread");
        return -1;
    }
    for (size_t i = 0; i < s->n; i++) {
        size_t m = 0;
        for (size_t j = 0; j < s->n; j++)
            if (shape_same(&s->rows[j].shape, &s->rows[i].shape)) same[m++] = s->rows[j].ref;
        s->rows[i].pooled = drift_pooled(same, m);
    }
    free(same);
    for (size_t i = 0; i < s->n; i++)
        drift_settle(&s->rows[i].ref, s->rows[i].pooled, s->rows[i].separate ? &c->drift : &s->params);
    return 0;
}

void drift_spread_ref(const drift_spread *s, const drift_params *p, const char *phase, const attn_shape *shape,
                      double centre, drift_ref *out)
{
    memset(out, 0, sizeof *out);
    out->center = centre;
    double pooled = 0;
    if (s && s->measured) {
        const spread_row *row = drift_spread_find(s, phase, shape);
        if (row) {
            out->k = row->ref.k;
            out->spread = row->ref.spread;
            pooled = row->pooled;
        } else {
            /* a phase the set never timed here: the spread of the others at the shape */
            for (size_t i = 0; i < s->n && !pooled; i++)
                if (shape_same(&s->rows[i].shape, shape)) pooled = s->rows[i].pooled;
        }
    }
    drift_settle(out, pooled, p);
}

int drift_other_gpu(const drift_spread *s, const run_data *a, const run_data *b)
{
    /* a run without the GPU's uuid (runs before it was recorded) cannot be told apart */
    if (!a->ctx.uuid) return 0;
    if (b) return b->ctx.uuid && strcmp(a->ctx.uuid, b->ctx.uuid) != 0;
    if (!s || !s->gpus || !s->n_runs) return 0;
    for (size_t i = 0; i < s->n_runs; i++)
        if (!s->gpus[i] || !strcmp(a->ctx.uuid, s->gpus[i])) return 0;
    return 1;
}

const drift_params *drift_params_for_runs(const drift_spread *s, const gate_config *c, const run_data *a,
                                          const run_data *b)
{
    if (s && a->ratio_rotation && (!b || b->ratio_rotation))
        return drift_other_gpu(s, a, b) ? &s->params_other_gpu : &s->params;
    return &c->drift;
}

int drift_shape_moves(size_t n, const attn_shape *const *shapes, const int *rotation, const double *lc,
                      const drift_params *p, double *move, size_t *rows)
{
    double *logs = malloc((n + 1) * sizeof *logs);
    if (!logs) return -1;
    for (size_t i = 0; i < n; i++) {
        size_t m = 0;
        for (size_t j = 0; j < n; j++)
            if (rotation[j] && shape_same(shapes[j], shapes[i])) logs[m++] = lc[j];
        rows[i] = m;
        move[i] = drift_shape_move(logs, m, p);
    }
    free(logs);
    return 0;
}

/* Whether a row's inputs were kept cold in L2 (rotated past it, or K and V alone larger
 * than it: measure/l2_copies.h); a run that does not say is judged as before. */
static int inputs_cold(const run_result *x)
{
    return x && (x->l2_state == L2_ROTATED || x->l2_state == L2_COLD_BY_SIZE);
}

const drift_params *drift_params_for_results(const drift_spread *s, const gate_config *c, const run_data *a,
                                             const run_result *ra, const run_data *b, const run_result *rb)
{
    const drift_params *p = drift_params_for_runs(s, c, a, b);
    if (p == &c->drift) return p;
    const spread_row *row = drift_spread_find(s, ra->impl, &ra->shape);
    if ((row && row->separate) || !result_pairs_decide(a, ra) || (b && rb && !result_pairs_decide(b, rb)))
        return &c->drift;
    /* Cold inputs (K and V read from DRAM each launch) move with the session's memory, not
     * only with the GPU: two sessions of one build on one H200 read rungs 03-06 and 08 at
     * 8x32x1:4096x128 +3.9..+5.2% apart, the other rungs there within 0.3%; on a third H200
     * the same rows moved +5.2..+6.1%. Such a row takes the other-GPU floor on any GPU. */
    if (inputs_cold(ra) || inputs_cold(rb)) return &s->params_other_gpu;
    return p;
}

void drift_rule_text(char *buf, size_t len, const drift_params *p, size_t n_runs, int measured)
{
    char spread[400];
    if (measured)
        snprintf(spread, sizeof spread, "tol = max(%.0f%%, exp(%.1f x s) - 1), s the spread of the row's ratio "
                 "between the %zu processes of the accepted set (sd of the logs, at least the spread pooled "
                 "over the phases at that shape)", p->floor * 100, p->k_sigma, n_runs);
    else
        snprintf(spread, sizeof spread, "tol = %.0f%%, the floor alone: the accepted set holds %zu run%s, fewer "
                 "than the %zu (drift.min_runs) its spread needs", p->floor * 100, n_runs, n_runs == 1 ? "" : "s",
                 p->min_runs);
    snprintf(buf, len, "the drift rule: slower when the ratio's 95%% CI lies above the reference's ratio x "
             "(1 + tol), faster when below it / (1 + tol), unsure when only the point is past; %s", spread);
}
