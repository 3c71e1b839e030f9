/* gate/ab_judge.c: a recorded A/B comparison decided again (ab_judge.h). */
#include "gate/ab_judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "core/json_file.h"
#include "core/names.h"
#include "evidence/evidence_file.h"
#include "gate/ab_rule.h"

#define JUDGE_MAX_ROWS 10000
#define JUDGE_MAX_PAIRS 100000

/* The samples of one side, validated: n >= 5 finite positive values. NULL with err. */
static double *side_samples(const json_t *row, const char *side, size_t *n, const char *path, size_t i,
                            char *err, size_t errlen)
{
    const json_t *arr = json_object_get(json_object_get(row, side), "samples_us");
    if (!json_is_array(arr) || json_array_size(arr) < 5 || json_array_size(arr) > JUDGE_MAX_PAIRS) {
        json_file_fail(err, errlen, path, "rows[%zu].%s.samples_us: expected an array of 5..%d numbers", i, side,
                       JUDGE_MAX_PAIRS);
        return NULL;
    }
    *n = json_array_size(arr);
    double *x = malloc(*n * sizeof *x);
    if (!x) {
        json_file_fail(err, errlen, path, "out of memory");
        return NULL;
    }
    for (size_t k = 0; k < *n; k++) {
        const json_t *v = json_array_get(arr, k);
        x[k] = json_is_number(v) ? json_number_value(v) : NAN;
        if (!isfinite(x[k]) || x[k] <= 0 || x[k] > 1e9) {
            json_file_fail(err, errlen, path, "rows[%zu].%s.samples_us[%zu]: expected a positive time in us", i,
                           side, k);
            free(x);
            return NULL;
        }
    }
    return x;
}

/* A row's kind: recorded, else by the layout's rule (phases are NN_name). */
static int is_baseline(const json_t *row, const char *impl)
{
    const char *kind = json_string_value(json_object_get(row, "kind"));
    if (kind) return !strcmp(kind, "baseline");
    return !(impl[0] >= '0' && impl[0] <= '9' && impl[1] >= '0' && impl[1] <= '9' && impl[2] == '_');
}

