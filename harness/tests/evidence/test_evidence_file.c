/* test_evidence_file.c: evidence documents through validation, writing and reading back;
 * errors that name the field path or the file; atomic writes that leave the old file
 * and no temporary behind on failure; GPU slugs; listing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "evidence/evidence_file.h"
#include "json_at.h"
#include "core/names.h"

static json_t *mode_json(double base)
{
    return json_pack("{s:i, s:i, s:[f,f,f,f], s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s}",
                     "inner", 20, "n", 4, "samples_us", base, base + 0.1, base + 0.2, base + 0.3,
                     "median_us", base + 0.15, "p10_us", base + 0.03, "p90_us", base + 0.27,
                     "ci_lo_us", base, "ci_hi_us", base + 0.3, "mean_us", base + 0.15,
                     "min_us", base, "max_us", base + 0.3, "stop", "max_samples");
}

static json_t *shape_json(int causal)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "batch", 1, "heads", 8, "seq_q", 512,
                     "seq_kv", 512, "head_dim", 64, "causal", causal, "scale", 0.125);
}

/* A document shaped like what `attnladder run` writes: a baseline and a phase at the
 * headline shape, an unsupported point, and a point that failed correctness. */
static json_t *valid_doc(void)
{
    json_t *ctx = json_pack(
        "{s:{s:s, s:s, s:i, s:i, s:i, s:I}, s:{s:s, s:i, s:n}, s:{s:s, s:b}, s:s, s:[s,s],"
        " s:{s:i, s:i, s:i, s:f, s:I, s:[]}, s:n, s:b, s:s}",
        "gpu", "name", "NVIDIA H100 80GB HBM3", "slug", "nvidia-h100-80gb-hbm3", "sm_count", 132,
        "cc_major", 9, "cc_minor", 0, "l2_bytes", (json_int_t)52428800,
        "versions", "driver", "580.1", "cuda_runtime", 13000, "cudnn",
        "git", "commit", "0123456789abcdef0123456789abcdef01234567", "dirty", 0,
        "host", "gpu-box", "argv", "attnladder", "run",
        "clocks_before", "sm_mhz", 1980, "mem_mhz", 2619, "temp_c", 40, "power_w", 71.5,
        "throttle_mask", (json_int_t)0, "throttle",
        "clocks_after", "throttled", 0, "nvml", "ok");
    json_t *method = json_pack("{s:[s,s], s:i, s:i, s:i, s:f, s:f, s:i, s:f, s:I, s:{s:f, s:f},"
                               " s:I, s:s}",
                               "modes", "graph", "cold", "inner", 20, "min_samples", 10,
                               "max_samples", 200, "max_seconds", 1.0, "rel_ci_target", 0.02,
                               "bootstrap_resamples", 2000, "ci_level", 0.95,
                               "seed", (json_int_t)1234, "bounds", "rel_l2", 2e-3, "max_abs", 1e-2,
                               "l2_scrub_bytes", (json_int_t)104857600, "baseline", "sdpa_cudnn");
    json_t *ceil = json_pack("{s:f, s:n, s:[i,i,i], s:I, s:{s:o}}", "dram_gbps", 3000.5,
                             "fp16_tflops", "gemm_shape", 8192, 8192, 8192,
                             "copy_bytes", (json_int_t)2147483648LL, "launch_floor", "graph",
                             mode_json(2.0));
    json_t *impls = json_pack(
        "[{s:s, s:s, s:s, s:s, s:n}, {s:s, s:s, s:s, s:s, s:{s:i, s:i, s:i, s:i, s:i, s:s, s:[]}}]",
        "name", "sdpa_cudnn", "title", "cuDNN SDPA", "kind", "baseline", "path",
        "build/kernels/sdpa_cudnn.so", "resources",
        "name", "06_tiling", "title", "tiles", "kind", "phase", "path", "build/phases/06_tiling.so",
        "resources", "registers", 128, "smem_static", 0, "spill_stores", 0, "spill_loads", 0,
        "stack_bytes", 0, "arch", "sm_90", "kernels");
    json_t *corr = json_pack("{s:b, s:s, s:I, s:f, s:f, s:I, s:I, s:n}", "pass", 1, "reference",
                             "cpu-fp64", "rows_checked", (json_int_t)4096, "max_abs", 1.2e-4,
                             "rel_l2", 3.1e-4, "nonfinite", (json_int_t)0, "checked",
                             (json_int_t)262144, "vs_baseline");
    json_t *r0 = json_pack("{s:s, s:o, s:s, s:b, s:n, s:o, s:{s:o, s:o}, s:{s:f, s:f, s:f, s:f,"
                           " s:n, s:f, s:n}}",
                           "impl", "sdpa_cudnn", "shape", shape_json(0), "tag", "headline",
                           "supported", 1, "reason", "correctness", corr, "timing", "graph",
                           mode_json(10.0), "cold", mode_json(12.0), "derived", "flops", 4.29e9,
                           "bytes", 2.1e6, "tflops", 4.29e9 / 10.15e-6 / 1e12, "gbps",
                           2.1e6 / 10.15e-6 / 1e9, "frac_fp16_peak", "frac_dram",
                           2.1e6 / 10.15e-6 / 1e9 / 3000.5, "ratio");
    json_t *r1 = json_pack("{s:s, s:o, s:s, s:b, s:n, s:s, s:{s:b, s:f, s:f, s:I, s:{s:b, s:f, s:f}},"
                           " s:{s:o}, s:{s:f, s:f, s:f, s:f, s:f, s:f, s:{s:s, s:f, s:f, s:f}}}",
                           "impl", "06_tiling", "shape", shape_json(0), "tag", "headline",
                           "supported", 1, "reason", "init_note", "tile 128x64",
                           "correctness", "pass", 1, "max_abs", 2e-4, "rel_l2", 4e-4, "nonfinite",
                           (json_int_t)0, "vs_baseline", "pass", 1, "max_abs", 1e-4, "rel_l2", 2e-4,
                           "timing", "graph", mode_json(11.0),
                           "derived", "flops", 4.29e9, "bytes", 2.1e6, "tflops", 4.29e9 / 11.15e-6 / 1e12,
                           "gbps", 2.1e6 / 11.15e-6 / 1e9, "frac_fp16_peak", 0.15, "frac_dram",
                           2.1e6 / 11.15e-6 / 1e9 / 3000.5, "ratio", "baseline", "sdpa_cudnn",
                           "median", 11.15 / 10.15, "ci_lo", 1.05, "ci_hi", 1.15);
    json_t *r2 = json_pack("{s:s, s:o, s:s, s:b, s:s}", "impl", "06_tiling", "shape", shape_json(1),
                           "tag", "sweep", "supported", 0, "reason", "head_dim 256 unsupported");
    json_t *r3 = json_pack("{s:s, s:o, s:s, s:b, s:n, s:{s:b, s:s}}", "impl", "06_tiling",
                           "shape", shape_json(1), "tag", "ragged", "supported", 1, "reason",
                           "correctness", "pass", 0, "error", "run failed (3): bad");
    json_t *doc = json_pack("{s:s, s:i, s:b, s:s, s:o, s:o, s:o, s:o, s:[o,o,o,o]}",
                            "schema", EVIDENCE_SCHEMA, "schema_version", EVIDENCE_SCHEMA_VERSION,
                            "partial", 0, "created_utc", "2026-11-22T10:30:00Z", "context", ctx,
                            "method", method, "ceilings", ceil, "implementations", impls,
                            "results", r0, r1, r2, r3);
    assert_non_null(doc);
    return doc;
}

