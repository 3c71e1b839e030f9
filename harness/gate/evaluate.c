/* gate/evaluate.c: the ladder gate and the comparison with a reference run (evaluate.h). */
#include "gate/evaluate.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "core/numfmt.h"
#include "core/stats.h"
#include "gate/baseline_lib.h"
#include "gate/drift_spread.h"
#include "gate/regression.h"

static gate_check *add(gate_outcome *o, check_kind kind, const char *phase, const attn_shape *s,
                       int pass, const char *fmt, ...)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 32;
        gate_check *c = realloc(o->checks, cap * sizeof *c);
        if (!c) return NULL;
        o->checks = c;
        o->cap = cap;
    }
    gate_check *c = &o->checks[o->n++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->phase = phase;
    c->ratio = c->lo = c->hi = c->bound = NAN;
    if (s) {
        c->has_shape = 1;
        c->shape = *s;
    }
    c->pass = pass;
    if (!pass) o->failures++;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
    return c;
}

void gate_outcome_free(gate_outcome *o)
{
    free(o->checks);
    memset(o, 0, sizeof *o);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the phases of one or two runs, sorted, each once. */
static const char **phase_names(const run_data *a, const run_data *b, size_t *n)
{
    size_t cap = a->n_impls + (b ? b->n_impls : 0) + 1;
    const char **names = malloc(cap * sizeof *names);
    *n = 0;
    if (!names) return NULL;
    const run_data *runs[2] = { a, b };
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; runs[r] && i < runs[r]->n_impls; i++) {
            const run_impl *im = &runs[r]->impls[i];
            if (strcmp(im->kind, "phase") != 0) continue;
            size_t k = 0;
            while (k < *n && strcmp(names[k], im->name) != 0) k++;
            if (k == *n) names[(*n)++] = im->name;
        }
    qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

static int is_phase_of(const run_data *r, const char *name)
{
    const run_impl *im = run_find_impl(r, name);
    return im && strcmp(im->kind, "phase") == 0;
}

/* Every ratio of a gate needs the baseline at the headline shapes. */
static int baseline_present(const gate_config *c, const run_data *run, char *err, size_t errlen)
{
    const run_result *b = NULL;
    const attn_shape *gap = reg_baseline_gap(c, run, &b);
    if (!gap) return 0;
    char text[96];
    run_shape_text(gap, text, sizeof text);
    snprintf(err, errlen, "%s: the baseline '%s' (%s) has %s at the headline shape %s; "
             "no ratio can be gated without it", run->path, c->baseline, c->path,
             !b ? "no result" : !b->supported ? "no support" : "no graph timing", text);
    return -1;
}

static void shape_str(const attn_shape *s, char *buf, size_t len) { run_shape_text(s, buf, len); }

/* The failed check of a throttled result t, naming its cause: a point whose rotation kept
 * no round (paired_throttled) has no discarded samples to count, so it names the rounds
 * and the baseline; a rotation stopped past its discard limit with pairs kept names the
 * pairs; otherwise the graph sampling stopped past the discard limit.
 * 0, or -1 out of memory. */
static int add_throttled(gate_outcome *o, const char *phase, const attn_shape *s, const char *text,
                         const run_result *t)
{
    int rotation = !t->paired_throttled && t->paired_stop && !strcmp(t->paired_stop, "throttled") &&
                   !(t->graph_stop && !strcmp(t->graph_stop, "throttled"));
    gate_check *c = t->paired_throttled
        ? add(o, CHECK_BOUND, phase, s, 0, "throttled: %s at %s: all %zu rounds of the point's rotation "
              "with %s fell under clock events; measure it again", t->impl, text, t->discarded_pairs,
              t->paired_throttled_baseline)
        : rotation
        ? add(o, CHECK_BOUND, phase, s, 0, "throttled: %s at %s: its rotation with %s stopped with %zu pairs "
              "discarded for clock events (the run's discard limit); measure it again", t->impl, text,
              t->paired_baseline ? t->paired_baseline : "the baseline", t->discarded_pairs)
        : add(o, CHECK_BOUND, phase, s, 0, "throttled: %s at %s stopped sampling with %zu samples "
              "discarded for clock events (the run's discard limit); measure it again", t->impl, text,
              t->discarded);
    return c ? 0 : -1;
}

/* The bound checks of one phase at a list of shapes: the ratio's CI upper end under
 * `bound`. `optional` (the throughput shapes): a shape the run did not time the baseline
 * at (a run without the sweep) is skipped and counted, not failed. */
static int bound_checks(const gate_config *c, const run_data *run, const char *phase,
                        const attn_shape *shapes, size_t n, double bound, int optional,
                        const char *which, const char *whose, gate_outcome *o)
{
    char text[96], a[48], b[48], d[48];
    for (size_t h = 0; h < n; h++) {
        const attn_shape *s = &shapes[h];
        shape_str(s, text, sizeof text);
        const run_result *base = run_find(run, c->baseline, s);
        if (optional && (!base || !base->timed)) {
            o->skipped++;
            continue;
        }
        const run_result *res = run_find(run, phase, s);
        if (!res) {
            if (!add(o, CHECK_MISSING, phase, s, 0, "missing: no result at the %s shape %s", which,
                     text)) return -1;
            continue;
        }
        if (!res->timed) {
            if (!add(o, CHECK_BOUND, phase, s, 0, "not timed at %s: %s", text,
                     !res->supported ? (res->reason ? res->reason : "unsupported")
                     : res->checked && !res->correct ? "failed correctness" : "no graph timing"))
                return -1;
            continue;
        }
        if (res->throttled || (base && base->throttled)) {
            if (add_throttled(o, phase, s, text, res->throttled ? res : base)) return -1;
            continue;
        }
        double r, lo, hi;
        if (gate_result_ratio(c, run, res, &r, &lo, &hi)) {
            if (!add(o, CHECK_BOUND, phase, s, 0, "no ratio to %s at %s", c->baseline, text))
                return -1;
            continue;
        }
        int pass = gate_ladder_pass(hi, bound);
        gate_check *ck = add(o, CHECK_BOUND, phase, s, pass, "ratio %s %s: CI upper end %s bound %s%s",
                             fmt_num(a, sizeof a, r), fmt_ci(b, sizeof b, lo, hi),
                             pass ? "under" : "NOT under", fmt_num(d, sizeof d, bound), whose);
        if (!ck) return -1;
        ck->ratio = r;
        ck->lo = lo;
        ck->hi = hi;
        ck->bound = bound;
    }
    return 0;
}

/* The phase's checks on other input distributions (`input_checks`): each failure fails
 * the phase's correctness like a failed result. Returns the failures, -1 out of memory. */
static long input_check_failures(const run_data *run, const char *phase, gate_outcome *o)
{
    char text[96], a[48];
    long bad = 0;
    for (size_t i = 0; i < run->n_input_checks; i++) {
        const run_input_check *k = &run->input_checks[i];
        if (strcmp(k->impl, phase) != 0 || k->correct) continue;
        bad++;
        shape_str(&k->shape, text, sizeof text);
        if (!add(o, CHECK_CORRECT, phase, &k->shape, 0, "incorrect at %s on %s inputs: rel_l2 %s", text,
                 k->inputs, fmt_sci(a, sizeof a, k->rel_l2))) return -1;
    }
    return bad;
}

static int ladder_phase(const gate_config *c, const run_data *run, const char *phase,
                        gate_outcome *o)
{
    char text[96], a[48], b[48];
    const gate_bound *bound = gate_config_bound(c, phase);
    if (!bound) {
        if (!add(o, CHECK_NO_BOUND, phase, NULL, 0,
                 "no bound in %s (add bounds.\"%s\".ratio_max)", c->path, phase)) return -1;
    } else {
        if (bound_checks(c, run, phase, c->headline, c->n_headline, bound->ratio_max, 0, "headline", "", o))
            return -1;
        if (bound->throughput_ratio_max > 0 &&
            bound_checks(c, run, phase, c->throughput, c->n_throughput, bound->throughput_ratio_max, 1,
                         "throughput", "", o))
            return -1;
        int own;   /* the run's GPU's own decode list, named in each message, or the default */
        const double *dec = gate_bound_decode(bound, run->slug, &own);
        char whose[160] = "";   /* snprintf cuts a slug too long for it */
        if (own) snprintf(whose, sizeof whose, " (%s's bound)", run->slug);
        for (size_t k = 0; k < c->n_decode; k++)   /* each decode shape its own bound */
            if (dec[k] > 0 && bound_checks(c, run, phase, &c->decode[k], 1, dec[k], 1, "decode", whose, o))
                return -1;
    }
    /* Correct on every shape it claims: every supported result passed its check. */
    size_t claimed = 0, bad = 0;
    for (size_t i = 0; i < run->n_results; i++) {
        const run_result *res = &run->results[i];
        if (strcmp(res->impl, phase) != 0 || !res->supported) continue;
        claimed++;
        if (res->checked && res->correct) continue;
        bad++;
        shape_str(&res->shape, text, sizeof text);
        if (!res->checked) {
            if (!add(o, CHECK_CORRECT, phase, &res->shape, 0, "incorrect at %s: no correctness "
                     "verdict recorded", text)) return -1;
        } else if (!add(o, CHECK_CORRECT, phase, &res->shape, 0,
                        "incorrect at %s: rel_l2 %s, max_abs %s", text, fmt_sci(a, sizeof a, res->rel_l2),
                        fmt_sci(b, sizeof b, res->max_abs))) {
            return -1;
        }
    }
    long other = input_check_failures(run, phase, o);
    if (other < 0) return -1;
    if (!bad && !other && !add(o, CHECK_CORRECT, phase, NULL, claimed > 0, claimed ? "correct on all %zu shapes "
                     "it claims" : "claims no shape (every result unsupported)", claimed))
        return -1;
    return 0;
}

int gate_ladder(const gate_config *c, const run_data *run, gate_outcome *o, char *err, size_t errlen)
{
    /* a planted slowdown or a forced configuration measures something other than the
     * rungs as built: such a run proves nothing about them */
    if (run->planted || run->overrides) {
        snprintf(err, errlen, "%s: made with %s%s%s; the ladder gate judges runs of the rungs as "
                 "built only", run->path, run->planted ? "a planted slowdown " : "",
                 run->planted ? run->planted : "", run->overrides ? run->overrides : "");
        return -1;
    }
    if (baseline_present(c, run, err, errlen)) return -1;
    size_t n;
    const char **found = phase_names(run, NULL, &n);
    const char **names = found ? malloc((n + c->n_bounds + 1) * sizeof *names) : NULL;
    if (!names) goto oom;
    memcpy(names, found, n * sizeof *names);
    for (size_t i = 0; i < c->n_bounds; i++)
        if (!is_phase_of(run, c->bounds[i].phase)) names[n++] = c->bounds[i].phase;
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (is_phase_of(run, names[i])) {
            if (ladder_phase(c, run, names[i], o)) goto oom;
        } else if (!add(o, CHECK_MISSING, names[i], NULL, 0,
                        "missing: has a bound in %s but is not in this run", c->path)) {
            goto oom;
        }
    }
    free(found);
    free(names);
    return 0;
oom:
    free(found);
    free(names);
    snprintf(err, errlen, "out of memory in the ladder gate");
    return -1;
}

