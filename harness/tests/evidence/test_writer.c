/* test_writer.c: the one evidence writer (harness/evidence/writer.h) against the
 * one reader. For every committed run kind (the full reference runs and the headline-only
 * runs under evidence/<gpu>/, compressed; the passing-on study's runs; the test fixtures,
 * partial run included): read, write, read, write gives the same bytes twice, the
 * second reading holds what the first did (a pair's design and every result's ratio
 * included; a headline run of build 1ded564, kept as a test fixture under
 * harness/tests/data/history/, holds both designs, "rotation" and "pair"),
 * and every value the writer wrote is the original's at the same place (the typed view
 * is a part of a run, not a whole one: the members the reader does not keep, such as a
 * mode's inner and n, or a pair's design other than "rotation", are not written). The
 * device context's pieces, written from typed values read off a committed run, are that
 * run's objects byte for byte. So are a run's rows (results, input_checks,
 * reference_checks, cost.points) written from measure/point_record.h's typed values, the
 * ones `run` fills, read off every committed run kind: write from the typed values, read,
 * write gives the bytes the committed run gives (rows of older builds' forms, which the
 * current writer no longer writes, and the external results, imported as their tool
 * wrote them, are counted and left as they are; the reference run has none of the first). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fnmatch.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_file.h"
#include "evidence/evidence_file.h"
#include "evidence/reader.h"
#include "evidence/result_ratio.h"
#include "evidence/writer.h"
#include "committed_runs.h"

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
#define REFERENCE_RUN "evidence/nvidia-h100-80gb-hbm3/20261127T230115Z_49b36b5.json.gz"
/* a headline run of build 1ded564, retired from evidence/: its slow rungs' "pair" design */
#define PAIR_DESIGN_RUNS "harness/tests/data/history/nvidia-h100-80gb-hbm3/*_1ded564.json.gz"

/* The value the writer wrote at `path` and the original's: numbers by value (an integer
 * written as a real is the same number), everything else by json_equal; an object or an
 * array recursively, every written member present in the original. 0 same, else -1
 * with the path of the first difference in where. */
static int written_is_original(const json_t *w, const json_t *o, const char *path, char *where, size_t len)
{
    if (json_is_number(w) && json_is_number(o)) {
        if (json_number_value(w) == json_number_value(o)) return 0;
        snprintf(where, len, "%s: %.17g written, %.17g there", path, json_number_value(w), json_number_value(o));
        return -1;
    }
    if (json_is_object(w) && json_is_object(o)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)w, k, v) {
            char sub[512];
            snprintf(sub, sizeof sub, *path ? "%s.%s" : "%s%s", path, k);
            json_t *ov = json_object_get(o, k);
            /* a supported row's reason is null: the C baseline's row from PyTorch's process
             * (sdpa_cudnn_torch, build 727334b) left the key out, which reads the same */
            if (!ov && !strcmp(k, "reason") && json_is_null(v)) continue;
            if (!ov) {
                snprintf(where, len, "%s: written, absent from the original", sub);
                return -1;
            }
            if (written_is_original(v, ov, sub, where, len)) return -1;
        }
        return 0;
    }
    if (json_is_array(w) && json_is_array(o)) {
        if (json_array_size(w) != json_array_size(o)) {
            snprintf(where, len, "%s: %zu elements written, %zu there", path, json_array_size(w),
                     json_array_size(o));
            return -1;
        }
        for (size_t i = 0; i < json_array_size(w); i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (written_is_original(json_array_get(w, i), json_array_get(o, i), sub, where, len)) return -1;
        }
        return 0;
    }
    if (json_equal((json_t *)w, (json_t *)o)) return 0;
    snprintf(where, len, "%s: differs", path);
    return -1;
}

/* read -> write -> read -> write on one file, read (a) by the caller: *b the written form
 * read, *text the first writing's bytes (the caller closes b and frees text). */
static void round_trip_of(run_data *ap, const char *path, run_data *b, char **text)
{
    char err[1024];
    const run_data a = *ap;
    json_t *first = run_to_doc(ap);
    assert_non_null(first);
    if (run_from_doc(b, first, path, err, sizeof err)) fail_msg("%s: written form read: %s", path, err);
    json_t *second = run_to_doc(b);
    char *t1 = json_dumps(first, DUMP_FLAGS), *t2 = json_dumps(second, DUMP_FLAGS);
    assert_non_null(t1);
    assert_non_null(t2);
    if (strcmp(t1, t2)) fail_msg("%s: written twice, two different texts", path);
    assert_int_equal(a.n_results, b->n_results);
    assert_int_equal(a.n_impls, b->n_impls);
    assert_int_equal(a.n_profiles, b->n_profiles);
    assert_int_equal(a.n_input_checks, b->n_input_checks);
    for (size_t i = 0; i < a.n_results; i++) {
        assert_int_equal(a.results[i].throttled, b->results[i].throttled);
        assert_int_equal(a.results[i].discarded, b->results[i].discarded);
        assert_int_equal(a.results[i].n_paired, b->results[i].n_paired);
        assert_int_equal(a.results[i].paired_rotation, b->results[i].paired_rotation);
        assert_int_equal(result_pairs_decide(ap, &a.results[i]), result_pairs_decide(b, &b->results[i]));
        double ra = NAN, rb = NAN;
        int ka = result_point_ratio(ap, &a.results[i], a.baseline, &ra);
        int kb = result_point_ratio(b, &b->results[i], b->baseline, &rb);
        if (ka != kb || (ka == 0 && ra != rb))
            fail_msg("%s: results[%zu]: ratio %.17g (%d) read, %.17g (%d) after a round trip", path, i, ra, ka,
                     rb, kb);
    }
    assert_int_equal(a.ratio_rotation, b->ratio_rotation);
    assert_true(a.stats_seed == b->stats_seed && a.resamples == b->resamples && a.ci_level == b->ci_level);
    if ((a.overrides == NULL) != (b->overrides == NULL) || (a.overrides && strcmp(a.overrides, b->overrides)))
        fail_msg("%s: env_overrides differ after a round trip", path);
    char where[1024];
    if (written_is_original(first, a.doc, "", where, sizeof where)) fail_msg("%s: %s", path, where);
    free(t2);
    json_decref(first);
    json_decref(second);
    *text = t1;
}

/* Runs of build 1ded564 measured their ratios in rotation: results[].paired with
 * design "rotation" (the pairs that decide) beside the slow rungs' "pair" (kept, never
 * deciding), method.ratio_design; later builds keep no pairs for slow rungs. Both designs
 * are in the 1ded564 fixture, the rotation alone in the reference run; they come back as
 * read. */
static const char *design_at(const json_t *doc, size_t i)
{
    const json_t *res = json_array_get(json_object_get(doc, "results"), i);
    return json_string_value(json_object_get(json_object_get(res, "paired"), "design"));
}

typedef struct {
    size_t files, rotation, pair;
} design_counts;

/* A run of either design (the 1ded564 fixture, the reference run), a, and its written form
 * read, b: every pair's design comes back as read. */
