/* report/targets.c: the paired method's targets from the accepted runs (targets.h). */
#include "report/targets.h"

#include <math.h>
#include <string.h>
#include "core/numfmt.h"
#include "core/stats.h"
#include "report/baseline_libs.h"
#include "evidence/result_ratio.h"

#define SAME_KERNEL_TARGET 0.01
#define REPRODUCTION_TARGET 0.02

static int is_rung(const run_data *r, const char *name)
{
    const run_impl *im = run_find_impl(r, name);
    return im && !strcmp(im->kind, "phase");
}

/* A rung's paired ratio to the run's baseline at a point, where the rotation decides it and
 * an init note names its kernel; -1 without (a baseline, a row of separate medians). */
static int rung_point(const run_data *r, const run_result *x, double *ratio)
{
    if (!x || !x->init_note || !x->init_note[0] || !is_rung(r, x->impl) || !result_pairs_decide(r, x)) return -1;
    return result_point_ratio(r, x, r->baseline, ratio);
}

int report_same_kernel_spread(const run_data *const *runs, size_t n_runs, report_spread *out)
{
    memset(out, 0, sizeof *out);
    out->lo.d = INFINITY;
    out->hi.d = -INFINITY;
    for (size_t k = 0; k < n_runs; k++) {
        const run_data *r = runs[k];
        for (size_t i = 0; i < r->n_results; i++) {
            const run_result *a = &r->results[i];
            double qa, qb;
            if (rung_point(r, a, &qa)) continue;
            for (size_t j = i + 1; j < r->n_results; j++) {
                const run_result *b = &r->results[j];
                if (!run_same_kernel(a, b) || !shape_same(&a->shape, &b->shape) ||
                    !strcmp(a->impl, b->impl) || rung_point(r, b, &qb))
                    continue;
                /* the later rung (NN_ order) over the earlier */
                const report_spread_end e = strcmp(b->impl, a->impl) > 0
                                                ? (report_spread_end){ qb / qa - 1, b->impl, a->impl, a->shape }
                                                : (report_spread_end){ qa / qb - 1, a->impl, b->impl, a->shape };
                out->n_pairs++;
                if (e.d < out->lo.d) out->lo = e;
                if (e.d > out->hi.d) out->hi = e;
            }
        }
    }
    return out->n_pairs ? 0 : -1;
}

int report_spread_past_target(char *buf, size_t len, const report_spread *s, double target)
{
    size_t used = 0;
    if (len) buf[0] = 0;
    const report_spread_end *ends[2] = { &s->lo, &s->hi };
    for (int i = 0; i < 2 && s->n_pairs; i++) {
        const report_spread_end *e = ends[i];
        if (fabs(e->d) <= target) continue;
        char at[96];
        run_shape_text(&e->at, at, sizeof at);
        int w = snprintf(buf + used, len > used ? len - used : 0, "%s%s: `%s` over `%s` %+.2f%%", used ? "; " : "",
                         at, e->later, e->earlier, 100 * e->d);
        if (w > 0) used += (size_t)w;
    }
    if (!used) return 0;
    if (used < len)
        snprintf(buf + used, len - used, " (past the target: the method's noise at that point, or two rungs whose "
                 "notes agree there but not their code)");
    return 1;
}

#define TOP_STEP_MAX_RUNGS 64

/* One point's step: the top rung's kernel (its rungs' median) over the lowest median of
 * the other kernels below. 0 with *step set, 1 when no other kernel below has a ratio, -1
 * when the top rung has none. */