/* One phase's regression checks, built from the rows of the phase. */
typedef struct {
    const gate_config *c;
    const char *phase;
    gate_outcome *o;
} phase_checks;

static int is_the_phase(const run_data *r, const char *impl, void *ctx)
{
    (void)r;
    return strcmp(impl, ((const phase_checks *)ctx)->phase) == 0;
}

static int change_check(phase_checks *pc, const reg_row *row)
{
    char a[48], b[48], d[48], e[48], g[48], t[48], c0[48], c1[48], c2[48], moved[128];
    const reg_change *ch = &row->change;
    drift_move_note(moved, sizeof moved, &pc->c->drift, row->plain, row->verdict, row->move);
    gate_check *ck = add(pc->o, CHECK_REGRESSION, pc->phase, &row->shape, row->verdict != DRIFT_SLOWER,
                         "%s: ratio %s -> %s [%s, %s], %s (tolerance %s; change %s [%s, %s])%s",
                         drift_verdict_name(row->verdict), fmt_num(a, sizeof a, row->ref_drift.center),
                         fmt_num(b, sizeof b, row->ratio), fmt_num(d, sizeof d, row->ratio_lo),
                         fmt_num(e, sizeof e, row->ratio_hi),
                         fmt_change(g, sizeof g, row->ratio / row->ref_drift.center),
                         fmt_change(t, sizeof t, 1 + row->ref_drift.tol), fmt_change(c0, sizeof c0, ch->change),
                         fmt_change(c1, sizeof c1, ch->lo), fmt_change(c2, sizeof c2, ch->hi), moved);
    if (!ck) return -1;
    ck->change = *ch;
    ck->ref_drift = row->ref_drift;
    ck->now = row->ratio;
    ck->now_lo = row->ratio_lo;
    ck->now_hi = row->ratio_hi;
    ck->verdict = row->verdict;
    return 0;
}

