/* evidence/evidence_file.c: the evidence file format (evidence/SCHEMA.md): validation with the JSON
 * path of the first bad field, loading that names the file, atomic writes, listing.
 *
 * Files are written as JSON_INDENT(1) | JSON_PRESERVE_ORDER with 17 significant
 * digits for reals and a final newline: members in the order the writer inserted them
 * (or the order they were read in), every double written losslessly, so the same
 * document always gives the same bytes and a read-back document is json_equal. */
#include "evidence/evidence_file.h"
#include "evidence/consistency.h"
#include "evidence/run_forms.h"
#include "core/files.h"
#include "core/gz_read.h"
#include "core/json_file.h"
#include "core/names.h"
#include "core/shapes.h"
#include "measure/l2_copies.h"

#include <ctype.h>
#include <math.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* ---- validation -------------------------------------------------------------------- */

typedef enum { T_STR, T_INT, T_NUM, T_BOOL, T_OBJ, T_ARR } jtype;
enum { OPTIONAL = 0, REQUIRED = 1, NULLABLE = 2 };

typedef struct {
    char *err;
    size_t len;
    int failed;
} vstate;

static const char *type_words(jtype t)
{
    static const char *const w[] = { "a string", "an integer", "a number", "a boolean",
                                     "an object", "an array" };
    return w[t];
}

static int has_type(const json_t *x, jtype t)
{
    switch (t) {
    case T_STR: return json_is_string(x);
    case T_INT: return json_is_integer(x);
    case T_NUM: return json_is_number(x);
    case T_BOOL: return json_is_boolean(x);
    case T_OBJ: return json_is_object(x);
    case T_ARR: return json_is_array(x);
    }
    return 0;
}

static int vfail(vstate *v, const char *path, const char *fmt, ...)
{
    if (v->failed) return -1;
    v->failed = 1;
    int k = snprintf(v->err, v->len, "%s: ", path[0] ? path : "(document)");
    if (k >= 0 && (size_t)k < v->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->err + k, v->len - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Paths are short (a few keys deep); one too long to fit is cut, not an error. */
static void join(char *out, size_t len, const char *path, const char *key)
{
    if (snprintf(out, len, "%s%s%s", path, path[0] ? "." : "", key) < 0) out[0] = '\0';
}

static void join_index(char *out, size_t len, const char *path, size_t i)
{
    if (snprintf(out, len, "%s[%zu]", path, i) < 0) out[0] = '\0';
}

/* The member key of obj (at path) if present with type t; NULL when absent (an error
 * when REQUIRED), when null (an error unless NULLABLE) or of another type (an error). */
static json_t *member(vstate *v, const json_t *obj, const char *path, const char *key,
                      jtype t, int flags)
{
    if (v->failed || !obj) return NULL;   /* an absent parent was reported already */
    char p[512];
    join(p, sizeof p, path, key);
    json_t *x = json_object_get(obj, key);
    if (!x) {
        if (flags & REQUIRED) vfail(v, p, "missing (expected %s)", type_words(t));
        return NULL;
    }
    if (json_is_null(x)) {
        if (!(flags & NULLABLE)) vfail(v, p, "expected %s, found null", type_words(t));
        return NULL;
    }
    if (!has_type(x, t)) {
        vfail(v, p, "expected %s", type_words(t));
        return NULL;
    }
    return x;
}

/* Several members of one type at once; keys end with NULL. */
static void members(vstate *v, const json_t *obj, const char *path, jtype t, int flags,
                    const char *const *keys)
{
    for (; *keys && !v->failed; keys++) member(v, obj, path, *keys, t, flags);
}

static void array_of(vstate *v, const json_t *arr, const char *path, jtype t)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) {
        if (v->failed) return;
        if (!has_type(x, t)) {
            char p[512];
            join_index(p, sizeof p, path, i);
            vfail(v, p, "expected %s", type_words(t));
        }
    }
}

/* ---- semantic rules: what the consumers compute with or turn into paths ---------------- */

/* A name that becomes a path (names.h's rule), at path. */
static void safe_name(vstate *v, const json_t *x, const char *path)
{
    if (v->failed || !json_is_string(x)) return;
    if (!name_is_safe(json_string_value(x)))
        vfail(v, path, "'%.80s' is not a safe name (1 to %d letters, digits, '-', '_' or '.', "
              "not starting with '.')", json_string_value(x), NAME_MAX_LEN);
}

static void safe_member(vstate *v, const json_t *obj, const char *path, const char *key)
{
    char p[512];
    join(p, sizeof p, path, key);
    safe_name(v, json_object_get(obj, key), p);
}

/* Text the reports and tables print (and gnuplot reads): no control characters, so one
 * value cannot start a new line of a script or a table. */
static void plain_text(vstate *v, const json_t *x, const char *path)
{
    if (v->failed || !json_is_string(x)) return;
    for (const unsigned char *c = (const unsigned char *)json_string_value(x); *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            vfail(v, path, "holds a control character (0x%02x)", *c);
            return;
        }
}

/* A number present at obj.key must be finite and above lo (or at least lo when
 * inclusive); absent or null members are the structural checks' business. */
static void number_above(vstate *v, const json_t *obj, const char *path, const char *key,
                         double lo, int inclusive)
{
    json_t *x = json_object_get(obj, key);
    if (v->failed || !json_is_number(x)) return;
    double d = json_number_value(x);
    if (isfinite(d) && (inclusive ? d >= lo : d > lo)) return;
    char p[512];
    join(p, sizeof p, path, key);
    vfail(v, p, "%g is not a finite number %s %g", d, inclusive ? ">=" : ">", lo);
}

