/* gate/config.c: reading ci/gate.json. */
#include "gate/config.h"
#include "core/shapes.h"
#include "core/json_file.h"
#include "core/names.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key of obj is one of known (NULL-ended): a misspelt key ("tolerence") would
 * otherwise leave the value it meant to set at its default without a word. */
static int known_keys(json_t *obj, const char *section, const char *const *known, const char *path,
                      char *err, size_t errlen)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        const char *const *k = known;
        while (*k && strcmp(key, *k)) k++;
        if (*k) continue;
        char list[512] = "";
        size_t used = 0;
        for (k = known; *k && used < sizeof list; k++) {
            int n = snprintf(list + used, sizeof list - used, "%s%s", k == known ? "" : ", ", *k);
            if (n < 0) break;
            used += (size_t)n;
        }
        return json_file_fail(err, errlen, path, "%s%s%.80s: unknown key; accepted: %s", section,
                              section[0] ? "." : "", key, list);
    }
    return 0;
}

/* An optional number in [lo, hi]; absent keeps *out. */
static int section_number(json_t *obj, const char *section, const char *key, double lo, double hi,
                          double *out, const char *path, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return 0;
    if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi))
        return json_file_fail(err, errlen, path, "%s.%s: must be a number in [%g, %g]", section, key, lo, hi);
    *out = json_number_value(v);
    return 0;
}

static int opt_number(json_t *obj, const char *key, double lo, double hi, double *out,
                      const char *path, char *err, size_t errlen)
{
    return section_number(obj, "regression", key, lo, hi, out, path, err, errlen);
}

/* "drift": the drift gate's parameters (gate/drift.h), each optional. */
static int read_drift(json_t *d, const char *path, drift_params *p, char *err, size_t errlen)
{
    p->k_sigma = 4.0;
    p->floor = 0.02;
    p->floor_paired = p->floor;
    p->min_runs = 3;
    p->floor_other_gpu = p->floor_paired;
    p->shape_rows = 0;
    p->shape_floor = 0;
    if (!d) return 0;
    if (!json_is_object(d)) return json_file_fail(err, errlen, path, "drift: not an object");
    static const char *const known[] = { "k_sigma", "floor", "floor_paired", "floor_other_gpu", "min_runs",
                                          "shape_move_rows", "shape_move_floor", "note", NULL };
    if (known_keys(d, "drift", known, path, err, errlen)) return -1;
    double min_runs = (double)p->min_runs, shape_rows = 0;
    if (section_number(d, "drift", "k_sigma", 0.5, 20, &p->k_sigma, path, err, errlen) ||
        section_number(d, "drift", "floor", 0.0, 1.0, &p->floor, path, err, errlen))
        return -1;
    p->floor_paired = p->floor;   /* unless said: one floor for every set */
    if (section_number(d, "drift", "floor_paired", 0.0, 1.0, &p->floor_paired, path, err, errlen) ||
        section_number(d, "drift", "min_runs", 2, 32, &min_runs, path, err, errlen))
        return -1;
    if (min_runs != (double)(size_t)min_runs)
        return json_file_fail(err, errlen, path, "drift.min_runs: must be a whole number in [2, 32]");
    p->min_runs = (size_t)min_runs;
    p->floor_other_gpu = p->floor_paired;   /* unless said: the paired floor on any GPU */
    if (section_number(d, "drift", "floor_other_gpu", 0.0, 1.0, &p->floor_other_gpu, path, err, errlen) ||
        section_number(d, "drift", "shape_move_rows", 0, 1000, &shape_rows, path, err, errlen) ||
        section_number(d, "drift", "shape_move_floor", 0.0, 1.0, &p->shape_floor, path, err, errlen))
        return -1;
    /* a move from fewer than three rows would let one changed rung set it */
    if (shape_rows != (double)(size_t)shape_rows || (shape_rows > 0 && shape_rows < 3))
        return json_file_fail(err, errlen, path, "drift.shape_move_rows: must be 0 (off) or a whole number in [3, 1000]");
    p->shape_rows = (size_t)shape_rows;
    return 0;
}

