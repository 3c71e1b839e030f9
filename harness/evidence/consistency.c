/* evidence/consistency.c: a run's limits, its printable text, and the run against itself
 * (consistency.h). Runs after the structural validation of evidence_file.c, so every
 * member read here has the type the schema gives it. */
#include "evidence/consistency.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/names.h"
#include "core/stats.h"
#include "core/text_safe.h"

typedef struct {
    char *err;
    size_t len;
    int failed;
    double rel_l2, max_abs;        /* the run's correctness bounds */
    size_t total_samples;
} cstate;

static int cfail(cstate *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfail(cstate *c, const char *fmt, ...)
{
    if (c->failed) return -1;
    c->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->len, fmt, ap);
    va_end(ap);
    return -1;
}

static json_t *get(const json_t *o, const char *key) { return json_object_get(o, key); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void sort_doubles(double *x, size_t n) { qsort(x, n, sizeof *x, cmp_double); }
static double num(const json_t *o, const char *key) { return json_number_value(get(o, key)); }
static const char *str(const json_t *o, const char *key) { return json_string_value(get(o, key)); }

/* ---- limits ---------------------------------------------------------------------------- */

/* Every array and object of the document, bounded; strings checked as printable text.
 * path is built only where a failure is reported. */
typedef struct {
    const char *key;      /* the member's key, or NULL for an array element */
    size_t index;
    const void *up;
} step;

static void path_text(const step *s, char *buf, size_t len)
{
    if (!s || !s->up) {
        buf[0] = '\0';
        if (s && s->key) snprintf(buf, len, "%s", s->key);
        return;
    }
    char up[512];
    path_text(s->up, up, sizeof up);
    if (s->key) snprintf(buf, len, "%s%s%s", up, up[0] ? "." : "", s->key);
    else snprintf(buf, len, "%s[%zu]", up, s->index);
}

/* The longest text a string at this place may hold: paths (argv, *_path) up to a path's
 * length, the rest a line. */
static size_t text_limit(const step *s)
{
    const step *parent = s->up;
    if (s->key) {
        size_t n = strlen(s->key);
        if (n >= 4 && !strcmp(s->key + n - 4, "path")) return 4096;
    } else if (parent && parent->key && !strcmp(parent->key, "argv")) {
        return 4096;
    }
    return TEXT_MAX_LINE;
}

static void walk(cstate *c, const json_t *x, const step *at, int depth)
{
    char p[600], why[160];
    if (c->failed) return;
    if (depth > 12) {
        path_text(at, p, sizeof p);
        cfail(c, "%s: nested deeper than the 12 levels evidence has", p);
        return;
    }
    if (json_is_string(x)) {
        if (text_check(json_string_value(x), text_limit(at), why, sizeof why)) {
            path_text(at, p, sizeof p);
            cfail(c, "%s: %s", p, why);
        }
    } else if (json_is_array(x)) {
        size_t n = json_array_size(x);
        if (n > EVIDENCE_MAX_SAMPLES) {
            path_text(at, p, sizeof p);
            cfail(c, "%s: %zu elements, more than the %d any list of a run may hold", p, n, EVIDENCE_MAX_SAMPLES);
            return;
        }
        for (size_t i = 0; i < n && !c->failed; i++) {
            step s = { NULL, i, at };
            walk(c, json_array_get(x, i), &s, depth + 1);
        }
    } else if (json_is_object(x)) {
        if (json_object_size(x) > EVIDENCE_MAX_MEMBERS) {
            path_text(at, p, sizeof p);
            cfail(c, "%s: %zu members, more than the %d an object of a run may hold", p[0] ? p : "(document)",
                  json_object_size(x), EVIDENCE_MAX_MEMBERS);
            return;
        }
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)x, k, v) {
            step s = { k, 0, at };
            if (text_check(k, TEXT_MAX_LABEL, why, sizeof why)) {
                path_text(at, p, sizeof p);
                cfail(c, "%s: a member name %s", p[0] ? p : "(document)", why);
                return;
            }
            walk(c, v, &s, depth + 1);
            if (c->failed) return;
        }
    }
}

static void at_most(cstate *c, size_t n, size_t max, const char *path, const char *what)
{
    if (!c->failed && n > max) cfail(c, "%s: %zu %s, more than the %zu a run may hold", path, n, what, max);
}