static void design_of(const run_data *a, const run_data *b, design_counts *d)
{
    d->files++;
    assert_true(a->ratio_rotation);
    assert_true(b->ratio_rotation);
    for (size_t i = 0; i < a->n_results; i++) {
        const run_result *x = &a->results[i];
        if (!x->n_paired) continue;
        const char *was = design_at(a->doc, i), *written = design_at(b->doc, i);
        assert_non_null(was);
        if (x->paired_rotation) {
            d->rotation++;
            assert_string_equal(was, "rotation");
            assert_non_null(written);
            assert_string_equal(written, "rotation");
        } else {
            d->pair++;
            assert_string_equal(was, "pair");
            assert_null(written);   /* the reader keeps rotation or not; "pair" is not kept */
        }
        assert_int_equal(b->results[i].paired_rotation, x->paired_rotation);
        assert_int_equal(result_pairs_decide(b, &b->results[i]), x->paired_rotation);
    }
}

/* A test run with results[0] given `paired_throttled` = pt (stolen), as point_ratios.c
 * writes it when every round of a point's rotation fell under clock events. */
#define PT_RUN "harness/tests/data/evidence/nvidia-test-gpu/20260101T000000Z_aaaaaaa.json"

static json_t *run_with_paired_throttled(json_t *pt)
{
    char err[1024];
    json_t *doc = evidence_load(PT_RUN, err, sizeof err);
    if (!doc) fail_msg("%s", err);
    json_object_set_new(json_array_get(json_object_get(doc, "results"), 0), "paired_throttled", pt);
    return doc;
}

static const json_t *paired_throttled_at(const json_t *doc)
{
    return json_object_get(json_array_get(json_object_get(doc, "results"), 0), "paired_throttled");
}

/* Read, write, read, write: the baseline and the discarded rounds come back as written,
 * and the result stays throttled. */
static void paired_throttled_round_trips(void **state)
{
    (void)state;
    char err[1024];
    json_t *doc = run_with_paired_throttled(json_pack("{s:s, s:i}", "baseline", "sdpa_cudnn",
                                                      "discarded_pairs", 10));
    if (evidence_validate(doc, err, sizeof err)) fail_msg("the edited run: %s", err);
    run_data a, b;
    if (run_from_doc(&a, doc, PT_RUN, err, sizeof err)) fail_msg("%s", err);
    assert_true(a.results[0].paired_throttled && a.results[0].throttled);
    assert_string_equal(a.results[0].paired_throttled_baseline, "sdpa_cudnn");
    assert_int_equal(a.results[0].discarded_pairs, 10);
    json_t *first = run_to_doc(&a);
    assert_non_null(first);
    assert_true(json_equal((json_t *)paired_throttled_at(first), (json_t *)paired_throttled_at(doc)));
    if (run_from_doc(&b, first, PT_RUN, err, sizeof err)) fail_msg("written form read: %s", err);
    json_t *second = run_to_doc(&b);
    assert_true(json_equal(first, second));
    assert_true(b.results[0].throttled);
    json_decref(first);
    json_decref(second);
    run_close(&a);
    run_close(&b);
    json_decref(doc);
}

/* A paired_throttled the reader could not write back, or one out of bounds, is refused
 * by the reader and by the validator, each naming the field. */
static void bad_paired_throttled_is_refused(void **state)
{
    (void)state;
    const char *bad[] = {
        "true", "null", "{}", "{\"discarded_pairs\": 10}", "{\"baseline\": 3, \"discarded_pairs\": 10}",
        "{\"baseline\": \"../x\", \"discarded_pairs\": 10}", "{\"baseline\": \"\", \"discarded_pairs\": 10}",
        "{\"baseline\": \"sdpa_cudnn\"}", "{\"baseline\": \"sdpa_cudnn\", \"discarded_pairs\": -1}",
        "{\"baseline\": \"sdpa_cudnn\", \"discarded_pairs\": 1.5}",
        "{\"baseline\": \"sdpa_cudnn\", \"discarded_pairs\": \"10\"}",
        "{\"baseline\": \"sdpa_cudnn\", \"discarded_pairs\": 100001}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *pt = json_loads(bad[i], JSON_DECODE_ANY, NULL);
        assert_non_null(pt);
        json_t *doc = run_with_paired_throttled(pt);
        char err[1024];
        run_data r;
        if (!run_from_doc(&r, doc, PT_RUN, err, sizeof err)) fail_msg("read: %s", bad[i]);
        if (!strstr(err, "results[0].paired_throttled")) fail_msg("%s: read: %s", bad[i], err);
        if (!evidence_validate(doc, err, sizeof err)) fail_msg("validated: %s", bad[i]);
        if (!strstr(err, "results[0].paired_throttled")) fail_msg("%s: validated: %s", bad[i], err);
        json_decref(doc);
    }
}

/* The reference run, read once for the five tests that write its parts back: each takes a
 * reference and gives it back, none edits it (the parts go to the writer by reference, the
 * cases edit deep copies). Read by each, it was five loads of the 8 MB run: under ASan and
 * UBSan the four *_as_committed tests took 3.5-3.9 CPU s, 0.9-1.3 now (issue 53). Planted
 * in evidence/writer.c with the run read once: the GPU's memory written one byte high in
 * run_write_gpu failed device_context_ and process_context_..._written_as_committed; an
 * implementation's title written as its path in run_write_impl failed
 * implementations_are_written_as_committed (and the typed rows' round trip). */
static json_t *g_reference;

static json_t *reference_context(json_t **doc)
{
    char err[1024];
    if (!g_reference) g_reference = evidence_load(REFERENCE_RUN, err, sizeof err);
    if (!g_reference) fail_msg("%s", err);
    *doc = json_incref(g_reference);
    return json_object_get(*doc, "context");
}

static int reference_free(void **state)
{
    (void)state;
    json_decref(g_reference);
    g_reference = NULL;
    return 0;
}