static double change_field(const json_t *row, const char *key)
{
    const json_t *v = json_object_get(json_object_get(row, "change"), key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void ab_print_slowed(const json_t *rows)
{
    static const char *const order[] = { "regressed", "failed", "throttled", "inconclusive" };
    size_t shown = 0;
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++)
        for (size_t i = 0; i < json_array_size(rows); i++) {
            const json_t *row = json_array_get(rows, i);
            const char *v = json_string_value(json_object_get(row, "verdict"));
            const char *impl = json_string_value(json_object_get(row, "impl"));
            const char *shape = json_string_value(json_object_get(row, "shape"));
            const char *sel = json_string_value(json_object_get(row, "selected"));
            if (!v || !impl || !shape || strcmp(v, order[o])) continue;
            if (!shown++) printf("the points that block or may (%s):\n", "change head/base [95% CI], why timed");
            double m = change_field(row, "median"), lo = change_field(row, "ci_lo"), hi = change_field(row, "ci_hi");
            if (isfinite(m) && isfinite(lo) && isfinite(hi))
                printf("  %-12s %-22s %-24s %+7.2f%% [%+.2f%%, %+.2f%%] (%s)\n", v, impl, shape, (m - 1) * 100,
                       (lo - 1) * 100, (hi - 1) * 100, sel ? sel : "fixed");
            else
                printf("  %-12s %-22s %-24s no change measured (%s)\n", v, impl, shape, sel ? sel : "fixed");
        }
}

/* Longer than a harness function should be: one pass over the file's rows checks each,
 * redraws its verdict from its pairs and counts it, and every refusal on the way leaves
 * by the one cleanup of the loaded document; a row's steps split out would each need the
 * document, the counts and that exit. */
int ab_judge_file(const char *path, double tolerance, double baseline_tolerance, const char *out)
{
    char err[1024] = "";
    json_t *doc = json_file_load(path, (size_t)32 << 20, err, sizeof err);
    int rc = 0;
    size_t counts[4] = { 0 }, blocked = 0;
    if (!doc) goto bad;
    const json_t *rows = json_object_get(doc, "rows");
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!json_is_object(doc) || !schema || strcmp(schema, "attnladder-ab")) {
        json_file_fail(err, sizeof err, path, "schema: expected \"attnladder-ab\"");
        goto bad;
    }
    if (!json_is_array(rows) || !json_array_size(rows) || json_array_size(rows) > JUDGE_MAX_ROWS) {
        json_file_fail(err, sizeof err, path, "rows: expected an array of 1..%d comparisons", JUDGE_MAX_ROWS);
        goto bad;
    }
    json_int_t file_seed = json_integer_value(json_object_get(doc, "seed"));
    printf("%-22s %-24s %s\n", "implementation", "shape", "head vs base [95% CI], pairs, verdict (judged again)");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        const char *impl = json_string_value(json_object_get(row, "impl"));
        const char *shape = json_string_value(json_object_get(row, "shape"));
        const char *was = json_string_value(json_object_get(row, "verdict"));
        if (!json_is_object(row) || !impl || !name_is_safe(impl) || !shape || strlen(shape) > 96 || !was) {
            json_file_fail(err, sizeof err, path, "rows[%zu]: expected impl (a name), shape and verdict strings", i);
            goto bad;
        }
        if (!strcmp(was, "failed") || !strcmp(was, "throttled")) {
            /* no pairs to judge: a failed check or too many clock events blocks either way */
            printf("%-22s %-24s %s (as recorded)\n", impl, shape, was);
            blocked++;
            continue;
        }
        size_t nb = 0, nh = 0;
        double *b = side_samples(row, "base", &nb, path, i, err, sizeof err);
        double *h = b ? side_samples(row, "head", &nh, path, i, err, sizeof err) : NULL;
        if (!b || !h || nb != nh) {
            if (b && h) json_file_fail(err, sizeof err, path, "rows[%zu]: base and head hold %zu and %zu samples", i, nb, nh);
            free(b);
            free(h);
            goto bad;
        }
        const json_t *js = json_object_get(row, "bootstrap_seed");
        json_int_t seed = json_is_integer(js) && json_integer_value(js) >= 0 ? json_integer_value(js) : file_seed;
        ab_change c;
        int fail = ab_change_ci(b, h, nb, 2000, (uint64_t)seed, 0.95, &c);
        free(b);
        free(h);
        if (fail) {
            json_file_fail(err, sizeof err, path, "rows[%zu]: no change computed", i);
            goto bad;
        }
        double tol = is_baseline(row, impl) ? baseline_tolerance : tolerance;
        ab_verdict v = ab_decide(&c, tol);
        counts[v]++;
        if (v == AB_REGRESSED) rc = 1;
        printf("%-22s %-24s %+7.2f%% [%+.2f%%, %+.2f%%] n=%-4zu %s%s\n", impl, shape, (c.change - 1) * 100,
               (c.lo - 1) * 100, (c.hi - 1) * 100, nb, ab_verdict_name(v),
               strcmp(was, ab_verdict_name(v)) ? " (recorded: different)" : "");
        json_object_set_new(row, "recorded_verdict", json_string(was));
        json_object_set_new(row, "verdict", json_string(ab_verdict_name(v)));
        json_object_set_new(row, "tolerance", json_real(tol));
        json_object_set_new(row, "change", json_pack("{s:f, s:f, s:f}", "median", c.change, "ci_lo", c.lo, "ci_hi", c.hi));
    }
    if (blocked) rc = 1;
    ab_print_slowed(rows);
    printf("ab --judge: %zu unchanged, %zu regressed, %zu improved, %zu inconclusive, %zu failed or throttled "
           "(tolerance %.3g, baselines %.3g)\n", counts[AB_UNCHANGED], counts[AB_REGRESSED], counts[AB_IMPROVED],
           counts[AB_INCONCLUSIVE], blocked, tolerance, baseline_tolerance);
    if (out) {
        json_object_set_new(doc, "judged", json_pack("{s:s, s:f, s:f}", "from", path, "tolerance", tolerance,
                                                     "baseline_tolerance", baseline_tolerance));
        if (evidence_write_atomic(doc, out, err, sizeof err)) goto bad;
    }
    json_decref(doc);
    return rc;
bad:
    fprintf(stderr, "attnladder ab --judge: %s\n", err);
    json_decref(doc);
    return 2;
}