static void count_samples(cstate *c, const json_t *timing)
{
    const char *k;
    json_t *mode;
    json_object_foreach((json_t *)timing, k, mode) c->total_samples += json_array_size(get(mode, "samples_us"));
}

static void check_limits(cstate *c, const json_t *doc)
{
    const json_t *results = get(doc, "results"), *profile = get(doc, "profile");
    at_most(c, json_array_size(get(doc, "implementations")), EVIDENCE_MAX_IMPLS, "implementations", "implementations");
    at_most(c, json_array_size(results), EVIDENCE_MAX_RESULTS, "results", "results");
    at_most(c, json_array_size(get(doc, "input_checks")), EVIDENCE_MAX_INPUT_CHECKS, "input_checks", "checks");
    at_most(c, json_array_size(profile), EVIDENCE_MAX_PROFILES, "profile", "profile rows");
    size_t i, k;
    json_t *x, *kv;
    json_array_foreach(get(doc, "implementations"), i, x) {
        char p[64];
        snprintf(p, sizeof p, "implementations[%zu].resources.kernels", i);
        at_most(c, json_array_size(get(get(x, "resources"), "kernels")), EVIDENCE_MAX_BUILD_KERNELS, p, "kernels");
    }
    json_array_foreach(profile, i, x) {
        char p[64];
        snprintf(p, sizeof p, "profile[%zu].kernels", i);
        at_most(c, json_array_size(get(x, "kernels")), EVIDENCE_MAX_KERNELS, p, "kernels");
        json_array_foreach(get(x, "kernels"), k, kv) {
            snprintf(p, sizeof p, "profile[%zu].kernels[%zu]", i, k);
            at_most(c, json_object_size(get(kv, "metrics")), EVIDENCE_MAX_METRICS, p, "metrics");
            at_most(c, json_array_size(get(kv, "stall_top")), EVIDENCE_MAX_STALLS, p, "stall reasons");
        }
    }
    json_array_foreach(results, i, x) {
        count_samples(c, get(x, "timing"));
        c->total_samples += 2 * json_array_size(get(get(x, "paired"), "impl_us"));
        /* the rounds a rotation discarded are pairs it could have kept: the reader takes no
         * more of them than any list of a run may hold */
        json_int_t dp = json_integer_value(get(get(x, "paired_throttled"), "discarded_pairs"));
        char p[64];
        snprintf(p, sizeof p, "results[%zu].paired_throttled.discarded_pairs", i);
        if (dp > 0) at_most(c, (size_t)dp, EVIDENCE_MAX_SAMPLES, p, "discarded rounds");
    }
    count_samples(c, get(get(doc, "ceilings"), "launch_floor"));
    at_most(c, c->total_samples, EVIDENCE_MAX_TOTAL_SAMPLES, "results", "timing samples in all");
}

/* ---- the forms of printed fields ------------------------------------------------------------ */

static int is_hex(const char *s)
{
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return 0;
    return 1;
}

/* A member that, when present as a string, has at most max bytes and only letters,
 * digits and `extra` ("" allowed when empty_ok). */
static void form(cstate *c, const json_t *obj, const char *path, const char *key, size_t max,
                 const char *extra, int empty_ok)
{
    const char *s = str(obj, key);
    if (c->failed || !s || (empty_ok && !s[0])) return;
    if (strlen(s) > max || !text_only(s, extra))
        cfail(c, "%s.%s: '%.60s%s' is not %s (at most %zu letters, digits%s%s)", path, key, s,
              strlen(s) > 60 ? "..." : "", "of the form this field has", max, extra[0] ? " and " : "",
              extra[0] ? extra : "");
}

static void safe(cstate *c, const json_t *obj, const char *path, const char *key, int empty_ok)
{
    const char *s = str(obj, key);
    if (c->failed || !s || (empty_ok && !s[0]) || name_is_safe(s)) return;
    cfail(c, "%s.%s: '%.60s' is not a safe name (1 to %d letters, digits, '-', '_' or '.')", path, key, s,
          NAME_MAX_LEN);
}