static void same_text(const json_t *written, const json_t *original)
{
    char *a = json_dumps(written, DUMP_FLAGS), *b = json_dumps(original, DUMP_FLAGS);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static const char *str_at(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static long long int_at(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static double num_at(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* The typed values of a committed context's pieces, as measure/device_info.c reads them. */
static device_gpu gpu_of(const json_t *jg)
{
    device_gpu g = { .known = 1, .sm_count = (int)int_at(jg, "sm_count"), .cc_major = (int)int_at(jg, "cc_major"),
                     .cc_minor = (int)int_at(jg, "cc_minor"), .l2_bytes = int_at(jg, "l2_bytes"),
                     .mem_bytes = int_at(jg, "mem_bytes"), .smem_per_block_optin = int_at(jg, "smem_per_block_optin"),
                     .clock_khz = (int)int_at(jg, "clock_khz"), .mem_clock_khz = (int)int_at(jg, "mem_clock_khz"),
                     .mem_bus_bits = (int)int_at(jg, "mem_bus_bits"), .index = (int)int_at(jg, "index"),
                     .cuda_visible_devices = str_at(jg, "cuda_visible_devices") };
    snprintf(g.name, sizeof g.name, "%s", str_at(jg, "name"));
    snprintf(g.slug, sizeof g.slug, "%s", str_at(jg, "slug"));
    snprintf(g.uuid, sizeof g.uuid, "%s", str_at(jg, "uuid"));
    return g;
}

static device_versions versions_of(const json_t *jv)
{
    device_versions v = { .cuda_driver = (int)int_at(jv, "cuda_driver"), .cuda_runtime = (int)int_at(jv, "cuda_runtime"),
                          .has_cublas = 1, .cublas = (int)int_at(jv, "cublas"),
                          .cublas_path = str_at(jv, "cublas_path"), .cudart_path = str_at(jv, "cudart_path"),
                          .cudnn = DEVICE_CUDNN_VERSION, .cudnn_version = int_at(jv, "cudnn"),
                          .has_driver = 1, .nvcc = str_at(jv, "nvcc") };
    snprintf(v.cudnn_path, sizeof v.cudnn_path, "%s", str_at(jv, "cudnn_path"));
    snprintf(v.driver, sizeof v.driver, "%s", str_at(jv, "driver"));
    return v;
}

static device_git git_of(const json_t *jgit)
{
    device_git git = { .dirty = json_is_true(json_object_get(jgit, "dirty")), .source = str_at(jgit, "source") };
    snprintf(git.commit, sizeof git.commit, "%s", str_at(jgit, "commit"));
    return git;
}

static clock_reading clocks_of(const json_t *jc)
{
    return (clock_reading){ .sm_mhz = (unsigned)int_at(jc, "sm_mhz"), .mem_mhz = (unsigned)int_at(jc, "mem_mhz"),
                            .temp_c = (unsigned)int_at(jc, "temp_c"),
                            .power_w = json_number_value(json_object_get(jc, "power_w")),
                            .reasons = (unsigned long long)int_at(jc, "throttle_mask") };
}

static void device_context_is_written_as_committed(void **state)
{
    (void)state;
    json_t *doc;
    json_t *ctx = reference_context(&doc);

    json_t *jg = json_object_get(ctx, "gpu");
    device_gpu g = gpu_of(jg);
    json_t *w = run_write_gpu(&g);
    same_text(w, jg);
    json_decref(w);
    device_gpu unknown = { .known = 0 };
    w = run_write_gpu(&unknown);
    json_t *want = json_pack("{s:s, s:s}", "name", "unknown", "slug", "unknown");
    same_text(w, want);
    json_decref(w);
    json_decref(want);

    json_t *jv = json_object_get(ctx, "versions");
    device_versions v = versions_of(jv);
    w = run_write_versions(&v);
    same_text(w, jv);
    json_decref(w);
    device_versions bare = { .cuda_driver = 1, .cuda_runtime = 2, .cudnn = DEVICE_CUDNN_NOT_LOADED, .nvcc = "x" };
    w = run_write_versions(&bare);
    want = json_pack("{s:i, s:i, s:n, s:s}", "cuda_driver", 1, "cuda_runtime", 2, "cudnn", "nvcc", "x");
    same_text(w, want);
    json_decref(w);
    json_decref(want);

    json_t *jgit = json_object_get(ctx, "git");
    device_git git = git_of(jgit);
    w = run_write_git(&git);
    same_text(w, jgit);
    json_decref(w);

    const char *snaps[] = { "clocks_before", "clocks_after" };
    for (size_t i = 0; i < 2; i++) {
        json_t *jc = json_object_get(ctx, snaps[i]);
        clock_reading c = clocks_of(jc);
        w = run_write_clocks(&c);
        same_text(w, jc);
        json_decref(w);
    }
    clock_reading capped = { .reasons = 0x4 };   /* sw_power_cap */
    w = run_write_clocks(&capped);
    assert_string_equal(json_string_value(json_array_get(json_object_get(w, "throttle"), 0)), "sw_power_cap");
    json_decref(w);
    /* the violation counters, where the driver gave them, under their limits' names; none
     * where it did not (the committed snapshots above have none) */
    assert_null(json_object_get(json_object_get(ctx, "clocks_after"), "violation_ns"));
    clock_reading counted = { .reasons = 0x4, .have_violation = 1,
                              .violation_ns = { 4000000000ull, 7, 0, 123456789012345ull } };
    w = run_write_clocks(&counted);
    want = json_pack("{s:I, s:I, s:I, s:I}", "power", (json_int_t)4000000000ll, "thermal", (json_int_t)7,
                     "board_limit", (json_int_t)0, "reliability", (json_int_t)123456789012345ll);
    same_text(json_object_get(w, "violation_ns"), want);
    json_decref(want);
    json_decref(w);
    json_decref(doc);
}

/* The whole context of the process that ran, its ceilings and its cost, written from typed
 * values read off the reference run, are that run's objects byte for byte (the launch
 * floor, timing objects added once measured, apart); without clocks, a plant and
 * overrides, each is as `run` wrote it. */
static void process_context_ceilings_and_cost_are_written_as_committed(void **state)
{
    (void)state;
    json_t *doc;
    json_t *ctx = reference_context(&doc);
    device_gpu g = gpu_of(json_object_get(ctx, "gpu"));
    device_versions v = versions_of(json_object_get(ctx, "versions"));
    device_git git = git_of(json_object_get(ctx, "git"));
    clock_reading before = clocks_of(json_object_get(ctx, "clocks_before"));
    clock_reading after = clocks_of(json_object_get(ctx, "clocks_after"));
    const json_t *jargv = json_object_get(ctx, "argv"), *jenv = json_object_get(ctx, "env_overrides");
    char *argv[64];
    run_env_override env[16];
    size_t argc = json_array_size(jargv), n_env = 0;
    assert_true(argc <= 64 && json_object_size(jenv) <= 16);
    for (size_t i = 0; i < argc; i++) argv[i] = (char *)json_string_value(json_array_get(jargv, i));
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)jenv, k, val) env[n_env++] = (run_env_override){ k, json_string_value(val) };
    run_process_context pc = { .gpu = &g, .versions = &v, .git = &git, .host = str_at(ctx, "host"), .argv = argv,
                               .argc = argc, .planted_slowdown = str_at(ctx, "planted_slowdown"), .env = env,
                               .n_env = n_env, .clocks_before = &before, .nvml = str_at(ctx, "nvml"),
                               .throttled = json_is_true(json_object_get(ctx, "throttled")), .clocks_after = &after };
    json_t *w = run_write_context(&pc);
    same_text(w, ctx);
    json_decref(w);

    pc.clocks_before = pc.clocks_after = NULL;
    pc.planted_slowdown = "06_tiling +5%";
    pc.n_env = 0;
    pc.nvml = "no NVML";
    json_t *want = json_deep_copy(ctx);
    json_t *tail[] = { json_object(), json_null(), json_string("no NVML"), json_incref(json_object_get(ctx, "throttled")),
                       json_null() };
    const char *tail_keys[] = { "env_overrides", "clocks_before", "nvml", "throttled", "clocks_after" };
    for (size_t i = 0; i < 5; i++) json_object_del(want, tail_keys[i]);
    json_object_set_new(want, "planted_slowdown", json_string("06_tiling +5%"));
    for (size_t i = 0; i < 5; i++) json_object_set_new(want, tail_keys[i], tail[i]);
    w = run_write_context(&pc);
    same_text(w, want);
    json_decref(w);
    json_decref(want);

    const json_t *jc = json_object_get(doc, "ceilings");
    run_ceilings ce = { num_at(jc, "dram_gbps"), num_at(jc, "fp16_tflops"), (size_t)int_at(jc, "copy_bytes"),
                        (int)json_integer_value(json_array_get(json_object_get(jc, "gemm_shape"), 0)), 0 };
    w = run_write_ceilings(&ce);
    want = json_deep_copy(jc);
    json_object_del(want, "launch_floor");
    same_text(w, want);
    json_decref(w);
    json_decref(want);
    ce.read_gbps = 4512.5;   /* measured: written after the copy's; absent above (runs before it) */
    w = run_write_ceilings(&ce);
    assert_true(json_real_value(json_object_get(w, "read_gbps")) == 4512.5);
    assert_string_equal(json_object_iter_key(json_object_iter_next(w, json_object_iter(w))), "read_gbps");
    json_decref(w);
    ce.dram_gbps = ce.fp16_tflops = ce.read_gbps = 0;   /* not measured */
    w = run_write_ceilings(&ce);
    assert_true(json_is_null(json_object_get(w, "dram_gbps")) && json_is_null(json_object_get(w, "fp16_tflops")));
    assert_null(json_object_get(w, "read_gbps"));
    json_decref(w);

    const json_t *jcost = json_object_get(doc, "cost");
    run_cost c = { .wall_s = num_at(jcost, "wall_s"), .gpu_timed_s = num_at(jcost, "gpu_timed_s"),
                   .measurements = (size_t)int_at(jcost, "measurements"),
                   .stages_s = json_incref(json_object_get(jcost, "stages_s")),
                   .steps_s = json_incref(json_object_get(jcost, "steps_s")),
                   .points = json_incref(json_object_get(jcost, "points")) };
    w = run_write_cost(&c);
    assert_null(c.points);
    same_text(w, jcost);
    json_decref(w);
    json_decref(doc);
}

static int resources_read(const json_t *o, kernel_resources *r, const char **why);

/* implementations[] as `run` writes them: every one the reference run loaded (path and
 * resources: the loaded code's, read into measure/kernel_resources.h's typed value) comes
 * back byte for byte; resources from the ptxas report say so, and none are written null. */
static void implementations_are_written_as_committed(void **state)
{
    (void)state;
    json_t *doc;
    reference_context(&doc);
    size_t i, loaded = 0;
    json_t *im;
    json_array_foreach(json_object_get(doc, "implementations"), i, im) {
        if (!json_object_get(im, "path")) continue;   /* external baselines: imported as written */
        kernel_resources kr;
        const char *why;
        assert_int_equal(resources_read(json_object_get(im, "resources"), &kr, &why), 0);
        assert_int_equal(kr.source, RESOURCES_LOADED);
        assert_null(why);
        run_impl_record r = { .name = str_at(im, "name"), .title = str_at(im, "title"), .kind = str_at(im, "kind"),
                              .path = str_at(im, "path"), .resources = &kr };
        json_t *w = run_write_impl(&r);
        same_text(w, im);
        json_decref(w);
        free(kr.kernels);
        loaded++;
    }
    assert_true(loaded >= 10);
    kernel_resource k = { .name = "_Z6kernAv", .registers = 40, .smem_static = 8, .stack_bytes = 16,
                          .local_bytes = -1, .max_threads = -1, .binary_version = -1, .has_spills = 1,
                          .spill_stores = 4, .spill_loads = 2 };
    kernel_resources kr = { .source = RESOURCES_PTXAS, .arch = "sm_90a", .registers = 40, .smem_static = 8,
                            .stack_bytes = 16, .has_spills = 1, .spill_stores = 4, .spill_loads = 2,
                            .kernels = &k, .n_kernels = 1 };
    run_impl_record r = { .name = "01_scalar", .title = "t", .kind = "phase", .path = "build/phases/01_scalar.so",
                          .resources = &kr, .ptxas_why = "no fatbinary in the object" };
    json_t *w = run_write_impl(&r);
    json_t *want = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:i, s:i, s:i, s:i, s:i, s:[{s:s, s:i, s:i, s:i, s:i, s:i}],"
                             " s:s, s:s}}", "name", "01_scalar", "title", "t", "kind", "phase", "path",
                             "build/phases/01_scalar.so", "resources", "arch", "sm_90a", "registers", 40,
                             "smem_static", 8, "stack_bytes", 16, "spill_stores", 4, "spill_loads", 2, "kernels",
                             "name", "_Z6kernAv", "registers", 40, "smem_static", 8, "stack_bytes", 16,
                             "spill_stores", 4, "spill_loads", 2, "source", "ptxas report", "loaded_why_not",
                             "no fatbinary in the object");
    same_text(w, want);
    json_decref(w);
    json_decref(want);
    /* the loaded code's, its report stale: no spills, the kernels before where the totals go */
    k = (kernel_resource){ .name = "_Z6kernAv", .registers = 40, .smem_static = 8, .stack_bytes = -1,
                           .local_bytes = 0, .max_threads = 1024, .binary_version = 90 };
    kr = (kernel_resources){ .source = RESOURCES_LOADED, .arch = "sm_90a", .registers = 40, .smem_static = 8,
                             .spills_from = "none: stale", .kernels = &k, .n_kernels = 1 };
    w = run_write_resources(&kr);
    want = json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:[{s:s, s:i, s:i, s:i, s:i, s:i}]}", "source", "loaded",
                     "arch", "sm_90a", "registers", 40, "smem_static", 8, "stack_bytes", 0, "spills_from",
                     "none: stale", "kernels", "name", "_Z6kernAv", "registers", 40, "smem_static", 8,
                     "local_bytes", 0, "max_threads", 1024, "binary_version", 90);
    same_text(w, want);
    json_decref(w);
    json_decref(want);
    r.resources = NULL;
    w = run_write_impl(&r);
    assert_true(json_is_null(json_object_get(w, "resources")));
    json_decref(w);
    json_decref(doc);
}