static double num_of(const json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* lo <= mid <= hi for three members already checked to be finite numbers. */
static void ordered(vstate *v, const json_t *obj, const char *path, const char *lo,
                    const char *mid, const char *hi)
{
    if (v->failed) return;
    double a = num_of(obj, lo), m = num_of(obj, mid), b = num_of(obj, hi);
    if (a <= m && m <= b) return;
    char p[512];
    join(p, sizeof p, path, mid);
    vfail(v, p, "%g is outside [%s %g, %s %g]", m, lo, a, hi, b);
}

static int leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* yyyy-mm-ddThh:mm:ssZ with a real calendar day (the run's own UTC clock). */
static void utc_date(vstate *v, const json_t *x, const char *path)
{
    if (v->failed || !json_is_string(x)) return;
    const char *t = json_string_value(x);
    static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
    int ok = strlen(t) == sizeof form - 1;
    for (size_t i = 0; ok && i < sizeof form - 1; i++)
        ok = form[i] == 'd' ? isdigit((unsigned char)t[i]) != 0 : t[i] == form[i];
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    if (ok) ok = sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2dZ", &y, &mo, &d, &h, &mi, &sec) == 6;
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (ok) ok = y >= 1970 && mo >= 1 && mo <= 12 && d >= 1 &&
                 d <= days[mo - 1] + (mo == 2 && leap(y)) && h < 24 && mi < 60 && sec <= 60;
    if (!ok) vfail(v, path, "'%.40s' is not a UTC time yyyy-mm-ddThh:mm:ssZ", t);
}

static void check_context(vstate *v, const json_t *ctx)
{
    static const char *const gpu_ints[] = { "sm_count", "cc_major", "cc_minor", "l2_bytes",
        "mem_bytes", "smem_per_block_optin", "clock_khz", "mem_clock_khz", "mem_bus_bits", NULL };
    static const char *const gpu_strs[] = { "name", "slug", NULL };
    json_t *gpu = member(v, ctx, "context", "gpu", T_OBJ, REQUIRED);
    members(v, gpu, "context.gpu", T_STR, REQUIRED, gpu_strs);
    members(v, gpu, "context.gpu", T_INT, OPTIONAL, gpu_ints);
    safe_member(v, gpu, "context.gpu", "slug");    /* evidence/<slug>/, plots/<slug>-*.svg */
    plain_text(v, json_object_get(gpu, "name"), "context.gpu.name");
    member(v, ctx, "context", "versions", T_OBJ, OPTIONAL);
    json_t *git = member(v, ctx, "context", "git", T_OBJ, OPTIONAL);
    member(v, git, "context.git", "commit", T_STR, OPTIONAL);
    member(v, git, "context.git", "dirty", T_BOOL, OPTIONAL);
    member(v, ctx, "context", "host", T_STR, OPTIONAL);
    json_t *argv = member(v, ctx, "context", "argv", T_ARR, OPTIONAL);
    if (argv && !v->failed) array_of(v, argv, "context.argv", T_STR);
    member(v, ctx, "context", "clocks_before", T_OBJ, NULLABLE);
    member(v, ctx, "context", "clocks_after", T_OBJ, NULLABLE);
    member(v, ctx, "context", "throttled", T_BOOL, OPTIONAL);
    member(v, ctx, "context", "nvml", T_STR, OPTIONAL);
}

static void check_method(vstate *v, const json_t *m)
{
    static const char *const ints[] = { "inner", "min_samples", "max_samples",
                                        "bootstrap_resamples", "seed", "l2_scrub_bytes", NULL };
    static const char *const nums[] = { "max_seconds", "rel_ci_target", "ci_level", NULL };
    json_t *modes = member(v, m, "method", "modes", T_ARR, OPTIONAL);
    if (modes && !v->failed) array_of(v, modes, "method.modes", T_STR);
    members(v, m, "method", T_INT, OPTIONAL, ints);
    members(v, m, "method", T_NUM, OPTIONAL, nums);
    json_t *b = member(v, m, "method", "bounds", T_OBJ, OPTIONAL);
    static const char *const bounds[] = { "rel_l2", "max_abs", NULL };
    members(v, b, "method.bounds", T_NUM, REQUIRED, bounds);
    member(v, m, "method", "baseline", T_STR, OPTIONAL);
    json_t *base = json_object_get(m, "baseline");
    if (json_is_string(base) && json_string_length(base) > 0)   /* "": no baseline was found */
        safe_member(v, m, "method", "baseline");
    number_above(v, m, "method", "ci_level", 0, 0);
    json_t *level = json_object_get(m, "ci_level");
    if (!v->failed && json_is_number(level) && json_number_value(level) >= 1)
        vfail(v, "method.ci_level", "%g is not a level in (0, 1)", json_number_value(level));
}

/* The values of a mode the consumers compute with: positive finite times (a ratio, a
 * log axis and a bootstrap divide by them), at least one sample, the percentiles and the
 * CI ordered around the median. */
static void check_mode_values(vstate *v, const json_t *mode, const char *path, const json_t *samples)
{
    static const char *const times[] = { "median_us", "p10_us", "p90_us", "ci_lo_us",
        "ci_hi_us", "mean_us", "min_us", "max_us", NULL };
    if (v->failed) return;
    char p[512];
    number_above(v, mode, path, "inner", 1, 1);
    number_above(v, mode, path, "n", 1, 1);
    size_t i;
    json_t *x;
    json_array_foreach(samples, i, x) {
        double d = json_number_value(x);
        if (v->failed || (isfinite(d) && d > 0)) continue;
        join(p, sizeof p, path, "samples_us");
        char q[540];
        join_index(q, sizeof q, p, i);
        vfail(v, q, "%g is not a finite time > 0", d);
    }
    for (const char *const *k = times; *k; k++) number_above(v, mode, path, *k, 0, 0);
    number_above(v, mode, path, "wall_s", 0, 1);   /* what the sampling cost, when recorded */
    number_above(v, mode, path, "gpu_s", 0, 1);
    ordered(v, mode, path, "ci_lo_us", "median_us", "ci_hi_us");
    ordered(v, mode, path, "min_us", "p10_us", "median_us");
    ordered(v, mode, path, "median_us", "p90_us", "max_us");
}

/* One timing mode object (graph, single, cold; also the launch floor's). */
static void check_mode(vstate *v, const json_t *mode, const char *path)
{
    static const char *const nums[] = { "median_us", "p10_us", "p90_us", "ci_lo_us",
        "ci_hi_us", "mean_us", "min_us", "max_us", NULL };
    member(v, mode, path, "inner", T_INT, REQUIRED);
    json_t *n = member(v, mode, path, "n", T_INT, REQUIRED);
    char p[512];
    join(p, sizeof p, path, "samples_us");
    json_t *samples = member(v, mode, path, "samples_us", T_ARR, REQUIRED);
    if (samples && !v->failed) array_of(v, samples, p, T_NUM);
    if (n && samples && !v->failed && (size_t)json_integer_value(n) != json_array_size(samples)) {
        join(p, sizeof p, path, "n");
        vfail(v, p, "%lld but samples_us holds %zu", (long long)json_integer_value(n),
              json_array_size(samples));
    }
    members(v, mode, path, T_NUM, REQUIRED, nums);
    member(v, mode, path, "stop", T_STR, REQUIRED);
    check_mode_values(v, mode, path, samples);
}

static void check_modes(vstate *v, const json_t *timing, const char *path)
{
    static const char *const names[] = { "graph", "single", "cold", NULL };
    for (const char *const *k = names; *k && !v->failed; k++) {
        json_t *mode = member(v, timing, path, *k, T_OBJ, OPTIONAL);
        char p[512];
        join(p, sizeof p, path, *k);
        if (mode) check_mode(v, mode, p);
    }
}

static void check_ceilings(vstate *v, const json_t *c)
{
    static const char *const nums[] = { "dram_gbps", "fp16_tflops", NULL };
    members(v, c, "ceilings", T_NUM, NULLABLE, nums);
    for (const char *const *k = nums; *k; k++) number_above(v, c, "ceilings", *k, 0, 0);
    json_t *shape = member(v, c, "ceilings", "gemm_shape", T_ARR, OPTIONAL);
    if (shape && !v->failed) array_of(v, shape, "ceilings.gemm_shape", T_INT);
    member(v, c, "ceilings", "copy_bytes", T_INT, NULLABLE);
    if (member(v, c, "ceilings", "read_gbps", T_NUM, OPTIONAL)) number_above(v, c, "ceilings", "read_gbps", 0, 0);
    json_t *fl = member(v, c, "ceilings", "launch_floor", T_OBJ, NULLABLE);
    if (fl) check_modes(v, fl, "ceilings.launch_floor");
}

static void check_items(vstate *v, const json_t *arr, const char *name,
                        void (*check)(vstate *, const json_t *, const char *));

/* One kernel of resources.kernels: the report matches it by name to the kernels that
 * ran and prints its counts. */
static void check_resource_kernel(vstate *v, const json_t *k, const char *path)
{
    static const char *const counts[] = { "registers", "smem_static", "spill_stores", "spill_loads", NULL };
    member(v, k, path, "name", T_STR, REQUIRED);
    members(v, k, path, T_INT, OPTIONAL, counts);
    for (const char *const *c = counts; *c; c++) number_above(v, k, path, *c, 0, 1);
}

static void check_impl(vstate *v, const json_t *im, const char *path)
{
    static const char *const kinds[] = { "phase", "baseline", "floor", "external", NULL };
    static const char *const opt_strs[] = { "title", "path", NULL };
    static const char *const res_ints[] = { "registers", "smem_static", "spill_stores",
                                            "spill_loads", "stack_bytes", NULL };
    member(v, im, path, "name", T_STR, REQUIRED);
    safe_member(v, im, path, "name");     /* phases/<name>.md, plots/history-<name>.svg */
    json_t *kind = member(v, im, path, "kind", T_STR, REQUIRED);
    if (kind) {
        const char *const *k = kinds;
        while (*k && strcmp(*k, json_string_value(kind))) k++;
        char p[512];
        join(p, sizeof p, path, "kind");
        if (!*k) vfail(v, p, "'%s' is not one of phase, baseline, floor, external",
                       json_string_value(kind));
    }
    members(v, im, path, T_STR, OPTIONAL, opt_strs);
    member(v, im, path, "init_note", T_STR, NULLABLE);
    char p[512];
    join(p, sizeof p, path, "resources");
    json_t *res = member(v, im, path, "resources", T_OBJ, NULLABLE);
    members(v, res, p, T_INT, OPTIONAL, res_ints);
    json_t *kernels = member(v, res, p, "kernels", T_ARR, OPTIONAL);
    char pk[512];
    join(pk, sizeof pk, p, "kernels");
    if (kernels) check_items(v, kernels, pk, check_resource_kernel);
}

static void check_correctness(vstate *v, const json_t *c, const char *path)
{
    static const char *const nums[] = { "max_abs", "rel_l2", NULL };
    static const char *const ints[] = { "nonfinite", "checked", "rows_checked", NULL };
    member(v, c, path, "pass", T_BOOL, REQUIRED);
    members(v, c, path, T_NUM, OPTIONAL, nums);
    members(v, c, path, T_INT, OPTIONAL, ints);
    for (const char *const *k = nums; *k; k++) number_above(v, c, path, *k, 0, 1);
    member(v, c, path, "reference", T_STR, OPTIONAL);
    member(v, c, path, "error", T_STR, OPTIONAL);
    char p[512];
    join(p, sizeof p, path, "vs_baseline");
    json_t *vb = member(v, c, path, "vs_baseline", T_OBJ, NULLABLE);
    member(v, vb, p, "pass", T_BOOL, REQUIRED);
    members(v, vb, p, T_NUM, REQUIRED, nums);
}

/* derived.ratio (required, may be null) or derived.paired_ratio (run --paired only): a
 * baseline name and a positive median inside its CI. */
static void check_ratio(vstate *v, const json_t *d, const char *path, const char *key, int flags)
{
    static const char *const ratio_nums[] = { "median", "ci_lo", "ci_hi", NULL };
    char p[512];
    join(p, sizeof p, path, key);
    json_t *r = member(v, d, path, key, T_OBJ, flags);
    member(v, r, p, "baseline", T_STR, REQUIRED);
    members(v, r, p, T_NUM, REQUIRED, ratio_nums);
    for (const char *const *k = ratio_nums; *k; k++) number_above(v, r, p, *k, 0, 0);
    if (r) ordered(v, r, p, "ci_lo", "median", "ci_hi");
}

static void check_derived(vstate *v, const json_t *d, const char *path)
{
    static const char *const nums[] = { "flops", "bytes", "tflops", "gbps", NULL };
    static const char *const fracs[] = { "frac_fp16_peak", "frac_dram", NULL };
    members(v, d, path, T_NUM, REQUIRED, nums);
    members(v, d, path, T_NUM, NULLABLE, fracs);
    for (const char *const *k = nums; *k; k++) number_above(v, d, path, *k, 0, 1);
    for (const char *const *k = fracs; *k; k++) number_above(v, d, path, *k, 0, 1);
    check_ratio(v, d, path, "ratio", NULLABLE);
    check_ratio(v, d, path, "paired_ratio", OPTIONAL | NULLABLE);
}

static int is_time(const json_t *x)
{
    double d = json_is_number(x) ? json_number_value(x) : NAN;
    return isfinite(d) && d > 0;
}

static int is_flag(const json_t *x)
{
    return json_is_integer(x) && (json_integer_value(x) == 0 || json_integer_value(x) == 1);
}

/* An array of a paired block: exactly n elements, each one `ok` says is `what` (the first
 * that is not is named by its index). */
static void paired_array(vstate *v, const json_t *pb, const char *path, const char *key, int flags,
                         size_t n, int (*ok)(const json_t *), const char *what)
{
    char p[512];
    join(p, sizeof p, path, key);
    json_t *arr = member(v, pb, path, key, T_ARR, flags);
    if (!arr || v->failed) return;
    if (json_array_size(arr) != n) {
        vfail(v, p, "holds %zu elements but n is %zu", json_array_size(arr), n);
        return;
    }
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x)
        if (!ok(x)) {
            char q[540];
            join_index(q, sizeof q, p, i);
            vfail(v, q, "expected %s", what);
            return;
        }
}

/* results[].paired: the implementation and the baseline timed interleaved (the ratio's
 * pairs). n >= 1 pairs, both time arrays that long, the order flags 0 or 1. */
static void check_paired(vstate *v, const json_t *pb, const char *path)
{
    member(v, pb, path, "baseline", T_STR, REQUIRED);
    safe_member(v, pb, path, "baseline");
    member(v, pb, path, "inner", T_INT, REQUIRED);
    number_above(v, pb, path, "inner", 1, 1);
    json_t *n = member(v, pb, path, "n", T_INT, REQUIRED);
    number_above(v, pb, path, "n", 1, 1);
    member(v, pb, path, "stop", T_STR, REQUIRED);
    static const char *const costs[] = { "gpu_s", "wall_s", NULL };
    members(v, pb, path, T_NUM, OPTIONAL, costs);
    for (const char *const *k = costs; *k; k++) number_above(v, pb, path, *k, 0, 1);
    if (v->failed) return;
    size_t count = (size_t)json_integer_value(n);
    paired_array(v, pb, path, "impl_us", REQUIRED, count, is_time, "a finite time > 0");
    paired_array(v, pb, path, "baseline_us", REQUIRED, count, is_time, "a finite time > 0");
    paired_array(v, pb, path, "impl_first", OPTIONAL, count, is_flag, "0 or 1");
}

/* A result's shape object as the harness's shape (its integers already checked). */
static attn_shape shape_of(const json_t *shape)
{
    return (attn_shape){ .batch = (int)json_integer_value(json_object_get(shape, "batch")),
                         .heads = (int)json_integer_value(json_object_get(shape, "heads")),
                         .seq_q = (int)json_integer_value(json_object_get(shape, "seq_q")),
                         .seq_kv = (int)json_integer_value(json_object_get(shape, "seq_kv")),
                         .head_dim = (int)json_integer_value(json_object_get(shape, "head_dim")),
                         .causal = (int)json_integer_value(json_object_get(shape, "causal")) };
}

/* A shape within the harness's own limits (shape_validate), read as the reader reads it:
 * an integer outside int is refused here rather than wrapped there. */
static void check_shape_values(vstate *v, const json_t *shape, const char *path)
{
    static const char *const dims[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim",
                                        "causal", NULL };
    if (v->failed) return;
    for (const char *const *k = dims; *k; k++) {
        json_int_t x = json_integer_value(json_object_get(shape, *k));
        if (x < INT_MIN || x > INT_MAX) {
            char p[512];
            join(p, sizeof p, path, *k);
            vfail(v, p, "%lld is out of range", (long long)x);
            return;
        }
    }
    attn_shape s = shape_of(shape);
    char why[256];
    if (shape_validate(&s, why, sizeof why)) vfail(v, path, "%s", why);
}

/* timing.l2 (measure/l2_copies.h): a state the harness writes, and figures that are that
 * state's for this shape: copy_bytes the shape's Q, K and V, bytes the copies', rotated over
 * 2 to L2_COPIES_MAX copies reaching L2_COLD_FACTOR L2s, cold by size only where K and V
 * alone do. A file that claims cold inputs its figures cannot give is refused. */
static void check_l2(vstate *v, const json_t *l2, const json_t *shape, const char *path)
{
    static const char *const ints[] = { "copies", "copy_bytes", "bytes", "l2_bytes", NULL };
    json_t *st = member(v, l2, path, "state", T_STR, REQUIRED);
    members(v, l2, path, T_INT, REQUIRED, ints);
    if (v->failed) return;
    char p[512];
    int state = l2_state_parse(json_string_value(st));
    if (state < 0) {
        join(p, sizeof p, path, "state");
        vfail(v, p, "\"%s\" is not resident, rotated or cold_by_size", json_string_value(st));
        return;
    }
    attn_shape s = shape_of(shape);
    json_int_t copies = json_integer_value(json_object_get(l2, "copies")),
               copy_bytes = json_integer_value(json_object_get(l2, "copy_bytes")),
               bytes = json_integer_value(json_object_get(l2, "bytes")),
               l2_bytes = json_integer_value(json_object_get(l2, "l2_bytes"));
    int rotated = state == L2_ROTATED;
    if (rotated ? copies < 2 || copies > L2_COPIES_MAX : copies != 1) {
        join(p, sizeof p, path, "copies");
        if (rotated) vfail(v, p, "%lld is not 2 to %d", (long long)copies, L2_COPIES_MAX);
        else vfail(v, p, "%lld where %s inputs are one set", (long long)copies, json_string_value(st));
    } else if (copy_bytes < 0 || (size_t)copy_bytes != l2_qkv_bytes(&s)) {
        join(p, sizeof p, path, "copy_bytes");
        vfail(v, p, "%lld is not the shape's Q, K and V (%zu bytes)", (long long)copy_bytes, l2_qkv_bytes(&s));
    } else if (bytes != copies * copy_bytes) {
        join(p, sizeof p, path, "bytes");
        vfail(v, p, "%lld is not copies x copy_bytes (%lld)", (long long)bytes, (long long)(copies * copy_bytes));
    } else if (l2_bytes < 0 || l2_bytes > ((json_int_t)1 << 40) || (state != L2_RESIDENT && l2_bytes == 0)) {
        join(p, sizeof p, path, "l2_bytes");
        vfail(v, p, "%lld is not an L2 size", (long long)l2_bytes);
    } else if (rotated && (size_t)bytes < (size_t)L2_COLD_FACTOR * (size_t)l2_bytes) {
        join(p, sizeof p, path, "bytes");
        vfail(v, p, "%lld: rotated copies under %d times the L2 (%lld bytes)", (long long)bytes, L2_COLD_FACTOR,
              (long long)l2_bytes);
    } else if (state == L2_COLD_BY_SIZE && l2_kv_bytes(&s) < (size_t)L2_COLD_FACTOR * (size_t)l2_bytes) {
        join(p, sizeof p, path, "state");
        vfail(v, p, "cold_by_size, but K and V (%zu bytes) are under %d times the L2 (%lld bytes)",
              l2_kv_bytes(&s), L2_COLD_FACTOR, (long long)l2_bytes);
    }
}

static void check_result(vstate *v, const json_t *r, const char *path)
{
    static const char *const dims[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim",
                                        "causal", NULL };
    char p[512];
    member(v, r, path, "impl", T_STR, REQUIRED);
    safe_member(v, r, path, "impl");
    json_t *shape = member(v, r, path, "shape", T_OBJ, REQUIRED);
    join(p, sizeof p, path, "shape");
    members(v, shape, p, T_INT, REQUIRED, dims);
    member(v, shape, p, "scale", T_NUM, OPTIONAL);
    check_shape_values(v, shape, p);
    member(v, r, path, "tag", T_STR, REQUIRED);
    json_t *sup = member(v, r, path, "supported", T_BOOL, REQUIRED);
    member(v, r, path, "init_note", T_STR, NULLABLE);   /* error_string(0) may be NULL */
    if (v->failed) return;
    if (!json_is_true(sup)) {
        member(v, r, path, "reason", T_STR, REQUIRED);
        static const char *const absent[] = { "correctness", "timing", "derived", NULL };
        for (const char *const *k = absent; *k && !v->failed; k++)
            if (json_object_get(r, *k)) {
                join(p, sizeof p, path, *k);
                vfail(v, p, "present on an unsupported point");
            }
        return;
    }
    member(v, r, path, "reason", T_STR, NULLABLE);
    join(p, sizeof p, path, "correctness");
    json_t *c = member(v, r, path, "correctness", T_OBJ, REQUIRED);
    if (c) check_correctness(v, c, p);
    join(p, sizeof p, path, "timing");
    json_t *t = member(v, r, path, "timing", T_OBJ, OPTIONAL);
    if (t && !v->failed && !json_is_true(json_object_get(c, "pass")))
        vfail(v, p, "present on a point that failed correctness");
    if (t) check_modes(v, t, p);
    json_t *l2 = t ? member(v, t, p, "l2", T_OBJ, OPTIONAL) : NULL;
    if (l2) {
        join(p, sizeof p, path, "timing.l2");
        check_l2(v, l2, shape, p);
    }
    join(p, sizeof p, path, "paired");
    json_t *pb = member(v, r, path, "paired", T_OBJ, OPTIONAL);
    if (pb && !v->failed && !t) vfail(v, p, "present on a point without timing");
    if (pb) check_paired(v, pb, p);
    join(p, sizeof p, path, "paired_throttled");
    json_t *pt = member(v, r, path, "paired_throttled", T_OBJ, OPTIONAL);
    member(v, pt, p, "baseline", T_STR, REQUIRED);
    safe_member(v, pt, p, "baseline");
    member(v, pt, p, "discarded_pairs", T_INT, REQUIRED);
    number_above(v, pt, p, "discarded_pairs", 0, 1);
    join(p, sizeof p, path, "derived");
    json_t *d = member(v, r, path, "derived", T_OBJ, OPTIONAL);
    if (d) check_derived(v, d, p);
}

static void check_items(vstate *v, const json_t *arr, const char *name,
                        void (*check)(vstate *, const json_t *, const char *))
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) {
        if (v->failed) return;
        char p[64];
        join_index(p, sizeof p, name, i);
        if (!json_is_object(x)) vfail(v, p, "expected an object");
        else check(v, x, p);
    }
}