static void check_forms(cstate *c, const json_t *doc)
{
    const json_t *ctx = get(doc, "context"), *gpu = get(ctx, "gpu"), *ver = get(ctx, "versions");
    form(c, gpu, "context.gpu", "name", TEXT_MAX_LABEL, " -_.()/+", 0);
    if (!c->failed) {
        char slug[TEXT_MAX_LABEL * 2];
        name_gpu_slug(str(gpu, "name"), slug, sizeof slug);
        if (strcmp(slug, str(gpu, "slug")))
            cfail(c, "context.gpu.slug: '%s' is not the slug of the GPU's name '%s' ('%s')", str(gpu, "slug"),
                  str(gpu, "name"), slug);
    }
    form(c, gpu, "context.gpu", "uuid", 96, "-/", 1);
    form(c, gpu, "context.gpu", "cuda_visible_devices", 256, ",-_:/", 1);
    form(c, ver, "context.versions", "driver", 64, ".-_+ ", 1);
    form(c, ver, "context.versions", "nvcc", 64, ".-_+ ", 1);
    const char *commit = str(get(ctx, "git"), "commit");
    if (!c->failed && commit && strcmp(commit, "unknown") && !(strlen(commit) >= 7 && strlen(commit) <= 40 && is_hex(commit)))
        cfail(c, "context.git.commit: '%.60s' is not a commit (7 to 40 lower-case hex digits, or 'unknown')", commit);
    form(c, ctx, "context", "host", 253, "-_.", 1);
    form(c, ctx, "context", "planted_slowdown", TEXT_MAX_LABEL, "_-.:,", 0);
    const char *k;
    json_t *v;
    json_object_foreach(get(ctx, "env_overrides"), k, v) {
        if (c->failed) return;
        if (!name_is_safe(k)) cfail(c, "context.env_overrides: '%.60s' is not a variable's name", k);
        else if (json_is_string(v) && json_string_length(v) > 256)
            cfail(c, "context.env_overrides.%s: longer than 256 bytes", k);
    }
    size_t i, j;
    json_t *x, *y;
    json_array_foreach(get(doc, "implementations"), i, x) {
        char p[64];
        snprintf(p, sizeof p, "implementations[%zu]", i);
        const char *t = str(x, "title");
        if (!c->failed && t && strlen(t) > 256) cfail(c, "%s.title: %zu bytes, longer than the 256 allowed", p, strlen(t));
    }
    static const char *const tagged[] = { "results", "input_checks" };
    for (size_t a = 0; a < sizeof tagged / sizeof tagged[0]; a++)
        json_array_foreach(get(doc, tagged[a]), i, x) {
            char p[64];
            snprintf(p, sizeof p, "%s[%zu]", tagged[a], i);
            safe(c, x, p, "tag", 1);
        }
    json_array_foreach(get(doc, "profile"), i, x) {
        char p[64];
        snprintf(p, sizeof p, "profile[%zu]", i);
        safe(c, x, p, "tool", 0);
        json_array_foreach(get(x, "kernels"), j, y) {
            char q[96];
            snprintf(q, sizeof q, "%s.kernels[%zu]", p, j);
            json_object_foreach(get(y, "metrics"), k, v)
                if (!c->failed && !name_is_safe(k)) cfail(c, "%s.metrics: '%.60s' is not a metric's name", q, k);
            size_t s;
            json_t *st;
            json_array_foreach(get(y, "stall_top"), s, st) {
                char r[128];
                snprintf(r, sizeof r, "%s.stall_top[%zu]", q, s);
                safe(c, st, r, "reason", 0);
            }
        }
    }
}

/* ---- the method ------------------------------------------------------------------------------ */

static void int_in(cstate *c, const json_t *m, const char *key, long long lo, long long hi)
{
    json_t *x = get(m, key);
    if (c->failed || !json_is_integer(x)) return;
    long long v = json_integer_value(x);
    if (v < lo || v > hi) cfail(c, "method.%s: %lld is outside [%lld, %lld]", key, v, lo, hi);
}

