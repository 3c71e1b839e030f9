/* run.c: `attnladder run`: options, context, ceilings and launch floor, every shape
 * through measure.c, external baselines, one evidence file written atomically. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cuda_runtime_api.h>
#include "measure/ceilings.h"
#include "core/args.h"
#include "core/text_safe.h"
#include "core/files.h"
#include "core/gz_read.h"
#include "core/json_file.h"
#include "attn_oracle.h"
#include "cmd/commands.h"
#include "report/targets.h"
#include "measure/device_info.h"
#include "evidence/evidence_file.h"
#include "evidence/external_bridge.h"
#include "measure/loader.h"
#include "measure/timing.h"
#include "measure/inputs.h"
#include "measure/measure_shape.h"
#include "measure/point_derived.h"
#include "measure/point_ratios.h"
#include "measure/planted_slowdown.h"
#include "measure/kernel_resources.h"
#include "measure/oracle_gpu.h"
#include "measure/resume.h"
#include "measure/run_options.h"
#include "core/shapes.h"
#include "evidence/reader.h"
#include "evidence/text_table.h"
#include "evidence/writer.h"

static volatile sig_atomic_t g_stop = 0;
static void on_signal(int sig) { (void)sig; g_stop = 1; }

/* The implementations to measure, baseline first, then the rest in load order. */
static int select_impls(const run_opts *o, const loaded_impl *all, size_t n_all,
                        const loaded_impl **sel, size_t *n_sel)
{
    *n_sel = 0;
    for (size_t i = 0; i < o->n_names; i++) {
        if (!loader_find(all, n_all, o->names[i])) {
            fprintf(stderr, "attnladder run: unknown implementation '%s'; accepted:", o->names[i]);
            for (size_t j = 0; j < n_all; j++) fprintf(stderr, " %s", all[j].ph->name);
            fprintf(stderr, "\n");
            return -1;
        }
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t j = 0; j < n_all; j++) {
            const char *name = all[j].ph->name;
            int is_base = o->baseline && strcmp(name, o->baseline) == 0;
            if (pass == 0 ? !is_base : is_base) continue;
            int wanted = o->n_names == 0 || all[j].kind == IMPL_FLOOR;
            for (size_t i = 0; i < o->n_names && !wanted; i++)
                wanted = strcmp(o->names[i], name) == 0;
            if (wanted) sel[(*n_sel)++] = &all[j];
        }
    return 0;
}

/* Every shape must be valid and served by at least one selected implementation. */
static int check_shapes(const run_opts *o, const loaded_impl **sel, size_t n_sel)
{
    for (size_t i = 0; i < o->n_shapes; i++) {
        const attn_shape *s = &o->shapes[i].s;
        char err[256], text[96];
        if (shape_validate(s, err, sizeof err)) {
            fprintf(stderr, "attnladder run: %s\n", err);
            return -1;
        }
        const char *why = "no implementation selected";
        int served = 0;
        for (size_t j = 0; j < n_sel && !served; j++) {
            if (sel[j]->kind == IMPL_FLOOR) continue;
            const char *w = sel[j]->ph->unsupported(s);
            if (!w) served = 1;
            else why = w;
        }
        if (!served) {
            shape_format(s, text, sizeof text);
            fprintf(stderr, "attnladder run: no selected implementation supports %s (e.g.: %s)\n",
                    text, why);
            return -1;
        }
    }
    return 0;
}