static void valid_doc_validates(void **st)
{
    (void)st;
    json_t *doc = valid_doc();
    char err[512] = "unset";
    if (evidence_validate(doc, err, sizeof err)) fail_msg("valid doc refused: %s", err);
    /* readers ignore unknown fields */
    json_object_set_new(doc, "future_field", json_pack("{s:i}", "x", 1));
    json_object_set_new(at(doc, "results[1]"), "notes", json_string("n"));
    assert_int_equal(evidence_validate(doc, err, sizeof err), 0);
    /* a profile section, as `attnladder profile` adds */
    json_object_set_new(doc, "profile", json_pack("[{s:s, s:s, s:[]}]", "impl", "06_tiling", "tool",
                                                  "ncu", "kernels"));
    assert_int_equal(evidence_validate(doc, err, sizeof err), 0);
    json_decref(doc);
}

typedef struct {
    const char *parent;    /* path of the object to change */
    const char *key;       /* member to set, or delete when value is NULL */
    json_t *(*value)(void);
    const char *expect;    /* the whole error message */
} mutation;

static json_t *v_string(void) { return json_string("fast"); }
static json_t *v_real(void) { return json_real(1.5); }
static json_t *v_int(void) { return json_integer(3); }
static json_t *v_null(void) { return json_null(); }
static json_t *v_str1(void) { return json_string("1"); }
static json_t *v_other_schema(void) { return json_string("other"); }
static json_t *v_gpu_kind(void) { return json_string("gpu"); }
static json_t *v_timing(void) { return json_pack("{s:o}", "graph", mode_json(1.0)); }
static json_t *v_list(void) { return json_array(); }