static void check_method(cstate *c, const json_t *m)
{
    int_in(c, m, "bootstrap_resamples", EVIDENCE_RESAMPLES_MIN, EVIDENCE_RESAMPLES_MAX);
    int_in(c, m, "inner", 1, 1 << 20);
    int_in(c, m, "min_samples", 1, EVIDENCE_MAX_SAMPLES);
    int_in(c, m, "max_samples", 1, EVIDENCE_MAX_SAMPLES);
    int_in(c, m, "seed", 0, 0x7fffffffLL);
    int_in(c, m, "stats_seed", 0, 0x7fffffffffffffffLL);
    int_in(c, m, "l2_scrub_bytes", 0, 1LL << 40);
    /* the gate's bootstraps cost resamples x samples: bounded together, a few seconds */
    json_t *res = get(m, "bootstrap_resamples");
    double work = (double)(json_is_integer(res) ? json_integer_value(res) : 2000) * (double)c->total_samples;
    if (!c->failed && work > EVIDENCE_MAX_BOOTSTRAP_WORK)
        cfail(c, "method.bootstrap_resamples: %lld resamples of %zu samples is more bootstrap work than the "
              "%.0e a run may ask for", (long long)(json_is_integer(res) ? json_integer_value(res) : 2000),
              c->total_samples, EVIDENCE_MAX_BOOTSTRAP_WORK);
    json_t *stats_seed = get(m, "stats_seed");
    if (!c->failed && stats_seed && !json_is_integer(stats_seed)) cfail(c, "method.stats_seed: expected an integer");
    if (!c->failed && json_is_integer(get(m, "min_samples")) && json_is_integer(get(m, "max_samples")) &&
        json_integer_value(get(m, "min_samples")) > json_integer_value(get(m, "max_samples")))
        cfail(c, "method.min_samples: %lld exceeds method.max_samples %lld",
              (long long)json_integer_value(get(m, "min_samples")), (long long)json_integer_value(get(m, "max_samples")));
    static const char *const nonneg[] = { "max_seconds", "rel_ci_target", NULL };
    for (const char *const *k = nonneg; *k && !c->failed; k++) {
        json_t *x = get(m, *k);
        if (json_is_number(x) && !(isfinite(json_number_value(x)) && json_number_value(x) >= 0))
            cfail(c, "method.%s: %g is not a finite number >= 0", *k, json_number_value(x));
    }
    const json_t *b = get(m, "bounds");
    c->rel_l2 = b ? num(b, "rel_l2") : EVIDENCE_DEFAULT_REL_L2;
    c->max_abs = b ? num(b, "max_abs") : EVIDENCE_DEFAULT_MAX_ABS;
    if (!c->failed && !(isfinite(c->rel_l2) && c->rel_l2 > 0 && c->rel_l2 <= 1))
        cfail(c, "method.bounds.rel_l2: %g is not a bound in (0, 1]", c->rel_l2);
    if (!c->failed && !(isfinite(c->max_abs) && c->max_abs > 0 && c->max_abs <= 1))
        cfail(c, "method.bounds.max_abs: %g is not a bound in (0, 1]", c->max_abs);
}

/* ---- a timing mode against its own samples --------------------------------------------------- */

/* Summaries are written rounded to 1e-4 us (timing.c's round4) from the unrounded samples,
 * the samples rounded too: a recomputed figure is within a few 1e-4 of the written one. */
static int near_time(double written, double recomputed)
{
    return fabs(written - recomputed) <= 5e-4 + 1e-9 * fabs(recomputed);
}

static void check_summaries(cstate *c, const json_t *mode, const char *path)
{
    const json_t *arr = get(mode, "samples_us");
    size_t n = json_array_size(arr);
    if (c->failed || n == 0) return;
    double *s = malloc(n * sizeof *s);
    if (!s) {
        cfail(c, "%s: out of memory", path);
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += s[i] = json_number_value(json_array_get(arr, i));
    sort_doubles(s, n);
    struct { const char *key; double v; } want[] = {
        { "median_us", stats_percentile_sorted(s, n, 0.5) }, { "p10_us", stats_percentile_sorted(s, n, 0.1) },
        { "p90_us", stats_percentile_sorted(s, n, 0.9) }, { "mean_us", sum / (double)n },
        { "min_us", s[0] }, { "max_us", s[n - 1] },
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0] && !c->failed; k++)
        if (!near_time(num(mode, want[k].key), want[k].v))
            cfail(c, "%s.%s: %.6g, but its samples_us give %.6g", path, want[k].key, num(mode, want[k].key), want[k].v);
    if (!c->failed && (num(mode, "ci_lo_us") < s[0] - 5e-4 || num(mode, "ci_hi_us") > s[n - 1] + 5e-4))
        cfail(c, "%s: the CI [%.6g, %.6g] reaches outside the samples [%.6g, %.6g]", path, num(mode, "ci_lo_us"),
              num(mode, "ci_hi_us"), s[0], s[n - 1]);
    free(s);
}

