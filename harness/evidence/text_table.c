/* table.c: the plain-text results table printed by run and show. */
#include "evidence/text_table.h"

#include <string.h>
#include "core/shapes.h"

void table_print(FILE *f, json_t *results, const char *tag)
{
    fprintf(f, "\n%-22s %-26s %12s %25s %22s %9s %s\n", "implementation", "shape", "median us",
           "95% CI (us)", "ratio to baseline", "TFLOP/s", "check");
    size_t i;
    json_t *r;
    json_array_foreach(results, i, r) {
        const char *rtag = json_string_value(json_object_get(r, "tag"));
        if (tag && (!rtag || strcmp(rtag, tag) != 0)) continue;
        json_t *js = json_object_get(r, "shape");
        attn_shape s = {
            (int)json_integer_value(json_object_get(js, "batch")),
            (int)json_integer_value(json_object_get(js, "heads")),
            (int)json_integer_value(json_object_get(js, "seq_q")),
            (int)json_integer_value(json_object_get(js, "seq_kv")),
            (int)json_integer_value(json_object_get(js, "head_dim")),
            (int)json_integer_value(json_object_get(js, "causal")), 0.0f };
        char text[96];
        shape_format(&s, text, sizeof text);
        const char *name = json_string_value(json_object_get(r, "impl"));
        if (!json_is_true(json_object_get(r, "supported"))) {
            fprintf(f, "%-22s %-26s %12s  %s\n", name, text, "-",
                   json_string_value(json_object_get(r, "reason")));
            continue;
        }
        json_t *c = json_object_get(r, "correctness");
        const char *check = !c ? "-" : json_is_true(json_object_get(c, "pass")) ? "ok" : "FAIL";
        json_t *g = json_object_get(json_object_get(r, "timing"), "graph");
        if (!g) {
            fprintf(f, "%-22s %-26s %12s %25s %22s %9s %s\n", name, text, "-", "-", "-", "-", check);
            continue;
        }
        char ci[64], ratio[64] = "-";
        snprintf(ci, sizeof ci, "[%.3f, %.3f]", json_number_value(json_object_get(g, "ci_lo_us")),
                 json_number_value(json_object_get(g, "ci_hi_us")));
        json_t *der = json_object_get(r, "derived");
        json_t *ra = json_object_get(der, "ratio");
        if (json_is_object(ra))
            snprintf(ratio, sizeof ratio, "%.3f [%.3f, %.3f]",
                     json_number_value(json_object_get(ra, "median")),
                     json_number_value(json_object_get(ra, "ci_lo")),
                     json_number_value(json_object_get(ra, "ci_hi")));
        fprintf(f, "%-22s %-26s %12.3f %25s %22s %9.1f %s\n", name, text,
               json_number_value(json_object_get(g, "median_us")), ci, ratio,
               json_number_value(json_object_get(der, "tflops")), check);
    }
}