/* The gate judges the shapes the reference run timed: one the run under test lacks fails
 * at a headline shape and is skipped elsewhere, one it did not time fails, one without a
 * baseline timing in either run is skipped. */
static int row_check(phase_checks *pc, const reg_row *row)
{
    const attn_shape *s = &row->shape;
    if (!row->ref || !row->ref->timed) return 0;   /* not a shape the reference timed */
    switch (row->state) {
    case REG_ROW_ONLY_REF:
        if (!reg_is_headline(pc->c, s)) break;
        return add(pc->o, CHECK_MISSING, pc->phase, s, 0, "missing: timed in the reference run, "
                   "no result in this run") ? 0 : -1;
    case REG_ROW_UNTIMED:
        return add(pc->o, CHECK_MISSING, pc->phase, s, 0, "missing: timed in the reference run, "
                   "not in this run (%s)", reg_untimed_reason(row->now)) ? 0 : -1;
    case REG_ROW_COMPARED:
        if (row->judged) return change_check(pc, row);
        break;
    case REG_ROW_ONLY_NOW:   /* excluded above */
        return 0;
    case REG_ROW_NO_BASELINE:
        break;
    }
    pc->o->skipped++;
    return 0;
}

static int regression_phase(const gate_config *c, const run_data *run, const run_data *ref,
                            const drift_spread *spread, const char *phase, gate_outcome *o)
{
    if (!is_phase_of(run, phase))
        return add(o, CHECK_MISSING, phase, NULL, 0, "missing: in the reference run, not in this run")
             ? 0 : -1;
    if (!is_phase_of(ref, phase))
        return add(o, CHECK_REGRESSION, phase, NULL, 1, "new: not in the reference run, nothing to "
                   "compare") ? 0 : -1;
    phase_checks pc = { c, phase, o };
    reg_row_filter f = { is_the_phase, &pc, 1 };
    reg_row *rows;
    size_t n;
    if (reg_rows(c, ref, run, spread, &f, &rows, &n)) return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) rc = row_check(&pc, &rows[i]);
    free(rows);
    return rc;
}