static void utc_stamp(char *iso, size_t iso_len, char *compact, size_t compact_len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(iso, iso_len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(compact, compact_len, "%Y%m%dT%H%M%SZ", &tm);
}

static json_t *impl_json(const loaded_impl *im, const char *arch)
{
    /* the loaded code's own attributes; the build's ptxas report alone where the driver
     * cannot say (no fatbinary in the object, an old driver) */
    char why[512];
    kernel_resources res = { 0 };
    run_impl_record r = { .name = im->ph->name, .title = im->ph->title, .kind = impl_kind_name(im->kind),
                          .path = im->path, .resources = &res };
    if (resources_loaded(im->path, arch, &res, why, sizeof why)) {
        r.ptxas_why = why;
        if (resources_for_object(im->path, arch, &res)) r.resources = NULL;
    }
    json_t *o = run_write_impl(&r);
    resources_free(&res);
    return o;
}

/* Statistics of an imported mode object recomputed from its samples, so every number
 * in the evidence comes from the same code. */
static int recompute_mode(json_t *mode, const time_config *tc)
{
    json_t *arr = json_object_get(mode, "samples_us");
    size_t n = json_array_size(arr);
    if (n == 0) return -1;
    time_result r = { .mode = MODE_GRAPH, .n = n };
    r.samples_us = malloc(n * sizeof *r.samples_us);
    if (!r.samples_us) return -1;
    for (size_t i = 0; i < n; i++) r.samples_us[i] = json_number_value(json_array_get(arr, i));
    r.inner = (int)json_integer_value(json_object_get(mode, "inner"));
    const char *stop = json_string_value(json_object_get(mode, "stop"));
    r.stop = stop && !strcmp(stop, "noise") ? STOP_NOISE
           : stop && !strcmp(stop, "max_time") ? STOP_MAX_TIME
           : stop && !strcmp(stop, "throttled") ? STOP_THROTTLED : STOP_MAX_SAMPLES;
    int rc = stats_summarize(r.samples_us, n, tc->resamples, tc->seed, tc->ci_level, &r.sum);
    if (rc == 0) {
        json_t *fresh = run_write_timing_mode(&r, NULL);
        json_object_update(mode, fresh);
        json_decref(fresh);
    }
    time_result_free(&r);
    return rc;
}

/* An external result's `paired` block (its rotation with the C baseline in its own
 * process, ci/tools/torch_sdpa.py --abi): the two time arrays, n long, every time finite
 * and > 0, the baseline the run's. 0 with *n = 0 when there is none; 1 read; -1 malformed. */
static int external_pairs(const json_t *res, const char *baseline, double **a, double **b, size_t *n)
{
    *a = *b = NULL;
    *n = 0;
    const json_t *pb = json_object_get(res, "paired");
    if (!pb) return 0;
    const json_t *ia = json_object_get(pb, "impl_us"), *ba = json_object_get(pb, "baseline_us"),
                 *bn = json_object_get(pb, "baseline");
    size_t m = json_array_size(ia);
    if (!json_is_object(pb) || !json_is_array(ia) || !json_is_array(ba) || m == 0 || json_array_size(ba) != m ||
        !json_is_string(bn) || !baseline || strcmp(json_string_value(bn), baseline))
        return -1;
    *a = malloc(m * sizeof **a);
    *b = malloc(m * sizeof **b);
    if (!*a || !*b) goto bad;
    for (size_t i = 0; i < m; i++) {
        const json_t *x = json_array_get(ia, i), *y = json_array_get(ba, i);
        double u = json_is_number(x) ? json_number_value(x) : NAN, w = json_is_number(y) ? json_number_value(y) : NAN;
        if (!(isfinite(u) && u > 0 && isfinite(w) && w > 0)) goto bad;
        (*a)[i] = u;
        (*b)[i] = w;
    }
    *n = m;
    return 1;
bad:
    free(*a);
    free(*b);
    *a = *b = NULL;
    return -1;
}

/* The paired block's partner when it is not the run's baseline: a rung the external was
 * paired with in its own process (a bridge), or NULL. */
static const char *external_bridge_name(const json_t *res, const char *baseline)
{
    const char *with = json_string_value(json_object_get(json_object_get(res, "paired"), "baseline"));
    return with && baseline && strcmp(with, baseline) ? with : NULL;
}

/* An external paired with a bridge: its ratio to the run's baseline through the rung's
 * pairs in this run (evidence/external_bridge.h), method "bridged"; none where the run did
 * not time the rung at that shape. 0, or -1 malformed (printed). */
static int external_bridged(json_t *res, result_derived *d, const measure_ctx *mc, const json_t *impls,
                            const json_t *results, const char *path, size_t i)
{
    const time_config *tc = &mc->tc;
    bridge_bootstrap bs = { tc->resamples, tc->seed, tc->ci_level };
    char err[256];
    double r, lo, hi;
    int got = external_bridged_ratio(res, impls, results, mc->baseline, &bs, &r, &lo, &hi, err, sizeof err);
    if (got < 0) {
        fprintf(stderr, "attnladder run: --external %s: results[%zu]: %s\n", path, i, err);
        return -1;
    }
    d->has_ratio = got;
    if (got)
        d->ratio = (derived_ratio){ .baseline = mc->baseline, .method = "bridged", .median = r, .ci_lo = lo,
                                    .ci_hi = hi };
    return 0;
}

/* An external result's derived figures, from its own (input) samples and shape; its ratio
 * from its pairs with the C baseline when it has them, or through the rung it was paired
 * with (a bridge) when that is what its pairs name. */
static int external_derive(json_t *res, json_t *graph, const measure_ctx *mc, const json_t *impls,
                           const json_t *results, const char *path, size_t i)
{
    json_t *arr = json_object_get(graph, "samples_us");
    attn_shape s;
    size_t n = json_array_size(arr);
    char err[256];
    if (run_read_shape(json_object_get(res, "shape"), &s) >= 0 || !n || shape_validate(&s, err, sizeof err))
        return -1;
    double *pa = NULL, *pb = NULL;
    size_t np = 0;
    const char *bridge = external_bridge_name(res, mc->baseline);
    if (!bridge && external_pairs(res, mc->baseline, &pa, &pb, &np) < 0) return -1;
    double *x = malloc(n * sizeof *x);
    if (!x) {
        free(pa);
        free(pb);
        return -1;
    }
    for (size_t i = 0; i < n; i++) x[i] = json_number_value(json_array_get(arr, i));
    result_derived d = measure_derived(mc, &s, x, n, json_number_value(json_object_get(graph, "median_us")), pa, pb, np);
    int rc = bridge ? external_bridged(res, &d, mc, impls, results, path, i) : 0;
    if (!rc) {
        json_t *jd = run_write_derived(&d);
        /* which rung carried the ratio across the two processes */
        if (bridge && d.has_ratio) json_object_set_new(json_object_get(jd, "ratio"), "bridge", json_string(bridge));
        json_object_set_new(res, "derived", jd);
    }
    free(x);
    free(pa);
    free(pb);
    return rc;
}

static int import_external(const char *path, json_t *impls, json_t *results, const measure_ctx *mc)
{
    const time_config *tc = &mc->tc;
    char err[1024];
    json_t *ext = json_file_load(path, (size_t)32 << 20, err, sizeof err);   /* a regular file, not a FIFO */
    if (!ext) {
        fprintf(stderr, "attnladder run: --external %s\n", err);
        return -1;
    }
    json_t *ei = json_object_get(ext, "implementations"), *er = json_object_get(ext, "results");
    if (!json_is_array(ei) || !json_is_array(er)) {
        fprintf(stderr, "attnladder run: --external %s: needs arrays 'implementations' and 'results'\n", path);
        json_decref(ext);
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(ei, i, v) {
        json_object_set_new(v, "kind", json_string("external"));
        json_array_append(impls, v);
    }
    json_array_foreach(er, i, v) {
        json_t *graph = json_object_get(json_object_get(v, "timing"), "graph");
        if (graph && recompute_mode(graph, tc)) {
            fprintf(stderr, "attnladder run: --external %s: results[%zu].timing.graph has no samples\n", path, i);
            json_decref(ext);
            return -1;
        }
        json_object_set_new(v, "tag", json_string("external"));
        if (graph && external_derive(v, graph, mc, impls, results, path, i)) {
            fprintf(stderr, "attnladder run: --external %s: results[%zu]: bad shape, samples or paired block "
                    "(paired needs the run's baseline, impl_us and baseline_us of one length, times "
                    "finite and > 0)\n", path, i);
            json_decref(ext);
            return -1;
        }
        json_array_append(results, v);
    }
    json_decref(ext);
    return 0;
}

static size_t count_measurements(const run_opts *o, size_t n_sel)
{
    size_t per_headline = 1, per_other = 1;
    for (int m = 0; m < MODE_COUNT; m++) {
        per_headline += (size_t)o->modes[m];
        per_other += (size_t)o->sweep_modes[m];
    }
    /* the interleaved ratio's measurement (one per implementation after the baseline) */
    per_headline += (size_t)(o->paired && o->modes[MODE_GRAPH]);
    per_other += (size_t)(o->paired && o->sweep_modes[MODE_GRAPH]);
    size_t total = 0;
    for (size_t i = 0; i < o->n_shapes; i++) {
        total += n_sel * (strcmp(o->shapes[i].tag, "headline") == 0 ? per_headline : per_other);
        for (int d = 1; d < DIST_COUNT; d++) total += n_sel * ((o->shapes[i].extra_inputs >> d) & 1u);
    }
    return total;
}

extern char **environ;

/* Every ATTN* variable set for this run (ATTN06_CONFIG forces a tuning configuration,
 * ATTN07_* a variant, ATTN_PLANT a slowdown): such a run measures something other than
 * the rungs as built, and the ladder gate refuses it. */
static run_env_override *env_overrides_read(size_t *n)
{
    run_env_override *env = NULL;
    *n = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "ATTN", 4) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        run_env_override *more = realloc(env, (*n + 1) * sizeof *env);
        char *name = more ? strndup(*e, (size_t)(eq - *e < 127 ? eq - *e : 127)) : NULL;
        if (more) env = more;
        if (!name) break;
        env[(*n)++] = (run_env_override){ name, eq + 1 };
    }
    return env;
}