/* The document's top level in the evidence's order, whatever parts are given. */
static void document_keeps_the_top_level_order(void **state)
{
    (void)state;
    json_t *doc;
    reference_context(&doc);
    const char *k;
    json_t *v;
    run_document d = { .partial = json_is_true(json_object_get(doc, "partial")),
                       .created_utc = str_at(doc, "created_utc"), .has_progress = 1 };
    json_t **parts[] = { &d.context, &d.method, &d.ceilings, &d.implementations, &d.results, &d.input_checks,
                         &d.reference_checks, &d.cost, &d.profile };
    const char *names[] = { "context", "method", "ceilings", "implementations", "results", "input_checks",
                            "reference_checks", "cost", "profile" };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        *parts[i] = json_incref(json_object_get(doc, names[i]));
    json_t *progress = json_object_get(doc, "progress");
    d.progress_points = int_at(progress, "points");
    d.progress_done = int_at(progress, "done");
    json_t *w = run_write_document(&d);
    same_text(w, doc);
    size_t i = 0;
    json_object_foreach(w, k, v) i++;
    assert_int_equal(i, json_object_size(doc));
    json_decref(w);
    json_decref(doc);
}

/* The names of a JSON array of strings (at most 8). */
static size_t names_at(const json_t *o, const char *k, const char *names[8])
{
    const json_t *a = json_object_get(o, k);
    size_t n = json_array_size(a);
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++) names[i] = json_string_value(json_array_get(a, i));
    return n;
}

/* method, written from typed values read off the reference run, is that run's object
 * byte for byte; measured independently, it says so and has no ratio_design. */