static void check_profile_item(vstate *v, const json_t *x, const char *path)
{
    member(v, x, path, "impl", T_STR, REQUIRED);
    safe_member(v, x, path, "impl");
    member(v, x, path, "kernels", T_ARR, OPTIONAL);
    char p[512];
    join(p, sizeof p, path, "shape");
    json_t *shape = member(v, x, path, "shape", T_OBJ, OPTIONAL);
    if (shape) {
        static const char *const dims[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim",
                                            "causal", NULL };
        members(v, shape, p, T_INT, REQUIRED, dims);
        check_shape_values(v, shape, p);
    }
}

/* An input check (correctness on other inputs, printed by the report): its names, its
 * shape and its verdict, as a result's. */
static void check_input_check_item(vstate *v, const json_t *x, const char *path)
{
    static const char *const dims[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim",
                                        "causal", NULL };
    static const char *const errs[] = { "max_abs", "rel_l2", NULL };
    char p[512];
    member(v, x, path, "impl", T_STR, REQUIRED);
    safe_member(v, x, path, "impl");
    member(v, x, path, "inputs", T_STR, REQUIRED);
    safe_member(v, x, path, "inputs");
    member(v, x, path, "tag", T_STR, OPTIONAL);
    json_t *shape = member(v, x, path, "shape", T_OBJ, REQUIRED);
    join(p, sizeof p, path, "shape");
    members(v, shape, p, T_INT, REQUIRED, dims);
    check_shape_values(v, shape, p);
    json_t *c = member(v, x, path, "correctness", T_OBJ, REQUIRED);
    join(p, sizeof p, path, "correctness");
    member(v, c, p, "pass", T_BOOL, REQUIRED);
    members(v, c, p, T_NUM, OPTIONAL, errs);
    for (const char *const *k = errs; c && *k; k++) number_above(v, c, p, *k, 0, 1);
}