int gate_regression(const gate_config *c, const run_data *run, const run_data *ref,
                    const drift_spread *spread, gate_outcome *o, char *err, size_t errlen)
{
    o->set_runs = spread ? spread->n_runs : 0;
    o->set_measured = spread && spread->measured;
    o->set_floor = drift_params_for_runs(spread, c, run, ref)->floor;
    if (strcmp(run->slug, ref->slug) != 0) {
        snprintf(err, errlen, "%s is a run on '%s' and the reference %s one on '%s': the "
                 "regression gate compares runs of the same GPU (evidence/%s/accepted.txt)",
                 run->path, run->gpu_name, ref->path, ref->gpu_name, run->slug);
        return -1;
    }
    if (baseline_present(c, run, err, errlen) || baseline_present(c, ref, err, errlen)) return -1;
    /* another baseline library: said as a verdict of its own, counted, never drift (the
     * rows are not judged, regression.c), and not a failure: the ladder gate decides */
    baseline_lib lib = baseline_lib_of(run, ref, 1);
    if (lib.verdict != BASELINE_LIB_SAME) {
        baseline_lib_text(&lib, o->baseline_text, sizeof o->baseline_text);
        o->baseline_changed = lib.verdict == BASELINE_LIB_CHANGED;
        if (!add(o, CHECK_REGRESSION, c->baseline, NULL, 1, "%s", o->baseline_text)) return -1;
    }
    size_t n;
    const char **names = phase_names(ref, run, &n);
    int rc = names ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) rc = regression_phase(c, run, ref, spread, names[i], o);
    free(names);
    if (rc) snprintf(err, errlen, "out of memory in the regression gate");
    return rc;
}

