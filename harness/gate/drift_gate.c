/* gate/drift_gate.c: the drift gate over runs (drift_gate.h). */
#include "gate/drift_gate.h"

#include <stdlib.h>
#include <string.h>
#include "gate/evaluate.h"

void drift_outcome_free(drift_outcome *o)
{
    free(o->rows);
    memset(o, 0, sizeof *o);
}

/* The phases of the run, each once. */
static int is_new_phase(const run_data *run, size_t upto, const char *name)
{
    for (size_t i = 0; i < upto; i++)
        if (!strcmp(run->impls[i].name, name)) return 0;
    return 1;
}

/* The ratio of the phase at s in every reference run that timed it, into ratios; their count. */
static size_t ref_ratios(const gate_config *c, const run_data *refs, size_t n_refs, const char *phase,
                         const attn_shape *s, double *ratios)
{
    size_t k = 0;
    for (size_t i = 0; i < n_refs; i++) {
        const run_result *r = run_find(&refs[i], phase, s);
        double x, lo, hi;
        if (r && r->timed && gate_result_ratio(c, &refs[i], r, &x, &lo, &hi) == 0) ratios[k++] = x;
    }
    return k;
}

/* One row: the run's own ratio with its CI and the reference's centre and spread (its
 * tolerance is settled again once the pooled spread is known). 1 a row to judge, 0 skipped. */
static int build_row(const gate_config *c, const run_data *run, const run_data *refs, size_t n_refs,
                     const char *phase, const attn_shape *s, drift_row *row, double *ratios)
{
    size_t k = ref_ratios(c, refs, n_refs, phase, s, ratios);
    const run_result *now = run_find(run, phase, s);
    memset(row, 0, sizeof *row);
    row->phase = phase;
    row->shape = *s;
    if (k == 0 || !now || !now->timed ||
        gate_result_ratio(c, run, now, &row->now, &row->now_lo, &row->now_hi))
        return 0;
    return drift_reference(ratios, k, 0, &c->drift, &row->ref) == 0;
}

int gate_drift(const gate_config *c, const run_data *run, const run_data *refs, size_t n_refs,
               drift_outcome *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->n_refs = n_refs;
    for (size_t i = 0; i < n_refs; i++)
        if (strcmp(run->slug, refs[i].slug) != 0) {
            snprintf(err, errlen, "%s is a run on '%s' and the reference %s one on '%s': the drift gate "
                     "compares runs of the same GPU", run->path, run->gpu_name, refs[i].path, refs[i].gpu_name);
            return -1;
        }
    o->judged = n_refs >= c->drift.min_runs;
    size_t n_shapes = c->n_headline + c->n_throughput;
    size_t cap = run->n_impls * n_shapes + 1;
    o->rows = calloc(cap, sizeof *o->rows);
    double *ratios = malloc((n_refs + 1) * sizeof *ratios);
    if (!o->rows || !ratios) {
        free(ratios);
        snprintf(err, errlen, "out of memory in the drift gate");
        return -1;
    }
    for (size_t p = 0; p < run->n_impls; p++) {
        const run_impl *im = &run->impls[p];
        if (strcmp(im->kind, "phase") != 0 || !is_new_phase(run, p, im->name)) continue;
        for (size_t h = 0; h < n_shapes; h++) {
            const attn_shape *s = h < c->n_headline ? &c->headline[h] : &c->throughput[h - c->n_headline];
            int b = build_row(c, run, refs, n_refs, im->name, s, &o->rows[o->n], ratios);
            if (b <= 0) {
                o->skipped++;
                continue;
            }
            o->n++;
        }
    }
    free(ratios);
    /* a row's own spread from a few runs may be small by chance: none is taken below the
     * pooled spread of all phases at its shape (what moves between sessions moves a shape:
     * the baseline's own speed there) */
    drift_ref *same = malloc((o->n + 1) * sizeof *same);
    if (!same) {
        snprintf(err, errlen, "out of memory in the drift gate");
        return -1;
    }
    for (size_t i = 0; i < o->n; i++) {
        size_t m = 0;
        for (size_t j = 0; j < o->n; j++)
            if (run_same_shape(&o->rows[j].shape, &o->rows[i].shape)) same[m++] = o->rows[j].ref;
        o->rows[i].pooled = drift_pooled(same, m);
    }
    free(same);
    for (size_t i = 0; i < o->n; i++) {
        drift_row *row = &o->rows[i];
        drift_settle(&row->ref, row->pooled, &c->drift);
        row->verdict = drift_decide(&row->ref, row->now, row->now_lo, row->now_hi);
        if (o->judged && row->verdict == DRIFT_SLOWER) o->slower++;
    }
    return 0;
}