static int point_step(const run_data *r, const run_result *x, double *step)
{
    double mine[TOP_STEP_MAX_RUNGS + 1], vals[TOP_STEP_MAX_RUNGS];
    const char *note[TOP_STEP_MAX_RUNGS];
    size_t n_mine = 0, n = 0;
    if (rung_point(r, x, &mine[n_mine])) return -1;
    n_mine++;
    for (size_t i = 0; i < r->n_impls && n_mine + n <= TOP_STEP_MAX_RUNGS; i++) {   /* the rungs below */
        if (strcmp(r->impls[i].name, x->impl) >= 0) continue;
        const run_result *y = run_find(r, r->impls[i].name, &x->shape);
        double v;
        if (rung_point(r, y, &v)) continue;
        if (run_same_kernel(x, y)) mine[n_mine++] = v;
        else note[n] = y->init_note, vals[n++] = v;
    }
    if (!n) return 1;
    double best = INFINITY;
    for (size_t i = 0; i < n; i++) {   /* each other kernel once: its rungs' median */
        double group[TOP_STEP_MAX_RUNGS];
        size_t g = 0;
        int seen = 0;
        for (size_t j = 0; j < n && !seen; j++) seen = j < i && !strcmp(note[j], note[i]);
        if (seen) continue;
        for (size_t j = i; j < n; j++)
            if (!strcmp(note[j], note[i])) group[g++] = vals[j];
        best = fmin(best, stats_median(group, g));
    }
    *step = stats_median(mine, n_mine) / best - 1;
    return 0;
}

int report_top_rung_step(const run_data *r, double over, report_top_step *out)
{
    memset(out, 0, sizeof *out);
    out->worst = NAN;
    for (size_t i = 0; i < r->n_impls; i++)
        if (is_rung(r, r->impls[i].name) && (!out->top || strcmp(r->impls[i].name, out->top) > 0))
            out->top = r->impls[i].name;
    if (!out->top) return -1;
    for (size_t i = 0; i < r->n_results; i++) {
        const run_result *x = &r->results[i];
        double step;
        /* the first row of the top rung at its shape: the one every other table reads */
        if (strcmp(x->impl, out->top) || run_find(r, out->top, &x->shape) != x) continue;
        int rc = point_step(r, x, &step);
        if (rc < 0) continue;
        if (rc > 0) {
            out->one_kernel++;
            continue;
        }
        out->points++;
        out->over += step > over;
        if (!(step <= out->worst)) {
            out->worst = step;
            out->worst_at = x->shape;
        }
    }
    return out->points ? 0 : -1;
}

int report_rung_vs_baseline(const run_data *r, const char *rung, report_vs_baseline *out)
{
    memset(out, 0, sizeof *out);
    out->geomean = out->highest = out->lowest = NAN;
    double logs = 0;
    for (size_t i = 0; i < r->n_results; i++) {
        const run_result *x = &r->results[i];
        double q;
        /* the first row of the rung at its shape: the one every other table reads */
        if (strcmp(x->impl, rung) || run_find(r, rung, &x->shape) != x) continue;
        if (!x->timed || result_point_ratio(r, x, r->baseline, &q) || !(q > 0) || !isfinite(q)) continue;
        out->points++;
        out->at_or_below += q <= 1.0;
        logs += log(q);
        if (!(q <= out->highest)) {   /* the first point, or a higher one */
            out->highest = q;
            out->highest_at = x->shape;
        }
        if (!(q >= out->lowest)) {
            out->lowest = q;
            out->lowest_at = x->shape;
        }
    }
    if (!out->points) return -1;
    out->geomean = exp(logs / (double)out->points);
    return 0;
}

void report_vs_baseline_table(FILE *f, const report_ctx *c, const run_data *r)
{
    fprintf(f, "### Each rung against %s across the run\n\n", r->baseline);
    char lib[96];
    report_baseline_library(lib, sizeof lib, r);
    fprintf(f, "Every point where the run has a rung's ratio to `%s`, %s (the headline, sweep, ragged and "
            "decode shapes; paired where the rotation decides it, else of separate medians): how many of them "
            "are at or below 1.00 (unrounded: 1.0004 is above), their geometric mean, and the highest and the "
            "lowest ratio. A rung ahead of the baseline everywhere has all its points at or below 1.00.\n\n",
            r->baseline, lib);
    fprintf(f, "| rung | points | at or below 1.00 | geometric mean | highest | lowest |\n");
    fprintf(f, "| --- | ---: | ---: | ---: | --- | --- |\n");
    for (size_t i = 0; i < c->n_phases; i++) {
        const char *ph = c->phases[i];
        report_vs_baseline v;
        if (!is_rung(r, ph) || report_rung_vs_baseline(r, ph, &v)) continue;
        char hi[96], lo[96], g[32], h[32], l[32];
        run_shape_text(&v.highest_at, hi, sizeof hi);
        run_shape_text(&v.lowest_at, lo, sizeof lo);
        fprintf(f, "| [%s](phases/%s.md) | %zu | %zu | %s | %s (%s) | %s (%s) |\n", ph, ph, v.points, v.at_or_below,
                fmt_num(g, sizeof g, v.geomean), fmt_num(h, sizeof h, v.highest), hi, fmt_num(l, sizeof l, v.lowest),
                lo);
    }
    fprintf(f, "\n");
}