void gate_phase_verdict(const gate_outcome *o, const char *phase, const attn_shape *s,
                        char *buf, size_t len)
{
    size_t incorrect = 0;
    const gate_check *bound = NULL;
    int no_bound = 0;
    for (size_t i = 0; i < o->n; i++) {
        const gate_check *c = &o->checks[i];
        if (strcmp(c->phase, phase) != 0) continue;
        if (c->kind == CHECK_NO_BOUND) no_bound = 1;
        if (c->kind == CHECK_CORRECT && !c->pass) incorrect++;
        if ((c->kind == CHECK_BOUND || c->kind == CHECK_MISSING) && c->has_shape &&
            shape_same(&c->shape, s))
            bound = c;
    }
    char extra[64] = "";
    if (incorrect) snprintf(extra, sizeof extra, "%sincorrect on %zu shape%s",
                            bound && !bound->pass ? "; " : "", incorrect, incorrect == 1 ? "" : "s");
    if (no_bound) snprintf(buf, len, "no bound%s%s", incorrect ? "; " : "", extra);
    else if (!bound) snprintf(buf, len, "-");
    else if (bound->pass && !incorrect) snprintf(buf, len, "pass");
    else if (bound->pass) snprintf(buf, len, "FAIL: %s", extra);
    else if (bound->kind == CHECK_BOUND && isfinite(bound->hi)) {
        char h[32], b[32];
        snprintf(buf, len, "FAIL: CI upper %s >= bound %s%s", fmt_num(h, sizeof h, bound->hi),
                 fmt_num(b, sizeof b, bound->bound), extra);
    } else {
        snprintf(buf, len, "FAIL: %s%s", bound->message, extra);
    }
}

/* ---- output ---------------------------------------------------------------------------- */

static const char *kind_name(check_kind k)
{
    switch (k) {
    case CHECK_BOUND: return "bound";
    case CHECK_NO_BOUND: return "no_bound";
    case CHECK_MISSING: return "missing";
    case CHECK_CORRECT: return "correctness";
    case CHECK_REGRESSION: return "regression";
    }
    return "?";
}

static void run_line(FILE *f, const char *what, const run_data *r)
{
    fprintf(f, "%s %s (%s, commit %.12s%s, %s)\n", what, r->path, r->gpu_name, r->commit,
            r->dirty ? " dirty" : "", r->created_utc);
}

static int shown(const gate_check *k, int brief)
{
    return !brief || !k->pass || (k->kind == CHECK_REGRESSION && k->verdict == DRIFT_UNSURE);
}

static void print_head(FILE *f, const gate_outcome *o, int brief)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++) n += shown(&o->checks[i], brief);
    if (n) fprintf(f, "  %-22s %-24s %-6s %s\n", "phase", "shape", "result", "detail");
    else fprintf(f, "  (all %zu checks pass)\n", o->n);
}

void gate_print(FILE *f, const gate_config *c, const run_data *run, const run_data *ref,
                const gate_outcome *ladder, const gate_outcome *reg, int brief)
{
    char text[96];
    size_t checks = 0, failures = 0;
    if (ladder) {
        run_line(f, "ladder gate:", run);
        fprintf(f, "  bounds from %s on the ratio to %s; pass when the %.0f%% CI's upper end is under "
                "the bound and the phase is correct on every shape it claims\n",
                c->path, c->baseline, run->ci_level * 100);
        print_head(f, ladder, brief);
        for (size_t i = 0; i < ladder->n; i++) {
            const gate_check *k = &ladder->checks[i];
            if (!shown(k, brief)) continue;
            if (k->has_shape) run_shape_text(&k->shape, text, sizeof text);
            else snprintf(text, sizeof text, "%s", k->kind == CHECK_CORRECT ? "(all shapes)" : "-");
            fprintf(f, "  %-22s %-24s %-6s %s\n", k->phase, text, k->pass ? "pass" : "FAIL", k->message);
        }
        checks += ladder->n;
        failures += ladder->failures;
    }
    if (reg) {
        run_line(f, "\nagainst the reference run", ref);
        char rule[1024];
        drift_params used = c->drift;
        used.floor = reg->set_floor;
        drift_rule_text(rule, sizeof rule, &used, reg->set_runs, reg->set_measured);
        fprintf(f, "  %s\n", rule);
        if (reg->baseline_changed) fprintf(f, "  %s\n", reg->baseline_text);   /* loud, even --brief */
        print_head(f, reg, brief);
        for (size_t i = 0; i < reg->n; i++) {
            const gate_check *k = &reg->checks[i];
            if (!shown(k, brief)) continue;
            if (k->has_shape) run_shape_text(&k->shape, text, sizeof text);
            else snprintf(text, sizeof text, "-");
            fprintf(f, "  %-22s %-24s %-6s %s\n", k->phase, text, k->pass ? "pass" : "FAIL", k->message);
        }
        if (reg->skipped)
            fprintf(f, "  (%zu shape%s of the reference not compared: %s)\n", reg->skipped,
                    reg->skipped == 1 ? "" : "s", reg->baseline_changed ? "the baseline library changed"
                    : "absent from this run or without a baseline timing");
        checks += reg->n;
        failures += reg->failures;
    }
    if (failures)
        fprintf(f, "\ngate: FAIL: %zu of %zu checks failed\n", failures, checks);
    else
        fprintf(f, "\ngate: PASS (%zu checks)\n", checks);
}