static void validation_names_the_path(void **st)
{
    (void)st;
    const mutation cases[] = {
        { "", "context", NULL, "context: missing (expected an object)" },
        { "", "results", v_int, "results: expected an array" },
        { "", "partial", v_null, "partial: expected a boolean, found null" },
        { "", "schema_version", v_str1, "schema_version: expected an integer" },
        { "", "schema", v_other_schema, "schema: 'other' is not 'attnladder-evidence'" },
        { "", "created_utc", NULL, "created_utc: missing (expected a string)" },
        { "context.gpu", "name", NULL, "context.gpu.name: missing (expected a string)" },
        { "context.gpu", "sm_count", v_real, "context.gpu.sm_count: expected an integer" },
        { "context", "argv", v_list, NULL },   /* an empty argv is fine */
        { "results[1]", "init_note", v_null, NULL },          /* error_string(0) == NULL */
        { "implementations[1]", "init_note", v_null, NULL },
        { "method.bounds", "rel_l2", v_string, "method.bounds.rel_l2: expected a number" },
        { "ceilings", "launch_floor", v_int, "ceilings.launch_floor: expected an object" },
        { "implementations[1]", "kind", v_gpu_kind,
          "implementations[1].kind: 'gpu' is not one of phase, baseline, floor, external" },
        { "implementations[0]", "name", NULL, "implementations[0].name: missing (expected a string)" },
        { "results[1].timing.graph", "median_us", v_string,
          "results[1].timing.graph.median_us: expected a number" },
        { "results[0].timing.cold", "stop", NULL,
          "results[0].timing.cold.stop: missing (expected a string)" },
        { "results[0].timing.graph", "n", v_int, "results[0].timing.graph.n: 3 but samples_us holds 4" },
        { "results[0].shape", "seq_q", v_real, "results[0].shape.seq_q: expected an integer" },
        { "results[0]", "supported", v_int, "results[0].supported: expected a boolean" },
        { "results[0]", "tag", NULL, "results[0].tag: missing (expected a string)" },
        { "results[0]", "correctness", NULL, "results[0].correctness: missing (expected an object)" },
        { "results[1].correctness", "pass", v_str1, "results[1].correctness.pass: expected a boolean" },
        { "results[1].correctness.vs_baseline", "rel_l2", NULL,
          "results[1].correctness.vs_baseline.rel_l2: missing (expected a number)" },
        { "results[1].derived.ratio", "ci_hi", NULL,
          "results[1].derived.ratio.ci_hi: missing (expected a number)" },
        { "results[1].derived", "tflops", v_null, "results[1].derived.tflops: expected a number, found null" },
        { "results[2]", "reason", v_null, "results[2].reason: expected a string, found null" },
        { "results[2]", "timing", v_timing, "results[2].timing: present on an unsupported point" },
        { "results[3]", "timing", v_timing,
          "results[3].timing: present on a point that failed correctness" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = valid_doc();
        json_t *parent = cases[i].parent[0] ? at(doc, cases[i].parent) : doc;
        if (cases[i].value) json_object_set_new(parent, cases[i].key, cases[i].value());
        else json_object_del(parent, cases[i].key);
        char err[512] = "";
        int rc = evidence_validate(doc, err, sizeof err);
        if (!cases[i].expect) {
            if (rc) fail_msg("case %zu refused: %s", i, err);
        } else if (rc != -1 || strcmp(err, cases[i].expect) != 0) {
            fail_msg("case %zu: rc %d, '%s', expected '%s'", i, rc, err, cases[i].expect);
        }
        json_decref(doc);
    }
    /* a bad element inside an array of samples */
    json_t *doc = valid_doc();
    json_array_set_new(at(doc, "results[0].timing.graph.samples_us"), 2, json_string("x"));
    char err[512];
    assert_int_equal(evidence_validate(doc, err, sizeof err), -1);
    assert_string_equal(err, "results[0].timing.graph.samples_us[2]: expected a number");
    json_decref(doc);
    doc = json_array();
    assert_int_equal(evidence_validate(doc, err, sizeof err), -1);
    assert_string_equal(err, "(document): expected an object");
    json_decref(doc);
}

static void newer_schema_refused(void **st)
{
    (void)st;
    json_t *doc = valid_doc();
    json_object_set_new(doc, "schema_version", json_integer(2));
    json_object_del(doc, "results");   /* the version is reported, not what v2 changed */
    char err[512];
    assert_int_equal(evidence_validate(doc, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema_version: 2 is newer than this build reads (1)"));
    json_object_set_new(doc, "schema_version", json_integer(0));
    assert_int_equal(evidence_validate(doc, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema_version: 0"));
    json_decref(doc);
}

/* ---- files ---------------------------------------------------------------------------- */

static char g_root[64];

static int make_root(void **st)
{
    (void)st;
    snprintf(g_root, sizeof g_root, "/tmp/test_evidence_file.XXXXXX");
    return mkdtemp(g_root) ? 0 : -1;
}

static int remove_root(void **st)
{
    (void)st;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", g_root, g_root);
    return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void spit(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* Entries of dir whose name starts with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void write_read_round_trip(void **st)
{
    (void)st;
    json_t *doc = valid_doc();
    /* reals that need all 17 digits, and extremes */
    json_object_set_new(at(doc, "context.clocks_before"), "power_w", json_real(0.1 + 0.2));
    json_object_set_new(at(doc, "results[1].correctness.vs_baseline"), "rel_l2", json_real(1e-300));
    json_object_set_new(at(doc, "context.clocks_before"), "temp_c", json_integer(-1));
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/a/b/nvidia-l4/20260101T000000Z_abcdef0.json", g_root);
    if (evidence_write_atomic(doc, path, err, sizeof err)) fail_msg("%s", err);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0644);
    json_t *back = evidence_load(path, err, sizeof err);
    if (!back) fail_msg("%s", err);
    assert_true(json_equal(doc, back));
    /* the format: one-space indent, writer's member order, final newline; writing the
     * read-back document gives the same bytes */
    size_t n1, n2;
    char *b1 = slurp(path, &n1);
    assert_true(n1 > 2 && b1[n1 - 1] == '\n' && b1[n1 - 2] == '}');
    const char *head = "{\n \"schema\": \"attnladder-evidence\",\n \"schema_version\": 1,\n";
    assert_true(strncmp(b1, head, strlen(head)) == 0);
    assert_non_null(strstr(b1, "0.30000000000000004"));
    if (evidence_write_atomic(back, path, err, sizeof err)) fail_msg("%s", err);
    char *b2 = slurp(path, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    json_decref(back);
    json_decref(doc);
}

static void load_errors_name_the_file(void **st)
{
    (void)st;
    char path[256], err[512];
    json_t *doc = valid_doc();
    snprintf(path, sizeof path, "%s/load/gpu/20260101T000000Z_trunc.json", g_root);
    assert_int_equal(evidence_write_atomic(doc, path, err, sizeof err), 0);
    size_t n;
    char *text = slurp(path, &n);
    spit(path, text, n / 2);   /* a truncated file */
    assert_null(evidence_load(path, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "line"));
    assert_non_null(strstr(err, "column"));

    spit(path, "\x7f" "ELF garbage\n", 12);
    assert_null(evidence_load(path, err, sizeof err));
    assert_true(strncmp(err, path, strlen(path)) == 0);
    assert_non_null(strstr(err, "line 1"));

    spit(path, "", 0);
    assert_null(evidence_load(path, err, sizeof err));
    assert_true(strncmp(err, path, strlen(path)) == 0);

    snprintf(path, sizeof path, "%s/load/gpu/absent.json", g_root);
    assert_null(evidence_load(path, err, sizeof err));
    assert_true(strncmp(err, path, strlen(path)) == 0);

    /* valid JSON, wrong schema: the file and the field */
    json_object_set_new(at(doc, "results[1].timing.graph"), "median_us", json_string("fast"));
    snprintf(path, sizeof path, "%s/load/gpu/bad_field.json", g_root);
    assert_int_equal(evidence_write_atomic(doc, path, err, sizeof err), 0);
    assert_null(evidence_load(path, err, sizeof err));
    char want[512];
    snprintf(want, sizeof want, "%s: results[1].timing.graph.median_us: expected a number", path);
    assert_string_equal(err, want);
    /* duplicate keys are corruption, not a choice between two values */
    const char *dup = "{\"schema\": \"a\", \"schema\": \"b\"}";
    spit(path, dup, strlen(dup));
    assert_null(evidence_load(path, err, sizeof err));
    assert_true(strncmp(err, path, strlen(path)) == 0);
    free(text);
    json_decref(doc);
}

static void failed_write_keeps_old_file(void **st)
{
    (void)st;
    char dir[256], path[300], err[512];
    snprintf(dir, sizeof dir, "%s/atomic", g_root);
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *doc = valid_doc();
    assert_int_equal(evidence_write_atomic(doc, path, err, sizeof err), 0);
    size_t n_old;
    char *old = slurp(path, &n_old);
    json_t *bigger = valid_doc();
    json_object_set_new(bigger, "padding", json_string("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));

    /* the disk fills up half way through the new file */
    struct rlimit saved, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    lim = saved;
    lim.rlim_cur = 1000;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int rc = evidence_write_atomic(bigger, path, err, sizeof err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
    signal(SIGXFSZ, prev);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "cannot write"));
    size_t n_now;
    char *now = slurp(path, &n_now);
    assert_int_equal(n_now, n_old);
    assert_memory_equal(now, old, n_old);
    assert_int_equal(count_prefixed(dir, ".run.json."), 0);   /* no temporary left */
    free(now);

    /* the target is a directory: refused, the directory untouched, no temporary */
    char target[320];
    snprintf(target, sizeof target, "%s/taken.json", dir);
    assert_int_equal(mkdir(target, 0755), 0);
    assert_int_equal(evidence_write_atomic(doc, target, err, sizeof err), -1);
    assert_non_null(strstr(err, target));
    struct stat sb;
    assert_int_equal(stat(target, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(count_prefixed(dir, ".taken.json."), 0);

    /* a parent that is a file */
    snprintf(target, sizeof target, "%s/run.json/inner.json", dir);
    assert_int_equal(evidence_write_atomic(doc, target, err, sizeof err), -1);
    now = slurp(path, &n_now);
    assert_memory_equal(now, old, n_old);
    free(now);

    /* a directory nobody may create files in, root included (CI runs as root, which
     * writes through mode bits): /proc refuses new entries, as a read-only mount would */
    assert_int_equal(evidence_write_atomic(doc, "/proc/attnladder_run.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "/proc"));
    assert_int_equal(evidence_write_atomic(doc, "/proc/attnladder/gpu/run.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot create directory /proc/attnladder"));
    struct stat pst;
    assert_int_not_equal(stat("/proc/attnladder_run.json", &pst), 0);

    /* an unwritable directory by its mode bits (root writes anyway: checked for others) */
    if (geteuid() != 0) {
        assert_int_equal(chmod(dir, 0555), 0);
        assert_int_equal(evidence_write_atomic(bigger, path, err, sizeof err), -1);
        assert_int_equal(chmod(dir, 0755), 0);
        now = slurp(path, &n_now);
        assert_memory_equal(now, old, n_old);
        free(now);
        assert_int_equal(count_prefixed(dir, ".run.json."), 0);
    }
    free(old);
    json_decref(doc);
    json_decref(bigger);
}

static void gpu_slugs(void **st)
{
    (void)st;
    char s[64];
    name_gpu_slug("NVIDIA H100 80GB HBM3", s, sizeof s);
    assert_string_equal(s, "nvidia-h100-80gb-hbm3");
    name_gpu_slug("NVIDIA L4", s, sizeof s);
    assert_string_equal(s, "nvidia-l4");
    name_gpu_slug("  NVIDIA H100 (PCIe) ", s, sizeof s);
    assert_string_equal(s, "nvidia-h100-pcie");
    name_gpu_slug("A--B__c", s, sizeof s);
    assert_string_equal(s, "a-b-c");
    name_gpu_slug("", s, sizeof s);
    assert_string_equal(s, "unknown");
    name_gpu_slug("!!!", s, sizeof s);
    assert_string_equal(s, "unknown");
    /* a short buffer cuts at a word end, never leaving a dash or a glued word */
    char small[12];
    for (size_t len = 1; len <= sizeof small; len++) {
        memset(small, 'x', sizeof small);
        name_gpu_slug("NVIDIA H100 GPU", small, len);
        assert_true(strlen(small) < len);
        assert_true(strncmp("nvidia-h100-gpu", small, strlen(small)) == 0);
        assert_true(strlen(small) == 0 || small[strlen(small) - 1] != '-');
    }
}

static void listing(void **st)
{
    (void)st;
    char root[128], p[256];
    snprintf(root, sizeof root, "%s/list", g_root);
    const char *files[] = { "gpu-a/20260102T000000Z_bbbbbbb.json",
                            "gpu-a/20260101T000000Z_aaaaaaa.json",
                            "gpu-a/20260103T000000Z_ccccccc.partial.json",
                            "gpu-a/accepted.txt", "gpu-a/notes.md", "gpu-a/.20260104.json.XYZ",
                            "gpu-a/.hidden.json", "gpu-b/20250101T000000Z_ddddddd.json",
                            "gpu-b/tuning_06_tiling.json", "gpu-b/sanitize_20260101T000000Z.json",
                            "gpu-b/2026_not_a_stamp.json", "top-level.json" };
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/gpu-a/sub.json' '%s/gpu-b' '%s/.git'", root, root, root);
    assert_int_equal(system(cmd), 0);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", root, files[i]);
        spit(p, "{}", 2);
    }
    snprintf(p, sizeof p, "%s/.git/x.json", root);
    spit(p, "{}", 2);

    char **paths = NULL, err[512];
    size_t n = 0;
    assert_int_equal(evidence_list(root, 0, &paths, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    const char *want[] = { "gpu-a/20260101T000000Z_aaaaaaa.json",
                           "gpu-a/20260102T000000Z_bbbbbbb.json",
                           "gpu-b/20250101T000000Z_ddddddd.json" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", root, want[i]);
        assert_string_equal(paths[i], p);
    }
    evidence_free_list(paths, n);

    assert_int_equal(evidence_list(root, 1, &paths, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    snprintf(p, sizeof p, "%s/gpu-a/20260103T000000Z_ccccccc.partial.json", root);
    assert_string_equal(paths[2], p);
    evidence_free_list(paths, n);

    /* no evidence yet is an empty list; a root that is a file is an error */
    snprintf(p, sizeof p, "%s/nothing-here", g_root);
    assert_int_equal(evidence_list(p, 0, &paths, &n, err, sizeof err), 0);
    assert_int_equal(n, 0);
    evidence_free_list(paths, n);
    snprintf(p, sizeof p, "%s/top-level.json", root);
    assert_int_equal(evidence_list(p, 0, &paths, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_doc_validates),
        cmocka_unit_test(validation_names_the_path),
        cmocka_unit_test(newer_schema_refused),
        cmocka_unit_test(write_read_round_trip),
        cmocka_unit_test(load_errors_name_the_file),
        cmocka_unit_test(failed_write_keeps_old_file),
        cmocka_unit_test(gpu_slugs),
        cmocka_unit_test(listing),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
