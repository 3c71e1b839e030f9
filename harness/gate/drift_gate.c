/* gate/drift_gate.c: the drift gate over runs (drift_gate.h). */
#include "gate/drift_gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gate/drift_spread.h"
#include "gate/ratio.h"
#include "measure/l2_copies.h"

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

/* Whether a result's inputs were rotated past the L2 between launches (measure/l2_copies.h):
 * a memory-bound point timed so reads its K and V from DRAM, one timed before (or resident)
 * from L2, so the two ratios are of two different measurements. Cold by size and resident
 * read the same one buffer, as runs before the rotation did. */
int drift_inputs_rotated(const run_result *x) { return x && x->l2_state == L2_ROTATED; }

/* 1 when a reference run timed the row with its inputs rotated and the run not, or the
 * other way: another measurement, not a drift. */
static int method_differs(const run_data *run, const run_data *refs, size_t n_refs, const char *phase,
                          const attn_shape *s)
{
    int now = drift_inputs_rotated(run_find(run, phase, s));
    for (size_t k = 0; k < n_refs; k++) {
        const run_result *x = run_find(&refs[k], phase, s);
        if (x && x->timed && drift_inputs_rotated(x) != now) return 1;
    }
    return 0;
}

/* One row: the run's own ratio with its CI against the set's centre and tolerance there.
 * 1 a row to judge, 0 skipped (no ratio in the run, or none in the set). */
static int build_row(const gate_config *c, const run_data *run, const drift_spread *sp, const char *phase,
                     const attn_shape *s, drift_row *row)
{
    const spread_row *ref = drift_spread_find(sp, phase, s);
    const run_result *now = run_find(run, phase, s);
    memset(row, 0, sizeof *row);
    row->phase = phase;
    row->shape = *s;
    if (!ref || !now || !now->timed || gate_result_ratio(c, run, now, &row->now, &row->now_lo, &row->now_hi))
        return 0;
    row->ref = ref->ref;
    row->pooled = ref->pooled;
    /* the floor for this run and row (drift_params_for_results): the config's own for a
     * row of separate medians, the set's for a row of the rotation */
    const drift_params *dp = drift_params_for_results(sp, c, run, now, NULL, NULL);
    drift_settle(&row->ref, ref->pooled, dp);
    row->rotation = dp != &c->drift;
    row->move = 1;
    row->plain = row->verdict = drift_decide(&row->ref, row->now, row->now_lo, row->now_hi);
    return 1;
}

/* Each row's verdict again with the move of its shape over the rows in rotation there.
 * 0, or -1 out of memory. */
static int apply_shape_moves(const gate_config *c, drift_outcome *o)
{
    const attn_shape **shapes = malloc((o->n + 1) * sizeof *shapes);
    int *rotation = malloc((o->n + 1) * sizeof *rotation);
    double *lc = malloc((o->n + 1) * sizeof *lc), *move = malloc((o->n + 1) * sizeof *move);
    size_t *rows = malloc((o->n + 1) * sizeof *rows);
    int rc = shapes && rotation && lc && move && rows ? 0 : -1;
    for (size_t i = 0; i < o->n && rc == 0; i++) {
        shapes[i] = &o->rows[i].shape;
        rotation[i] = o->rows[i].rotation;
        lc[i] = log(o->rows[i].now / o->rows[i].ref.center);
    }
    if (rc == 0) rc = drift_shape_moves(o->n, shapes, rotation, lc, &c->drift, move, rows);
    for (size_t i = 0; i < o->n && rc == 0; i++) {
        drift_row *r = &o->rows[i];
        if (!r->rotation) continue;   /* a row of separate medians shares no round with them */
        r->move = move[i];
        r->move_rows = rows[i];
        r->verdict = drift_decide_moved(&r->ref, r->move, r->now, r->now_lo, r->now_hi);
    }
    free(shapes);
    free(rotation);
    free(lc);
    free(move);
    free(rows);
    return rc;
}

/* The shapes of a phase's rows: the config's headline and throughput shapes, or with
 * regression.shapes "all" every shape the run has the phase at. */
static size_t row_shapes(const gate_config *c, const run_data *run, const char *phase, attn_shape *out)
{
    size_t n = 0;
    if (!c->reg.all_shapes) {
        for (size_t h = 0; h < c->n_headline; h++) out[n++] = c->headline[h];
        for (size_t h = 0; h < c->n_throughput; h++) out[n++] = c->throughput[h];
        return n;
    }
    for (size_t i = 0; i < run->n_results; i++)
        if (!strcmp(run->results[i].impl, phase)) out[n++] = run->results[i].shape;
    return n;
}

