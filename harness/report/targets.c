/* report/targets.c: the paired method's targets from the accepted runs (targets.h). */
#include "report/targets.h"

#include <math.h>
#include <string.h>
#include "evidence/result_ratio.h"

#define SAME_KERNEL_TARGET 0.01
#define REPRODUCTION_TARGET 0.02

static int is_rung(const run_data *r, const char *name)
{
    const run_impl *im = run_find_impl(r, name);
    return im && !strcmp(im->kind, "phase");
}

int report_same_kernel_spread(const run_data *const *runs, size_t n_runs, size_t *n_pairs, double *lo, double *hi)
{
    *n_pairs = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t k = 0; k < n_runs; k++) {
        const run_data *r = runs[k];
        for (size_t i = 0; i < r->n_results; i++) {
            const run_result *a = &r->results[i];
            double qa, qb;
            if (!a->init_note || !a->init_note[0] || !is_rung(r, a->impl) || !result_pairs_decide(r, a) ||
                result_point_ratio(r, a, r->baseline, &qa))
                continue;
            for (size_t j = i + 1; j < r->n_results; j++) {
                const run_result *b = &r->results[j];
                if (!run_same_kernel(a, b) || !run_same_shape(&a->shape, &b->shape) ||
                    !strcmp(a->impl, b->impl) || !is_rung(r, b->impl) || !result_pairs_decide(r, b) ||
                    result_point_ratio(r, b, r->baseline, &qb))
                    continue;
                double d = qb / qa - 1;
                (*n_pairs)++;
                *lo = fmin(*lo, d);
                *hi = fmax(*hi, d);
            }
        }
    }
    return *n_pairs ? 0 : -1;
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
    size_t n_pairs;
    double lo, hi;
    fprintf(f, "Targets of the paired method, from the %zu accepted runs: ", g->n_set);
    if (report_same_kernel_spread(g->set, g->n_set, &n_pairs, &lo, &hi) == 0)
        fprintf(f, "the same kernel measured twice in one run (two rungs whose init notes are identical at a "
                "point, both in the rotation; the later rung over the earlier) reads %zu pairs from %+.2f%% to "
                "%+.2f%% (target within %.0f%%); ", n_pairs, 100 * lo, 100 * hi, 100 * SAME_KERNEL_TARGET);
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
