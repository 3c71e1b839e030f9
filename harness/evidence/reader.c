/* evidence/reader.c: an evidence run read into structs (see reader.h). */
#include "evidence/reader.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evidence/consistency.h"
#include "evidence/run_clocks.h"
#include "evidence/evidence_file.h"
#include "core/files.h"
#include "core/json_file.h"
#include "core/names.h"
#include "core/shapes.h"
#include "measure/l2_copies.h"

static double num_or_nan(json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str_or(json_t *v, const char *dflt)
{
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static long int_or(json_t *v, long dflt)
{
    return json_is_integer(v) ? (long)json_integer_value(v) : dflt;
}

/* A count the build wrote (registers, bytes): an integer >= 0, else -1 (absent). */
static long count_or_absent(json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (long)json_integer_value(v) : -1;
}

/* implementations[i].resources.kernels (absent: none listed); the validator has checked
 * each is an object with a string name. */
static int read_resource_kernels(run_data *r, size_t i, json_t *arr, run_impl *im, char *err, size_t errlen)
{
    if (!arr) return 0;
    if (!json_is_array(arr))
        return json_file_fail(err, errlen, r->path, "implementations[%zu].resources.kernels: not an array", i);
    im->kernels = calloc(json_array_size(arr) + 1, sizeof *im->kernels);
    if (!im->kernels) return json_file_fail(err, errlen, r->path, "out of memory");
    size_t k;
    json_t *v;
    json_array_foreach(arr, k, v) {
        run_kernel_resources *o = &im->kernels[im->n_kernels++];
        o->name = str_or(json_object_get(v, "name"), NULL);
        if (!o->name)
            return json_file_fail(err, errlen, r->path, "implementations[%zu].resources.kernels[%zu].name: missing "
                                  "or not a string", i, k);
        o->registers = count_or_absent(json_object_get(v, "registers"));
        o->smem_static = count_or_absent(json_object_get(v, "smem_static"));
        o->spill_stores = count_or_absent(json_object_get(v, "spill_stores"));
        o->spill_loads = count_or_absent(json_object_get(v, "spill_loads"));
    }
    return 0;
}

static int read_impls(run_data *r, char *err, size_t errlen)
{
    json_t *arr = json_object_get(r->doc, "implementations");
    if (!json_is_array(arr)) return json_file_fail(err, errlen, r->path, "implementations: not an array");
    r->n_impls = json_array_size(arr);
    r->impls = calloc(r->n_impls ? r->n_impls : 1, sizeof *r->impls);
    if (!r->impls) return json_file_fail(err, errlen, r->path, "out of memory");
    for (size_t i = 0; i < r->n_impls; i++) {
        json_t *v = json_array_get(arr, i);
        run_impl *im = &r->impls[i];
        im->name = str_or(json_object_get(v, "name"), NULL);
        if (!im->name) return json_file_fail(err, errlen, r->path, "implementations[%zu].name: missing or not a string", i);
        im->title = str_or(json_object_get(v, "title"), "");
        im->kind = str_or(json_object_get(v, "kind"), NULL);
        if (!im->kind) return json_file_fail(err, errlen, r->path, "implementations[%zu].kind: missing or not a string", i);
        json_t *res = json_object_get(v, "resources");
        if (json_is_object(res)) {
            im->has_resources = 1;
            im->registers = int_or(json_object_get(res, "registers"), -1);
            im->smem_static = int_or(json_object_get(res, "smem_static"), -1);
            im->spill_stores = int_or(json_object_get(res, "spill_stores"), -1);
            im->spill_loads = int_or(json_object_get(res, "spill_loads"), -1);
            if (read_resource_kernels(r, i, json_object_get(res, "kernels"), im, err, errlen)) return -1;
        }
    }
    return 0;
}

int run_read_shape(json_t *js, attn_shape *s)
{
    static const char *const keys[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim", "causal" };
    int *dst[] = { &s->batch, &s->heads, &s->seq_q, &s->seq_kv, &s->head_dim, &s->causal };
    for (size_t k = 0; k < 6; k++) {
        json_t *v = json_object_get(js, keys[k]);
        if (!json_is_integer(v)) return (int)k;
        *dst[k] = (int)json_integer_value(v);
    }
    json_t *sc = json_object_get(js, "scale");
    s->scale = json_is_number(sc) ? (float)json_number_value(sc) : 0.0f;
    return -1;
}

/* results[].paired_throttled: every round of the point's rotation fell under a clock
 * event, so no pairs and a throttled result. Its baseline and count are kept whole so that
 * the gate can name them and the writer can write them back; a run read from memory has
 * not been through the validator, so they are checked here as it checks them. */
static int read_paired_throttled(const run_data *r, size_t i, const json_t *res, run_result *o, char *err,
                                 size_t errlen)
{
    json_t *pt = json_object_get(res, "paired_throttled");
    if (!pt) return 0;
    if (!json_is_object(pt))
        return json_file_fail(err, errlen, r->path, "results[%zu].paired_throttled: not an object", i);
    const char *base = str_or(json_object_get(pt, "baseline"), NULL);
    if (!name_is_safe(base))
        return json_file_fail(err, errlen, r->path, "results[%zu].paired_throttled.baseline: missing or not a "
                              "safe name (1 to %d letters, digits, '-', '_' or '.', not starting with '.')", i,
                              NAME_MAX_LEN);
    json_t *n = json_object_get(pt, "discarded_pairs");
    /* no more rounds than any list of a run may hold (consistency.h) */
    if (!json_is_integer(n) || json_integer_value(n) < 0 || json_integer_value(n) > EVIDENCE_MAX_SAMPLES)
        return json_file_fail(err, errlen, r->path, "results[%zu].paired_throttled.discarded_pairs: missing or "
                              "not an integer from 0 to %d", i, EVIDENCE_MAX_SAMPLES);
    o->paired_throttled = o->throttled = 1;
    o->paired_throttled_baseline = base;
    o->discarded_pairs = (size_t)json_integer_value(n);
    return 0;
}

/* results[].paired (evidence/SCHEMA.md): the pairs, read whole or refused. */
static int read_paired(const run_data *r, size_t i, const json_t *res, run_result *o, char *err, size_t errlen)
{
    if (read_paired_throttled(r, i, res, o, err, errlen)) return -1;
    json_t *pb = json_object_get(res, "paired");
    if (!json_is_object(pb)) return 0;
    json_t *ai = json_object_get(pb, "impl_us"), *ab = json_object_get(pb, "baseline_us");
    json_t *base = json_object_get(pb, "baseline");
    size_t n = json_array_size(ai);
    if (!json_is_string(base) || n == 0 || json_array_size(ab) != n)
        return json_file_fail(err, errlen, r->path, "results[%zu].paired: needs a baseline name and "
                              "impl_us and baseline_us of one length >= 1", i);
    o->paired_impl = malloc(n * sizeof *o->paired_impl);
    o->paired_base = malloc(n * sizeof *o->paired_base);
    if (!o->paired_impl || !o->paired_base) return json_file_fail(err, errlen, r->path, "out of memory");
    for (size_t k = 0; k < n; k++) {
        double a = json_number_value(json_array_get(ai, k)), b = json_number_value(json_array_get(ab, k));
        if (!(isfinite(a) && a > 0 && isfinite(b) && b > 0))
            return json_file_fail(err, errlen, r->path, "results[%zu].paired: pair %zu is not two finite "
                                  "times > 0", i, k);
        o->paired_impl[k] = a;
        o->paired_base[k] = b;
    }
    o->n_paired = n;
    o->paired_baseline = json_string_value(base);
    json_t *design = json_object_get(pb, "design");
    o->paired_rotation = json_is_string(design) && !strcmp(json_string_value(design), "rotation");
    /* pairs dropped past the clock discard limit mark the result as a throttled graph
     * timing does: no gate passes it silently */
    json_t *stop = json_object_get(pb, "stop");
    o->paired_stop = str_or(stop, NULL);
    if (json_is_string(stop) && !strcmp(json_string_value(stop), "throttled")) {
        o->throttled = 1;
        /* the gate's message names what was discarded: these pairs, not the graph's samples */
        json_t *dp = json_object_get(json_object_get(pb, "clock"), "discarded_pairs");
        o->discarded_pairs = json_is_integer(dp) && json_integer_value(dp) > 0
                           ? (size_t)json_integer_value(dp) : 0;
    }
    return 0;
}

/* results[i].timing.graph: the samples and their summary, and whether sampling stopped
 * for the clock. */
static int read_graph(const run_data *r, size_t i, json_t *g, run_result *o, char *err, size_t errlen)
{
    if (!json_is_object(g)) return 0;
    json_t *arr = json_object_get(g, "samples_us");
    size_t n = json_array_size(arr);
    if (!json_is_array(arr) || n == 0)
        return json_file_fail(err, errlen, r->path, "results[%zu].timing.graph.samples_us: missing or empty", i);
    o->samples = malloc(n * sizeof *o->samples);
    if (!o->samples) return json_file_fail(err, errlen, r->path, "out of memory");
    for (size_t k = 0; k < n; k++) {
        json_t *x = json_array_get(arr, k);
        if (!json_is_number(x) || !(json_number_value(x) > 0))
            return json_file_fail(err, errlen, r->path, "results[%zu].timing.graph.samples_us[%zu]: "
                        "not a positive number", i, k);
        o->samples[k] = json_number_value(x);
    }
    o->n_samples = n;
    static const char *const need[] = { "median_us", "ci_lo_us", "ci_hi_us" };
    double *dst[] = { &o->median_us, &o->ci_lo_us, &o->ci_hi_us };
    for (size_t k = 0; k < 3; k++) {
        json_t *x = json_object_get(g, need[k]);
        if (!json_is_number(x))
            return json_file_fail(err, errlen, r->path, "results[%zu].timing.graph.%s: missing or not a number",
                        i, need[k]);
        *dst[k] = json_number_value(x);
    }
    o->timed = 1;
    /* the sampling stopped because too many samples fell under a clock event: the
     * numbers are what they are, but no gate may pass them silently */
    json_t *stop = json_object_get(g, "stop");
    o->graph_stop = str_or(stop, NULL);
    o->throttled = json_is_string(stop) && !strcmp(json_string_value(stop), "throttled");
    json_t *discarded = json_object_get(json_object_get(g, "clock"), "discarded");
    o->discarded = json_is_integer(discarded) && json_integer_value(discarded) > 0
                 ? (size_t)json_integer_value(discarded) : 0;
    return 0;
}

/* results[i].derived.ratio: the stored ratio to the baseline and its CI. */
static int read_ratio(const run_data *r, size_t i, json_t *d, run_result *o, char *err, size_t errlen)
{
    json_t *ra = json_is_object(d) ? json_object_get(d, "ratio") : NULL;
    if (!json_is_object(ra)) return 0;
    static const char *const rk[] = { "median", "ci_lo", "ci_hi" };
    double *rd[] = { &o->ratio, &o->ratio_lo, &o->ratio_hi };
    for (size_t k = 0; k < 3; k++) {
        json_t *x = json_object_get(ra, rk[k]);
        if (!json_is_number(x))
            return json_file_fail(err, errlen, r->path, "results[%zu].derived.ratio.%s: missing or "
                        "not a number", i, rk[k]);
        *rd[k] = json_number_value(x);
    }
    o->ratio_baseline = str_or(json_object_get(ra, "baseline"), "");
    o->has_ratio = 1;
    return 0;
}

/* results[i].timing.l2, its values already checked by the validator (evidence_file.c). */
static void read_l2(json_t *l2, run_result *o)
{
    o->l2_state = json_is_object(l2) ? l2_state_parse(json_string_value(json_object_get(l2, "state"))) : -1;
    if (o->l2_state < 0) return;
    o->l2_copies = (int)json_integer_value(json_object_get(l2, "copies"));
    o->l2_copy_bytes = (size_t)json_integer_value(json_object_get(l2, "copy_bytes"));
    o->l2_bytes = (size_t)json_integer_value(json_object_get(l2, "l2_bytes"));
}

const char *run_l2_text(const run_result *x)
{
    return x->l2_state < 0 ? "not recorded" : l2_state_name((l2_state)x->l2_state);
}

static int read_result(run_data *r, size_t i, run_result *o, char *err, size_t errlen)
{
    static const char *const shape_keys[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim", "causal" };
    json_t *v = json_array_get(json_object_get(r->doc, "results"), i);
    o->index = i;
    o->impl = str_or(json_object_get(v, "impl"), NULL);
    if (!o->impl) return json_file_fail(err, errlen, r->path, "results[%zu].impl: missing or not a string", i);
    o->tag = str_or(json_object_get(v, "tag"), "");
    int bad = run_read_shape(json_object_get(v, "shape"), &o->shape);
    if (bad >= 0)
        return json_file_fail(err, errlen, r->path, "results[%zu].shape.%s: missing or not an integer", i,
                    shape_keys[bad]);
    o->supported = json_is_true(json_object_get(v, "supported"));
    o->reason = str_or(json_object_get(v, "reason"), NULL);
    o->init_note = str_or(json_object_get(v, "init_note"), NULL);
    o->rel_l2 = o->max_abs = NAN;
    json_t *c = json_object_get(v, "correctness");
    if (json_is_object(c)) {
        json_t *pass = json_object_get(c, "pass");
        if (!json_is_boolean(pass))
            return json_file_fail(err, errlen, r->path, "results[%zu].correctness.pass: missing or not a boolean", i);
        o->checked = 1;
        o->correct = json_is_true(pass);
        o->rel_l2 = num_or_nan(json_object_get(c, "rel_l2"));
        o->max_abs = num_or_nan(json_object_get(c, "max_abs"));
    }
    if (read_graph(r, i, json_object_get(json_object_get(v, "timing"), "graph"), o, err, errlen)) return -1;
    read_l2(json_object_get(json_object_get(v, "timing"), "l2"), o);
    if (read_paired(r, i, v, o, err, errlen)) return -1;
    o->flops = o->bytes = o->tflops = o->gbps = o->frac_fp16_peak = o->frac_dram = NAN;
    if (read_ratio(r, i, json_object_get(v, "derived"), o, err, errlen)) return -1;
    /* The work of a shape is the harness's to compute, not the evidence's to claim: FLOPs
     * (visible pairs, core/shapes.h), bytes and the rates come from the shape and the
     * median, whatever an older or edited file stored. */
    o->flops = shape_flops(&o->shape);
    o->bytes = shape_bytes(&o->shape);
    if (o->timed) {
        o->tflops = o->flops / (o->median_us * 1e-6) / 1e12;
        o->gbps = o->bytes / (o->median_us * 1e-6) / 1e9;
        o->frac_fp16_peak = r->fp16_tflops > 0 ? o->tflops / r->fp16_tflops : NAN;
        o->frac_dram = r->dram_gbps > 0 ? o->gbps / r->dram_gbps : NAN;
        /* Inputs that may have stayed in L2 are held to the copy ceiling. On cold inputs the
         * figure is a read rate, and a copy writes as much as it reads: those are held to the
         * read stream's ceiling where the run measured one (NAN before it: not flagged). */
        int cold = o->l2_state == L2_ROTATED || o->l2_state == L2_COLD_BY_SIZE;
        double ceiling = cold ? r->read_gbps : r->dram_gbps;
        o->above_ceiling = ceiling > 0 && o->gbps > ceiling * (1 + RUN_CEILING_SLACK);
    }
    return 0;
}

/* context.env_overrides: the ATTN* variables set when the run was made (a tuning override
 * such as ATTN06_CONFIG measures something other than the rung), joined for messages. */
static void read_overrides(run_data *r, json_t *ov)
{
    r->overrides = NULL;
    if (json_is_object(ov)) {
        r->env = calloc(json_object_size(ov) + 1, sizeof *r->env);
        const char *name;
        json_t *val;
        json_object_foreach(ov, name, val) {
            if (!r->env) break;
            r->env[r->n_env++] = (run_env_override){ name, str_or(val, NULL) };
        }
    }
    if (!json_is_object(ov) || json_object_size(ov) == 0) return;
    size_t len = 0;
    const char *k;
    json_t *v;
    json_object_foreach(ov, k, v) len += strlen(k) + (json_is_string(v) ? strlen(json_string_value(v)) : 0) + 2;
    r->overrides_buf = malloc(len + 1);
    if (!r->overrides_buf) return;
    r->overrides_buf[0] = '\0';
    json_object_foreach(ov, k, v) {
        strcat(r->overrides_buf, k);
        strcat(r->overrides_buf, "=");
        if (json_is_string(v)) strcat(r->overrides_buf, json_string_value(v));
        strcat(r->overrides_buf, " ");
    }
    r->overrides = r->overrides_buf;
}

static void read_context(run_data *r, json_t *ctx)
{
    json_t *gpu = json_object_get(ctx, "gpu"), *ver = json_object_get(ctx, "versions");
    r->ctx = (run_context){
        .device_index = int_or(json_object_get(gpu, "index"), -1),
        .uuid = str_or(json_object_get(gpu, "uuid"), NULL),
        .cuda_visible_devices = str_or(json_object_get(gpu, "cuda_visible_devices"), NULL),
        .sm_count = int_or(json_object_get(gpu, "sm_count"), -1),
        .cc_major = int_or(json_object_get(gpu, "cc_major"), -1),
        .cc_minor = int_or(json_object_get(gpu, "cc_minor"), -1),
        .cuda_runtime = int_or(json_object_get(ver, "cuda_runtime"), -1),
        .cuda_driver = int_or(json_object_get(ver, "cuda_driver"), -1),
        .cublas = int_or(json_object_get(ver, "cublas"), -1),
        .cudnn = int_or(json_object_get(ver, "cudnn"), -1),
        .driver = str_or(json_object_get(ver, "driver"), NULL),
        .nvcc = str_or(json_object_get(ver, "nvcc"), NULL),
        .cudnn_path = str_or(json_object_get(ver, "cudnn_path"), NULL),
    };
}

static int read_kernel_profile(run_data *r, size_t i, size_t k, json_t *kv, run_kernel_profile *o,
                               char *err, size_t errlen)
{
    o->kernel = str_or(json_object_get(kv, "kernel"), NULL);
    if (!o->kernel)
        return json_file_fail(err, errlen, r->path, "profile[%zu].kernels[%zu].kernel: missing or not a string", i, k);
    json_t *metrics = json_object_get(kv, "metrics");
    if (metrics && !json_is_object(metrics))
        return json_file_fail(err, errlen, r->path, "profile[%zu].kernels[%zu].metrics: not an object", i, k);
    o->metrics = calloc(json_object_size(metrics) + 1, sizeof *o->metrics);
    json_t *stalls = json_object_get(kv, "stall_top");
    if (stalls && !json_is_array(stalls))
        return json_file_fail(err, errlen, r->path, "profile[%zu].kernels[%zu].stall_top: not an array", i, k);
    o->stalls = calloc(json_array_size(stalls) + 1, sizeof *o->stalls);
    if (!o->metrics || !o->stalls) return json_file_fail(err, errlen, r->path, "out of memory");
    const char *name;
    json_t *v;
    json_object_foreach(metrics, name, v) {
        run_metric *m = &o->metrics[o->n_metrics++];
        m->name = name;
        m->is_number = json_is_number(v);
        m->number = m->is_number ? json_number_value(v) : NAN;
        m->text = json_is_string(v) ? json_string_value(v) : NULL;
    }
    size_t s;
    json_array_foreach(stalls, s, v) {
        run_stall *st = &o->stalls[o->n_stalls++];
        st->reason = str_or(json_object_get(v, "reason"), NULL);
        json_t *pi = json_object_get(v, "per_issue");
        if (!st->reason || !json_is_number(pi))
            return json_file_fail(err, errlen, r->path, "profile[%zu].kernels[%zu].stall_top[%zu]: needs a string "
                        "'reason' and a number 'per_issue'", i, k, s);
        st->per_issue = json_number_value(pi);
    }
    return 0;
}

/* The `profile` rows (written by `attnladder profile`); absent is none. */
static int read_profiles(run_data *r, char *err, size_t errlen)
{
    json_t *arr = json_object_get(r->doc, "profile");
    if (!arr) return 0;
    if (!json_is_array(arr)) return json_file_fail(err, errlen, r->path, "profile: not an array");
    r->profiles = calloc(json_array_size(arr) + 1, sizeof *r->profiles);
    if (!r->profiles) return json_file_fail(err, errlen, r->path, "out of memory");
    size_t i;
    json_t *p;
    json_array_foreach(arr, i, p) {
        run_profile *o = &r->profiles[r->n_profiles++];
        o->impl = str_or(json_object_get(p, "impl"), NULL);
        if (!o->impl) return json_file_fail(err, errlen, r->path, "profile[%zu].impl: missing or not a string", i);
        o->tool = str_or(json_object_get(p, "tool"), "ncu");
        static const char *const shape_keys[] = { "batch", "heads", "seq_q", "seq_kv", "head_dim", "causal" };
        int bad = run_read_shape(json_object_get(p, "shape"), &o->shape);
        if (bad >= 0)
            return json_file_fail(err, errlen, r->path, "profile[%zu].shape.%s: missing or not an integer", i,
                        shape_keys[bad]);
        json_t *kernels = json_object_get(p, "kernels");
        if (kernels && !json_is_array(kernels))
            return json_file_fail(err, errlen, r->path, "profile[%zu].kernels: not an array", i);
        o->kernels = calloc(json_array_size(kernels) + 1, sizeof *o->kernels);
        if (!o->kernels) return json_file_fail(err, errlen, r->path, "out of memory");
        size_t k;
        json_t *kv;
        json_array_foreach(kernels, k, kv)
            if (read_kernel_profile(r, i, k, kv, &o->kernels[o->n_kernels++], err, errlen)) return -1;
    }
    return 0;
}

/* `input_checks` (absent in runs made before they existed: none). */
static int read_input_checks(run_data *r, char *err, size_t errlen)
{
    json_t *arr = json_object_get(r->doc, "input_checks");
    if (!arr) return 0;
    if (!json_is_array(arr)) return json_file_fail(err, errlen, r->path, "input_checks: not an array");
    r->input_checks = calloc(json_array_size(arr) + 1, sizeof *r->input_checks);
    if (!r->input_checks) return json_file_fail(err, errlen, r->path, "out of memory");
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        run_input_check *o = &r->input_checks[r->n_input_checks++];
        o->impl = str_or(json_object_get(v, "impl"), NULL);
        o->inputs = str_or(json_object_get(v, "inputs"), NULL);
        o->tag = str_or(json_object_get(v, "tag"), "");
        json_t *pass = json_object_get(json_object_get(v, "correctness"), "pass");
        if (!o->impl || !o->inputs || !json_is_boolean(pass))
            return json_file_fail(err, errlen, r->path, "input_checks[%zu]: needs strings impl and inputs and a "
                        "boolean correctness.pass", i);
        if (run_read_shape(json_object_get(v, "shape"), &o->shape) >= 0)
            return json_file_fail(err, errlen, r->path, "input_checks[%zu].shape: not a shape", i);
        o->correct = json_is_true(pass);
        o->rel_l2 = num_or_nan(json_object_get(json_object_get(v, "correctness"), "rel_l2"));
        o->max_abs = num_or_nan(json_object_get(json_object_get(v, "correctness"), "max_abs"));
    }
    return 0;
}

const run_metric *run_metric_find(const run_kernel_profile *k, const char *name)
{
    for (size_t i = 0; i < k->n_metrics; i++)
        if (strcmp(k->metrics[i].name, name) == 0) return &k->metrics[i];
    return NULL;
}

/* method's settings that the consumers use (defaults where a file has none). */
static void read_method(run_data *r, json_t *method)
{
    r->baseline = str_or(json_object_get(method, "baseline"), "");
    r->has_ci_level = json_is_number(json_object_get(method, "ci_level"));
    r->has_stats_seed = json_is_integer(json_object_get(method, "stats_seed"));
    r->has_resamples = json_is_integer(json_object_get(method, "bootstrap_resamples"));
    r->ci_level = json_is_number(json_object_get(method, "ci_level"))
                ? json_number_value(json_object_get(method, "ci_level")) : 0.95;
    r->stats_seed = (unsigned long long)int_or(json_object_get(method, "stats_seed"), 20261122);
    /* in range: the validator refuses a value outside consistency.h's bounds */
    r->resamples = (size_t)int_or(json_object_get(method, "bootstrap_resamples"), 2000);
    json_t *rm = json_object_get(method, "ratio");
    r->ratio_method = str_or(rm, NULL);
    r->has_ratio_design = json_is_object(json_object_get(method, "ratio_design"));
    r->ratio_rotation = json_is_string(rm) && !strcmp(json_string_value(rm), "paired") && r->has_ratio_design;
}

int run_from_doc(run_data *r, json_t *doc, const char *path, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->path = strdup(path);
    if (!r->path) return json_file_fail(err, errlen, path, "out of memory");
    const char *slash = strrchr(r->path, '/');
    r->base = slash ? slash + 1 : r->path;
    r->doc = json_incref(doc);
    json_t *ctx = json_object_get(doc, "context");
    json_t *gpu = json_object_get(ctx, "gpu");
    r->gpu_name = str_or(json_object_get(gpu, "name"), NULL);
    r->slug = str_or(json_object_get(gpu, "slug"), NULL);
    if (!r->gpu_name || !r->slug) {
        json_file_fail(err, errlen, path, "context.gpu.%s: missing or not a string", r->gpu_name ? "slug" : "name");
        goto bad;
    }
    /* A run file lives in its GPU's directory (evidence/<slug>/<stamp>_....json): one
     * filed under another GPU's would be read as that GPU's run and gated against its set. */
    if (name_is_run_file(r->base, NULL) && r->base != r->path) {
        const char *end = r->base - 1, *dir = end;
        while (dir > r->path && dir[-1] != '/') dir--;
        if ((size_t)(end - dir) != strlen(r->slug) || strncmp(dir, r->slug, (size_t)(end - dir))) {
            json_file_fail(err, errlen, path, "context.gpu.slug: '%s', but the run is filed under '%.*s/'; a "
                           "run file belongs in the directory of its GPU's slug", r->slug, (int)(end - dir), dir);
            goto bad;
        }
    }
    r->created_utc = str_or(json_object_get(doc, "created_utc"), "");
    json_t *git = json_object_get(ctx, "git");
    r->commit = str_or(json_object_get(git, "commit"), "unknown");
    r->dirty = json_is_true(json_object_get(git, "dirty"));
    /* Partial when either says so: a renamed interrupted run stays partial for show,
     * gate, compare and report alike. */
    r->marked_partial = json_is_true(json_object_get(doc, "partial"));
    r->partial = r->marked_partial || name_says_partial(r->base);
    r->throttled = json_is_true(json_object_get(ctx, "throttled"));
    read_context(r, ctx);
    json_t *cost = json_object_get(doc, "cost");
    r->cost_wall_s = num_or_nan(json_object_get(cost, "wall_s"));
    r->cost_gpu_s = num_or_nan(json_object_get(cost, "gpu_timed_s"));
    r->cost_measurements = int_or(json_object_get(cost, "measurements"), -1);
    read_method(r, json_object_get(doc, "method"));
    r->planted = str_or(json_object_get(ctx, "planted_slowdown"), NULL);
    read_overrides(r, json_object_get(ctx, "env_overrides"));
    json_t *ce = json_object_get(doc, "ceilings");
    r->fp16_tflops = num_or_nan(json_object_get(ce, "fp16_tflops"));
    r->dram_gbps = num_or_nan(json_object_get(ce, "dram_gbps"));
    r->read_gbps = num_or_nan(json_object_get(ce, "read_gbps"));
    r->launch_floor_us = num_or_nan(json_object_get(json_object_get(json_object_get(ce, "launch_floor"),
                                                                    "graph"), "median_us"));
    if (read_impls(r, err, errlen)) goto bad;
    json_t *res = json_object_get(doc, "results");
    if (!json_is_array(res)) {
        json_file_fail(err, errlen, path, "results: not an array");
        goto bad;
    }
    r->n_results = json_array_size(res);
    r->results = calloc(r->n_results ? r->n_results : 1, sizeof *r->results);
    if (!r->results) {
        json_file_fail(err, errlen, path, "out of memory");
        goto bad;
    }
    for (size_t i = 0; i < r->n_results; i++)
        if (read_result(r, i, &r->results[i], err, errlen)) goto bad;
    run_read_clocks(r, ctx);
    if (read_profiles(r, err, errlen) || read_input_checks(r, err, errlen)) goto bad;
    return 0;
bad:
    run_close(r);
    return -1;
}

int run_open(run_data *r, const char *path, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    json_t *doc = evidence_load(path, err, errlen);
    if (!doc) return -1;
    int rc = run_from_doc(r, doc, path, err, errlen);
    json_decref(doc);
    return rc;
}

int run_open_newest(run_data *r, const char *root, int include_partial, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char **paths = NULL;
    size_t n = 0;
    if (evidence_list(root, include_partial, &paths, &n, err, errlen)) return -1;
    int rc = -1;
    /* sorted by <gpu>/<stamp>: the newest is the greatest base name, over every GPU */
    size_t *order = calloc(n + 1, sizeof *order);
    for (size_t i = 0; order && i < n; i++) {
        size_t k = i;
        while (k > 0 && strcmp(strrchr(paths[order[k - 1]], '/'), strrchr(paths[i], '/')) > 0) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    char shown[FILES_SHOWN];
    snprintf(err, errlen, "no evidence under %s/ yet (run `make run` on a GPU)%s", files_shown(root, shown),
             include_partial ? "" : "; partial runs are left out");
    for (size_t i = n; order && i-- > 0 && rc;) {
        if (run_open(r, paths[order[i]], err, errlen)) break;
        if (!r->partial || include_partial) rc = 0;
        else run_close(r);
    }
    if (!order) snprintf(err, errlen, "out of memory listing %s", root);
    free(order);
    evidence_free_list(paths, n);
    return rc;
}

void run_close(run_data *r)
{
    for (size_t i = 0; r->results && i < r->n_results; i++) {
        free(r->results[i].samples);
        free(r->results[i].paired_impl);
        free(r->results[i].paired_base);
    }
    free(r->results);
    for (size_t i = 0; r->impls && i < r->n_impls; i++) free(r->impls[i].kernels);
    free(r->impls);
    for (size_t i = 0; r->profiles && i < r->n_profiles; i++) {
        for (size_t k = 0; k < r->profiles[i].n_kernels; k++) {
            free(r->profiles[i].kernels[k].metrics);
            free(r->profiles[i].kernels[k].stalls);
        }
        free(r->profiles[i].kernels);
    }
    free(r->profiles);
    free(r->input_checks);
    free(r->overrides_buf);
    free(r->env);
    free(r->path);
    json_decref(r->doc);
    memset(r, 0, sizeof *r);
}

const run_impl *run_find_impl(const run_data *r, const char *name)
{
    size_t i = name_index(r->impls, r->n_impls, sizeof *r->impls, offsetof(run_impl, name), name);
    return i < r->n_impls ? &r->impls[i] : NULL;
}

int run_same_kernel(const run_result *a, const run_result *b)
{
    return a->init_note && b->init_note && a->init_note[0] && !strcmp(a->init_note, b->init_note);
}

const run_result *run_find(const run_data *r, const char *impl, const attn_shape *s)
{
    for (size_t i = 0; i < r->n_results; i++)
        if (strcmp(r->results[i].impl, impl) == 0 && shape_same(&r->results[i].shape, s))
            return &r->results[i];
    return NULL;
}

static int headline_index(const attn_shape *s, const attn_shape *h, size_t nh)
{
    for (size_t i = 0; h && i < nh; i++)
        if (shape_same(s, &h[i])) return (int)i;
    return (int)nh;
}

static int cmp_int(int a, int b) { return a < b ? -1 : a > b; }

int run_shape_order(const attn_shape *a, const attn_shape *b, const attn_shape *headline,
                    size_t nh)
{
    int c;
    if ((c = cmp_int(headline_index(a, headline, nh), headline_index(b, headline, nh)))) return c;
    if ((c = cmp_int(a->head_dim, b->head_dim))) return c;
    if ((c = cmp_int(a->causal, b->causal))) return c;
    if ((c = cmp_int(a->seq_q, b->seq_q))) return c;
    if ((c = cmp_int(a->seq_kv, b->seq_kv))) return c;
    if ((c = cmp_int(a->batch, b->batch))) return c;
    return cmp_int(a->heads, b->heads);
}

void run_shape_text(const attn_shape *s, char *buf, size_t len)
{
    shape_format(s, buf, len);
}