static json_t *shape_json(const attn_shape *s)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "batch", s->batch, "heads", s->heads,
                     "seq_q", s->seq_q, "seq_kv", s->seq_kv, "head_dim", s->head_dim,
                     "causal", s->causal);
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *checks_json(const gate_outcome *o)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < o->n; i++) {
        const gate_check *k = &o->checks[i];
        json_t *j = json_pack("{s:s, s:s, s:o, s:b, s:s}", "phase", k->phase, "check",
                              kind_name(k->kind), "shape", k->has_shape ? shape_json(&k->shape) : json_null(),
                              "pass", k->pass, "message", k->message);
        if (k->kind == CHECK_BOUND && isfinite(k->ratio))
            json_object_set_new(j, "ratio", json_pack("{s:o, s:o, s:o, s:o}", "median", num(k->ratio),
                                "ci_lo", num(k->lo), "ci_hi", num(k->hi), "bound", num(k->bound)));
        if (k->kind == CHECK_REGRESSION && k->has_shape) {
            const reg_change *c = &k->change;
            json_object_set_new(j, "verdict", json_string(drift_verdict_name(k->verdict)));
            json_object_set_new(j, "ref", json_pack("{s:o, s:o, s:o}", "ratio", num(k->ref_drift.center),
                                                    "spread", num(k->ref_drift.used_spread),
                                                    "tolerance", num(k->ref_drift.tol)));
            json_object_set_new(j, "now", json_pack("{s:o, s:o, s:o}", "ratio", num(k->now),
                                                    "ci_lo", num(k->now_lo), "ci_hi", num(k->now_hi)));
            json_object_set_new(j, "change", json_pack("{s:o, s:o, s:o}", "median", num(c->change),
                                                       "ci_lo", num(c->lo), "ci_hi", num(c->hi)));
        }
        json_array_append_new(arr, j);
    }
    return arr;
}

json_t *gate_json(const gate_config *c, const run_data *run, const run_data *ref,
                  const gate_outcome *ladder, const gate_outcome *reg)
{
    size_t failures = (ladder ? ladder->failures : 0) + (reg ? reg->failures : 0);
    json_t *j = json_pack("{s:s, s:s, s:s, s:o, s:b, s:I}", "evidence", run->path, "gpu", run->slug,
                          "config", c->path, "against", ref ? json_string(ref->path) : json_null(),
                          "pass", failures == 0, "failures", (json_int_t)failures);
    json_object_set_new(j, "rule", json_pack("{s:s, s:s, s:f, s:f, s:I, s:b, s:f, s:I, s:s}", "baseline",
                        c->baseline, "method", "drift", "k_sigma", c->drift.k_sigma, "floor", reg ? reg->set_floor : c->drift.floor,
                        "set_runs", (json_int_t)(reg ? reg->set_runs : 0), "set_measured",
                        reg ? reg->set_measured : 0, "ci_level", c->reg.ci_level,
                        "resamples", (json_int_t)c->reg.resamples,
                        "shapes", c->reg.all_shapes ? "all" : "headline and throughput"));
    json_object_set_new(j, "ladder", ladder ? checks_json(ladder) : json_null());
    json_object_set_new(j, "regression", reg ? checks_json(reg) : json_null());
    if (reg) json_object_set_new(j, "regression_skipped", json_integer((json_int_t)reg->skipped));
    if (reg) json_object_set_new(j, "baseline_changed", json_boolean(reg->baseline_changed));
    return j;
}