/* What the run cost (the report's run header): times and a count, none negative. */
static void check_cost(vstate *v, const json_t *cost)
{
    static const char *const secs[] = { "wall_s", "gpu_timed_s", NULL };
    members(v, cost, "cost", T_NUM, OPTIONAL, secs);
    member(v, cost, "cost", "measurements", T_INT, OPTIONAL);
    for (const char *const *k = secs; *k; k++) number_above(v, cost, "cost", *k, 0, 1);
    number_above(v, cost, "cost", "measurements", 0, 1);
}

/* ---- rules across rows ------------------------------------------------------------------- */

typedef struct {
    char *key;
    size_t index;
} row_key;

static int cmp_row_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The identity of a result row: implementation, shape, tag and (when present) the input
 * distribution; each string is ended by a byte no name holds, so keys cannot run together. */
static char *row_identity(const json_t *r)
{
    const json_t *s = json_object_get(r, "shape");
    const char *inputs = json_string_value(json_object_get(r, "inputs"));
    char *key = NULL;
    if (asprintf(&key, "%s\x1f%lld,%lld,%lld,%lld,%lld,%lld\x1f%s\x1f%s",
                 json_string_value(json_object_get(r, "impl")),
                 (long long)json_integer_value(json_object_get(s, "batch")),
                 (long long)json_integer_value(json_object_get(s, "heads")),
                 (long long)json_integer_value(json_object_get(s, "seq_q")),
                 (long long)json_integer_value(json_object_get(s, "seq_kv")),
                 (long long)json_integer_value(json_object_get(s, "head_dim")),
                 (long long)json_integer_value(json_object_get(s, "causal")),
                 json_string_value(json_object_get(r, "tag")), inputs ? inputs : "") < 0)
        return NULL;
    return key;
}

