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
#include "commands.h"
#include "measure/device_info.h"
#include "evidence/evidence_file.h"
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

static json_t *method_json(const run_opts *o, size_t scrub_bytes)
{
    json_t *modes = json_array(), *smodes = json_array();
    for (int m = 0; m < MODE_COUNT; m++) {
        if (o->modes[m]) json_array_append_new(modes, json_string(time_mode_name((time_mode)m)));
        if (o->sweep_modes[m]) json_array_append_new(smodes, json_string(time_mode_name((time_mode)m)));
    }
    compare_bounds b = compare_default_bounds();
    return json_pack("{s:o, s:o, s:i, s:f, s:I, s:I, s:f, s:f, s:I, s:f, s:I, s:I, s:{s:f, s:f},"
                     " s:I, s:s, s:f, s:I}",
                     "modes", modes, "sweep_modes", smodes, "inner", o->tc.inner_max,
                     "graph_target_us", o->tc.graph_target_us,
                     "min_samples", (json_int_t)o->tc.rule.min_samples,
                     "max_samples", (json_int_t)o->tc.rule.max_samples,
                     "max_seconds", o->tc.rule.max_seconds, "rel_ci_target", o->tc.rule.rel_ci_target,
                     "bootstrap_resamples", (json_int_t)o->tc.resamples, "ci_level", o->tc.ci_level,
                     "seed", (json_int_t)o->seed, "stats_seed", (json_int_t)o->tc.seed,
                     "bounds", "rel_l2", b.rel_l2_max, "max_abs", b.max_abs_max,
                     "l2_scrub_bytes", (json_int_t)scrub_bytes,
                     "baseline", o->baseline ? o->baseline : "",
                     "full_ref_gflop", o->full_ref_gflop, "sample_rows", (json_int_t)o->sample_rows);
}

/* The method's record of the inputs: the distribution every point is timed on, the others
 * checked at chosen points (input_checks), and how sampled rows are chosen. */
static void method_inputs(json_t *method)
{
    json_t *other = json_array();
    for (int d = 1; d < DIST_COUNT; d++) json_array_append_new(other, json_string(input_dist_name((input_dist)d)));
    json_object_set_new(method, "inputs", json_pack("{s:s, s:o, s:i, s:b, s:I}", "timed", "uniform",
                                                     "checked_also", other, "sample_tile_rows",
                                                     REF_SAMPLE_TILE, "sampled_needs_baseline", 1,
                                                     "chunk_elems", (json_int_t)INPUTS_CHUNK_ELEMS));
}

static json_t *impl_json(const loaded_impl *im, const char *arch)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "name", im->ph->name, "title", im->ph->title,
                          "kind", impl_kind_name(im->kind), "path", im->path);
    /* the loaded code's own attributes; the build's ptxas report alone where the driver
     * cannot say (no fatbinary in the object, an old driver) */
    char why[512];
    json_t *res = resources_loaded(im->path, arch, why, sizeof why);
    if (!res) {
        res = resources_for_object(im->path, arch);
        if (res) {
            json_object_set_new(res, "source", json_string("ptxas report"));
            json_object_set_new(res, "loaded_why_not", json_string(why));
        }
    }
    json_object_set_new(j, "resources", res ? res : json_null());
    return j;
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
        json_t *fresh = time_result_json(&r);
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

/* An external result's derived figures, from its own (input) samples and shape; its ratio
 * from its pairs with the C baseline when it has them. */