static int read_regression(json_t *reg, const char *path, regression_params *p, char *err,
                           size_t errlen)
{
    p->ci_level = 0.95;
    p->resamples = 2000;
    p->seed = 1234;
    p->all_shapes = 1;
    if (!reg) return 0;
    if (!json_is_object(reg)) return json_file_fail(err, errlen, path, "regression: not an object");
    /* a key that no longer decides anything is refused, not silently ignored: a change
     * between two runs is judged by the drift rule and its tolerance (gate/drift.h) */
    static const char *const GONE[] = { "method", "tolerance", "ci_floor_fraction" };
    for (size_t k = 0; k < sizeof GONE / sizeof GONE[0]; k++)
        if (json_object_get(reg, GONE[k]))
            return json_file_fail(err, errlen, path, "regression.%s: no longer read; a change between two runs "
                                  "is judged by the drift rule (drift.k_sigma, drift.floor, and the accepted "
                                  "set's spread): remove it", GONE[k]);
    static const char *const known[] = { "ci_level", "resamples", "seed", "shapes", "mode", "note", NULL };
    if (known_keys(reg, "regression", known, path, err, errlen)) return -1;
    double resamples = (double)p->resamples, seed = (double)p->seed;
    if (opt_number(reg, "ci_level", 0.5, 0.9999, &p->ci_level, path, err, errlen) ||
        opt_number(reg, "resamples", 100, GATE_MAX_RESAMPLES, &resamples, path, err, errlen) ||
        opt_number(reg, "seed", 0, 9007199254740992.0, &seed, path, err, errlen))
        return -1;
    if (resamples != (double)(size_t)resamples || seed != (double)(uint64_t)seed)
        return json_file_fail(err, errlen, path, "regression.%s: must be a whole number",
                              resamples != (double)(size_t)resamples ? "resamples" : "seed");
    p->resamples = (size_t)resamples;
    p->seed = (uint64_t)seed;
    json_t *sh = json_object_get(reg, "shapes");
    if (sh) {
        const char *s = json_string_value(sh);
        if (!s || (strcmp(s, "all") && strcmp(s, "headline")))
            return json_file_fail(err, errlen, path, "regression.shapes: accepted: \"all\", \"headline\"");
        p->all_shapes = strcmp(s, "all") == 0;
    }
    json_t *mode = json_object_get(reg, "mode");
    if (mode && !(json_is_string(mode) && strcmp(json_string_value(mode), "graph") == 0))
        return json_file_fail(err, errlen, path, "regression.mode: only \"graph\" is gated");
    return 0;
}

static int cmp_bound(const void *a, const void *b)
{
    return strcmp(((const gate_bound *)a)->phase, ((const gate_bound *)b)->phase);
}

/* A list of shapes [B,H,Sq,Skv,D,causal]: "headline" (required, 1 or more), "throughput"
 * or "decode" (optional, may be empty). */
static int read_shape_list(json_t *h, const char *name, int required, const char *path,
                           attn_shape *out, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    if (!h && !required) return 0;
    if (!json_is_array(h) || (required && json_array_size(h) == 0) || json_array_size(h) > GATE_MAX_HEADLINE)
        return json_file_fail(err, errlen, path, "%s: must be an array of %d to %d shapes [B,H,Sq,Skv,D,causal]",
                    name, required, GATE_MAX_HEADLINE);
    for (size_t i = 0; i < json_array_size(h); i++) {
        json_t *s = json_array_get(h, i);
        int v[6];
        for (size_t k = 0; k < 6; k++) {
            json_t *x = json_array_get(s, k);
            if (json_array_size(s) != 6 || !json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) > 1 << 30)
                return json_file_fail(err, errlen, path, "%s[%zu]: must be [B,H,Sq,Skv,D,causal] (integers)", name, i);
            v[k] = (int)json_integer_value(x);
        }
        attn_shape sh = { v[0], v[1], v[2], v[3], v[4], v[5], 0.0f };
        char why[256];
        if (shape_validate(&sh, why, sizeof why))
            return json_file_fail(err, errlen, path, "%s[%zu]: %s", name, i, why);
        out[(*n)++] = sh;
    }
    return 0;
}

/* One list of decode bounds (`name`: the field, for the message): one per shape of
 * "decode", each a number > 0 or null (none at that shape). */
