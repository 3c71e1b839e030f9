/* evidence/text_table.c: the plain-text results table of `run` and `show`, from a run
 * read by the one evidence reader. */
#include "evidence/text_table.h"

#include <math.h>
#include <string.h>
#include "core/shapes.h"
#include "evidence/result_ratio.h"

/* A run made with --shape tags the headline shapes "custom": the headline table goes by
 * the shape, not by the tag. */
static int is_headline_shape(const attn_shape *s)
{
    shape_point h[8];
    size_t n = shapes_headline(h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < n; i++)
        if (shape_same(&h[i].s, s)) return 1;
    return 0;
}

void table_print(FILE *f, const run_data *run, const char *tag)
{
    table_print_rows(f, run, tag, 0);
}

void table_print_headline(FILE *f, const run_data *run)
{
    table_print_rows(f, run, NULL, 1);
}

void table_print_rows(FILE *f, const run_data *run, const char *tag, int headline_only)
{
    fprintf(f, "\n%-22s %-26s %12s %25s %22s %9s %s\n", "implementation", "shape", "median us",
           "95% CI (us)", "ratio to baseline", "TFLOP/s", "check");
    for (size_t i = 0; i < run->n_results; i++) {
        const run_result *r = &run->results[i];
        if (tag && strcmp(r->tag, tag) != 0) continue;
        if (headline_only && !is_headline_shape(&r->shape)) continue;
        char text[96];
        shape_format(&r->shape, text, sizeof text);
        if (!r->supported) {
            fprintf(f, "%-22s %-26s %12s  %s\n", r->impl, text, "-", r->reason ? r->reason : "(null)");
            continue;
        }
        const char *check = !r->checked ? "-" : r->correct ? "ok" : "FAIL";
        if (!r->timed) {
            fprintf(f, "%-22s %-26s %12s %25s %22s %9s %s\n", r->impl, text, "-", "-", "-", "-", check);
            continue;
        }
        char ci[64], ratio[64] = "-";
        snprintf(ci, sizeof ci, "[%.3f, %.3f]", r->ci_lo_us, r->ci_hi_us);
        double q = r->ratio, lo = r->ratio_lo, hi = r->ratio_hi;
        /* a slow rung's pairs with the baseline alone do not decide (result_ratio.h): the
         * table shows the ratio the gate and the reports read */
        if (r->has_ratio && run->ratio_rotation && r->n_paired && !result_pairs_decide(run, r) &&
            result_ratio(run, r, r->ratio_baseline, &q, &lo, &hi) != 0)
            q = lo = hi = NAN;
        if (r->has_ratio && isfinite(q)) snprintf(ratio, sizeof ratio, "%.3f [%.3f, %.3f]", q, lo, hi);
        fprintf(f, "%-22s %-26s %12.3f %25s %22s %9.1f %s\n", r->impl, text, r->median_us, ci, ratio,
               isfinite(r->tflops) ? r->tflops : 0.0, check);
    }
    /* which figure is which: the two regimes differ by up to 10% at long shapes */
    fprintf(f, "median us: each implementation timed alone (CUDA graph); ratios: %s\n",
            run->ratio_rotation ? "paired, the median of per-round quotients with the baseline (every "
                                  "implementation of a point timed again in rotation)"
                                : "the quotient of the two separate medians");
}