static void method_is_written_as_committed(void **state)
{
    (void)state;
    json_t *doc;
    reference_context(&doc);
    const json_t *jm = json_object_get(doc, "method"), *in = json_object_get(jm, "inputs");
    const json_t *rd = json_object_get(jm, "ratio_design"), *ref = json_object_get(jm, "reference");
    const json_t *cw = json_object_get(jm, "clock_watch"), *bounds = json_object_get(jm, "bounds");
    const char *modes[8], *sweep[8], *other[8];
    run_method m = { .modes = modes, .n_modes = names_at(jm, "modes", modes), .sweep_modes = sweep,
                     .n_sweep_modes = names_at(jm, "sweep_modes", sweep), .inner = (int)int_at(jm, "inner"),
                     .graph_target_us = num_at(jm, "graph_target_us"),
                     .min_samples = (size_t)int_at(jm, "min_samples"), .max_samples = (size_t)int_at(jm, "max_samples"),
                     .max_seconds = num_at(jm, "max_seconds"), .rel_ci_target = num_at(jm, "rel_ci_target"),
                     .bootstrap_resamples = (size_t)int_at(jm, "bootstrap_resamples"), .ci_level = num_at(jm, "ci_level"),
                     .seed = (unsigned long long)int_at(jm, "seed"), .stats_seed = (unsigned long long)int_at(jm, "stats_seed"),
                     .bound_rel_l2 = num_at(bounds, "rel_l2"), .bound_max_abs = num_at(bounds, "max_abs"),
                     .l2_scrub_bytes = (size_t)int_at(jm, "l2_scrub_bytes"), .baseline = str_at(jm, "baseline"),
                     .full_ref_gflop = num_at(jm, "full_ref_gflop"), .sample_rows = int_at(jm, "sample_rows"),
                     .checked_also = other, .n_checked_also = names_at(in, "checked_also", other),
                     .sample_tile_rows = (int)int_at(in, "sample_tile_rows"), .chunk_elems = (size_t)int_at(in, "chunk_elems"),
                     .min_gpu_s = num_at(jm, "min_gpu_s"), .paired = json_is_true(json_object_get(jm, "paired")),
                     .rotation = { num_at(rd, "slow_factor"), (size_t)int_at(rd, "min_rounds"),
                                   (size_t)int_at(rd, "max_rounds"), num_at(rd, "max_seconds"),
                                   num_at(rd, "rel_ci_target"), num_at(rd, "min_gpu_s") },
                     .oracle_gpu = str_at(ref, "gpu"), .oracle_gpu_why_not = str_at(ref, "gpu_why_not"),
                     .cpu_check_gflop = num_at(ref, "cpu_check_gflop"), .oracle_agree_max_abs = num_at(ref, "agree_max_abs"),
                     .per_sample = json_is_true(json_object_get(cw, "per_sample")), .watch_why_not = str_at(cw, "why_not"),
                     .discard = str_at(cw, "discard"), .discard_limit = num_at(cw, "discard_limit") };
    assert_true(m.paired);
    json_t *w = run_write_method(&m);
    same_text(w, jm);
    json_decref(w);

    m.paired = 0;
    w = run_write_method(&m);
    json_t *want = json_deep_copy(jm);
    json_object_set_new(want, "ratio", json_string("independent"));
    json_object_set_new(want, "paired", json_false());
    json_object_del(want, "ratio_design");
    same_text(w, want);
    json_decref(w);
    json_decref(want);
    json_decref(doc);
}


/* ---- a point's rows written from the typed values measure/ fills ---------------------- */

/* The typed values of committed rows, as measure/ fills them: each results[],
 * input_checks[], reference_checks[] and cost.points[] member read back into
 * measure/point_record.h's structs. A member the typed values cannot hold (written by an
 * older build: a "pair" design, derived.paired_ratio, a field since dropped) is counted,
 * not read: 0 read, -1 not of the current form. */
static int long_of(const json_t *o, const char *k, long long *v)
{
    const json_t *x = json_object_get(o, k);
    if (!json_is_integer(x)) return -1;
    *v = json_integer_value(x);
    return 0;
}

static int real_of(const json_t *o, const char *k, double *v)
{
    const json_t *x = json_object_get(o, k);
    if (!json_is_number(x)) return -1;
    *v = json_number_value(x);
    return 0;
}

static double *reals_of(const json_t *a, size_t *n)
{
    *n = json_array_size(a);
    double *x = malloc((*n ? *n : 1) * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < *n; i++) x[i] = json_number_value(json_array_get(a, i));
    return x;
}

static unsigned *mhz_of(const json_t *a)
{
    size_t n = json_array_size(a);
    unsigned *x = malloc((n ? n : 1) * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++) x[i] = (unsigned)json_integer_value(json_array_get(a, i));
    return x;
}

static unsigned long long reasons_of(const json_t *a)
{
    unsigned long long mask = 0, bit;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        if (clock_reason_parse(json_string_value(v), &bit)) fail_msg("unknown clock reason %s", json_string_value(v));
        mask |= bit;
    }
    return mask;
}

static int keys_within(const json_t *o, const char *const *keys)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        size_t i = 0;
        while (keys[i] && strcmp(keys[i], k)) i++;
        if (!keys[i]) return -1;
    }
    return 0;
}

static int compare_of(const json_t *o, compare_result *c)
{
    long long nonfinite, checked;
    if (long_of(o, "nonfinite", &nonfinite) || long_of(o, "checked", &checked) || real_of(o, "max_abs", &c->max_abs) ||
        real_of(o, "rel_l2", &c->rel_l2))
        return -1;
    c->nonfinite = (size_t)nonfinite;
    c->checked = (size_t)checked;
    c->pass = json_is_true(json_object_get(o, "pass"));
    return 0;
}

static int verdict_read(const json_t *o, result_check *k)
{
    static const char *const keys[] = { "pass", "nonfinite", "max_abs", "rel_l2", "checked", "reference",
                                        "rows_checked", "vs_baseline", "error", "after_timing", NULL };
    if (!json_is_object(o) || keys_within(o, keys)) return -1;
    *k = (result_check){ .pass = json_is_true(json_object_get(o, "pass")) };
    if (json_object_get(o, "nonfinite")) {
        if (compare_of(o, &k->c)) return -1;
        k->compared = 1;
        k->c.pass = k->pass;
    }
    k->reference = str_at(o, "reference");
    long long rows = 0;
    if (k->reference && long_of(o, "rows_checked", &rows)) return -1;
    k->rows_checked = (size_t)rows;
    const json_t *vb = json_object_get(o, "vs_baseline");
    if (vb) {
        if (compare_of(vb, &k->vs_baseline)) return -1;
        k->has_vs_baseline = 1;
    }
    if (str_at(o, "error")) snprintf(k->error, sizeof k->error, "%s", str_at(o, "error"));
    return 0;
}

static int stop_of(const char *name, stop_reason *r)
{
    for (int i = STOP_CONTINUE; i <= STOP_THROTTLED; i++)
        if (name && !strcmp(name, stop_reason_name((stop_reason)i))) {
            *r = (stop_reason)i;
            return 0;
        }
    return -1;
}

static int policy_of(const json_t *clock, clock_policy *p)
{
    const char *discard = str_at(clock, "discard");
    if (!discard || clock_discard_parse(discard, &p->discard_mask)) return -1;
    p->watch = (clock_watch *)p;   /* read: any non-NULL watch */
    return 0;
}