static void check_modes(cstate *c, const json_t *timing, const char *path)
{
    const char *k;
    json_t *mode;
    json_object_foreach((json_t *)timing, k, mode) {
        char p[128];
        snprintf(p, sizeof p, "%s.%s", path, k);
        check_summaries(c, mode, p);
    }
}

/* ---- verdicts against the run's own bounds ------------------------------------------------- */

/* A correctness object that says pass must hold what passing needs (correctness.c):
 * something checked, no non-finite element, both errors within the run's bounds, no
 * error, and a passing recheck after timing. */
static void check_verdict(cstate *c, const json_t *cor, const char *p, int nested)
{
    if (c->failed || !json_is_object(cor)) return;
    if (!nested) {
        char q[200];
        snprintf(q, sizeof q, "%s.after_timing", p);
        check_verdict(c, get(cor, "after_timing"), q, 1);
        snprintf(q, sizeof q, "%s.vs_baseline", p);
        check_verdict(c, get(cor, "vs_baseline"), q, 1);
    }
    if (c->failed || !json_is_true(get(cor, "pass"))) return;
    const json_t *nf = get(cor, "nonfinite"), *checked = get(cor, "checked");
    if (json_is_integer(nf) && json_integer_value(nf) != 0)
        cfail(c, "%s.pass: true beside %lld non-finite values", p, (long long)json_integer_value(nf));
    else if (json_is_integer(checked) && json_integer_value(checked) <= 0)
        cfail(c, "%s.pass: true with nothing checked", p);
    else if (json_is_number(get(cor, "rel_l2")) && !(num(cor, "rel_l2") <= c->rel_l2))
        cfail(c, "%s.pass: true beside rel_l2 %g, over the run's bound %g", p, num(cor, "rel_l2"), c->rel_l2);
    else if (json_is_number(get(cor, "max_abs")) && !(num(cor, "max_abs") <= c->max_abs))
        cfail(c, "%s.pass: true beside max_abs %g, over the run's bound %g", p, num(cor, "max_abs"), c->max_abs);
    else if (get(cor, "error"))
        cfail(c, "%s.pass: true beside an error ('%.80s')", p, str(cor, "error") ? str(cor, "error") : "");
    else if (!nested && json_is_false(get(get(cor, "after_timing"), "pass")))
        cfail(c, "%s.pass: true though the check after timing failed", p);
}

/* ---- derived figures against the timing ------------------------------------------------------ */

/* Within rel of the recomputed value, or within abs (a figure written rounded). */
static int near_rel(double written, double recomputed, double rel)
{
    return fabs(written - recomputed) <= rel * fabs(recomputed) + 1e-12;
}

static int near_figure(double written, double recomputed, double abs)
{
    return near_rel(written, recomputed, 1e-3) || fabs(written - recomputed) <= abs;
}