static int external_derive(json_t *res, json_t *graph, const measure_ctx *mc)
{
    json_t *arr = json_object_get(graph, "samples_us");
    attn_shape s;
    size_t n = json_array_size(arr);
    char err[256];
    if (run_read_shape(json_object_get(res, "shape"), &s) >= 0 || !n || shape_validate(&s, err, sizeof err))
        return -1;
    double *pa, *pb;
    size_t np;
    if (external_pairs(res, mc->baseline, &pa, &pb, &np) < 0) return -1;
    double *x = malloc(n * sizeof *x);
    if (!x) {
        free(pa);
        free(pb);
        return -1;
    }
    for (size_t i = 0; i < n; i++) x[i] = json_number_value(json_array_get(arr, i));
    json_object_set_new(res, "derived",
                        measure_derived(mc, &s, x, n, json_number_value(json_object_get(graph, "median_us")), pa,
                                        pb, np));
    free(x);
    free(pa);
    free(pb);
    return 0;
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
        if (graph && external_derive(v, graph, mc)) {
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
static json_t *env_overrides_json(void)
{
    json_t *o = json_object();
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "ATTN", 4) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
        json_object_set_new(o, name, json_string(eq + 1));
    }
    return o;
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

static void stage_add(json_t *stages, const char *name, double t0)
{
    double now = time_now_s();
    json_t *v = json_object_get(stages, name);
    double x = (json_is_number(v) ? json_number_value(v) : 0) + (now - t0);
    json_object_set_new(stages, name, json_real(round(x * 1e4) / 1e4));
}

static int run_main(run_opts *o, int argc, char **argv)
{
    double t_start = time_now_s(), t_stage = t_start;
    measure_ctx mc = { 0 };   /* its counters go into the evidence even when nothing ran */
    json_t *prev = NULL, *stages = json_object();
    if (o->resume && resume_prepare(&o, &prev)) {
        json_decref(stages);
        return EXIT_BAD_INPUT;
    }

    char err[1024] = "";
    loaded_impl *all = NULL;
    size_t n_all = 0;
    if (loader_open_all(o->build_dir, &all, &n_all, err, sizeof err)) {
        fprintf(stderr, "attnladder run: %s\n", err);
        json_decref(prev);
        json_decref(stages);
        return EXIT_BAD_INPUT;
    }
    const loaded_impl **sel = calloc(n_all + 1, sizeof *sel);
    size_t n_sel = 0;
    if (!sel || select_impls(o, all, n_all, sel, &n_sel) || check_shapes(o, sel, n_sel)) {
        free(sel);
        loader_close_all(all, n_all);
        json_decref(prev);
        json_decref(stages);
        return EXIT_BAD_INPUT;
    }
    if (!loader_find(all, n_all, o->baseline ? o->baseline : "")) {
        fprintf(stderr, "attnladder run: baseline '%s' not found in %s/kernels; ratios are "
                "left out\n", o->baseline, o->build_dir);
        o->baseline = NULL;
    }
    if (device_probe(err, sizeof err)) {
        fprintf(stderr, "attnladder run: no GPU: %s (nothing measured, no evidence written)\n", err);
        free(sel);
        loader_close_all(all, n_all);
        json_decref(prev);
        json_decref(stages);
        return EXIT_NO_GPU;
    }
    if (device_select(o->device, err, sizeof err)) {
        fprintf(stderr, "attnladder run: --device %d: %s\n", o->device, err);
        free(sel);
        loader_close_all(all, n_all);
        json_decref(prev);
        json_decref(stages);
        return EXIT_BAD_INPUT;
    }

    char iso[32], compact[32], why[1024] = "";
    utc_stamp(iso, sizeof iso, compact, sizeof compact);
    json_t *ctx = json_object();
    device_gpu dev;
    device_versions ver;
    device_git git;
    device_gpu_read(&dev);
    device_versions_read(&ver);
    device_git_read(o->build_dir, &git);
    json_t *gpu = run_write_gpu(&dev);
    json_object_set_new(ctx, "gpu", gpu);
    json_object_set_new(ctx, "versions", run_write_versions(&ver));
    json_object_set_new(ctx, "git", run_write_git(&git));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object_set_new(ctx, "host", json_string(host));
    json_t *jargv = json_array();
    for (int i = 0; i < argc; i++) json_array_append_new(jargv, json_string(argv[i]));
    json_object_set_new(ctx, "argv", jargv);
    if (plant_describe())   /* test builds only: the planted slowdown is part of the record */
        json_object_set_new(ctx, "planted_slowdown", json_string(plant_describe()));
    json_object_set_new(ctx, "env_overrides", env_overrides_json());

    size_t done_before = 0;
    if (prev) {
        json_t *names = impl_names(sel, n_sel);
        long done = -1;
        int refused = resume_refuse(prev, gpu, json_object_get(ctx, "git"), names, why, sizeof why);
        json_decref(names);
        if (!refused && !json_equal(json_object_get(json_object_get(prev, "context"), "env_overrides"),
                                    json_object_get(ctx, "env_overrides"))) {
            snprintf(why, sizeof why, "its ATTN* environment overrides differ from this process's");
            refused = 1;
        }
        if (!refused && (done = resume_points_done(prev, o->n_shapes, why, sizeof why)) < 0) refused = 1;
        if (refused) {
            fprintf(stderr, "attnladder run --resume %s: %s\n", o->resume, why);
            json_decref(ctx);
            json_decref(prev);
            json_decref(stages);
            free(sel);
            loader_close_all(all, n_all);
            return EXIT_BAD_INPUT;
        }
        done_before = (size_t)done;
        resume_keep(prev, o->shapes, done_before);
        fprintf(stderr, "resuming %s: %zu of %zu points kept, measuring the other %zu on %s\n", o->resume,
                done_before, o->n_shapes, o->n_shapes - done_before,
                json_string_value(json_object_get(gpu, "name")));
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    clock_reading before;
    int have_before = device_clocks_read(&before, why, sizeof why) == 0;
    json_object_set_new(ctx, "clocks_before", have_before ? run_write_clocks(&before) : json_null());
    json_object_set_new(ctx, "nvml", json_string(have_before ? "ok" : why));

    int cc_major = (int)json_integer_value(json_object_get(gpu, "cc_major"));
    int cc_minor = (int)json_integer_value(json_object_get(gpu, "cc_minor"));
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", cc_major, cc_minor);
    json_t *impls = json_array();
    for (size_t i = 0; i < n_sel; i++) json_array_append_new(impls, impl_json(sel[i], arch));

    /* the GPU fp64 reference, unless told to use the CPU's alone */
    char ref_why[512] = "--no-gpu-ref";
    ref_gpu *gref = o->no_gpu_ref ? NULL : ref_gpu_open(o->build_dir, ref_why, sizeof ref_why);
    if (!gref && !o->no_gpu_ref)
        fprintf(stderr, "attnladder run: no GPU reference (%s): the CPU reference alone\n", ref_why);

    /* L2 scrub for cold mode: twice the L2 so nothing of the last launch survives */
    size_t l2 = (size_t)json_integer_value(json_object_get(gpu, "l2_bytes"));
    size_t scrub_bytes = 2 * (l2 ? l2 : ((size_t)64 << 20));
    void *scrub = NULL;
    int exit_code = EXIT_OK;
    size_t done_now = done_before;
    char watch_why[256] = "not opened";
    json_t *results = json_array(), *input_checks = json_array(), *ceil_json = json_object();
    json_t *ref_checks = json_array(), *points = json_array();
    if (prev) {   /* the completed points' rows, kept by resume_keep */
        static const char *const arrays[] = { "results", "input_checks", "reference_checks" };
        json_t **into[] = { &results, &input_checks, &ref_checks };
        for (size_t i = 0; i < 3; i++) {
            json_t *a = json_object_get(prev, arrays[i]);
            if (json_is_array(a)) json_array_extend(*into[i], a);
        }
    }
    stage_add(stages, "setup", t_stage);
    t_stage = time_now_s();
    if (cudaMalloc(&scrub, scrub_bytes) != cudaSuccess) {
        fprintf(stderr, "attnladder run: cannot allocate the %zu-byte L2 scrub buffer\n", scrub_bytes);
        exit_code = EXIT_GATE;
        goto write;
    }
    o->tc.scrub = scrub;
    o->tc.scrub_bytes = scrub_bytes;
    /* the clock after every sample; without NVML the run goes on and says so */
    o->tc.clock.watch = clock_watch_open(watch_why, sizeof watch_why);
    if (!o->tc.clock.watch) fprintf(stderr, "attnladder run: clocks not read per sample: %s\n", watch_why);

    ceilings ce = { 0 };
    json_t *prev_ceil = prev ? json_object_get(prev, "ceilings") : NULL;
    if (prev_ceil) {
        /* a resumed run keeps the ceilings its first process measured: every derived
         * figure of the run is a fraction of the same numbers */
        json_object_update(ceil_json, prev_ceil);
        ce.dram_gbps = json_is_number(json_object_get(prev_ceil, "dram_gbps")) ? json_number_value(json_object_get(prev_ceil, "dram_gbps")) : 0;
        ce.fp16_tflops = json_is_number(json_object_get(prev_ceil, "fp16_tflops")) ? json_number_value(json_object_get(prev_ceil, "fp16_tflops")) : 0;
    } else {
        if (o->ceilings) {
            cudaStream_t cs;
            cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
            if (ceilings_measure(cs, &ce, err, sizeof err))
                fprintf(stderr, "attnladder run: ceilings not measured: %s\n", err);
            else
                fprintf(stderr, "ceilings: copy %.0f GB/s, fp16 GEMM %.1f TFLOP/s\n", ce.dram_gbps,
                        ce.fp16_tflops);
            cudaStreamDestroy(cs);
        }
        json_object_set_new(ceil_json, "dram_gbps", ce.dram_gbps > 0 ? json_real(ce.dram_gbps) : json_null());
        json_object_set_new(ceil_json, "fp16_tflops", ce.fp16_tflops > 0 ? json_real(ce.fp16_tflops) : json_null());
        json_object_set_new(ceil_json, "copy_bytes", json_integer((json_int_t)ce.copy_bytes));
        json_object_set_new(ceil_json, "gemm_shape", json_pack("[i,i,i]", ce.gemm_n, ce.gemm_n, ce.gemm_n));
    }
    stage_add(stages, "ceilings", t_stage);
    t_stage = time_now_s();

    mc = (measure_ctx){ .impls = sel, .n_impls = n_sel, .baseline = o->baseline, .tc = o->tc,
                       .bounds = compare_default_bounds(), .seed = o->seed,
                       .full_ref_max_flops = o->full_ref_gflop * 1e9,
                       .cpu_check_max_flops = o->cpu_check_gflop * 1e9, .gpu_ref = gref,
                       .points = points, .reference_checks = ref_checks,
                       .sample_rows = (size_t)o->sample_rows, .ref_threads = (int)o->ref_threads,
                       .stop = &g_stop, .progress_total = count_measurements(o, n_sel),
                       .fp16_tflops = ce.fp16_tflops, .dram_gbps = ce.dram_gbps, .paired = o->paired };
    memcpy(mc.modes, o->modes, sizeof mc.modes);
    memcpy(mc.sweep_modes, o->sweep_modes, sizeof mc.sweep_modes);
    if (done_before) {   /* the progress line counts on from the kept points */
        run_opts head = *o;
        head.n_shapes = done_before;
        mc.progress_done = count_measurements(&head, n_sel);
    }

    /* The launch floor: the empty kernel through the same timing code, every mode. */
    const loaded_impl *floor_impl = NULL;
    for (size_t i = 0; i < n_sel; i++)
        if (sel[i]->kind == IMPL_FLOOR) floor_impl = sel[i];
    if (floor_impl && !(prev_ceil && json_object_get(prev_ceil, "launch_floor"))) {
        json_t *fl = json_object();
        attn_args a = { 0 };
        cudaStreamCreateWithFlags(&a.stream, cudaStreamNonBlocking);
        void *st = NULL;
        floor_impl->ph->init(&st, &o->shapes[0].s);
        for (int m = 0; m < MODE_COUNT; m++) {
            time_result r;
            if (time_measure(floor_impl->ph, st, &a, (time_mode)m, &o->tc, &r, err, sizeof err) == 0) {
                json_object_set_new(fl, time_mode_name((time_mode)m), time_result_json(&r));
                fprintf(stderr, "launch floor (%s): %.3f us\n", time_mode_name((time_mode)m), r.sum.median);
                time_result_free(&r);
            }
        }
        floor_impl->ph->fini(st);
        cudaStreamDestroy(a.stream);
        json_object_set_new(ceil_json, "launch_floor", fl);
    }
    stage_add(stages, "launch_floor", t_stage);
    t_stage = time_now_s();

    for (size_t i = done_before; i < o->n_shapes && !g_stop; i++) {
        int f = measure_point(&mc, &o->shapes[i], results, input_checks, err, sizeof err);
        if (f < 0) {
            fprintf(stderr, "attnladder run: stopped: %s\n", err);
            exit_code = EXIT_GATE;
            break;
        }
        if (f > 0) exit_code = EXIT_GATE;
        if (!g_stop) done_now = i + 1;   /* a point the signal cut short is measured again */
    }
    stage_add(stages, "points", t_stage);
    t_stage = time_now_s();
    if (o->external && !g_stop && import_external(o->external, impls, results, &mc))
        exit_code = EXIT_GATE;
    stage_add(stages, "external", t_stage);
    measure_ctx_free(&mc);

write:;
    clock_reading after;
    int have_after = device_clocks_read(&after, why, sizeof why) == 0;
    int throttled = (have_before && device_clocks_throttled(&before)) ||
                    (have_after && device_clocks_throttled(&after));
    json_object_set_new(ctx, "throttled", json_boolean(throttled));
    json_object_set_new(ctx, "clocks_after", have_after ? run_write_clocks(&after) : json_null());
    json_t *cost = json_pack("{s:f, s:f, s:I, s:o, s:o, s:o}", "wall_s", time_now_s() - t_start, "gpu_timed_s",
                             mc.gpu_timed_s, "measurements", (json_int_t)mc.measurements,
                             "stages_s", stages, "steps_s", step_times_json(&mc.steps), "points", points);
    json_t *method = method_json(o, scrub_bytes);
    method_inputs(method);
    json_object_set_new(method, "min_gpu_s", json_real(o->tc.min_gpu_s));
    /* where each figure comes from: derived.ratio from the rotation (or, --independent, the
     * separate measurements); timing.* and the derived rates from each one alone */
    json_object_set_new(method, "ratio", json_string(o->paired ? "paired" : "independent"));
    json_object_set_new(method, "paired", json_boolean(o->paired));
    if (o->paired) {
        rotation_rule rr = point_rotation_rule(&mc, 0, 1);
        json_object_set_new(method, "ratio_design",
                            json_pack("{s:s, s:s, s:s, s:f, s:I, s:I, s:f, s:f, s:f}", "ratio",
                                      "median of per-round quotients implementation/baseline, 95% bootstrap CI over rounds",
                                      "rounds", "every implementation of the point no slower than slow_factor times the "
                                      "baseline, one CUDA graph replay each per round, in an order drawn per round "
                                      "(results[].paired.design \"rotation\"); a slower one keeps the quotient of its own "
                                      "and the baseline's separate medians (derived.ratio.method \"independent\")",
                                      "absolute", "timing.* and derived.tflops/gbps: each implementation timed alone, "
                                      "one after another (the sustained regime)",
                                      "slow_factor", POINT_SLOW_FACTOR, "min_rounds", (json_int_t)rr.min_rounds,
                                      "max_rounds", (json_int_t)rr.max_rounds, "max_seconds", rr.max_seconds,
                                      "rel_ci_target", rr.rel_ci_target, "min_gpu_s", rr.min_gpu_s));
    }
    json_object_set_new(method, "reference", json_pack("{s:s, s:s, s:f, s:f}", "gpu",
                                                       gref ? ref_gpu_path(gref) : "",
                                                       "gpu_why_not", gref ? "" : ref_why,
                                                       "cpu_check_gflop", o->cpu_check_gflop,
                                                       "agree_max_abs", 1e-9));
    /* the harness never changes a GPU's clocks (locking them is the machine owner's
     * choice, e.g. nvidia-smi -lgc); whether they were held by an applications-clock
     * setting shows as that reason in every sample's clock_events */
    json_object_set_new(method, "clock_watch",
                        json_pack("{s:b, s:s, s:s, s:f, s:b}", "per_sample", o->tc.clock.watch != NULL,
                                  "why_not", o->tc.clock.watch ? "" : watch_why,
                                  "discard", clock_discard_name(o->tc.clock.discard_mask),
                                  "discard_limit", o->tc.clock.discard_limit, "clocks_locked_by_harness", 0));
    const char *created = iso;
    json_t *doc_ctx = ctx;
    if (prev) {
        /* one run: the first process's context, method and start; this process's clocks
         * after, every process in resumed.segments */
        json_t *seg = resume_segment(iso, ctx, done_before, done_now, cost, g_stop != 0);
        json_t *pctx = json_object_get(prev, "context");
        json_object_set(pctx, "clocks_after", json_object_get(ctx, "clocks_after"));
        json_object_set_new(pctx, "throttled", json_boolean(throttled ||
                                                            json_is_true(json_object_get(pctx, "throttled"))));
        doc_ctx = json_incref(pctx);
        json_decref(method);
        method = json_incref(json_object_get(prev, "method"));
        created = json_string_value(json_object_get(prev, "created_utc"));
        cost = resume_merge_cost(json_object_get(prev, "cost"), cost);
        json_t *tmp = json_object();
        const char *base = strrchr(o->resume, '/');
        resume_add_segment(tmp, prev, base ? base + 1 : o->resume, done_before, seg);
        json_object_set(prev, "resumed", json_object_get(tmp, "resumed"));
        json_decref(tmp);
        json_decref(ctx);
    }
    json_t *doc = json_pack("{s:s, s:i, s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:I, s:I}, s:o}",
                            "schema", EVIDENCE_SCHEMA, "schema_version", EVIDENCE_SCHEMA_VERSION,
                            "partial", g_stop != 0, "created_utc", created, "context", doc_ctx,
                            "method", method, "ceilings", ceil_json,
                            "implementations", impls, "results", results,
                            "input_checks", input_checks, "reference_checks", ref_checks,
                            "cost", cost, "progress", "points", (json_int_t)o->n_shapes,
                            "done", (json_int_t)done_now, "resumed", prev ? json_incref(json_object_get(prev, "resumed")) : json_null());
    if (!prev) json_object_del(doc, "resumed");
    char path[1024], pdir[512] = ".", pstem[256] = "";
    json_t *doc_gpu = json_object_get(doc_ctx, "gpu");
    const char *commit = json_string_value(json_object_get(json_object_get(doc_ctx, "git"), "commit"));
    if (prev) partial_stem(o->resume, pdir, sizeof pdir, pstem, sizeof pstem);
    if (o->out_path)
        snprintf(path, sizeof path, "%s", o->out_path);
    else if (prev)   /* beside the partial file, under its name: the run it continues */
        snprintf(path, sizeof path, "%s/%s%s.json", pdir, pstem, g_stop ? ".partial" : "");
    else
        snprintf(path, sizeof path, "%s/%s/%s_%.7s%s.json", o->evidence_dir,
                 json_string_value(json_object_get(doc_gpu, "slug")), compact, commit ? commit : "unknown",
                 g_stop ? ".partial" : "");
    if (evidence_validate(doc, err, sizeof err)) {
        fprintf(stderr, "attnladder run: internal error, the evidence does not follow its schema: %s\n", err);
        exit_code = EXIT_GATE;
    } else if (evidence_write_atomic(doc, path, err, sizeof err)) {
        fprintf(stderr, "attnladder run: evidence not written: %s\n", err);
        exit_code = EXIT_GATE;
    } else {
        /* the table reads the file back through the one reader, as show and report will */
        run_data written;
        if (run_open(&written, path, err, sizeof err) == 0) {
            table_print(stdout, &written, NULL);
            run_close(&written);
        } else {
            fprintf(stderr, "attnladder run: the evidence written does not read back: %s\n", err);
            exit_code = EXIT_GATE;
        }
        if (prev && !g_stop && strcmp(path, o->resume) != 0) {
            /* the partial file's every completed point is in the run now */
            char partial_path[1024];
            snprintf(partial_path, sizeof partial_path, "%s/%s.partial.json", pdir, pstem);
            if (strcmp(partial_path, o->resume) == 0 && unlink(o->resume) == 0)
                fprintf(stderr, "resumed run complete: %s replaces %s\n", path, o->resume);
        }
        printf("\nevidence: %s%s\n", path, g_stop ? " (partial: interrupted)" : "");
    }
    json_decref(doc);
    json_decref(prev);
    if (scrub) cudaFree(scrub);
    ref_gpu_close(gref);
    clock_watch_close(o->tc.clock.watch);
    o->tc.clock.watch = NULL;
    free(sel);
    loader_close_all(all, n_all);
    if (g_stop) return 130;
    return exit_code;
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