static int mode_read(const json_t *o, time_result *r, clock_policy *policy)
{
    static const char *const keys[] = { "inner", "n", "samples_us", "median_us", "p10_us", "p90_us", "ci_lo_us",
                                        "ci_hi_us", "mean_us", "min_us", "max_us", "stop", "wall_s", "gpu_s",
                                        "clock", NULL };
    long long inner;
    memset(r, 0, sizeof *r);
    if (keys_within(o, keys) || long_of(o, "inner", &inner) || stop_of(str_at(o, "stop"), &r->stop) ||
        real_of(o, "median_us", &r->sum.median) || real_of(o, "p10_us", &r->sum.p10) ||
        real_of(o, "p90_us", &r->sum.p90) || real_of(o, "ci_lo_us", &r->sum.ci_lo) ||
        real_of(o, "ci_hi_us", &r->sum.ci_hi) || real_of(o, "mean_us", &r->sum.mean) ||
        real_of(o, "min_us", &r->sum.min) || real_of(o, "max_us", &r->sum.max) || real_of(o, "wall_s", &r->wall_s) ||
        real_of(o, "gpu_s", &r->gpu_s))
        return -1;
    r->inner = (int)inner;
    r->samples_us = reals_of(json_object_get(o, "samples_us"), &r->n);
    const json_t *c = json_object_get(o, "clock");
    if (!c) return 0;
    long long disc, capped;
    if (long_of(c, "discarded", &disc) || long_of(c, "power_capped", &capped) || policy_of(c, policy) ||
        real_of(c, "discard_limit", &policy->discard_limit))
        return -1;
    r->clock_read = 1;
    r->sm_mhz = mhz_of(json_object_get(c, "sm_mhz"));
    r->discarded_us = reals_of(json_object_get(c, "discarded_us"), &r->n_discarded);
    r->power_capped = (size_t)capped;
    r->reasons_seen = reasons_of(json_object_get(c, "reasons_seen"));
    return 0;
}

static int paired_read(const json_t *o, result_paired *p)
{
    static const char *const keys[] = { "baseline", "design", "implementations", "inner", "baseline_inner", "n",
                                        "stop", "gpu_s", "wall_s", "impl_us", "baseline_us", "impl_first", "clock",
                                        NULL };
    long long k, inner, binner, n;
    const char *design = str_at(o, "design");
    if (keys_within(o, keys) || !design || strcmp(design, "rotation") || long_of(o, "implementations", &k) ||
        long_of(o, "inner", &inner) || long_of(o, "baseline_inner", &binner) || long_of(o, "n", &n) ||
        real_of(o, "gpu_s", &p->gpu_s) || real_of(o, "wall_s", &p->wall_s) || !json_object_get(o, "impl_first"))
        return -1;
    p->baseline = str_at(o, "baseline");
    p->stop = str_at(o, "stop");
    p->implementations = (size_t)k;
    p->inner = (int)inner;
    p->baseline_inner = (int)binner;
    size_t m;
    p->impl_us = reals_of(json_object_get(o, "impl_us"), &p->n);
    p->baseline_us = reals_of(json_object_get(o, "baseline_us"), &m);
    if (m != p->n) return -1;
    const json_t *first = json_object_get(o, "impl_first");
    p->impl_first = malloc(p->n ? p->n : 1);
    assert_non_null(p->impl_first);
    for (size_t i = 0; i < p->n; i++) p->impl_first[i] = (unsigned char)json_integer_value(json_array_get(first, i));
    const json_t *c = json_object_get(o, "clock");
    p->clock.n = p->n;
    if (json_is_null(c)) return 0;   /* policy.watch NULL: written null */
    p->clock.sm_mhz = mhz_of(json_object_get(c, "sm_mhz"));
    long long disc, capped;
    if (long_of(c, "discarded_pairs", &disc) || long_of(c, "power_capped_pairs", &capped) ||
        policy_of(c, &p->clock.policy))
        return -1;
    p->clock.tally = (clock_tally){ (size_t)disc, (size_t)capped, reasons_of(json_object_get(c, "reasons_seen")) };
    return 0;
}

static int derived_read(const json_t *o, result_derived *d)
{
    static const char *const keys[] = { "flops", "bytes", "tflops", "gbps", "frac_fp16_peak", "frac_dram", "ratio",
                                        NULL };
    if (keys_within(o, keys) || real_of(o, "flops", &d->flops) || real_of(o, "bytes", &d->bytes) ||
        real_of(o, "tflops", &d->tflops) || real_of(o, "gbps", &d->gbps))
        return -1;
    d->frac_fp16_peak = d->frac_dram = NAN;
    real_of(o, "frac_fp16_peak", &d->frac_fp16_peak);
    real_of(o, "frac_dram", &d->frac_dram);
    const json_t *r = json_object_get(o, "ratio");
    if (json_is_null(r)) return 0;
    d->has_ratio = 1;
    d->ratio = (derived_ratio){ .baseline = str_at(r, "baseline"), .method = str_at(r, "method") };
    if (!d->ratio.baseline || !d->ratio.method || real_of(r, "median", &d->ratio.median) ||
        real_of(r, "ci_lo", &d->ratio.ci_lo) || real_of(r, "ci_hi", &d->ratio.ci_hi))
        return -1;
    return 0;
}

static int result_read(const json_t *o, result_record *r)
{
    static const char *const keys[] = { "impl", "shape", "tag", "supported", "reason", "init_note", "correctness",
                                        "timing", "paired", "paired_throttled", "derived", NULL };
    memset(r, 0, sizeof *r);
    if (keys_within(o, keys) || run_read_shape(json_object_get(o, "shape"), &r->shape) >= 0) return -1;
    r->impl = str_at(o, "impl");
    r->tag = str_at(o, "tag");
    r->supported = json_is_true(json_object_get(o, "supported"));
    if (!r->supported) snprintf(r->reason, sizeof r->reason, "%s", str_at(o, "reason"));
    if (str_at(o, "init_note")) {
        r->has_init_note = 1;
        snprintf(r->init_note, sizeof r->init_note, "%s", str_at(o, "init_note"));
    }
    const json_t *c = json_object_get(o, "correctness"), *t = json_object_get(o, "timing");
    if (c) {
        r->checked = 1;
        if (verdict_read(c, &r->correctness.check)) return -1;
        const json_t *after = json_object_get(c, "after_timing");
        if (after && (json_object_get(after, "after_timing") || verdict_read(after, &r->correctness.after))) return -1;
        r->correctness.has_after = after != NULL;
    }
    if (t) {
        r->timed = 1;
        for (int m = 0; m < MODE_COUNT; m++) {
            const json_t *mo = json_object_get(t, time_mode_name((time_mode)m));
            if (!mo) continue;
            r->timing.timed[m] = 1;
            if (mode_read(mo, &r->timing.mode[m], &r->timing.clock)) return -1;
        }
        const json_t *l2 = json_object_get(t, "l2");
        if (l2) {
            long long copies, copy_bytes, l2_bytes;
            int state = l2_state_parse(str_at(l2, "state"));
            if (state < 0 || long_of(l2, "copies", &copies) || long_of(l2, "copy_bytes", &copy_bytes) ||
                long_of(l2, "l2_bytes", &l2_bytes))
                return -1;
            r->timing.has_l2 = 1;
            r->timing.l2 = (l2_plan){ (l2_state)state, (int)copies, (size_t)copy_bytes, (size_t)l2_bytes };
        }
    }
    if (json_object_get(o, "paired")) {
        r->has_paired = 1;
        if (paired_read(json_object_get(o, "paired"), &r->paired)) return -1;
    }
    const json_t *pt = json_object_get(o, "paired_throttled");
    if (pt) {
        long long d;
        if (long_of(pt, "discarded_pairs", &d)) return -1;
        r->paired_throttled = str_at(pt, "baseline");
        r->discarded_pairs = (size_t)d;
    }
    if (json_object_get(o, "derived")) {
        r->has_derived = 1;
        if (derived_read(json_object_get(o, "derived"), &r->derived)) return -1;
    }
    return 0;
}

static void result_record_free(result_record *r)
{
    for (int m = 0; m < MODE_COUNT; m++) time_result_free(&r->timing.mode[m]);
    result_paired_free(&r->paired);
}