static int same_shape(const json_t *a, const json_t *b)
{
    static const char *const k[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim", "causal" };
    for (size_t i = 0; i < 6; i++)
        if (json_integer_value(get(a, k[i])) != json_integer_value(get(b, k[i]))) return 0;
    return 1;
}

/* The graph-mode rows, by implementation and shape, for the ratio's baseline lookup. */
typedef struct {
    const char *impl;
    const json_t *row;
} row_ref;

static int cmp_row_ref(const void *a, const void *b)
{
    return strcmp(((const row_ref *)a)->impl, ((const row_ref *)b)->impl);
}

static double median_of_quotients(const json_t *paired)
{
    const json_t *a = get(paired, "impl_us"), *b = get(paired, "baseline_us");
    size_t n = json_array_size(a);
    double *q = n ? malloc(n * sizeof *q) : NULL;
    if (!q) return NAN;
    for (size_t i = 0; i < n; i++)
        q[i] = json_number_value(json_array_get(a, i)) / json_number_value(json_array_get(b, i));
    sort_doubles(q, n);
    double m = stats_percentile_sorted(q, n, 0.5);
    free(q);
    return m;
}

/* Whether `name` is a phase (a rung) among the run's implementations. */
static int is_rung(const json_t *doc, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach(get(doc, "implementations"), i, v) {
        const char *nm = str(v, "name"), *kind = str(v, "kind");
        if (nm && name && !strcmp(nm, name)) return kind && !strcmp(kind, "phase");
    }
    return 0;
}

/* The row of `impl` at res's shape among rows, or NULL. */
static const json_t *row_at(const row_ref *rows, size_t n_rows, const char *impl, const json_t *res)
{
    row_ref key = { impl, NULL };
    row_ref *hit = impl ? bsearch(&key, rows, n_rows, sizeof *rows, cmp_row_ref) : NULL;
    if (!hit) return NULL;
    while (hit > rows && !strcmp(hit[-1].impl, impl)) hit--;
    for (; hit < rows + n_rows && !strcmp(hit->impl, impl); hit++)
        if (same_shape(get(hit->row, "shape"), get(res, "shape"))) return hit->row;
    return NULL;
}

/* A ratio through a bridge (evidence/external_bridge.h): the product of the medians of
 * this row's pairs with the rung and of the rung's pairs with the ratio's baseline. */
static void check_bridged(cstate *c, const json_t *doc, const json_t *res, const json_t *ratio, const char *path,
                          const row_ref *rows, size_t n_rows)
{
    const char *bridge = str(get(res, "paired"), "baseline"), *base = str(ratio, "baseline");
    const json_t *b = is_rung(doc, bridge) ? row_at(rows, n_rows, bridge, res) : NULL;
    const char *b_with = str(get(b, "paired"), "baseline");
    if (!b || !b_with || !base || strcmp(b_with, base)) {
        cfail(c, "%s: bridged through %s, which is not a rung of the run timed at this shape in rotation with %s",
              path, bridge ? bridge : "(no paired.baseline)", base ? base : "(no baseline)");
        return;
    }
    double written = num(ratio, "median"), m = median_of_quotients(get(res, "paired")) * median_of_quotients(get(b, "paired"));
    if (!near_rel(written, m, 1e-6))
        cfail(c, "%s.median: %.6g, but its pairs with %s and %s's with the baseline give %.6g", path, written, bridge,
              bridge, m);
}

static void check_ratio(cstate *c, const json_t *doc, const json_t *res, const json_t *ratio, const char *path,
                        const row_ref *rows, size_t n_rows, int paired_run)
{
    if (c->failed || !json_is_object(ratio)) return;
    double written = num(ratio, "median");
    const char *method = str(ratio, "method");
    if (method && !strcmp(method, "bridged")) {
        check_bridged(c, doc, res, ratio, path, rows, n_rows);
        return;
    }
    if ((method && !strcmp(method, "paired")) || (!method && paired_run)) {
        if (!get(res, "paired")) return;   /* the baseline's own row: no pairs */
        double m = median_of_quotients(get(res, "paired"));
        if (!near_rel(written, m, 1e-6))
            cfail(c, "%s.median: %.6g, but the pairs of results[].paired give %.6g", path, written, m);
        return;
    }
    /* independent: the medians of this row and of the baseline's row at the same shape */
    const json_t *g = get(get(res, "timing"), "graph");
    row_ref key = { str(ratio, "baseline"), NULL };
    row_ref *hit = bsearch(&key, rows, n_rows, sizeof *rows, cmp_row_ref);
    if (!g || !hit) return;
    while (hit > rows && !strcmp(hit[-1].impl, key.impl)) hit--;
    int any = 0;
    double want = NAN;
    for (; hit < rows + n_rows && !strcmp(hit->impl, key.impl); hit++) {
        if (!same_shape(get(hit->row, "shape"), get(res, "shape"))) continue;
        want = num(g, "median_us") / num(get(get(hit->row, "timing"), "graph"), "median_us");
        if (near_rel(written, want, 2e-3)) return;   /* medians rounded to 1e-4 us */
        any = 1;
    }
    if (any)
        cfail(c, "%s.median: %.6g, but the graph medians of this row and of %s's give %.6g", path, written,
              key.impl, want);
}

static void check_derived(cstate *c, const json_t *doc, const json_t *res, const char *path, const row_ref *rows,
                          size_t n_rows)
{
    const json_t *d = get(res, "derived"), *g = get(get(res, "timing"), "graph");
    if (c->failed || !d) return;
    char p[128];
    snprintf(p, sizeof p, "%s.derived", path);
    /* flops and bytes are taken as written: how a causal shape's FLOPs are counted has
     * changed between runs (core/shapes.c), and the figures are divided by the time */
    double flops = num(d, "flops"), bytes = num(d, "bytes");
    if (g && !c->failed) {
        double med = num(g, "median_us");
        double tflops = flops / (med * 1e-6) / 1e12, gbps = bytes / (med * 1e-6) / 1e9;
        const json_t *ce = get(doc, "ceilings");
        /* older runs wrote these rounded: TFLOP/s and GB/s to 1e-3, fractions to 1e-6 */
        if (!near_figure(num(d, "tflops"), tflops, 1e-3))
            cfail(c, "%s.tflops: %.6g, but the graph median gives %.6g", p, num(d, "tflops"), tflops);
        else if (!near_figure(num(d, "gbps"), gbps, 1e-3))
            cfail(c, "%s.gbps: %.6g, but the graph median gives %.6g", p, num(d, "gbps"), gbps);
        else if (json_is_number(get(d, "frac_fp16_peak")) && json_is_number(get(ce, "fp16_tflops")) &&
                 !near_figure(num(d, "frac_fp16_peak"), tflops / num(ce, "fp16_tflops"), 1e-6))
            cfail(c, "%s.frac_fp16_peak: %.6g, but tflops over ceilings.fp16_tflops is %.6g", p,
                  num(d, "frac_fp16_peak"), tflops / num(ce, "fp16_tflops"));
        else if (json_is_number(get(d, "frac_dram")) && json_is_number(get(ce, "dram_gbps")) &&
                 !near_figure(num(d, "frac_dram"), gbps / num(ce, "dram_gbps"), 1e-6))
            cfail(c, "%s.frac_dram: %.6g, but gbps over ceilings.dram_gbps is %.6g", p, num(d, "frac_dram"),
                  gbps / num(ce, "dram_gbps"));
    }
    const char *method = str(get(doc, "method"), "ratio");
    char q[160];
    snprintf(q, sizeof q, "%s.ratio", p);
    check_ratio(c, doc, res, get(d, "ratio"), q, rows, n_rows, method && !strcmp(method, "paired"));
    snprintf(q, sizeof q, "%s.paired_ratio", p);
    check_ratio(c, doc, res, get(d, "paired_ratio"), q, rows, n_rows, 1);
}

static void check_results(cstate *c, const json_t *doc)
{
    const json_t *results = get(doc, "results");
    size_t n = json_array_size(results), n_rows = 0, i;
    row_ref *rows = calloc(n + 1, sizeof *rows);
    if (!rows) {
        cfail(c, "results: out of memory");
        return;
    }
    json_t *x;
    json_array_foreach(results, i, x)
        if (get(get(x, "timing"), "graph")) rows[n_rows++] = (row_ref){ str(x, "impl"), x };
    qsort(rows, n_rows, sizeof *rows, cmp_row_ref);
    json_array_foreach(results, i, x) {
        if (c->failed) break;
        char p[64], q[96];
        snprintf(p, sizeof p, "results[%zu]", i);
        snprintf(q, sizeof q, "%s.timing", p);
        check_modes(c, get(x, "timing"), q);
        snprintf(q, sizeof q, "%s.correctness", p);
        check_verdict(c, get(x, "correctness"), q, 0);
        check_derived(c, doc, x, p, rows, n_rows);
    }
    free(rows);
    json_array_foreach(get(doc, "input_checks"), i, x) {
        char q[96];
        snprintf(q, sizeof q, "input_checks[%zu].correctness", i);
        check_verdict(c, get(x, "correctness"), q, 0);
    }
    check_modes(c, get(get(doc, "ceilings"), "launch_floor"), "ceilings.launch_floor");
}

int evidence_consistent(const json_t *doc, char *err, size_t errlen)
{
    cstate c = { .err = err, .len = errlen };
    check_limits(&c, doc);
    step top = { NULL, 0, NULL };
    if (!c.failed) walk(&c, doc, &top, 0);
    if (!c.failed) check_forms(&c, doc);
    if (!c.failed) check_method(&c, get(doc, "method"));
    if (!c.failed) check_results(&c, doc);
    return c.failed ? -1 : 0;
}