/* ---- --resume: the partial run's options, file and place ------------------------------- */

static run_opts g_then;          /* the partial run's options (large: kept off the stack) */
static char **g_then_argv;       /* their strings, which the options point into */
static size_t g_then_argc;

static void resume_free(void)
{
    run_opts_free(&g_then);
    for (size_t i = 0; i < g_then_argc; i++) free(g_then_argv[i]);
    free(g_then_argv);
    g_then_argv = NULL;
    g_then_argc = 0;
}

/* A resumed run is written beside its partial file: only in the folder of the GPU it ran
 * on (evidence/<slug>/), never into another GPU's, where the reports and the gates would
 * take it for one of that GPU's runs. 1 refused (printed), 0 fine. */
static int resume_folder_refused(const char *partial, const json_t *prev)
{
    const char *slug = json_string_value(json_object_get(json_object_get(json_object_get(prev, "context"), "gpu"),
                                                         "slug"));
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", partial);
    char *cut = strrchr(dir, '/');
    if (cut) *cut = '\0';
    else snprintf(dir, sizeof dir, ".");
    char *abs = files_resolve(dir);
    const char *folder = abs ? strrchr(abs, '/') : NULL;
    folder = folder ? folder + 1 : "";
    int refused = !slug || strcmp(folder, slug) != 0;
    if (refused) {
        char f[80], g[80];
        text_escape(f, sizeof f, folder, TEXT_TERMINAL);
        text_escape(g, sizeof g, slug ? slug : "?", TEXT_TERMINAL);
        fprintf(stderr, "attnladder run --resume: it lies in %s/, the folder of another GPU or of none, not in "
                "%s/ where the runs of the GPU it ran on go: the finished run would be filed there; move the "
                "partial file into a %s/ folder or name the output with --out\n", f, g, g);
    }
    free(abs);
    return refused;
}

/* --out: a new file, or a partial run (never a complete run or another file, which a
 * failed or cut-short run would otherwise replace), and none of the inputs. 0, or -1
 * with the reason printed. */
static int out_path_refused(const run_opts *o)
{
    if (!o->out_path) return 0;
    char err[1024];
    const char *inputs[] = { o->resume, o->external };
    if (files_output_file("--out", o->out_path, inputs, 2, err, sizeof err)) {
        fprintf(stderr, "attnladder run: %s\n", err);
        return -1;
    }
    struct stat st;
    if (lstat(o->out_path, &st) != 0) return 0;   /* a new file */
    json_t *doc = evidence_load(o->out_path, err, sizeof err);
    int partial = doc && json_is_true(json_object_get(doc, "partial"));
    json_decref(doc);
    if (partial) return 0;
    char shown[300];
    text_escape(shown, sizeof shown, o->out_path, TEXT_TERMINAL);
    fprintf(stderr, "attnladder run: --out %s: %s; a run never replaces one: name a new file\n", shown,
            doc ? "a complete run is there" : "a file that is no partial run is there");
    return -1;
}

/* Loads the partial run and takes its options (parsed from its argv), with this command's
 * places (build, evidence, out, device, external). This command's other options, when it
 * names any, must be the partial run's. 0, or -1 with the reason printed. */