void report_vs_baseline_lines(FILE *f, const run_data *r)
{
    int head = 0;
    for (size_t i = 0; i < r->n_impls; i++) {
        const char *ph = r->impls[i].name;
        report_vs_baseline v;
        if (!is_rung(r, ph) || report_rung_vs_baseline(r, ph, &v)) continue;
        if (!head++) {
            char lib[96];
            report_baseline_library(lib, sizeof lib, r);
            fprintf(f, "\neach rung against %s at every point of the run (paired where the rotation decides it; "
                    "%s is %s):\n%-28s %6s %16s %14s  %s\n", r->baseline, r->baseline, lib, "rung", "points",
                    "at or below 1.00", "geometric mean", "highest (point)");
        }
        char at[96], g[32], h[32];
        run_shape_text(&v.highest_at, at, sizeof at);
        fprintf(f, "%-28s %6zu %16zu %14s  %s (%s)\n", ph, v.points, v.at_or_below, fmt_num(g, sizeof g, v.geomean),
                fmt_num(h, sizeof h, v.highest), at);
    }
}

void report_reproduction(const run_data *a, const run_data *b, double within, size_t *n_rows, size_t *n_within)
{
    *n_rows = *n_within = 0;
    for (size_t i = 0; i < a->n_results; i++) {
        const run_result *x = &a->results[i];
        const run_impl *im = run_find_impl(a, x->impl);
        if (!im || (strcmp(im->kind, "phase") && strcmp(x->impl, a->baseline)) || !strcmp(x->impl, a->baseline))
            continue;
        const run_result *y = run_find(b, x->impl, &x->shape);
        double qa, qb;
        if (!y || result_point_ratio(a, x, a->baseline, &qa) || result_point_ratio(b, y, b->baseline, &qb)) continue;
        (*n_rows)++;
        if (fabs(qb / qa - 1) <= within) (*n_within)++;
    }
}

void report_targets_paragraph(FILE *f, const report_ctx *c, const report_gpu *g)
{
    if (g->n_set < 2) return;
    report_spread sp;
    fprintf(f, "Targets of the paired method, from the %zu accepted runs: ", g->n_set);
    if (report_same_kernel_spread(g->set, g->n_set, &sp) == 0) {
        char past[768];
        fprintf(f, "the same kernel measured twice in one run (two rungs whose init notes are identical at a "
                "point, both in the rotation; the later rung over the earlier) reads %zu pairs from %+.2f%% to "
                "%+.2f%% (target within %.0f%%)", sp.n_pairs, 100 * sp.lo.d, 100 * sp.hi.d, 100 * SAME_KERNEL_TARGET);
        if (report_spread_past_target(past, sizeof past, &sp, SAME_KERNEL_TARGET)) fprintf(f, ", at %s", past);
        fprintf(f, "; ");
    }
    fprintf(f, "a session reproducing another, every rung's ratio to `%s` at every shape both timed (target "
            "%.0f%%):", c->cfg->baseline, 100 * REPRODUCTION_TARGET);
    for (size_t i = 0; i < g->n_set; i++)
        for (size_t j = i + 1; j < g->n_set; j++) {
            size_t n, w;
            report_reproduction(g->set[i], g->set[j], REPRODUCTION_TARGET, &n, &w);
            fprintf(f, "%s `%.16s` and `%.16s` %zu of %zu rows within %.0f%%", i + j > 1 ? ";" : "", g->set[i]->base,
                    g->set[j]->base, w, n, 100 * REPRODUCTION_TARGET);
        }
    fprintf(f, ".\n\n");
}