static int read_decode_list(json_t *v, const char *name, const gate_config *c, double *out, const char *path,
                            char *err, size_t errlen)
{
    if (!json_is_array(v) || c->n_decode == 0 || json_array_size(v) != c->n_decode)
        goto bad;
    for (size_t k = 0; k < c->n_decode; k++) {
        json_t *x = json_array_get(v, k);
        if (json_is_null(x)) continue;
        if (!json_is_number(x) || !(json_number_value(x) > 0) || !isfinite(json_number_value(x))) goto bad;
        out[k] = json_number_value(x);
    }
    return 0;
bad:
    return json_file_fail(err, errlen, path, "%s: must be an array of %zu numbers > 0 or null, one per shape of "
                          "\"decode\"%s", name, c->n_decode, c->n_decode ? "" : " (which the config does not list)");
}

/* bounds.<phase>.decode_ratio_max (optional) and decode_ratio_max_gpu (optional: an
 * object of GPU slug -> such a list; the slug is a name the harness reads from evidence,
 * so it must be a safe one). */
static int read_decode_bounds(json_t *phase_obj, const char *phase, const gate_config *c, gate_bound *b,
                              const char *path, char *err, size_t errlen)
{
    char name[256];
    json_t *v = json_object_get(phase_obj, "decode_ratio_max");
    snprintf(name, sizeof name, "bounds.%s.decode_ratio_max", phase);
    if (v && read_decode_list(v, name, c, b->decode_ratio_max, path, err, errlen)) return -1;
    json_t *g = json_object_get(phase_obj, "decode_ratio_max_gpu");
    if (!g) return 0;
    if (!json_is_object(g) || json_object_size(g) > GATE_MAX_GPU_BOUNDS)
        return json_file_fail(err, errlen, path, "bounds.%s.decode_ratio_max_gpu: must be an object of at most %d "
                              "GPUs, each its evidence directory name and a list as decode_ratio_max's "
                              "({\"nvidia-h100-80gb-hbm3\": [...]})", phase, GATE_MAX_GPU_BOUNDS);
    const char *slug;
    json_t *list;
    json_object_foreach(g, slug, list) {
        size_t i = b->n_decode_gpu;
        snprintf(name, sizeof name, "bounds.%s.decode_ratio_max_gpu.%s", phase, slug);
        int bad = !name_is_safe(slug)
            ? json_file_fail(err, errlen, path, "bounds.%s.decode_ratio_max_gpu: '%.80s' is not a GPU's evidence "
                             "directory name (letters, digits, '-', '_', '.')", phase, slug)
            : read_decode_list(list, name, c, b->decode_gpu_ratio_max[i], path, err, errlen);
        if (!bad && !(b->decode_gpu_slug[i] = strdup(slug))) bad = json_file_fail(err, errlen, path, "out of memory");
        if (bad) {   /* the bound is not counted in the config yet: free what it took here */
            for (size_t k = 0; k < b->n_decode_gpu; k++) free(b->decode_gpu_slug[k]);
            b->n_decode_gpu = 0;
            return -1;
        }
        b->n_decode_gpu++;
    }
    return 0;
}