static int resume_prepare(run_opts **op, json_t **prev_out)
{
    run_opts *o = *op;
    char err[1024], why[1024];
    if (gz_is_named(o->resume)) {   /* its continuation is written plain, beside it */
        fprintf(stderr, "attnladder run --resume %s: a compressed run; resume its plain form "
                "(gzip -d writes it and removes the .gz)\n", o->resume);
        return -1;
    }
    json_t *prev = evidence_load(o->resume, err, sizeof err);
    if (!prev) {
        fprintf(stderr, "attnladder run --resume: %s\n", err);
        return -1;
    }
    if (!json_is_true(json_object_get(prev, "partial"))) {
        fprintf(stderr, "attnladder run --resume %s: it is a complete run (\"partial\": false): "
                "nothing to resume\n", o->resume);
        json_decref(prev);
        return -1;
    }
    if (!o->out_path && resume_folder_refused(o->resume, prev)) {
        json_decref(prev);
        return -1;
    }
    json_t *jargv = json_object_get(json_object_get(prev, "context"), "argv");
    size_t n = json_array_size(jargv), first = 0;
    /* the subcommand's argv ("run", options...), also when the program's name leads it */
    while (first < n && strcmp(json_string_value(json_array_get(jargv, first)) ? json_string_value(json_array_get(jargv, first)) : "", "run"))
        first++;
    if (first == n) first = 0;
    n -= first;
    g_then_argv = calloc(n + 1, sizeof *g_then_argv);
    for (size_t i = 0; g_then_argv && i < n; i++) {
        const char *a = json_string_value(json_array_get(jargv, first + i));
        g_then_argv[g_then_argc++] = strdup(a ? a : "");
    }
    if (!g_then_argv || n < 1 || parse_run_opts((int)n, g_then_argv, &g_then) != 0 || g_then.resume) {
        fprintf(stderr, "attnladder run --resume %s: its context.argv is not a run's options this "
                "build parses\n", o->resume);
        json_decref(prev);
        return -1;
    }
    if (o->n_measuring) {
        json_t *then = resume_identity(&g_then), *now = resume_identity(o);
        int differ = resume_options_differ(then, now, why, sizeof why);
        json_decref(then);
        json_decref(now);
        if (differ) {
            fprintf(stderr, "attnladder run --resume %s: %s; a run is continued with its own options "
                    "(give none but --build, --evidence, --out, --device, --external)\n", o->resume, why);
            json_decref(prev);
            return -1;
        }
    }
    if (resume_points_done(prev, g_then.n_shapes, why, sizeof why) < 0) {
        fprintf(stderr, "attnladder run --resume %s: %s\n", o->resume, why);
        json_decref(prev);
        return -1;
    }
    g_then.build_dir = o->build_dir;
    g_then.evidence_dir = o->evidence_dir;
    g_then.out_path = o->out_path;
    g_then.device = o->device;
    g_then.external = o->external;
    g_then.resume = o->resume;
    *op = &g_then;
    *prev_out = prev;
    return 0;
}

/* The partial file's stem: "<dir>/<stem>.partial.json" -> dir and stem. */
static void partial_stem(const char *path, char *dir, size_t dlen, char *stem, size_t slen)
{
    const char *base = strrchr(path, '/');
    snprintf(dir, dlen, "%.*s", base ? (int)(base - path) : 1, base ? path : ".");
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *suffixes[] = { ".partial.json", ".json" };
    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(base + n - k, suffixes[i]) == 0) {
            n -= k;
            break;
        }
    }
    snprintf(stem, slen, "%.*s", (int)n, base);
}

static json_t *impl_names(const loaded_impl **sel, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_string(sel[i]->ph->name));
    return a;
}

/* Everything one `run` holds between its stages; run_close_session releases it, whatever
 * stage stopped. Every json_t here is owned by the session until the document takes it. */
typedef struct {
    run_opts *o;
    int argc;
    char **argv;
    double t_start, t_stage;
    json_t *prev;                  /* the partial run a --resume continues, or NULL */
    json_t *stages;                /* cost.stages_s */
    loaded_impl *all;
    size_t n_all;
    const loaded_impl **sel;       /* the implementations measured, baseline first */
    size_t n_sel;
    char iso[32], compact[32];     /* this process's start */
    device_gpu dev;                /* this process's context, written with the document */
    device_versions ver;
    device_git git;
    char host[256];
    run_env_override *env;
    size_t n_env;
    char nvml_why[1024];
    size_t done_before, done_now;  /* points kept from the partial run; points done */
    clock_reading before;
    int have_before;
    json_t *impls;
    oracle_gpu *gref;
    char oracle_why[512], watch_why[256];
    size_t scrub_bytes;
    void *scrub;
    json_t *results, *input_checks, *ceil_json, *oracle_checks, *points;
    json_t *prev_ceil;             /* the partial run's ceilings, borrowed from prev */
    measure_ctx mc;                /* its counters go into the evidence even when nothing ran */
    int measure;                   /* 0: the scrub buffer failed, nothing is measured */
    int exit_code;
} run_session;

static void stage_add(json_t *stages, const char *name, double t0)
{
    double now = time_now_s();
    json_t *v = json_object_get(stages, name);
    double x = (json_is_number(v) ? json_number_value(v) : 0) + (now - t0);
    json_object_set_new(stages, name, json_real(round(x * 1e4) / 1e4));
}

static void session_stage(run_session *s, const char *name)
{
    stage_add(s->stages, name, s->t_stage);
    s->t_stage = time_now_s();
}

/* The options resumed, the implementations loaded and chosen, the device. 0, or the exit
 * code (the reason printed). */
