/* evidence/text_table.c: the plain-text results table of `run` and `show`, from a run
 * read by the one evidence reader. */
#include "evidence/text_table.h"

#include <math.h>
#include <string.h>
#include "core/shapes.h"

void table_print(FILE *f, const run_data *run, const char *tag)
{
    fprintf(f, "\n%-22s %-26s %12s %25s %22s %9s %s\n", "implementation", "shape", "median us",
           "95% CI (us)", "ratio to baseline", "TFLOP/s", "check");
    for (size_t i = 0; i < run->n_results; i++) {
        const run_result *r = &run->results[i];
        if (tag && strcmp(r->tag, tag) != 0) continue;
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
        if (r->has_ratio) snprintf(ratio, sizeof ratio, "%.3f [%.3f, %.3f]", r->ratio, r->ratio_lo, r->ratio_hi);
        fprintf(f, "%-22s %-26s %12.3f %25s %22s %9.1f %s\n", r->impl, text, r->median_us, ci, ratio,
               isfinite(r->tflops) ? r->tflops : 0.0, check);
    }
}