/* No two rows for the same (impl, shape, tag, inputs): every consumer looks a point up by
 * it and would silently take the first. Sorted, so 100k rows cost n log n, not n^2. */
static void check_unique_rows(vstate *v, const json_t *results)
{
    size_t n = json_array_size(results);
    if (v->failed || n < 2) return;
    row_key *keys = calloc(n, sizeof *keys);
    int oom = !keys;
    for (size_t i = 0; !oom && i < n; i++) {
        keys[i] = (row_key){ row_identity(json_array_get(results, i)), i };
        oom = !keys[i].key;
    }
    if (!oom) qsort(keys, n, sizeof *keys, cmp_row_key);
    /* the first repeat in file order is named, with the row it repeats (its group's first) */
    size_t first = 0, repeat = n, of = 0;
    for (size_t i = 1; !oom && i < n; i++) {
        if (strcmp(keys[i - 1].key, keys[i].key)) first = i;
        else if (keys[i].index < repeat) {
            repeat = keys[i].index;
            of = keys[first].index;
        }
    }
    if (repeat < n) {
        char p[64];
        join_index(p, sizeof p, "results", repeat);
        const json_t *r = json_array_get(results, repeat);
        vfail(v, p, "repeats results[%zu] (impl '%s', the same shape and tag '%s')", of,
              json_string_value(json_object_get(r, "impl")), json_string_value(json_object_get(r, "tag")));
    }
    if (oom) vfail(v, "results", "out of memory checking for repeated rows");
    for (size_t i = 0; keys && i < n; i++) free(keys[i].key);
    free(keys);
}