/* The steps of cost.points[].steps_s, in step_name's order (-1: other keys or order). */
static int steps_read(const json_t *o, step_times *st)
{
    if (json_object_size(o) != STEP_COUNT) return -1;
    for (int i = 0; i < STEP_COUNT; i++)
        if (real_of(o, step_name((step_id)i), &st->s[i])) return -1;
    return 0;
}

/* An implementation's resources object as measure/kernel_resources.c fills it: the ptxas
 * report's form, or the loaded code's (source "loaded"); one of the report's that says so
 * (source "ptxas report") gives its loaded_why_not in why. The kernels' names are the
 * object's (free r->kernels alone). 0 read, -1 not of either form. */
static int resource_longs(const json_t *o, const char *const *keys, long *const *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long long v;
        if (long_of(o, keys[i], &v)) return -1;
        *dst[i] = (long)v;
    }
    return 0;
}

static int resource_kernel_read(const json_t *o, resources_source source, kernel_resource *k)
{
    static const char *const common[] = { "registers", "smem_static" }, *const report[] = { "stack_bytes" },
                             *const loaded[] = { "local_bytes", "max_threads", "binary_version" },
                             *const spills[] = { "spill_stores", "spill_loads" };
    *k = (kernel_resource){ .name = (char *)str_at(o, "name"), .stack_bytes = -1, .local_bytes = -1,
                            .max_threads = -1, .binary_version = -1 };
    k->has_spills = json_object_get(o, "spill_stores") != NULL;
    if (!k->name || resource_longs(o, common, (long *const[]){ &k->registers, &k->smem_static }, 2) ||
        (k->has_spills && resource_longs(o, spills, (long *const[]){ &k->spill_stores, &k->spill_loads }, 2)))
        return -1;
    if (source == RESOURCES_PTXAS) return resource_longs(o, report, (long *const[]){ &k->stack_bytes }, 1);
    return resource_longs(o, loaded, (long *const[]){ &k->local_bytes, &k->max_threads, &k->binary_version }, 3);
}

static int resources_read(const json_t *o, kernel_resources *r, const char **why)
{
    static const char *const maxima[] = { "registers", "smem_static", "stack_bytes" },
                             *const spills[] = { "spill_stores", "spill_loads" };
    const char *source = str_at(o, "source"), *arch = str_at(o, "arch");
    const json_t *kernels = json_object_get(o, "kernels");
    *r = (kernel_resources){ .source = source && !strcmp(source, "loaded") ? RESOURCES_LOADED : RESOURCES_PTXAS,
                             .spills_from = str_at(o, "spills_from"),
                             .has_spills = json_object_get(o, "spill_stores") != NULL };
    *why = source && !strcmp(source, "ptxas report") ? str_at(o, "loaded_why_not") : NULL;
    if ((source && r->source == RESOURCES_PTXAS && !*why) || !arch || strlen(arch) >= sizeof r->arch ||
        !json_is_array(kernels) || (r->source == RESOURCES_PTXAS && !r->has_spills) ||
        resource_longs(o, maxima, (long *const[]){ &r->registers, &r->smem_static, &r->stack_bytes }, 3) ||
        (r->has_spills && resource_longs(o, spills, (long *const[]){ &r->spill_stores, &r->spill_loads }, 2)))
        return -1;
    strcpy(r->arch, arch);
    r->kernels = calloc(json_array_size(kernels) + 1, sizeof *r->kernels);
    if (!r->kernels) return -1;
    size_t i;
    json_t *k;
    json_array_foreach(kernels, i, k) {
        if (resource_kernel_read(k, r->source, &r->kernels[i])) return -1;
        r->n_kernels++;
    }
    return 0;
}

static void same_bytes(const json_t *written, const json_t *original, const char *what)
{
    char *a = json_dumps(written, DUMP_FLAGS), *b = json_dumps(original, DUMP_FLAGS);
    assert_non_null(a);
    assert_non_null(b);
    if (strcmp(a, b)) fail_msg("%s: written from typed values:\n%s\ncommitted:\n%s", what, a, b);
    free(a);
    free(b);
}

/* How many rows of each array of doc the typed values wrote back byte for byte (the
 * others: not of the current form). */
typedef struct {
    size_t results, checks, oracle_checks, points, older;
    size_t resources;  /* implementations[].resources objects written back */
    size_t imported;   /* external results: written by their own tool, imported as they are */
} typed_counts;

/* doc's rows, each read into the typed values and written again by the writer: the
 * committed bytes. The rows written are put into a copy of doc (returned). */
static json_t *rows_from_typed_values(const json_t *doc, const char *path, typed_counts *n)
{
    json_t *copy = json_deep_copy(doc);
    json_t *res = json_object_get(copy, "results"), *x;
    size_t i;
    char what[1200];
    json_array_foreach(res, i, x) {
        result_record r;
        snprintf(what, sizeof what, "%s: results[%zu]", path, i);
        if (!strcmp(str_at(x, "tag"), "external")) {
            n->imported++;
            continue;
        }
        if (result_read(x, &r) == 0) {
            json_t *w = run_write_result(&r);
            same_bytes(w, x, what);
            json_array_set_new(res, i, w);
            n->results++;
        } else {
            n->older++;
        }
        result_record_free(&r);
    }
    json_array_foreach(json_object_get(copy, "input_checks"), i, x) {
        input_check_record c = { .impl = str_at(x, "impl"), .tag = str_at(x, "tag"), .inputs = str_at(x, "inputs") };
        snprintf(what, sizeof what, "%s: input_checks[%zu]", path, i);
        if (run_read_shape(json_object_get(x, "shape"), &c.shape) >= 0 ||
            verdict_read(json_object_get(x, "correctness"), &c.correctness)) {
            n->older++;
            continue;
        }
        json_t *w = run_write_input_check(&c);
        same_bytes(w, x, what);
        json_array_set_new(json_object_get(copy, "input_checks"), i, w);
        n->checks++;
    }
    json_array_foreach(json_object_get(copy, "reference_checks"), i, x) {
        long long rows, nonfinite;
        oracle_check_record c = { .tag = str_at(x, "tag"), .inputs = str_at(x, "inputs"), .cpu = str_at(x, "cpu"),
                                  .pass = json_is_true(json_object_get(x, "pass")) };
        snprintf(what, sizeof what, "%s: reference_checks[%zu]", path, i);
        if (run_read_shape(json_object_get(x, "shape"), &c.shape) >= 0 || long_of(x, "rows", &rows) ||
            long_of(x, "nonfinite", &nonfinite) || real_of(x, "max_abs", &c.max_abs) ||
            real_of(x, "rel_l2", &c.rel_l2)) {
            n->older++;
            continue;
        }
        c.rows = (size_t)rows;
        c.nonfinite = (size_t)nonfinite;
        json_t *w = run_write_oracle_check(&c);
        same_bytes(w, x, what);
        json_array_set_new(json_object_get(copy, "reference_checks"), i, w);
        n->oracle_checks++;
    }
    json_array_foreach(json_object_get(json_object_get(copy, "cost"), "points"), i, x) {
        point_cost_record c = { .tag = str_at(x, "tag") };
        snprintf(what, sizeof what, "%s: cost.points[%zu]", path, i);
        if (run_read_shape(json_object_get(x, "shape"), &c.shape) >= 0 || real_of(x, "wall_s", &c.wall_s) ||
            steps_read(json_object_get(x, "steps_s"), &c.steps)) {
            n->older++;
            continue;
        }
        json_t *w = run_write_point_cost(&c);
        same_bytes(w, x, what);
        json_array_set_new(json_object_get(json_object_get(copy, "cost"), "points"), i, w);
        n->points++;
    }
    json_array_foreach(json_object_get(copy, "implementations"), i, x) {
        if (!json_object_get(x, "path")) continue;   /* external baselines: imported as written */
        json_t *res = json_object_get(x, "resources");
        kernel_resources kr;
        run_impl_record r = { .name = str_at(x, "name"), .title = str_at(x, "title"), .kind = str_at(x, "kind"),
                              .path = str_at(x, "path") };
        snprintf(what, sizeof what, "%s: implementations[%zu]", path, i);
        if (json_is_object(res)) {
            if (resources_read(res, &kr, &r.ptxas_why)) fail_msg("%s.resources: not of a form the writer writes", what);
            r.resources = &kr;
            json_t *want = json_deep_copy(res), *w = run_write_resources(&kr);
            if (r.ptxas_why) {   /* said by run_write_impl */
                json_object_del(want, "source");
                json_object_del(want, "loaded_why_not");
            }
            same_bytes(w, want, what);
            json_decref(w);
            json_decref(want);
            n->resources++;
        }
        json_t *w = run_write_impl(&r);
        same_bytes(w, x, what);
        json_array_set_new(json_object_get(copy, "implementations"), i, w);
        if (r.resources) free(kr.kernels);
    }
    return copy;
}