/* Every judged row counted by its verdict, the rows the shape's move let through apart. */
static void count_verdicts(drift_outcome *o)
{
    for (size_t i = 0; i < o->n && o->judged; i++) {
        const drift_row *r = &o->rows[i];
        o->count[r->verdict]++;
        if (r->verdict == DRIFT_SLOWER) o->slower++;
        if (r->plain != DRIFT_WITHIN && r->verdict == DRIFT_WITHIN) o->moved++;
    }
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
    /* a set of another baseline library: every ratio moved by the library, not the code */
    o->lib = baseline_lib_of(run, refs, n_refs);
    o->judged = n_refs >= c->drift.min_runs && o->lib.verdict != BASELINE_LIB_CHANGED;
    drift_spread sp;
    if (drift_spread_of(c, refs, n_refs, &sp, err, errlen)) return -1;
    const drift_params *dp = drift_params_for_runs(&sp, c, run, NULL);
    o->floor = dp->floor;
    o->other_gpu = dp == &sp.params_other_gpu;
    size_t cap = run->n_results + 2 * GATE_MAX_HEADLINE + 1;
    o->rows = calloc(run->n_impls * cap + 1, sizeof *o->rows);
    attn_shape *shapes = malloc(cap * sizeof *shapes);
    if (!o->rows || !shapes) {
        free(shapes);
        drift_spread_free(&sp);
        snprintf(err, errlen, "out of memory in the drift gate");
        return -1;
    }
    for (size_t p = 0; p < run->n_impls; p++) {
        const run_impl *im = &run->impls[p];
        if (strcmp(im->kind, "phase") != 0 || !is_new_phase(run, p, im->name)) continue;
        size_t ns = row_shapes(c, run, im->name, shapes);
        for (size_t h = 0; h < ns; h++) {
            if (method_differs(run, refs, n_refs, im->name, &shapes[h])) {
                o->method_changed++;
                continue;
            }
            if (!build_row(c, run, &sp, im->name, &shapes[h], &o->rows[o->n])) {
                o->skipped++;
                continue;
            }
            o->n++;
        }
    }
    free(shapes);
    drift_spread_free(&sp);
    if (apply_shape_moves(c, o)) {
        snprintf(err, errlen, "out of memory in the drift gate");
        return -1;
    }
    count_verdicts(o);
    return 0;
}

static void pct(char *buf, size_t len, double x) { snprintf(buf, len, "%+.1f%%", x * 100); }

/* The shapes whose move let a row through, each once, with the move and how many. */
static void print_moves(FILE *f, const gate_config *c, const drift_outcome *o)
{
    char text[96];
    for (size_t i = 0; i < o->n; i++) {
        const drift_row *r = &o->rows[i];
        size_t first = i, let = 0;
        for (size_t j = 0; j < o->n; j++) {
            const drift_row *x = &o->rows[j];
            if (!shape_same(&x->shape, &r->shape)) continue;
            if (j < first) first = j;
            if (x->rotation) r = x;   /* the move is that of the rows in rotation */
            let += x->plain != DRIFT_WITHIN && x->verdict == DRIFT_WITHIN;
        }
        if (first != i || !let) continue;
        run_shape_text(&r->shape, text, sizeof text);
        fprintf(f, "  shape %s: the rotation's rows moved %+.1f%% past %.0f%% (median of %zu rows), the baseline's "
                "move there, not a rung's: %zu row%s past %s tolerance against the centre alone, within with the "
                "move\n", text, (r->move - 1) * 100, c->drift.shape_floor * 100, r->move_rows, let,
                let == 1 ? "" : "s", let == 1 ? "its" : "their");
    }
}

/* One line of every verdict: judged rows by verdict, the rest by why not. */
static void print_counts(FILE *f, const drift_outcome *o)
{
    size_t judged = o->judged ? o->n : 0, not_judged = (o->judged ? 0 : o->n) + o->method_changed + o->skipped;
    fprintf(f, "  verdicts: %zu rows judged (%zu slower, %zu unsure, %zu faster, %zu within, %zu of them by their "
            "shape's move), %zu not judged (%zu of a set too small or of another baseline library, %zu of inputs "
            "measured otherwise, %zu without a ratio)\n",
            judged, o->count[DRIFT_SLOWER], o->count[DRIFT_UNSURE], o->count[DRIFT_FASTER], o->count[DRIFT_WITHIN],
            o->moved, not_judged, o->judged ? 0 : o->n, o->method_changed, o->skipped);
}