/* Every result's implementation is one the file lists (pages look its kind up). */
static void check_result_impls(vstate *v, const json_t *impls, const json_t *results)
{
    size_t i, k;
    json_t *r, *im;
    json_array_foreach(results, i, r) {
        if (v->failed) return;
        const char *name = json_string_value(json_object_get(r, "impl"));
        int found = 0;
        json_array_foreach(impls, k, im)
            if (!found && !strcmp(name, json_string_value(json_object_get(im, "name")))) found = 1;
        if (found) continue;
        char p[64];
        join_index(p, sizeof p, "results", i);
        vfail(v, p, "impl '%s' is not in implementations", name);
    }
}

int evidence_validate(const json_t *doc, char *err, size_t errlen)
{
    vstate v = { err, errlen, 0 };
    if (errlen) err[0] = '\0';
    if (!json_is_object(doc)) return vfail(&v, "", "expected an object");
    json_t *schema = member(&v, doc, "", "schema", T_STR, REQUIRED);
    if (schema && strcmp(json_string_value(schema), EVIDENCE_SCHEMA) != 0)
        return vfail(&v, "schema", "'%s' is not '%s'", json_string_value(schema), EVIDENCE_SCHEMA);
    json_t *ver = member(&v, doc, "", "schema_version", T_INT, REQUIRED);
    if (ver) {
        json_int_t n = json_integer_value(ver);
        if (n > EVIDENCE_SCHEMA_VERSION)
            return vfail(&v, "schema_version", "%lld is newer than this build reads (%d); "
                         "update attnladder to read this file", (long long)n,
                         EVIDENCE_SCHEMA_VERSION);
        if (n < 1) return vfail(&v, "schema_version", "%lld is not a version", (long long)n);
    }
    member(&v, doc, "", "partial", T_BOOL, REQUIRED);
    json_t *created = member(&v, doc, "", "created_utc", T_STR, REQUIRED);
    utc_date(&v, created, "created_utc");
    json_t *ctx = member(&v, doc, "", "context", T_OBJ, REQUIRED);
    json_t *method = member(&v, doc, "", "method", T_OBJ, REQUIRED);
    json_t *ceil = member(&v, doc, "", "ceilings", T_OBJ, REQUIRED);
    json_t *impls = member(&v, doc, "", "implementations", T_ARR, REQUIRED);
    json_t *results = member(&v, doc, "", "results", T_ARR, REQUIRED);
    json_t *profile = member(&v, doc, "", "profile", T_ARR, OPTIONAL);
    if (v.failed) return -1;
    check_context(&v, ctx);
    if (!v.failed) check_method(&v, method);
    if (!v.failed) check_ceilings(&v, ceil);
    check_items(&v, impls, "implementations", check_impl);
    check_items(&v, results, "results", check_result);
    if (profile) check_items(&v, profile, "profile", check_profile_item);
    json_t *checks = member(&v, doc, "", "input_checks", T_ARR, OPTIONAL);
    if (checks) check_items(&v, checks, "input_checks", check_input_check_item);
    json_t *cost = member(&v, doc, "", "cost", T_OBJ, OPTIONAL);
    if (cost && !v.failed) check_cost(&v, cost);
    check_result_impls(&v, impls, results);
    check_unique_rows(&v, results);
    if (v.failed) return -1;
    /* the structure holds: now the limits, the text, and the run against itself */
    return evidence_consistent(doc, err, errlen);
}