static int session_open(run_session *s)
{
    char err[1024] = "";
    if (s->o->resume && resume_prepare(&s->o, &s->prev)) return EXIT_BAD_INPUT;
    run_opts *o = s->o;
    if (loader_open_all(o->build_dir, &s->all, &s->n_all, err, sizeof err)) {
        fprintf(stderr, "attnladder run: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    s->sel = calloc(s->n_all + 1, sizeof *s->sel);
    if (!s->sel || select_impls(o, s->all, s->n_all, s->sel, &s->n_sel) || check_shapes(o, s->sel, s->n_sel))
        return EXIT_BAD_INPUT;
    if (!loader_find(s->all, s->n_all, o->baseline ? o->baseline : "")) {
        fprintf(stderr, "attnladder run: baseline '%s' not found in %s/kernels; ratios are "
                "left out\n", o->baseline, o->build_dir);
        o->baseline = NULL;
    }
    if (device_probe(err, sizeof err)) {
        fprintf(stderr, "attnladder run: no GPU: %s (nothing measured, no evidence written)\n", err);
        return EXIT_NO_GPU;
    }
    if (device_select(o->device, err, sizeof err)) {
        fprintf(stderr, "attnladder run: --device %d: %s\n", o->device, err);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* This process's context: the device, versions, git, host, argv, plant, overrides. */
static void session_context(run_session *s)
{
    utc_stamp(s->iso, sizeof s->iso, s->compact, sizeof s->compact);
    device_gpu_read(&s->dev);
    device_versions_read(&s->ver);
    device_git_read(s->o->build_dir, &s->git);
    gethostname(s->host, sizeof s->host - 1);
    s->env = env_overrides_read(&s->n_env);
}

/* A resumed run continues only on the GPU, tree, implementations and overrides it began
 * with; its completed points are kept. 0, or the exit code (the reason printed). */
static int session_resume_check(run_session *s)
{
    if (!s->prev) return 0;
    char why[1024] = "";
    json_t *names = impl_names(s->sel, s->n_sel), *gpu = run_write_gpu(&s->dev), *git = run_write_git(&s->git);
    json_t *env = run_write_env_overrides(s->env, s->n_env);
    long done = -1;
    int refused = resume_refuse(s->prev, gpu, git, names, why, sizeof why);
    if (!refused && !json_equal(json_object_get(json_object_get(s->prev, "context"), "env_overrides"), env)) {
        snprintf(why, sizeof why, "its ATTN* environment overrides differ from this process's");
        refused = 1;
    }
    json_t *owned[] = { names, git, env };
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++) json_decref(owned[i]);
    if (!refused && (done = resume_points_done(s->prev, s->o->n_shapes, why, sizeof why)) < 0) refused = 1;
    if (refused) {
        fprintf(stderr, "attnladder run --resume %s: %s\n", s->o->resume, why);
        json_decref(gpu);
        return EXIT_BAD_INPUT;
    }
    s->done_before = (size_t)done;
    resume_keep(s->prev, s->o->shapes, s->done_before);
    fprintf(stderr, "resuming %s: %zu of %zu points kept, measuring the other %zu on %s\n", s->o->resume,
            s->done_before, s->o->n_shapes, s->o->n_shapes - s->done_before,
            json_string_value(json_object_get(gpu, "name")));
    json_decref(gpu);
    return 0;
}

/* Signals, the clocks before, the implementations' records, the GPU reference, the
 * result arrays (a resumed run's kept rows first). */
static void session_prepare(run_session *s)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    s->have_before = device_clocks_read(&s->before, s->nvml_why, sizeof s->nvml_why) == 0;
    if (s->have_before) snprintf(s->nvml_why, sizeof s->nvml_why, "ok");

    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", s->dev.cc_major, s->dev.cc_minor);
    s->impls = json_array();
    for (size_t i = 0; i < s->n_sel; i++) json_array_append_new(s->impls, impl_json(s->sel[i], arch));

    /* the GPU fp64 reference, unless told to use the CPU's alone */
    snprintf(s->oracle_why, sizeof s->oracle_why, "--no-gpu-ref");
    s->gref = s->o->no_gpu_ref ? NULL : oracle_gpu_open(s->o->build_dir, s->oracle_why, sizeof s->oracle_why);
    if (!s->gref && !s->o->no_gpu_ref)
        fprintf(stderr, "attnladder run: no GPU reference (%s): the CPU reference alone\n", s->oracle_why);

    /* L2 scrub for cold mode: twice the L2 so nothing of the last launch survives */
    size_t l2 = (size_t)s->dev.l2_bytes;
    s->scrub_bytes = 2 * (l2 ? l2 : ((size_t)64 << 20));
    s->done_now = s->done_before;
    snprintf(s->watch_why, sizeof s->watch_why, "not opened");
    s->results = json_array();
    s->input_checks = json_array();
    s->ceil_json = json_object();
    s->oracle_checks = json_array();
    s->points = json_array();
    if (s->prev) {   /* the completed points' rows, kept by resume_keep */
        static const char *const arrays[] = { "results", "input_checks", "reference_checks" };
        json_t *into[] = { s->results, s->input_checks, s->oracle_checks };
        for (size_t i = 0; i < 3; i++) {
            json_t *a = json_object_get(s->prev, arrays[i]);
            if (json_is_array(a)) json_array_extend(into[i], a);
        }
    }
    session_stage(s, "setup");
}

/* The scrub buffer and the clock watch; without the buffer nothing is measured and the
 * run is written as it stands. */
static void session_devices(run_session *s)
{
    run_opts *o = s->o;
    if (cudaMalloc(&s->scrub, s->scrub_bytes) != cudaSuccess) {
        fprintf(stderr, "attnladder run: cannot allocate the %zu-byte L2 scrub buffer\n", s->scrub_bytes);
        s->scrub = NULL;
        s->exit_code = EXIT_GATE;
        return;
    }
    s->measure = 1;
    o->tc.scrub = s->scrub;
    o->tc.scrub_bytes = s->scrub_bytes;
    /* the clock after every sample; without NVML the run goes on and says so */
    o->tc.clock.watch = clock_watch_open(s->watch_why, sizeof s->watch_why);
    if (!o->tc.clock.watch) fprintf(stderr, "attnladder run: clocks not read per sample: %s\n", s->watch_why);
}

/* The launch floor's read stream, or NULL (no floor built: no read ceiling). */
static read_stream_fn session_read_stream(const run_session *s)
{
    for (size_t i = 0; i < s->n_all; i++)
        if (s->all[i].kind == IMPL_FLOOR) {
            read_stream_fn fn;
            void *p = loader_symbol(&s->all[i], CEILINGS_READ_SYMBOL);
            memcpy(&fn, &p, sizeof fn);   /* ISO C has no object-to-function cast */
            return fn;
        }
    return NULL;
}

/* The copy, read and GEMM ceilings, or the partial run's (every derived figure of a resumed
 * run is a fraction of the same numbers). */
static ceilings session_ceilings(run_session *s)
{
    ceilings ce = { 0 };
    char err[1024];
    s->prev_ceil = s->prev ? json_object_get(s->prev, "ceilings") : NULL;
    if (s->prev_ceil) {
        json_t *pc = s->prev_ceil;
        json_object_update(s->ceil_json, pc);
        ce.dram_gbps = json_is_number(json_object_get(pc, "dram_gbps")) ? json_number_value(json_object_get(pc, "dram_gbps")) : 0;
        ce.fp16_tflops = json_is_number(json_object_get(pc, "fp16_tflops")) ? json_number_value(json_object_get(pc, "fp16_tflops")) : 0;
    } else {
        if (s->o->ceilings) {
            cudaStream_t cs;
            cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
            if (ceilings_measure(cs, session_read_stream(s), &ce, err, sizeof err))
                fprintf(stderr, "attnladder run: ceilings not measured: %s\n", err);
            else
                fprintf(stderr, "ceilings: copy %.0f GB/s, read %.0f GB/s, fp16 GEMM %.1f TFLOP/s\n", ce.dram_gbps,
                        ce.read_gbps, ce.fp16_tflops);
            cudaStreamDestroy(cs);
        }
        json_t *cj = run_write_ceilings(&(run_ceilings){ ce.dram_gbps, ce.fp16_tflops, ce.copy_bytes, ce.gemm_n,
                                                         ce.read_gbps });
        json_object_update(s->ceil_json, cj);   /* empty until now: the writer's order */
        json_decref(cj);
    }
    session_stage(s, "ceilings");
    return ce;
}

/* The measuring context every point shares. */
static void session_measure_ctx(run_session *s, const ceilings *ce)
{
    run_opts *o = s->o;
    s->mc = (measure_ctx){ .impls = s->sel, .n_impls = s->n_sel, .baseline = o->baseline, .tc = o->tc,
                          .bounds = compare_default_bounds(), .seed = o->seed,
                          .full_ref_max_flops = o->full_ref_gflop * 1e9,
                          .cpu_check_max_flops = o->cpu_check_gflop * 1e9, .gpu_ref = s->gref,
                          .sample_rows = (size_t)o->sample_rows, .oracle_threads = (int)o->oracle_threads,
                          .stop = &g_stop, .progress_total = count_measurements(o, s->n_sel),
                          .fp16_tflops = ce->fp16_tflops, .dram_gbps = ce->dram_gbps, .paired = o->paired,
                          .l2_bytes = s->dev.l2_bytes > 0 ? (size_t)s->dev.l2_bytes : 0 };
    memcpy(s->mc.modes, o->modes, sizeof s->mc.modes);
    memcpy(s->mc.sweep_modes, o->sweep_modes, sizeof s->mc.sweep_modes);
    if (s->done_before) {   /* the progress line counts on from the kept points */
        run_opts head = *o;
        head.n_shapes = s->done_before;
        s->mc.progress_done = count_measurements(&head, s->n_sel);
    }
}

/* The launch floor: the empty kernel through the same timing code, every mode. */
static void session_launch_floor(run_session *s)
{
    const loaded_impl *floor_impl = NULL;
    char err[1024];
    for (size_t i = 0; i < s->n_sel; i++)
        if (s->sel[i]->kind == IMPL_FLOOR) floor_impl = s->sel[i];
    if (floor_impl && !(s->prev_ceil && json_object_get(s->prev_ceil, "launch_floor"))) {
        json_t *fl = json_object();
        attn_args a = { 0 };
        cudaStreamCreateWithFlags(&a.stream, cudaStreamNonBlocking);
        void *st = NULL;
        floor_impl->ph->init(&st, &s->o->shapes[0].s);
        for (int m = 0; m < MODE_COUNT; m++) {
            time_result r;
            if (time_measure(floor_impl->ph, st, &a, (time_mode)m, &s->o->tc, &r, err, sizeof err) == 0) {
                json_object_set_new(fl, time_mode_name((time_mode)m), run_write_timing_mode(&r, NULL));
                fprintf(stderr, "launch floor (%s): %.3f us\n", time_mode_name((time_mode)m), r.sum.median);
                time_result_free(&r);
            }
        }
        floor_impl->ph->fini(st);
        cudaStreamDestroy(a.stream);
        json_object_set_new(s->ceil_json, "launch_floor", fl);
    }
    session_stage(s, "launch_floor");
}

/* Every point not yet done, then the external baselines' results. */
static void session_points(run_session *s)
{
    char err[1024];
    for (size_t i = s->done_before; i < s->o->n_shapes && !g_stop; i++) {
        point_record rec;
        int f = measure_point(&s->mc, &s->o->shapes[i], &rec, err, sizeof err);
        /* what the point measured, even when a fatal failure cut it short */
        if (run_write_point(&rec, s->results, s->input_checks, s->oracle_checks, s->points) && f >= 0) {
            snprintf(err, sizeof err, "out of host memory writing the point's rows");
            f = -1;
        }
        point_record_free(&rec);
        if (f < 0) {
            fprintf(stderr, "attnladder run: stopped: %s\n", err);
            s->exit_code = EXIT_GATE;
            break;
        }
        if (f > 0) s->exit_code = EXIT_GATE;
        if (!g_stop) s->done_now = i + 1;   /* a point the signal cut short is measured again */
    }
    session_stage(s, "points");
    if (s->o->external && !g_stop && import_external(s->o->external, s->impls, s->results, &s->mc))
        s->exit_code = EXIT_GATE;
    stage_add(s->stages, "external", s->t_stage);
    measure_ctx_free(&s->mc);
}

/* method: how everything in the run was measured. */
static json_t *session_method(const run_session *s)
{
    const run_opts *o = s->o;
    const char *modes[MODE_COUNT], *sweep_modes[MODE_COUNT], *other[DIST_COUNT];
    size_t n_modes = 0, n_sweep = 0, n_other = 0;
    for (int m = 0; m < MODE_COUNT; m++) {
        if (o->modes[m]) modes[n_modes++] = time_mode_name((time_mode)m);
        if (o->sweep_modes[m]) sweep_modes[n_sweep++] = time_mode_name((time_mode)m);
    }
    for (int d = 1; d < DIST_COUNT; d++) other[n_other++] = input_dist_name((input_dist)d);
    compare_bounds b = compare_default_bounds();
    run_method m = { .modes = modes, .n_modes = n_modes, .sweep_modes = sweep_modes, .n_sweep_modes = n_sweep,
                     .inner = o->tc.inner_max, .graph_target_us = o->tc.graph_target_us,
                     .min_samples = o->tc.rule.min_samples, .max_samples = o->tc.rule.max_samples,
                     .max_seconds = o->tc.rule.max_seconds, .rel_ci_target = o->tc.rule.rel_ci_target,
                     .bootstrap_resamples = o->tc.resamples, .ci_level = o->tc.ci_level, .seed = o->seed,
                     .stats_seed = o->tc.seed, .bound_rel_l2 = b.rel_l2_max, .bound_max_abs = b.max_abs_max,
                     .l2_scrub_bytes = s->scrub_bytes, .baseline = o->baseline ? o->baseline : "",
                     .full_ref_gflop = o->full_ref_gflop, .sample_rows = (long long)o->sample_rows,
                     .checked_also = other, .n_checked_also = n_other, .sample_tile_rows = REF_SAMPLE_TILE,
                     .chunk_elems = INPUTS_CHUNK_ELEMS, .min_gpu_s = o->tc.min_gpu_s, .paired = o->paired,
                     .oracle_gpu = s->gref ? oracle_gpu_path(s->gref) : "",
                     .oracle_gpu_why_not = s->gref ? "" : s->oracle_why, .cpu_check_gflop = o->cpu_check_gflop,
                     .oracle_agree_max_abs = 1e-9, .per_sample = o->tc.clock.watch != NULL,
                     .watch_why_not = o->tc.clock.watch ? "" : s->watch_why,
                     .discard = clock_discard_name(o->tc.clock.discard_mask),
                     .discard_limit = o->tc.clock.discard_limit };
    if (o->paired) {
        rotation_rule rr = point_rotation_rule(&s->mc, 0, 1);
        m.rotation.slow_factor = POINT_SLOW_FACTOR;
        m.rotation.min_rounds = rr.min_rounds;
        m.rotation.max_rounds = rr.max_rounds;
        m.rotation.max_seconds = rr.max_seconds;
        m.rotation.rel_ci_target = rr.rel_ci_target;
        m.rotation.min_gpu_s = rr.min_gpu_s;
    }
    return run_write_method(&m);
}

/* The document of the run: this process's context, method and cost, or, resumed, the
 * first process's context, method and start with this process's clocks after and every
 * process in resumed.segments. Takes the session's parts. */
static json_t *session_document(run_session *s)
{
    char why[1024] = "";
    clock_reading after;
    int have_after = device_clocks_read(&after, why, sizeof why) == 0;
    int throttled = (s->have_before && device_clocks_throttled(&s->before)) ||
                    (have_after && device_clocks_throttled(&after));
    run_process_context pc = { .gpu = &s->dev, .versions = &s->ver, .git = &s->git, .host = s->host,
                               .argv = s->argv, .argc = (size_t)s->argc,
                               /* test builds only: the planted slowdown is part of the record */
                               .planted_slowdown = plant_describe(), .env = s->env, .n_env = s->n_env,
                               .clocks_before = s->have_before ? &s->before : NULL, .nvml = s->nvml_why,
                               .throttled = throttled, .clocks_after = have_after ? &after : NULL };
    run_cost c = { .wall_s = time_now_s() - s->t_start, .gpu_timed_s = s->mc.gpu_timed_s,
                   .measurements = s->mc.measurements, .stages_s = s->stages,
                   .steps_s = run_write_steps(&s->mc.steps), .points = s->points };
    json_t *cost = run_write_cost(&c);
    s->stages = s->points = NULL;
    run_document d = { .partial = g_stop != 0, .created_utc = s->iso, .context = run_write_context(&pc),
                       .method = session_method(s), .ceilings = s->ceil_json, .implementations = s->impls,
                       .results = s->results, .input_checks = s->input_checks, .reference_checks = s->oracle_checks,
                       .cost = cost, .has_progress = 1, .progress_points = (long long)s->o->n_shapes,
                       .progress_done = (long long)s->done_now };
    s->ceil_json = s->impls = s->results = s->input_checks = s->oracle_checks = NULL;
    json_t *prev = s->prev;
    if (prev) {
        json_t *seg = resume_segment(s->iso, d.context, s->done_before, s->done_now, cost, g_stop != 0);
        const char *base = strrchr(s->o->resume, '/');
        resume_join(prev, base ? base + 1 : s->o->resume, s->done_before, seg, d.context);
        json_t *own = d.context;
        d.context = json_incref(json_object_get(prev, "context"));
        json_decref(d.method);
        d.method = json_incref(json_object_get(prev, "method"));
        d.created_utc = json_string_value(json_object_get(prev, "created_utc"));
        d.cost = resume_merge_cost(json_object_get(prev, "cost"), cost);
        json_decref(own);
        d.resumed = json_incref(json_object_get(prev, "resumed"));
    }
    return run_write_document(&d);
}

/* Where the run goes: --out, beside the partial file it continues, or
 * <evidence>/<slug>/<stamp>_<commit7>[.partial].json. */
static void session_path(const run_session *s, const json_t *doc, char *path, size_t len, char *pdir,
                         size_t dlen, char *pstem, size_t slen)
{
    const run_opts *o = s->o;
    const json_t *ctx = json_object_get(doc, "context");
    const char *commit = json_string_value(json_object_get(json_object_get(ctx, "git"), "commit"));
    if (s->prev) partial_stem(o->resume, pdir, dlen, pstem, slen);
    if (o->out_path)
        snprintf(path, len, "%s", o->out_path);
    else if (s->prev)   /* beside the partial file, under its name: the run it continues */
        snprintf(path, len, "%s/%s%s.json", pdir, pstem, g_stop ? ".partial" : "");
    else
        snprintf(path, len, "%s/%s/%s_%.7s%s.json", o->evidence_dir,
                 json_string_value(json_object_get(json_object_get(ctx, "gpu"), "slug")), s->compact,
                 commit ? commit : "unknown", g_stop ? ".partial" : "");
}

/* The document checked, written atomically, read back through the one reader for the
 * table; a resumed run's partial file goes once the run is complete. */
static void session_write(run_session *s)
{
    char err[1024], path[1024], pdir[512] = ".", pstem[256] = "";
    json_t *doc = session_document(s);
    session_path(s, doc, path, sizeof path, pdir, sizeof pdir, pstem, sizeof pstem);
    if (evidence_validate(doc, err, sizeof err)) {
        fprintf(stderr, "attnladder run: internal error, the evidence does not follow its schema: %s\n", err);
        s->exit_code = EXIT_GATE;
    } else if (evidence_write_atomic(doc, path, err, sizeof err)) {
        fprintf(stderr, "attnladder run: evidence not written: %s\n", err);
        s->exit_code = EXIT_GATE;
    } else {
        /* the table reads the file back through the one reader, as show and report will */
        run_data written;
        if (run_open(&written, path, err, sizeof err) == 0) {
            table_print(stdout, &written, NULL);
            report_vs_baseline_lines(stdout, &written);
            run_close(&written);
        } else {
            fprintf(stderr, "attnladder run: the evidence written does not read back: %s\n", err);
            s->exit_code = EXIT_GATE;
        }
        if (s->prev && !g_stop && strcmp(path, s->o->resume) != 0) {
            /* the partial file's every completed point is in the run now */
            char partial_path[1024];
            snprintf(partial_path, sizeof partial_path, "%s/%s.partial.json", pdir, pstem);
            if (strcmp(partial_path, s->o->resume) == 0 && unlink(s->o->resume) == 0)
                fprintf(stderr, "resumed run complete: %s replaces %s\n", path, s->o->resume);
        }
        printf("\nevidence: %s%s\n", path, g_stop ? " (partial: interrupted)" : "");
    }
    json_decref(doc);
}

/* The one cleanup path: whatever the stages reached. */
static void run_close_session(run_session *s)
{
    json_t *owned[] = { s->prev, s->stages, s->impls, s->results, s->input_checks, s->ceil_json,
                        s->oracle_checks, s->points };
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++) json_decref(owned[i]);
    measure_ctx_free(&s->mc);
    if (s->scrub) cudaFree(s->scrub);
    oracle_gpu_close(s->gref);
    if (s->o) {
        clock_watch_close(s->o->tc.clock.watch);
        s->o->tc.clock.watch = NULL;
    }
    free(s->sel);
    for (size_t i = 0; i < s->n_env; i++) free((char *)s->env[i].name);
    free(s->env);
    loader_close_all(s->all, s->n_all);
}

static int run_main(run_opts *o, int argc, char **argv)
{
    static run_session s;   /* large: kept off the stack */
    s = (run_session){ .o = o, .argc = argc, .argv = argv, .t_start = time_now_s(), .stages = json_object() };
    s.t_stage = s.t_start;
    int rc = session_open(&s);
    if (!rc) session_context(&s);
    if (!rc) rc = session_resume_check(&s);
    if (!rc) {
        session_prepare(&s);
        session_devices(&s);
        if (s.measure) {
            ceilings ce = session_ceilings(&s);
            session_measure_ctx(&s, &ce);
            session_launch_floor(&s);
            session_points(&s);
        }
        session_write(&s);
        rc = g_stop ? 130 : s.exit_code;
    }
    run_close_session(&s);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    static run_opts o;   /* large: kept off the stack */
    int rc = parse_run_opts(argc, argv, &o);
    if (rc == 0 && out_path_refused(&o)) rc = -1;
    if (rc == 0) rc = run_main(&o, argc, argv);
    else rc = rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    run_opts_free(&o);
    resume_free();
    return rc;
}