void drift_print(FILE *f, const gate_config *c, const drift_outcome *o, int brief)
{
    char text[96], a[24], b[24];
    fprintf(f, "\ndrift gate: against the accepted set (%zu run%s)\n", o->n_refs, o->n_refs == 1 ? "" : "s");
    if (!o->judged) {
        fprintf(f, "  not judged: the set holds %zu run%s, drift.min_runs is %zu (list more runs from "
                "separate processes and sessions in accepted.txt)\n", o->n_refs, o->n_refs == 1 ? "" : "s",
                c->drift.min_runs);
    }
    char lib[768];
    baseline_lib_text(&o->lib, lib, sizeof lib);
    fprintf(f, "  %s\n", lib);
    if (o->other_gpu)
        fprintf(f, "  this run's GPU is none of the set's (context.gpu.uuid): rows in rotation take the floor of "
                "another GPU, %.0f%%\n", c->drift.floor_other_gpu * 100);
    fprintf(f, "  slower when the ratio's CI lies above centre x (1 + tol), tol = max(%.0f%%, %.1f x the "
            "runs' spread of log ratios, at least the spread pooled over the phases at that shape)\n",
            o->floor * 100, c->drift.k_sigma);
    if (!o->other_gpu && c->drift.floor_other_gpu > o->floor && o->floor < c->drift.floor)
        fprintf(f, "  rows in rotation on cold inputs (rotated or cold by size: K and V from DRAM) take the floor "
                "of another GPU, %.0f%%: they move with the session's memory\n", c->drift.floor_other_gpu * 100);
    if (c->drift.shape_rows)
        fprintf(f, "  and, for a row in rotation, past that times its shape's move the way the shape moved (the "
                "median change of the rows in rotation there, at least %zu, past %.0f%%: the baseline's move)\n",
                c->drift.shape_rows, c->drift.shape_floor * 100);
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
        char moved[128];
        drift_move_note(moved, sizeof moved, &c->drift, r->plain, r->verdict, r->move);
        fprintf(f, "  %-22s %-24s %-7s %-8zu %-26s %.4g (now %s), tol %s (spread %.2f%%, pooled %.2f%%)%s\n",
                r->phase, text, drift_verdict_name(r->verdict), r->ref.k, now, r->ref.center, b, a,
                r->ref.spread * 100, r->pooled * 100, moved);
    }
    if (o->skipped)
        fprintf(f, "  (%zu phase/shape pair%s not compared: no ratio in this run or in any reference run)\n",
                o->skipped, o->skipped == 1 ? "" : "s");
    if (o->method_changed)
        fprintf(f, "  (%zu phase/shape pair%s not judged: inputs kept cold in L2 in this run and not in a "
                "reference run, or the other way: another measurement, not a drift)\n",
                o->method_changed, o->method_changed == 1 ? "" : "s");
    print_moves(f, c, o);
    print_counts(f, o);
}

json_t *drift_json(const gate_config *c, const drift_outcome *o)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < o->n; i++) {
        const drift_row *r = &o->rows[i];
        json_array_append_new(rows, json_pack("{s:s, s:{s:i, s:i, s:i, s:i, s:i, s:i}, s:s, s:s, s:b, s:f, s:I, "
                                              "s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
            "phase", r->phase, "shape", "batch", r->shape.batch, "heads", r->shape.heads, "seq_q", r->shape.seq_q,
            "seq_kv", r->shape.seq_kv, "head_dim", r->shape.head_dim, "causal", r->shape.causal,
            "verdict", drift_verdict_name(r->verdict), "verdict_against_centre", drift_verdict_name(r->plain),
            "rotation", r->rotation, "shape_move", r->move, "shape_move_rows", (json_int_t)r->move_rows,
            "runs", (json_int_t)r->ref.k, "centre", r->ref.center,
            "spread", r->ref.used_spread, "tolerance", r->ref.tol, "now", r->now, "now_ci_lo", r->now_lo,
            "now_ci_hi", r->now_hi, "change", r->now / r->ref.center - 1));
    }
    static const char *const lib_names[] = { "same", "unknown", "changed" };
    size_t judged = o->judged ? o->n : 0, not_judged = (o->judged ? 0 : o->n) + o->method_changed + o->skipped;
    json_t *counts = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "judged", (json_int_t)judged, "not_judged",
                               (json_int_t)not_judged, "slower", (json_int_t)o->count[DRIFT_SLOWER], "unsure",
                               (json_int_t)o->count[DRIFT_UNSURE], "faster", (json_int_t)o->count[DRIFT_FASTER],
                               "within", (json_int_t)o->count[DRIFT_WITHIN], "moved_with_shape", (json_int_t)o->moved);
    return json_pack("{s:I, s:b, s:b, s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:o, s:o}", "reference_runs", (json_int_t)o->n_refs,
                     "judged", o->judged, "other_gpu", o->other_gpu, "baseline_library", lib_names[o->lib.verdict],
                     "baseline_library_now", (json_int_t)o->lib.now, "baseline_library_set", (json_int_t)o->lib.ref, "k_sigma", c->drift.k_sigma, "floor", o->floor,
                     "slower", (json_int_t)o->slower,
                     "skipped", (json_int_t)o->skipped, "method_changed", (json_int_t)o->method_changed,
                     "counts", counts, "rows", rows);
}