/* ---- loading ------------------------------------------------------------------------- */

json_t *evidence_load(const char *path, char *err, size_t errlen)
{
    json_t *doc = json_file_load(path, EVIDENCE_MAX_FILE_BYTES, err, errlen);
    if (!doc) return NULL;
    char why[768], shown[FILES_SHOWN];
    if (evidence_validate(doc, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", files_shown(path, shown), why);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* ---- atomic writing ------------------------------------------------------------------ */

static int fail_errno(char *err, size_t errlen, const char *what, const char *path)
{
    char shown[FILES_SHOWN];
    snprintf(err, errlen, "%s %s: %s", what, files_shown(path, shown), strerror(errno));
    return -1;
}

/* mkdir -p of dir (which may be "" or "."). */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        snprintf(err, errlen, "path too long: %s", dir);
        return -1;
    }
    for (char *p = buf + 1; ; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (buf[0] && mkdir(buf, 0777) != 0 && errno != EEXIST)
            return fail_errno(err, errlen, "cannot create directory", buf);
        *p = c;
        if (!c) break;
    }
    struct stat st;
    if (buf[0] && (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))) {
        errno = ENOTDIR;
        return fail_errno(err, errlen, "not a directory:", buf);
    }
    return 0;
}

int evidence_write_atomic(const json_t *doc, const char *path, char *err, size_t errlen)
{
    if (gz_is_named(path)) {   /* plain JSON under a .gz name would read as corrupt */
        snprintf(err, errlen, "%s: the harness writes plain JSON; write X.json, then compress it "
                 "with ci/tools/compress_run.sh", path);
        return -1;
    }
    const char *slash = strrchr(path, '/');
    char dir[4096];
    int n = slash == path ? snprintf(dir, sizeof dir, "/")
          : slash ? snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path) : snprintf(dir, sizeof dir, ".");
    if (n < 0 || (size_t)n >= sizeof dir) {   /* never a shorter, other directory */
        snprintf(err, errlen, "%.200s...: path too long", path);
        return -1;
    }
    if (make_dirs(dir, err, errlen)) return -1;
    char *text = json_dumps(doc, DUMP_FLAGS);
    size_t len = text ? strlen(text) : 0;
    char *whole = text ? realloc(text, len + 2) : NULL;
    if (!whole) {
        free(text);
        snprintf(err, errlen, "%s: out of memory serialising the evidence", path);
        return -1;
    }
    whole[len] = '\n';   /* the format's final newline */
    whole[len + 1] = '\0';
    int rc = files_write_atomic(path, whole, len + 1, err, errlen);
    free(whole);
    return rc;
}