int gate_config_from_json(json_t *j, const char *path, gate_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->path = strdup(path);
    if (!json_is_object(j)) {
        json_file_fail(err, errlen, path, "not a JSON object");
        goto bad;
    }
    static const char *const known[] = { "baseline", "headline", "throughput", "decode", "bounds", "bounds_note",
                                         "drift", "regression", "note", NULL };
    if (known_keys(j, "", known, path, err, errlen)) goto bad;
    json_t *b = json_object_get(j, "baseline");
    if (!json_is_string(b) || !json_string_length(b)) {
        json_file_fail(err, errlen, path, "baseline: missing or not a string (e.g. \"sdpa_cudnn\")");
        goto bad;
    }
    if (!name_is_safe(json_string_value(b))) {
        /* the config may come from a pull request; its names reach file names and plots */
        json_file_fail(err, errlen, path, "baseline: '%.80s' is not a safe name (letters, digits, '-', '_', '.')",
             json_string_value(b));
        goto bad;
    }
    c->baseline = strdup(json_string_value(b));
    if (read_shape_list(json_object_get(j, "headline"), "headline", 1, path, c->headline,
                        &c->n_headline, err, errlen) ||
        read_shape_list(json_object_get(j, "throughput"), "throughput", 0, path, c->throughput,
                        &c->n_throughput, err, errlen) ||
        read_shape_list(json_object_get(j, "decode"), "decode", 0, path, c->decode, &c->n_decode, err, errlen))
        goto bad;
    json_t *bounds = json_object_get(j, "bounds");
    if (!json_is_object(bounds)) {
        json_file_fail(err, errlen, path, "bounds: missing or not an object ({\"01_scalar\": {\"ratio_max\": ...}})");
        goto bad;
    }
    c->bounds = calloc(json_object_size(bounds) + 1, sizeof *c->bounds);
    if (!c->bounds) {
        json_file_fail(err, errlen, path, "out of memory");
        goto bad;
    }
    const char *key;
    json_t *val;
    json_object_foreach(bounds, key, val) {
        if (!name_is_safe(key)) {
            json_file_fail(err, errlen, path, "bounds: '%.80s' is not a safe phase name", key);
            goto bad;
        }
        static const char *const bound_keys[] = { "ratio_max", "throughput_ratio_max", "decode_ratio_max",
                                                  "decode_ratio_max_gpu", "note", NULL };
        char section[160];
        snprintf(section, sizeof section, "bounds.%s", key);
        if (!json_is_object(val)) {
            json_file_fail(err, errlen, path, "%s: not an object ({\"ratio_max\": ...})", section);
            goto bad;
        }
        if (known_keys(val, section, bound_keys, path, err, errlen)) goto bad;
        json_t *rm = json_object_get(val, "ratio_max");
        if (!json_is_number(rm) || !(json_number_value(rm) > 0) || !isfinite(json_number_value(rm))) {
            json_file_fail(err, errlen, path, "bounds.%s.ratio_max: missing or not a positive number", key);
            goto bad;
        }
        json_t *tm = json_object_get(val, "throughput_ratio_max");
        if (tm && (!json_is_number(tm) || !(json_number_value(tm) > 0) || !isfinite(json_number_value(tm)))) {
            json_file_fail(err, errlen, path, "bounds.%s.throughput_ratio_max: not a positive number", key);
            goto bad;
        }
        if (read_decode_bounds(val, key, c, &c->bounds[c->n_bounds], path, err, errlen))
            goto bad;
        c->bounds[c->n_bounds].phase = strdup(key);
        c->bounds[c->n_bounds].throughput_ratio_max = tm ? json_number_value(tm) : 0;
        c->bounds[c->n_bounds++].ratio_max = json_number_value(rm);
    }
    qsort(c->bounds, c->n_bounds, sizeof *c->bounds, cmp_bound);
    if (read_regression(json_object_get(j, "regression"), path, &c->reg, err, errlen)) goto bad;
    if (read_drift(json_object_get(j, "drift"), path, &c->drift, err, errlen)) goto bad;
    return 0;
bad:
    gate_config_free(c);
    return -1;
}

int gate_config_load(const char *path, gate_config *c, char *err, size_t errlen)
{
    json_t *j = json_file_load(path, GATE_CONFIG_MAX_BYTES, err, errlen);
    if (!j) {
        memset(c, 0, sizeof *c);
        return -1;
    }
    int rc = gate_config_from_json(j, path, c, err, errlen);
    json_decref(j);
    return rc;
}

const gate_bound *gate_config_bound(const gate_config *c, const char *phase)
{
    size_t i = name_index(c->bounds, c->n_bounds, sizeof *c->bounds, offsetof(gate_bound, phase), phase);
    return i < c->n_bounds ? &c->bounds[i] : NULL;
}

const double *gate_bound_decode(const gate_bound *b, const char *slug, int *own)
{
    const size_t g = slug ? name_index(b->decode_gpu_slug, b->n_decode_gpu, sizeof *b->decode_gpu_slug, 0, slug)
                          : b->n_decode_gpu;
    if (own) *own = g < b->n_decode_gpu;
    return g < b->n_decode_gpu ? b->decode_gpu_ratio_max[g] : b->decode_ratio_max;
}

void gate_config_free(gate_config *c)
{
    for (size_t i = 0; c->bounds && i < c->n_bounds; i++) {
        free(c->bounds[i].phase);
        for (size_t g = 0; g < c->bounds[i].n_decode_gpu; g++) free(c->bounds[i].decode_gpu_slug[g]);
    }
    free(c->bounds);
    free(c->baseline);
    free(c->path);
    memset(c, 0, sizeof *c);
}
