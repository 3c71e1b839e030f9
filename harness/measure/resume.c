/* measure/resume.c: the pure part of `run --resume` (resume.h). */
#include "measure/resume.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *resume_identity(const run_opts *o)
{
    json_t *modes = json_array(), *smodes = json_array(), *impls = json_array(), *shapes = json_array();
    for (int m = 0; m < MODE_COUNT; m++) {
        if (o->modes[m]) json_array_append_new(modes, json_string(time_mode_name((time_mode)m)));
        if (o->sweep_modes[m]) json_array_append_new(smodes, json_string(time_mode_name((time_mode)m)));
    }
    for (size_t i = 0; i < o->n_names; i++) json_array_append_new(impls, json_string(o->names[i]));
    for (size_t i = 0; i < o->n_shapes; i++) {
        const attn_shape *s = &o->shapes[i].s;
        json_array_append_new(shapes, json_pack("[i, i, i, i, i, i, s]", s->batch, s->heads, s->seq_q,
                                                s->seq_kv, s->head_dim, s->causal, o->shapes[i].tag));
    }
    const time_config *tc = &o->tc;
    return json_pack("{s:o, s:o, s:o, s:o, s:s, s:I, s:I, s:f, s:f, s:f, s:i, s:f, s:I, s:I, s:f,"
                     " s:I, s:f, s:b, s:b, s:f, s:f, s:b, s:I}",
                     "impl", impls, "shapes", shapes, "modes", modes, "sweep_modes", smodes,
                     "baseline", o->baseline ? o->baseline : "",
                     "min_samples", (json_int_t)tc->rule.min_samples,
                     "max_samples", (json_int_t)tc->rule.max_samples, "max_seconds", tc->rule.max_seconds,
                     "rel_ci", tc->rule.rel_ci_target, "min_gpu_seconds", tc->min_gpu_s,
                     "inner", tc->inner_max, "discard_limit", tc->clock.discard_limit,
                     "discard", (json_int_t)tc->clock.discard_mask, "seed", (json_int_t)o->seed,
                     "full_ref_gflop", o->full_ref_gflop, "sample_rows", (json_int_t)o->sample_rows,
                     "cpu_check_gflop", o->cpu_check_gflop, "no_gpu_ref", o->no_gpu_ref,
                     "ceilings", o->ceilings, "graph_target_us", tc->graph_target_us,
                     "bootstrap_resamples", (double)tc->resamples, "paired", o->paired,
                     "stats_seed", (json_int_t)tc->seed);
}

int resume_options_differ(const json_t *then, const json_t *now, char *why, size_t len)
{
    const char *key;
    json_t *a;
    json_object_foreach((json_t *)then, key, a) {
        json_t *b = json_object_get(now, key);
        if (b && json_equal(a, b)) continue;
        char *ta = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY), *tb = b ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        snprintf(why, len, "its option '%s' was %.200s, this command's is %.200s", key, ta ? ta : "?",
                 tb ? tb : "absent");
        free(ta);
        free(tb);
        return -1;
    }
    return json_object_size(then) == json_object_size(now) ? 0
         : (snprintf(why, len, "the options differ in number"), -1);
}

static const char *str_at(const json_t *o, const char *a, const char *b)
{
    const json_t *x = json_object_get(o, a);
    return json_string_value(b ? json_object_get(x, b) : x);
}