/* ---- names and listing --------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void evidence_free_list(char **paths, size_t n)
{
    for (size_t i = 0; paths && i < n; i++) free(paths[i]);
    free(paths);
}

static int push(char ***paths, size_t *n, size_t *cap, const char *a, const char *b,
                const char *c)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        char **np = realloc(*paths, nc * sizeof *np);
        if (!np) return -1;
        *paths = np;
        *cap = nc;
    }
    size_t len = strlen(a) + strlen(b) + strlen(c) + 3;
    char *s = malloc(len);
    if (!s) return -1;
    snprintf(s, len, "%s/%s/%s", a, b, c);
    (*paths)[(*n)++] = s;
    return 0;
}

/* What evidence_list has listed so far, and the limits it keeps. */
typedef struct {
    const char *root;
    int include_partial;
    char ***paths;
    size_t *n, cap;
    unsigned long long total;   /* bytes of the run files listed: every consumer reads them all */
} run_listing;

/* The run files of one GPU directory (gpu, at sub) added to l. 0, or -1 (err). */
static int list_gpu_dir(run_listing *l, const char *gpu, const char *sub, char *err, size_t errlen)
{
    DIR *d = opendir(sub);
    if (!d) return fail_errno(err, errlen, "cannot read evidence directory", sub);
    struct dirent *e;
    struct stat st;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        const char *name = e->d_name;
        /* run files start with their UTC stamp; tuning_*.json, sanitize_*.json and
         * the like are auxiliary evidence with their own formats */
        int partial = 0;
        if (!name_is_run_file(name, &partial)) continue;
        if (!l->include_partial && partial) continue;
        char file[8192];
        snprintf(file, sizeof file, "%s/%s", sub, name);   /* fits: sub < 4096, name < 256 */
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        l->total += (unsigned long long)st.st_size;
        char shown[FILES_SHOWN];
        if (l->total > EVIDENCE_MAX_ROOT_BYTES) {
            snprintf(err, errlen, "%s: its run files hold more than %llu MiB; an evidence root holds at most "
                     "that much", files_shown(l->root, shown), (unsigned long long)EVIDENCE_MAX_ROOT_BYTES >> 20);
            rc = -1;
        } else if (*l->n >= EVIDENCE_MAX_RUNS) {
            snprintf(err, errlen, "%s: more than %d run files; an evidence root holds at most that many",
                     files_shown(l->root, shown), EVIDENCE_MAX_RUNS);
            rc = -1;
        } else if (run_form_single(file, err, errlen)) {
            rc = -1;
        } else if (push(l->paths, l->n, &l->cap, l->root, gpu, name)) {
            snprintf(err, errlen, "out of memory listing %s", l->root);
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

/* A missing root is no evidence yet, not an error. */
int evidence_list(const char *root, int include_partial, char ***paths, size_t *n,
                  char *err, size_t errlen)
{
    *paths = NULL;
    *n = 0;
    size_t dirs = 0;
    run_listing l = { .root = root, .include_partial = include_partial, .paths = paths, .n = n };
    if (!root[0]) {
        snprintf(err, errlen, "--evidence '': give a directory");
        return -1;
    }
    DIR *top = opendir(root);
    if (!top) {
        if (errno == ENOENT) return 0;
        return fail_errno(err, errlen, "cannot read evidence directory", root);
    }
    struct dirent *g;
    int rc = 0;
    while (rc == 0 && (g = readdir(top))) {
        if (g->d_name[0] == '.') continue;
        char sub[4096];
        struct stat st;
        if (snprintf(sub, sizeof sub, "%s/%s", root, g->d_name) >= (int)sizeof sub) {
            snprintf(err, errlen, "%s: a name under it makes too long a path", root);
            rc = -1;
            break;
        }
        if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (++dirs > EVIDENCE_MAX_GPUS) {
            char shown[FILES_SHOWN];
            snprintf(err, errlen, "%s: more than %d GPU directories; an evidence root holds at most that many",
                     files_shown(root, shown), EVIDENCE_MAX_GPUS);
            rc = -1;
            break;
        }
        rc = list_gpu_dir(&l, g->d_name, sub, err, errlen);
    }
    closedir(top);
    if (rc) {
        evidence_free_list(*paths, *n);
        *paths = NULL;
        *n = 0;
        return -1;
    }
    if (*n) qsort(*paths, *n, sizeof **paths, cmp_str);
    return 0;
}