/* Every committed run kind: its rows, read into the typed values measure/ fills and written
 * by the writer, are the committed bytes; the document with those rows reads as the
 * committed one does, and writing that reading gives the same bytes as writing the
 * committed one's (write from the typed values, read, write: identical). The runs of the
 * current format (the reference run and the passing-on study) are written back whole.
 * a: the run read; a_text: the bytes of a written (round_trip_of's first writing). */
static size_t typed_rows_of(run_data *a, const char *path, const char *a_text, typed_counts *n)
{
    size_t older = n->older;
    char err[1024];
    run_data b;
    json_t *written = rows_from_typed_values(a->doc, path, n);
    if (run_from_doc(&b, written, path, err, sizeof err)) fail_msg("%s: rows written from typed values: %s", path, err);
    json_t *tb = run_to_doc(&b);
    char *text = json_dumps(tb, DUMP_FLAGS);
    assert_non_null(text);
    if (strcmp(text, a_text)) fail_msg("%s: written from typed values:\n%s\ncommitted:\n%s", path, text, a_text);
    free(text);
    json_decref(tb);
    json_decref(written);
    run_close(&b);
    return n->older - older;
}

/* One committed file, read once for the checks of every committed run kind below (until
 * issue 53 each check read it again, in tests of their own: the round trip of the runs,
 * of the studies and of the test runs, the rows from typed values, the pairs' design; the
 * reference run was read three times): read -> write -> read -> write gives
 * the same bytes twice (round_trip_of); the pairs' design comes back as read (design_of,
 * the runs of PAIR_DESIGN_RUNS and the reference run); the rows written from the typed
 * values are the committed bytes (typed_rows_of). Its rows of older forms returned. */
static size_t committed_file(const char *path, typed_counts *n, design_counts *d)
{
    char err[1024], *text = NULL;
    run_data a, b;
    if (run_open(&a, path, err, sizeof err)) fail_msg("%s", err);
    round_trip_of(&a, path, &b, &text);
    if (!strcmp(path, REFERENCE_RUN) || !fnmatch(PAIR_DESIGN_RUNS, path, FNM_PATHNAME)) design_of(&a, &b, d);
    run_close(&b);
    size_t older = typed_rows_of(&a, path, text, n);
    free(text);
    run_close(&a);
    return older;
}

static size_t committed_root(const char *root, committed_sample *sample, typed_counts *n, design_counts *d,
                             long *reference_older)
{
    char **paths = NULL, err[1024];
    size_t k = 0;
    if (evidence_list(root, 1, &paths, &k, err, sizeof err)) fail_msg("%s", err);
    for (size_t i = 0; i < k; i++) {
        if (!committed_run_taken(sample, paths[i])) continue;
        size_t older = committed_file(paths[i], n, d);
        if (!strcmp(paths[i], REFERENCE_RUN)) *reference_older = (long)older;
    }
    evidence_free_list(paths, k);
    return k;
}

static void every_committed_run_round_trips(void **state)
{
    (void)state;
    typed_counts n = { 0 };
    design_counts d = { 0 };
    committed_sample sample = { 0 };
    long reference_older = -1;   /* the reference run's rows of older forms, when the lists below read it */
    size_t committed = committed_root("evidence", &sample, &n, &d, &reference_older) +
                       committed_root("harness/tests/data/history", &sample, &n, &d, &reference_older);
    /* both GPUs' accepted sets (three complete sessions each), the H100's two older runs
     * the unit tests read, and the history fixture: a store that lost them fails here */
    assert_true(committed >= 9);
    print_message("committed runs: %zu round-tripped, %zu of the same GPU and build left out\n", sample.read,
                  sample.skipped);
    committed_sample every = { 0 };   /* test runs, each of its own build: all read */
    size_t tests = committed_root("harness/tests/data/evidence", &every, &n, &d, &reference_older);
    assert_true(tests >= 4);
    committed_file("harness/tests/data/evidence/nvidia-test-gpu/20260215T000000Z_ccccccc.partial.json", &n, &d);
    glob_t g;   /* the studies in the run format */
    assert_int_equal(glob("evidence/*/studies/passing_on/*.json.gz", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 1);
    for (size_t i = 0; i < g.gl_pathc; i++) assert_int_equal(committed_file(g.gl_pathv[i], &n, &d), 0);
    size_t files = committed + tests + g.gl_pathc;
    globfree(&g);
    /* the reference run, of the current build, is every row of the current form (read
     * above as one of evidence/'s runs; until issue 53 read a second time here) */
    if (reference_older < 0) reference_older = (long)committed_file(REFERENCE_RUN, &n, &d);
    assert_int_equal(reference_older, 0);
    /* both designs: the 1ded564 fixture's "pair" beside its "rotation", the reference run's */
    assert_true(d.files >= 2);
    assert_true(d.rotation > 0);
    assert_true(d.pair > 0);
    print_message("typed values: %zu files, %zu results, %zu input checks, %zu oracle checks, %zu points, "
                  "%zu resources written back; %zu rows of older forms, %zu external results\n", files, n.results,
                  n.checks, n.oracle_checks, n.points, n.resources, n.older, n.imported);
    assert_true(n.results > 1000 && n.checks > 100 && n.oracle_checks > 10 && n.points > 10 && n.resources > 100);
}

int main(void)
{
    if (getenv("ATTN_TEST_ONLY")) cmocka_set_test_filter(getenv("ATTN_TEST_ONLY"));   /* make check-asan */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_committed_run_round_trips),
        cmocka_unit_test(paired_throttled_round_trips),
        cmocka_unit_test(bad_paired_throttled_is_refused),
        cmocka_unit_test(device_context_is_written_as_committed),
        cmocka_unit_test(document_keeps_the_top_level_order),
        cmocka_unit_test(method_is_written_as_committed),
        cmocka_unit_test(process_context_ceilings_and_cost_are_written_as_committed),
        cmocka_unit_test(implementations_are_written_as_committed),
    };
    return cmocka_run_group_tests(tests, NULL, reference_free);
}