static void pct(char *buf, size_t len, double x) { snprintf(buf, len, "%+.1f%%", x * 100); }

void drift_print(FILE *f, const gate_config *c, const drift_outcome *o, int brief)
{
    char text[96], a[24], b[24];
    fprintf(f, "\ndrift gate: against the accepted set (%zu run%s)\n", o->n_refs, o->n_refs == 1 ? "" : "s");
    if (!o->judged) {
        fprintf(f, "  not judged: the set holds %zu run%s, drift.min_runs is %zu (list more runs from "
                "separate processes and sessions in accepted.txt)\n", o->n_refs, o->n_refs == 1 ? "" : "s",
                c->drift.min_runs);
    }
    fprintf(f, "  slower when the ratio's CI lies above centre x (1 + tol), tol = max(%.0f%%, %.1f x the "
            "runs' spread of log ratios, at least the spread pooled over the phases at that shape)\n",
            c->drift.floor * 100, c->drift.k_sigma);
    fprintf(f, "  %-22s %-24s %-7s %-8s %-26s %s\n", "phase", "shape", "result", "runs", "ratio now [CI]",
            "centre, tolerance (the smallest drift it can flag)");
    for (size_t i = 0; i < o->n; i++) {
        const drift_row *r = &o->rows[i];
        if (brief && r->verdict == DRIFT_WITHIN) continue;
        run_shape_text(&r->shape, text, sizeof text);
        pct(a, sizeof a, r->ref.tol);
        pct(b, sizeof b, r->now / r->ref.center - 1);
        char now[64];
        snprintf(now, sizeof now, "%.4g [%.4g, %.4g]", r->now, r->now_lo, r->now_hi);
        fprintf(f, "  %-22s %-24s %-7s %-8zu %-26s %.4g (now %s), tol %s (spread %.2f%%, pooled %.2f%%)\n",
                r->phase, text, drift_verdict_name(r->verdict), r->ref.k, now, r->ref.center, b, a,
                r->ref.spread * 100, r->pooled * 100);
    }
    if (o->skipped)
        fprintf(f, "  (%zu phase/shape pair%s not compared: no ratio in this run or in any reference run)\n",
                o->skipped, o->skipped == 1 ? "" : "s");
}

json_t *drift_json(const gate_config *c, const drift_outcome *o)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < o->n; i++) {
        const drift_row *r = &o->rows[i];
        json_array_append_new(rows, json_pack("{s:s, s:{s:i, s:i, s:i, s:i, s:i, s:i}, s:s, s:I, s:f, s:f, s:f, "
                                              "s:f, s:f, s:f, s:f}",
            "phase", r->phase, "shape", "batch", r->shape.batch, "heads", r->shape.heads, "seq_q", r->shape.seq_q,
            "seq_kv", r->shape.seq_kv, "head_dim", r->shape.head_dim, "causal", r->shape.causal,
            "verdict", drift_verdict_name(r->verdict), "runs", (json_int_t)r->ref.k, "centre", r->ref.center,
            "spread", r->ref.used_spread, "tolerance", r->ref.tol, "now", r->now, "now_ci_lo", r->now_lo,
            "now_ci_hi", r->now_hi, "change", r->now / r->ref.center - 1));
    }
    return json_pack("{s:I, s:b, s:f, s:f, s:I, s:I, s:o}", "reference_runs", (json_int_t)o->n_refs,
                     "judged", o->judged, "k_sigma", c->drift.k_sigma, "floor", c->drift.floor,
                     "slower", (json_int_t)o->slower,
                     "skipped", (json_int_t)o->skipped, "rows", rows);
}