int resume_refuse(const json_t *partial, const json_t *gpu_now, const json_t *git_now,
                  const json_t *impls_now, char *why, size_t len)
{
    if (!json_is_true(json_object_get(partial, "partial"))) {
        snprintf(why, len, "it is a complete run (\"partial\": false): nothing to resume");
        return -1;
    }
    const json_t *ctx = json_object_get(partial, "context");
    const char *gpu_then = str_at(ctx, "gpu", "name"), *gpu = json_string_value(json_object_get(gpu_now, "name"));
    if (!gpu_then || !gpu || strcmp(gpu_then, gpu) != 0) {
        snprintf(why, len, "it was measured on %s and this GPU is %s: a run is continued on the same "
                 "GPU model only", gpu_then ? gpu_then : "an unnamed GPU", gpu ? gpu : "unnamed");
        return -1;
    }
    const char *c_then = str_at(ctx, "git", "commit"), *c_now = json_string_value(json_object_get(git_now, "commit"));
    int d_then = json_is_true(json_object_get(json_object_get(ctx, "git"), "dirty"));
    int d_now = json_is_true(json_object_get(git_now, "dirty"));
    if (!c_then || !c_now || strcmp(c_then, c_now) != 0 || d_then != d_now || d_now ||
        strcmp(c_now, "unknown") == 0) {
        snprintf(why, len, "it measured the build of %.12s%s and this build is %.12s%s: a run is "
                 "continued with the same clean build only", c_then ? c_then : "?", d_then ? " (dirty)" : "",
                 c_now ? c_now : "?", d_now ? " (dirty)" : "");
        return -1;
    }
    /* the measured implementations, in order, without the imported ones */
    json_t *then = json_array();
    size_t i;
    json_t *im;
    json_array_foreach(json_object_get(partial, "implementations"), i, im) {
        const char *kind = json_string_value(json_object_get(im, "kind"));
        if (kind && strcmp(kind, "external") == 0) continue;
        json_array_append(then, json_object_get(im, "name"));
    }
    int same = json_equal(then, (json_t *)impls_now);
    if (!same) {
        char *a = json_dumps(then, JSON_COMPACT), *b = json_dumps(impls_now, JSON_COMPACT);
        snprintf(why, len, "it measured the implementations %.300s and this build selects %.300s",
                 a ? a : "?", b ? b : "?");
        free(a);
        free(b);
    }
    json_decref(then);
    return same ? 0 : -1;
}

long resume_points_done(const json_t *partial, size_t n_points, char *why, size_t len)
{
    const json_t *p = json_object_get(partial, "progress");
    const json_t *pts = json_object_get(p, "points"), *done = json_object_get(p, "done");
    if (!json_is_integer(pts) || !json_is_integer(done)) {
        snprintf(why, len, "it records no progress (progress.points and progress.done): written "
                 "before runs could be resumed");
        return -1;
    }
    if (json_integer_value(pts) != (json_int_t)n_points) {
        snprintf(why, len, "it has %lld points and its options give %zu", (long long)json_integer_value(pts),
                 n_points);
        return -1;
    }
    json_int_t d = json_integer_value(done);
    if (d < 0 || d > (json_int_t)n_points) {
        snprintf(why, len, "progress.done %lld is not within its %zu points", (long long)d, n_points);
        return -1;
    }
    return (long)d;
}

static int row_in(const json_t *row, const shape_point *pts, size_t done)
{
    const json_t *s = json_object_get(row, "shape");
    const char *tag = json_string_value(json_object_get(row, "tag"));
    for (size_t i = 0; i < done; i++) {
        const attn_shape *p = &pts[i].s;
        const int dims[6] = { p->batch, p->heads, p->seq_q, p->seq_kv, p->head_dim, p->causal };
        static const char *const names[6] = { "batch", "heads", "seq_q", "seq_kv", "head_dim", "causal" };
        int same = tag && strcmp(tag, pts[i].tag) == 0;
        for (int k = 0; k < 6 && same; k++) same = json_integer_value(json_object_get(s, names[k])) == dims[k];
        if (same) return 1;
    }
    return 0;
}

static void keep_rows(json_t *arr, const shape_point *pts, size_t done)
{
    if (!json_is_array(arr)) return;
    for (size_t i = json_array_size(arr); i-- > 0;)
        if (!row_in(json_array_get(arr, i), pts, done)) json_array_remove(arr, i);
}

void resume_keep(json_t *doc, const shape_point *pts, size_t done)
{
    keep_rows(json_object_get(doc, "results"), pts, done);
    keep_rows(json_object_get(doc, "input_checks"), pts, done);
    keep_rows(json_object_get(doc, "reference_checks"), pts, done);
    keep_rows(json_object_get(json_object_get(doc, "cost"), "points"), pts, done);
}

json_t *resume_segment(const char *created_utc, const json_t *context, size_t from, size_t to,
                       const json_t *cost, int partial)
{
    const json_t *gpu = json_object_get(context, "gpu");
    json_t *g = json_object();
    static const char *const keep[] = { "name", "uuid", "index", "cuda_visible_devices" };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        json_t *v = json_object_get(gpu, keep[i]);
        if (v) json_object_set(g, keep[i], v);
    }
    json_t *seg = json_pack("{s:s, s:O, s:o, s:[I, I], s:b}", "created_utc", created_utc ? created_utc : "",
                            "host", json_object_get(context, "host") ? json_object_get(context, "host") : json_null(),
                            "gpu", g, "points", (json_int_t)from, (json_int_t)to, "partial", partial);
    static const char *const costs[] = { "wall_s", "gpu_timed_s", "measurements" };
    for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++) {
        json_t *v = json_object_get(cost, costs[i]);
        if (v) json_object_set(seg, costs[i], v);
    }
    /* the run's context keeps only the first snapshot and the last: the ones where a
     * process was cut and the next began are the segments' to keep */
    static const char *const clocks[] = { "clocks_before", "clocks_after" };
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        json_t *v = json_object_get(context, clocks[i]);
        if (v) json_object_set(seg, clocks[i], v);
    }
    return seg;
}

void resume_add_segment(json_t *doc, const json_t *partial, const char *file, size_t done, json_t *seg)
{
    json_t *prev = json_object_get(partial, "resumed");
    json_t *segs = json_array();
    if (json_is_object(prev) && json_is_array(json_object_get(prev, "segments"))) {
        size_t i;
        json_t *s;
        json_array_foreach(json_object_get(prev, "segments"), i, s) json_array_append(segs, s);
    } else {
        json_array_append_new(segs, resume_segment(json_string_value(json_object_get(partial, "created_utc")),
                                                   json_object_get(partial, "context"), 0, done,
                                                   json_object_get(partial, "cost"), 1));
    }
    /* every earlier segment stopped where the next one took over */
    size_t n = json_array_size(segs);
    json_t *last = n ? json_array_get(segs, n - 1) : NULL;
    if (last) {
        json_object_set_new(last, "partial", json_true());
        json_t *pts = json_object_get(last, "points");
        if (json_is_array(pts) && json_array_size(pts) == 2) json_array_set_new(pts, 1, json_integer((json_int_t)done));
    }
    json_array_append_new(segs, seg);
    json_t *files = json_array();
    if (json_is_object(prev) && json_is_array(json_object_get(prev, "from"))) {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(prev, "from"), i, f) json_array_append(files, f);
    }
    json_array_append_new(files, json_string(file));
    json_object_set_new(doc, "resumed", json_pack("{s:o, s:o}", "from", files, "segments", segs));
}

void resume_join(json_t *partial, const char *file, size_t done, json_t *seg, const json_t *context)
{
    /* the segments first: the partial file's own (when it was never resumed) is built
     * from its context as it was written, before that takes this process's end */
    resume_add_segment(partial, partial, file, done, seg);
    json_t *pctx = json_object_get(partial, "context");
    if (!json_is_object(pctx)) return;
    json_t *after = json_object_get(context, "clocks_after");
    json_object_set(pctx, "clocks_after", after ? after : json_null());
    json_object_set_new(pctx, "throttled", json_boolean(json_is_true(json_object_get(context, "throttled")) ||
                                                        json_is_true(json_object_get(pctx, "throttled"))));
}

static void sum_number(json_t *into, const json_t *add, const char *key)
{
    json_t *a = json_object_get(into, key), *b = json_object_get(add, key);
    if (!json_is_number(b)) return;
    if (json_is_integer(a) && json_is_integer(b)) {
        json_object_set_new(into, key, json_integer(json_integer_value(a) + json_integer_value(b)));
        return;
    }
    double x = json_is_number(a) ? json_number_value(a) : 0;
    json_object_set_new(into, key, json_real(round((x + json_number_value(b)) * 1e4) / 1e4));
}

static void sum_buckets(json_t *into, const json_t *add, const char *key)
{
    json_t *a = json_object_get(into, key), *b = json_object_get(add, key);
    if (!json_is_object(b)) return;
    if (!json_is_object(a)) {
        json_object_set(into, key, b);
        return;
    }
    const char *k;
    json_t *v;
    json_object_foreach(b, k, v) {
        (void)v;
        sum_number(a, b, k);
    }
}

json_t *resume_merge_cost(const json_t *then, json_t *now)
{
    if (!json_is_object(then)) return now;
    json_t *m = json_deep_copy(then);
    sum_number(m, now, "wall_s");
    sum_number(m, now, "gpu_timed_s");
    sum_number(m, now, "measurements");
    sum_buckets(m, now, "steps_s");
    sum_buckets(m, now, "stages_s");
    json_t *pts = json_object_get(m, "points"), *more = json_object_get(now, "points");
    if (!json_is_array(pts)) {
        if (json_is_array(more)) json_object_set(m, "points", more);
    } else if (json_is_array(more)) {
        json_array_extend(pts, more);
    }
    json_decref(now);
    return m;
}
