/* The report: number formats, the phase README sections, and `report` end to end on the
 * synthetic evidence of harness/tests/data/evidence/: byte-for-byte reproducible output
 * (plots included), --check, a malformed file left out with its field named, and a
 * finished report replacing the old one whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>
#include "cmd/commands.h"
#include "core/files.h"
#include "core/numfmt.h"
#include "core/shapes.h"
#include "evidence/reader.h"
#include "evidence/result_ratio.h"
#include "report/complete.h"
#include "report/model.h"
#include "report/phase_doc.h"
#include "kernel_name_fixtures.h"

#define DATA "harness/tests/data/"

static void number_formats(void **st)
{
    (void)st;
    char b[64];
    assert_string_equal(fmt_num(b, sizeof b, 1234.56), "1235");
    assert_string_equal(fmt_num(b, sizeof b, 123.456), "123.5");
    assert_string_equal(fmt_num(b, sizeof b, 12.3456), "12.35");
    assert_string_equal(fmt_num(b, sizeof b, 0.81234), "0.812");
    assert_string_equal(fmt_num(b, sizeof b, -0.0001), "0.000");
    assert_string_equal(fmt_num(b, sizeof b, 0.0 / 0.0), "-");
    assert_string_equal(fmt_ci(b, sizeof b, 0.8, 0.9), "[0.800, 0.900]");
    assert_string_equal(fmt_change(b, sizeof b, 1.2194), "+21.9%");
    assert_string_equal(fmt_change(b, sizeof b, 0.9), "-10.0%");
    assert_string_equal(fmt_change(b, sizeof b, 1.0), "+0.0%");
    assert_string_equal(fmt_pct(b, sizeof b, 0.1234), "12.3%");
    assert_string_equal(fmt_speedup(b, sizeof b, 3.214), "x3.21");
    assert_string_equal(fmt_speedup(b, sizeof b, 66.66), "x66.7");
    assert_string_equal(fmt_sci(b, sizeof b, 3.1e-4), "3.1e-04");
}

static void phase_readme_sections(void **st)
{
    (void)st;
    const char *md =
        "# 07_x: the idea\n\nIntro [src](kernel.cu).\n\n"
        "## Technique\n\n- tiles of 64, see [the kernel](kernel.cu) and [docs](https://example.org/a).\n"
        "- `inline ](code)` stays.\n\n"
        "```text\n## not a heading inside a fence\n```\n\n"
        "## Hypothesis (written before measuring)\n\nx2 over 06.\n\n"
        "## Profiler numbers\n\nnot quoted\n\n"
        "## Outcome\n\nx1.8.\n";
    phase_doc d;
    assert_int_equal(phase_doc_parse(md, "../../phases/07_x/", &d), 0);
    assert_string_equal(d.title, "07_x: the idea");
    assert_non_null(strstr(d.technique, "[the kernel](../../phases/07_x/kernel.cu)"));
    assert_non_null(strstr(d.technique, "[docs](https://example.org/a)"));
    assert_non_null(strstr(d.technique, "`inline ](code)`"));
    assert_non_null(strstr(d.technique, "## not a heading inside a fence"));
    assert_string_equal(d.prediction, "x2 over 06.\n");
    assert_string_equal(d.outcome, "x1.8.\n");
    assert_null(strstr(d.outcome, "not quoted"));
    phase_doc_free(&d);
    assert_int_equal(phase_doc_parse("# only a title\n\n## Prediction\n\n", "", &d), 0);
    assert_null(d.technique);
    assert_null(d.prediction);   /* an empty section is an absent one */
    phase_doc_free(&d);
    assert_int_equal(phase_doc_load(DATA "phases", "no_such_phase", &d), 1);
}

/* Asked once a process: 15 tests ask, and each asking started a shell and gnuplot (0.06
 * CPU s) to find what the first found. */
static int have_gnuplot(void)
{
    static int have = -1;
    if (have < 0) have = system("gnuplot --version >/dev/null 2>&1") == 0;
    return have;
}

/* The program the reports below draw their plots with: gnuplot itself (NULL) for the tests
 * that read what a plot draws, the stand-in for those that read only the report's own text
 * (harness/tests/fixtures/gnuplot_stand_in.sh says why). Each test's setup sets it.
 * Since issue 53 the stand-in draws 473 of the 736 plots (ASan build: 94 -> 68 CPU s).
 * Planted in report/plots.c: the device copy ceiling drawn with notitle (a missing
 * series): decode_plot_or_its_note and batched_decode_and_ceiling failed; the history's
 * time axis always "%Y-%m-%d" (the labels that repeated a date for runs hours apart):
 * first_screen_steps_and_time_axis failed. */
#define GNUPLOT_STAND_IN "harness/tests/fixtures/gnuplot_stand_in.sh"
static const char *g_gnuplot;

static int real_gnuplot(void **st)
{
    (void)st;
    g_gnuplot = NULL;
    return unsetenv("ATTN_GNUPLOT_DRAW");
}

static int stand_in_gnuplot(void **st)
{
    (void)st;
    g_gnuplot = GNUPLOT_STAND_IN;
    return unsetenv("ATTN_GNUPLOT_DRAW");
}

/* The stand-in, with gnuplot itself drawing the plots a test reads the drawing of (the
 * stand-in's ATTN_GNUPLOT_DRAW): of a report's 21 plots, the history plot or the decode
 * plots. These five tests drew every plot of their reports with gnuplot before:
 * test_report started gnuplot 285 times then, 101 now (ASan build: 47.3 -> 35.9 CPU s).
 * Planted in report/plots.c (scratch builds, not committed), the two faults above again:
 * the device copy ceiling drawn with notitle failed decode_plot_or_its_note and
 * batched_decode_and_ceiling, the time axis always "%Y-%m-%d" failed
 * first_screen_steps_and_time_axis. */
static int draw_history(void **st)
{
    (void)st;
    g_gnuplot = GNUPLOT_STAND_IN;
    return setenv("ATTN_GNUPLOT_DRAW", "history-*", 1);
}

static int draw_decode(void **st)
{
    (void)st;
    g_gnuplot = GNUPLOT_STAND_IN;
    return setenv("ATTN_GNUPLOT_DRAW", "*-decode*", 1);
}

static int report(const char *evidence, const char *out, int check)
{
    char *argv[16];
    int n = 0;
    argv[n++] = "report";
    argv[n++] = "--evidence";
    argv[n++] = (char *)evidence;
    argv[n++] = "--out";
    argv[n++] = (char *)out;
    argv[n++] = "--phases";
    argv[n++] = DATA "phases";
    argv[n++] = "--config";
    argv[n++] = DATA "gate_config.json";
    if (check) argv[n++] = "--check";
    if (g_gnuplot) {
        argv[n++] = "--gnuplot";
        argv[n++] = (char *)g_gnuplot;
    }
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = cmd_report(n, argv);
    fclose(stdout);
    stdout = saved;
    return rc;
}

static char *temp_dir(void)
{
    char *d = strdup("/tmp/attn_report_XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static int exists(const char *dir, const char *rel)
{
    char p[1024];
    struct stat s;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return stat(p, &s) == 0;
}

static char *read_rel(const char *dir, const char *rel)
{
    char p[1024];
    size_t len;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return files_read(p, &len);
}

static void reproducible_and_checked(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    assert_int_equal(report(DATA "evidence", a, 0), EXIT_OK);
    assert_int_equal(report(DATA "evidence", b, 0), EXIT_OK);
    FILE *null = fopen("/dev/null", "w");
    assert_int_equal(files_diff_trees(a, b, null), 0);   /* byte for byte, SVGs included */
    static const char *const want[] = {
        "README.md", "phases/01_scalar.md", "phases/06_tiling.md", "plots/ladder.svg",
        "plots/nvidia-test-gpu-ladder.svg", "plots/nvidia-test-gpu-waterfall.svg",
        "plots/nvidia-test-gpu-roofline.svg", "plots/nvidia-test-gpu-latency-d64.svg",
        "plots/nvidia-test-gpu-tflops-d128.svg", "plots/nvidia-other-gpu-ladder.svg",
        "plots/history-06_tiling.svg",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!exists(a, want[i])) fail_msg("%s/%s missing", a, want[i]);
    char *readme = read_rel(a, "README.md");
    assert_non_null(readme);
    /* the run reference.txt names, not the newer partial one */
    assert_non_null(strstr(readme, "Reference run: [`20260201T000000Z_bbbbbbb.json`]"));
    assert_null(strstr(readme, "run: [`20260215T000000Z_ccccccc"));
    assert_non_null(strstr(readme, "| [06_tiling](phases/06_tiling.md) | 4.921 [4.897, 4.946] | 0.850"));
    assert_non_null(strstr(readme, "median latency per rung against the baseline and the physical floor]"
                                   "(plots/nvidia-test-gpu-ladder.svg)"));
    /* the drift rule against accepted.txt's run, failed by the shape that became unsupported */
    const char *drift = strstr(readme, "Drift against the accepted run `20260101T000000Z_aaaaaaa.json` (`attnladder gate "
                                       "20260201T000000Z_bbbbbbb.json --against 20260101T000000Z_aaaaaaa.json`");
    assert_non_null(drift);
    const char *verdict = strstr(drift, "): **FAIL** (");
    assert_true(verdict && !memchr(drift, '\n', (size_t)(verdict - drift)));
    assert_non_null(strstr(verdict, "- 01_scalar at 4x16x4096x128: missing: timed in the reference run, not in this run"));
    free(readme);
    char *svg = read_rel(a, "plots/nvidia-test-gpu-ladder.svg");
    assert_non_null(svg);
    assert_null(strstr(svg, "GNUPLOT"));          /* no version line */
    assert_non_null(strstr(svg, "<title>NVIDIA Test GPU: median latency per rung"));
    free(svg);
    char *page = read_rel(a, "phases/06_tiling.md");
    assert_non_null(page);
    assert_non_null(strstr(page, "## Technique\n\n- mma.sync flash attention"));
    assert_non_null(strstr(page, "### Prediction (written before measuring)\n\n06_tiling should be faster"));
    /* the profiler's figures a row per kernel, its largest stall reasons in the last cell */
    assert_non_null(strstr(page, " top stalls (cycles per issue) |\n"));
    assert_non_null(strstr(page, "| long_scoreboard "));
    free(page);

    assert_int_equal(report(DATA "evidence", a, 1), EXIT_OK);
    /* an edit, a stale file and a missing file are each a difference: what --check compares,
     * not what gnuplot draws, so b's reports from here on draw with the stand-in (b written
     * afresh with it first, or every SVG would differ) */
    g_gnuplot = GNUPLOT_STAND_IN;
    assert_int_equal(report(DATA "evidence", b, 0), EXIT_OK);
    assert_int_equal(report(DATA "evidence", b, 1), EXIT_OK);
    char p[1024];
    snprintf(p, sizeof p, "%s/README.md", b);
    FILE *f = fopen(p, "a");
    fputs("hand edit\n", f);
    fclose(f);
    assert_int_equal(report(DATA "evidence", b, 1), EXIT_GATE);
    assert_int_equal(report(DATA "evidence", b, 0), EXIT_OK);
    snprintf(p, sizeof p, "%s/plots/stale.svg", b);
    f = fopen(p, "w");
    fclose(f);
    assert_int_equal(report(DATA "evidence", b, 1), EXIT_GATE);
    /* writing replaces the tree whole: the stale file is gone */
    assert_int_equal(report(DATA "evidence", b, 0), EXIT_OK);
    assert_false(exists(b, "plots/stale.svg"));
    snprintf(p, sizeof p, "%s/plots/ladder.svg", b);
    unlink(p);
    assert_int_equal(report(DATA "evidence", b, 1), EXIT_GATE);
    /* nothing is left beside the target */
    assert_int_equal(files_remove_tree(a), 0);
    assert_int_equal(files_remove_tree(b), 0);
    assert_int_equal(rmdir(tmp), 0);
    fclose(null);
    free(tmp);
}

static void malformed_evidence_is_named_and_left_out(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char out[512];
    snprintf(out, sizeof out, "%s/r", tmp);
    char errpath[512];
    snprintf(errpath, sizeof errpath, "%s/stderr", tmp);
    fflush(stderr);
    FILE *saved = stderr;
    stderr = fopen(errpath, "w");
    int rc = report(DATA "evidence_bad", out, 0);
    fclose(stderr);
    stderr = saved;
    assert_int_equal(rc, EXIT_BAD_INPUT);
    size_t len;
    char *msg = files_read(errpath, &len);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "20260201T000000Z_bbbbbbb.json: results[3].shape.head_dim"));
    free(msg);
    /* the good run still reports */
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    assert_non_null(strstr(readme, "20260101T000000Z_aaaaaaa.json"));
    assert_null(strstr(readme, "20260201T000000Z_bbbbbbb.json"));
    free(readme);
    /* a missing evidence directory is bad input, nothing written */
    char none[512];
    snprintf(none, sizeof none, "%s/none", tmp);
    assert_int_equal(report(DATA "no_such_dir", none, 0), EXIT_BAD_INPUT);
    assert_false(exists(none, "README.md"));
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* A copy of the synthetic evidence under dir/evidence, for tests that add files to it. */
static void copy_evidence(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp -r " DATA "evidence '%s/evidence'", dir);
    assert_int_equal(system(cmd), 0);
}

static void write_rel(const char *dir, const char *rel, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs report with stderr into dir/stderr; returns the exit status, *msg the messages. */
static int report_quiet(const char *evidence, const char *out, const char *dir, char **msg)
{
    char errpath[512];
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    fflush(stderr);
    FILE *saved = stderr;
    stderr = fopen(errpath, "w");
    int rc = report(evidence, out, 0);
    fclose(stderr);
    stderr = saved;
    size_t len;
    *msg = files_read(errpath, &len);
    return rc;
}

/* The report of ev written to out (its messages under tmp), EXIT_OK, and its README. */
static char *report_readme(const char *ev, const char *out, const char *tmp)
{
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    free(msg);
    return read_rel(out, "README.md");
}

/* The GPU's section of README.md: from its "## <name>" heading to the next "## ". */
static char *gpu_section(const char *readme, const char *name)
{
    char h[256];
    snprintf(h, sizeof h, "\n## %s\n", name);
    const char *a = strstr(readme, h);
    assert_non_null(a);
    const char *b = strstr(a + strlen(h), "\n## ");
    return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

/* The tables and plots of a GPU come from the run its reference.txt names, not from the
 * newest one; the newest is history only. Without reference.txt the fallback is said. */
static void reference_run_not_newest(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char ev[512], out[512];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    copy_evidence(tmp);
    write_rel(ev, "nvidia-test-gpu/reference.txt", "20260101T000000Z_aaaaaaa.json\n");
    char *msg;
    char *readme = report_readme(ev, out, tmp);
    assert_non_null(readme);
    char *test_gpu = gpu_section(readme, "NVIDIA Test GPU");
    assert_non_null(strstr(test_gpu, "Reference run: [`20260101T000000Z_aaaaaaa.json`]"));
    assert_non_null(strstr(test_gpu, ", named by [`reference.txt`]("));
    assert_non_null(strstr(test_gpu, "nvidia-test-gpu/reference.txt)."));
    /* the newer run is in the history list and nowhere above it */
    const char *hist = strstr(test_gpu, "History: ");
    assert_non_null(hist);
    const char *newer = strstr(test_gpu, "20260201T000000Z_bbbbbbb.json");
    assert_true(newer && newer > hist);
    free(test_gpu);
    /* a GPU with neither reference.txt nor accepted.txt: the newest complete run, said so */
    char *other = gpu_section(readme, "NVIDIA Other GPU");
    assert_non_null(strstr(other, "Run shown (**not a reference run**): [`20260110T000000Z_ddddddd.json`]"));
    assert_non_null(strstr(other, ": this GPU has neither `reference.txt` nor `accepted.txt` yet, so its newest "
                                  "complete run stands in."));
    free(other);
    free(readme);
    /* without reference.txt, the first accepted run, said so */
    char ref[1024];
    snprintf(ref, sizeof ref, "%s/nvidia-test-gpu/reference.txt", ev);
    assert_int_equal(unlink(ref), 0);
    readme = report_readme(ev, out, tmp);
    assert_non_null(strstr(readme, "Run shown (**not a reference run**): [`20260101T000000Z_aaaaaaa.json`]"));
    assert_non_null(strstr(readme, ": this GPU has no `reference.txt` yet, so the first run of its "
                                   "[`accepted.txt`]("));
    free(readme);

    /* an invalid reference.txt (two runs) and a dangling one are named, said on the page,
     * and make the exit status 2 */
    write_rel(ev, "nvidia-test-gpu/reference.txt", "20260101T000000Z_aaaaaaa.json\n20260201T000000Z_bbbbbbb.json\n");
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_BAD_INPUT);
    assert_non_null(strstr(msg, "reference.txt: must hold one line"));
    free(msg);
    readme = read_rel(out, "README.md");
    assert_non_null(strstr(readme, "**no valid reference run**"));
    free(readme);
    write_rel(ev, "nvidia-test-gpu/reference.txt", "20250101T000000Z_fffffff.json\n");
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_BAD_INPUT);
    assert_non_null(strstr(msg, "names `20250101T000000Z_fffffff.json`, which is not among the readable"));
    free(msg);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* A run of the copied evidence (ev/rel), loaded for a test to edit; path gets its file. */
static json_t *load_run(const char *ev, const char *rel, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", ev, rel);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    return doc;
}

/* The edited run written back where it was read, and freed. */
static void save_run(json_t *doc, const char *path)
{
    assert_int_equal(json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER), 0);
    json_decref(doc);
}

/* What `show --evidence ev` prints (into dir/show.txt). */
static char *show_text(const char *ev, const char *dir)
{
    char outpath[512];
    snprintf(outpath, sizeof outpath, "%s/show.txt", dir);
    char *argv[] = { "show", "--evidence", (char *)ev, NULL };
    fflush(stdout);
    FILE *saved = stdout;
    stdout = fopen(outpath, "w");
    int rc = cmd_show(3, argv);
    fclose(stdout);
    stdout = saved;
    assert_int_equal(rc, EXIT_OK);
    size_t len;
    char *text = files_read(outpath, &len);
    assert_non_null(text);
    return text;
}

/* `show` without a file: each GPU's reference run, its headline rows printed even when
 * the run tagged them "custom" (a run made with --shape does), then each rung against the
 * baseline across the run. */
static void show_prints_reference_rows(void **st)
{
    (void)st;
    char *tmp = temp_dir();
    char ev[512], run[1024];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    copy_evidence(tmp);
    write_rel(ev, "nvidia-test-gpu/reference.txt", "20260101T000000Z_aaaaaaa.json\n");
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260101T000000Z_aaaaaaa.json", run, sizeof run);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "results"), i, r)
        json_object_set_new(r, "tag", json_string("custom"));
    save_run(doc, run);
    char *text = show_text(ev, tmp);
    assert_non_null(strstr(text, "nvidia-test-gpu/20260101T000000Z_aaaaaaa.json"));
    assert_null(strstr(text, "20260201T000000Z_bbbbbbb.json"));
    assert_non_null(strstr(text, "chosen: named by "));
    assert_null(strchr(text, '`'));   /* the sentence's markdown quotes are not shown on a terminal */
    /* the headline rows, both modes, and no sweep row */
    assert_non_null(strstr(text, "\n06_tiling              1x8x512x64  "));
    assert_non_null(strstr(text, "\n06_tiling              1x8x512x64 causal"));
    assert_null(strstr(text, "\n06_tiling              128x32x128x64"));
    /* then every rung across the whole run, a line each (aaaaaaa: 30 points a rung; 06 at or
     * below 1.00 at all, 0.954 its geometric mean, 0.995 its highest; computed apart) */
    assert_non_null(strstr(text, "\neach rung against sdpa_cudnn at every point of the run"));
    assert_non_null(strstr(text, "decides it; sdpa_cudnn is cuDNN "));   /* its library named */
    assert_non_null(strstr(text, "\n06_tiling                        30               30          0.954  "
                                 "0.995 (4x32x4096x64 causal)\n"));
    /* 01's highest, 62.81, at both 4x32x4096x64 points: the first in the run's order named */
    assert_non_null(strstr(text, "\n01_scalar                        30                0          60.23  "
                                 "62.81 (4x32x4096x64)\n"));
    assert_null(strstr(text, "\nsdpa_cudnn                       30"));   /* rungs only */
    /* the other GPU: the fallback, said */
    assert_non_null(strstr(text, "nvidia-other-gpu/20260110T000000Z_ddddddd.json"));
    assert_non_null(strstr(text, "chosen: no "));
    free(text);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* The lines of a page up to n, as one string (the first screen). */
static char *first_lines(const char *text, int n)
{
    const char *p = text;
    for (int i = 0; i < n && p && *p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    return strndup(text, p ? (size_t)(p - text) : strlen(text));
}

/* The first screen holds each GPU's run (file, date, commit, ceilings, clocks), the
 * ladder of every GPU with every column, and the ladder plots; the page holds the
 * staircase of each GPU; the history plot's time axis never repeats a label. */
static void first_screen_steps_and_time_axis(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char out[512];
    snprintf(out, sizeof out, "%s/r", tmp);
    unsetenv("ATTN_GNUPLOT_DRAW");   /* the first screen and the steps: the report's own text */
    assert_int_equal(report(DATA "evidence", out, 0), EXIT_OK);
    assert_int_equal(report(DATA "evidence", out, 1), EXIT_OK);   /* matches and is complete */
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    char *top = first_lines(readme, 40);
    assert_non_null(strstr(top, "| [NVIDIA Test GPU](#nvidia-test-gpu) | [`20260201T000000Z_bbbbbbb.json`]"
                                "(../harness/tests/data/evidence/nvidia-test-gpu/20260201T000000Z_bbbbbbb.json) "
                                "(the reference run) | 2026-02-01 00:00:00 | `bbbbbbbbbbbb` | "));
    assert_non_null(strstr(top, " TFLOP/s | "));
    assert_non_null(strstr(top, "| not throttled |"));
    assert_non_null(strstr(top, "| GPU | phase | median us [95% CI] |"));
    assert_non_null(strstr(top, "| [NVIDIA Other GPU](#nvidia-other-gpu) | [06_tiling](phases/06_tiling.md) | "));
    assert_non_null(strstr(top, "(plots/nvidia-other-gpu-ladder.svg) ![NVIDIA Test GPU"));
    free(top);
    /* each rung against the one below at the step shapes the run timed */
    const char *steps = strstr(readme, "### Each rung against the rung below");
    assert_non_null(steps);
    assert_non_null(strstr(steps, "| rung | 1x8x512x64 | 1x8x512x64 causal | 4x16x4096x128 | 4x32x4096x64 |"));
    assert_non_null(strstr(steps, "| [06_tiling](phases/06_tiling.md) | x"));
    assert_non_null(strstr(steps, "Not timed for two rungs in this run: 1x16x16384x128."));
    free(readme);
    /* the history's x labels, for runs a day apart and for runs hours apart (where a date
     * alone repeated itself along the axis) */
    char ev[512];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    setenv("ATTN_GNUPLOT_DRAW", "history-*", 1);   /* the axis labels are gnuplot's drawing */
    for (int hours = 0; hours < 2; hours++) {
        const char *dir = DATA "evidence";
        if (hours) {
            copy_evidence(tmp);
            static const char *const RUNS[][2] = {
                { "nvidia-test-gpu/20260101T000000Z_aaaaaaa.json", "2026-01-01T00:00:00Z" },
                { "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", "2026-01-01T07:10:00Z" },
                { "nvidia-other-gpu/20260110T000000Z_ddddddd.json", "2026-01-01T13:45:00Z" },
            };
            for (size_t k = 0; k < 3; k++) {
                char run[1024];
                json_t *doc = load_run(ev, RUNS[k][0], run, sizeof run);
                json_object_set_new(doc, "created_utc", json_string(RUNS[k][1]));
                save_run(doc, run);
            }
            dir = ev;
        }
        assert_int_equal(report(dir, out, 0), EXIT_OK);
        char *svg = read_rel(out, "plots/history-06_tiling.svg");
        assert_non_null(svg);
        char labels[16][64];
        size_t n = 0;
        for (const char *p = svg; (p = strstr(p, "<text>")) && n < 16; p++) {
            const char *end = strstr(p, "</text>");
            if (!end || end - p - 6 >= 64) continue;
            char t[64];
            snprintf(t, sizeof t, "%.*s", (int)(end - p - 6), p + 6);
            /* a date label: "2026-01-08" or "01-01 06:00" */
            int date = t[0] >= '0' && t[0] <= '9' && (t[2] == '-' || t[4] == '-');
            if (!date) continue;
            for (size_t k = 0; k < n; k++)
                if (!strcmp(labels[k], t)) fail_msg("the time axis repeats '%s' (runs %s apart)", t, hours ? "hours" : "days");
            snprintf(labels[n++], sizeof labels[0], "%s", t);
        }
        if (n < 3) fail_msg("the time axis has %zu date labels", n);
        free(svg);
    }
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* The reference run's clocks on the first screen and in its section: marked throttled for
 * the power cap alone (an H100 at 700 W), it is said to be at the power cap and the
 * numbers are not called low (nor THROTTLED by show); a thermal reason beside the cap
 * keeps **throttled**. */
static void power_cap_is_not_called_throttled(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char ev[512], out[512], run[1024];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    copy_evidence(tmp);
    static const char *const after[] = { "sw_power_cap", "sw_thermal" };
    for (size_t n = 1; n <= 2; n++) {
        json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
        json_t *ctx = json_object_get(doc, "context");
        json_t *names = json_array();
        for (size_t k = 0; k < n; k++) json_array_append_new(names, json_string(after[k]));
        json_object_set_new(json_object_get(ctx, "clocks_after"), "throttle", names);
        json_object_set_new(ctx, "throttled", json_true());
        save_run(doc, run);
        char *readme = report_readme(ev, out, tmp);
        assert_non_null(readme);
        char *top = first_lines(readme, 40);
        char *sec = gpu_section(readme, "NVIDIA Test GPU");
        if (n == 1) {
            assert_non_null(strstr(top, "| at the power cap |"));
            assert_null(strstr(top, "**throttled**"));
            assert_non_null(strstr(sec, "Clocks: at the power cap at the run's start or end (sw_power_cap, the normal state "
                                        "at the board's power limit; no measurement was throttled)."));
            assert_null(strstr(sec, "may be low"));
        } else {
            assert_non_null(strstr(top, "| **throttled** |"));
            assert_non_null(strstr(sec, "Clocks: **throttled** during the run (the numbers may be low)."));
            assert_null(strstr(readme, "at the power cap"));
        }
        char *shown = show_text(ev, tmp);
        assert_true(!strstr(shown, "   THROTTLED") == (n == 1));
        assert_true(!strstr(shown, "   at the power cap") == (n == 2));
        free(shown);
        free(sec);
        free(top);
        free(readme);
    }
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* A reference run without ceilings leaves columns and a roof and a floor out: the report
 * is written and says so, and --check fails naming them. */
static void gaps_fail_the_check(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char ev[512], out[512], run[1024];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    copy_evidence(tmp);
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    json_t *ceil = json_object_get(doc, "ceilings");
    json_object_set_new(ceil, "fp16_tflops", json_null());
    json_object_set_new(ceil, "dram_gbps", json_null());
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "results"), i, r) {
        json_t *d = json_object_get(r, "derived");
        if (!d) continue;
        json_object_set_new(d, "frac_fp16_peak", json_null());
        json_object_set_new(d, "frac_dram", json_null());
    }
    save_run(doc, run);
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);   /* written, gaps said */
    assert_non_null(strstr(msg, "gaps above"));
    free(msg);
    char errpath[600];
    snprintf(errpath, sizeof errpath, "%s/stderr", tmp);
    fflush(stderr);
    FILE *saved = stderr;
    stderr = fopen(errpath, "w");
    int rc = report(ev, out, 1);
    fclose(stderr);
    stderr = saved;
    assert_int_equal(rc, EXIT_GATE);
    size_t len;
    msg = files_read(errpath, &len);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "README.md, table under \"NVIDIA Test GPU > 1x8x512x64\": column \"% of fp16 "
                                "ceiling\" is \"-\" in all"));
    assert_non_null(strstr(msg, "plots/nvidia-test-gpu-roofline.svg: missing the roofs (no ceilings in the run)"));
    assert_non_null(strstr(msg, "plots/nvidia-test-gpu-ladder.svg: missing the physical floor"));
    assert_null(strstr(msg, "nvidia-other-gpu-"));   /* the other GPU's run has its ceilings */
    free(msg);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* Drops a rung from a run (its results, its implementation and its profile rows), as a
 * reference run made before the rung existed reads. */
static void drop_rung(json_t *doc, const char *rung)
{
    const char *arrays[] = { "results", "implementations", "profile" };
    for (size_t a = 0; a < 3; a++) {
        json_t *arr = json_object_get(doc, arrays[a]);
        for (size_t i = json_array_size(arr); i-- > 0;) {
            json_t *x = json_array_get(arr, i);
            const char *n = json_string_value(json_object_get(x, a == 1 ? "name" : "impl"));
            if (n && !strcmp(n, rung)) json_array_remove(arr, i);
        }
    }
}

/* A rung that one GPU's reference run holds and another's predates (a GPU not lent since
 * the rung was built) is said on that GPU's table and plot and is no gap; a rung that no
 * reference run holds is still one. */
static void rung_not_yet_run_on_a_gpu(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char ev[512], out[512], run[1024];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    copy_evidence(tmp);
    json_t *doc = load_run(ev, "nvidia-other-gpu/20260110T000000Z_ddddddd.json", run, sizeof run);
    drop_rung(doc, "06_tiling");
    save_run(doc, run);
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    if (strstr(msg, "gap")) fail_msg("a rung run on another GPU counted as a gap: %s", msg);
    free(msg);
    assert_int_equal(report(ev, out, 1), EXIT_OK);
    char *svg = read_rel(out, "plots/nvidia-other-gpu-ladder.svg");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "not yet run on this GPU: 06_tiling"));
    free(svg);
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    assert_non_null(strstr(readme, "| [NVIDIA Other GPU](#nvidia-other-gpu) | [06_tiling](phases/06_tiling.md) | "
                                   "**not yet run on this GPU** |"));
    free(readme);
    /* gone from every reference run (nvidia-test-gpu's is 20260201T000000Z_bbbbbbb) */
    doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    drop_rung(doc, "06_tiling");
    save_run(doc, run);
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    assert_non_null(strstr(msg, "gaps above"));
    free(msg);
    assert_int_equal(report(ev, out, 1), EXIT_GATE);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* A scratch directory (returned; the caller removes it) holding a copy of the synthetic
 * evidence at ev (to edit) and the report's output path out. */
static char *scratch_evidence(char *ev, char *out, size_t len)
{
    char *tmp = temp_dir();
    snprintf(ev, len, "%s/evidence", tmp);
    snprintf(out, len, "%s/r", tmp);
    copy_evidence(tmp);
    return tmp;
}

/* A scratch directory (returned) with the report of the synthetic evidence, as it is, at out. */
static char *fresh_report(char *out, size_t len)
{
    char *tmp = temp_dir();
    snprintf(out, len, "%s/r", tmp);
    assert_int_equal(report(DATA "evidence", out, 0), EXIT_OK);
    return tmp;
}

/* Where a run kept NVML's violation counters, its GPU's section says after the clocks how
 * long the power cap and the other limits held the clocks down over the run; a run
 * without them says nothing of them. A resumed run called at the power cap from its
 * per-sample reads says that, and how many of the watched timings saw the cap. */
static void clocks_sentence_says_how_long(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char ev[512], out[512], run[1024];
    char *tmp = fresh_report(out, sizeof out);
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    assert_null(strstr(readme, "violation counters"));
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);

    tmp = scratch_evidence(ev, out, sizeof ev);
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    json_t *ctx = json_object_get(doc, "context");
    json_object_set_new(json_object_get(ctx, "clocks_before"), "violation_ns",
                        json_pack("{s:I, s:I, s:I, s:I}", "power", (json_int_t)1000000000ll, "thermal",
                                  (json_int_t)5, "board_limit", (json_int_t)0, "reliability", (json_int_t)0));
    json_object_set_new(json_object_get(ctx, "clocks_after"), "violation_ns",
                        json_pack("{s:I, s:I, s:I, s:I}", "power", (json_int_t)13500000000ll, "thermal",
                                  (json_int_t)5, "board_limit", (json_int_t)0, "reliability", (json_int_t)0));
    json_object_set_new(ctx, "throttled", json_true());
    json_object_set_new(json_object_get(ctx, "clocks_after"), "throttle", json_pack("[s]", "sw_power_cap"));
    json_object_set_new(doc, "cost", json_pack("{s:f}", "wall_s", 600.0));
    save_run(doc, run);
    readme = report_readme(ev, out, tmp);
    assert_non_null(readme);
    assert_non_null(strstr(readme, "Clocks: at the power cap at the run's start or end (sw_power_cap, the normal "
                                   "state at the board's power limit; no measurement was throttled). Over the run "
                                   "of its 600.0 s, NVML's violation counters: the power cap held the clocks below "
                                   "their application clocks for 12.5 s, thermal, board and reliability limits for "
                                   "0.0 s."));
    free(readme);

    /* resumed, its snapshots unable to say why it was marked, the reads after every sample
     * at the cap in two timings of those watched: the sentence says so, with the counts */
    doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    ctx = json_object_get(doc, "context");
    json_object_del(json_object_get(ctx, "clocks_before"), "violation_ns");
    json_object_del(json_object_get(ctx, "clocks_after"), "violation_ns");
    json_object_set_new(json_object_get(ctx, "clocks_after"), "throttle", json_array());
    json_object_set_new(doc, "resumed", json_pack("{s:[]}", "segments"));
    json_object_set_new(json_object_get(doc, "method"), "clock_watch", json_pack("{s:b}", "per_sample", 1));
    json_t *x;
    size_t i, watched = 0;
    json_array_foreach(json_object_get(doc, "results"), i, x) {
        json_t *g = json_object_get(json_object_get(x, "timing"), "graph");
        if (!json_is_object(g)) continue;
        json_object_set_new(g, "clock", json_pack("{s:[s*]}", "reasons_seen", watched < 2 ? "sw_power_cap" : NULL));
        watched++;
    }
    save_run(doc, run);
    readme = report_readme(ev, out, tmp);
    char want[512];
    snprintf(want, sizeof want, "named sw_power_cap in 2 of the %zu timings and rotations they watched and no other "
             "reason; no measurement was throttled).", watched);
    assert_non_null(strstr(readme, want));
    assert_null(strstr(readme, "violation counters"));
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* Rungs a GPU's reference run predates, next to each other in the ladder, share one row
 * of dashes in its tables (a GPU ten rungs behind shows one line, not ten); one absent
 * alone keeps its own row. */
static void absent_rungs_share_a_row(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char ev[512], out[512], run[1024];
    char *tmp = scratch_evidence(ev, out, sizeof ev);
    json_t *doc = load_run(ev, "nvidia-other-gpu/20260110T000000Z_ddddddd.json", run, sizeof run);
    drop_rung(doc, "03_wmma");
    drop_rung(doc, "05_warp_specialized");
    drop_rung(doc, "06_tiling");
    save_run(doc, run);
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    free(msg);
    assert_int_equal(report(ev, out, 1), EXIT_OK);
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    assert_non_null(strstr(readme, "| [NVIDIA Other GPU](#nvidia-other-gpu) | [03_wmma](phases/03_wmma.md) | "
                                   "**not yet run on this GPU** |"));
    assert_non_null(strstr(readme, "| [NVIDIA Other GPU](#nvidia-other-gpu) | "
                                   "[05_warp_specialized](phases/05_warp_specialized.md) to "
                                   "[06_tiling](phases/06_tiling.md), 2 rungs | **not yet run on this GPU** |"));
    assert_null(strstr(readme, "[06_tiling](phases/06_tiling.md) | **not yet run on this GPU**"));
    assert_null(strstr(readme, "[05_warp_specialized](phases/05_warp_specialized.md) | **not yet run on this GPU**"));
    /* the GPU's own section: the same rows without the GPU cell */
    assert_non_null(strstr(readme, "\n| [05_warp_specialized](phases/05_warp_specialized.md) to "
                                   "[06_tiling](phases/06_tiling.md), 2 rungs | **not yet run on this GPU** |"));
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* The line of page that starts with `start`, as a string (NULL when none). */
static char *line_of(const char *page, const char *start)
{
    for (const char *p = page; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, start, strlen(start))) return strndup(p, strcspn(p, "\n"));
    return NULL;
}

/* A rung page's sweep table says the rung's step over the rung below at every point, as
 * the ladder's tables do: 06_tiling at 128x32x128x64 is x2.00 of 05_warp_specialized on
 * the other GPU (294.35 / 147.17 us) and x2.35 on the test GPU (327.05 / 139.00 us;
 * separate medians in the synthetic runs); the first rung's page has no such column. */
static void sweep_rows_say_the_step(void **st)
{
    (void)st;
    char out[512];
    char *tmp = fresh_report(out, sizeof out);
    char *page = read_rel(out, "phases/06_tiling.md");
    assert_non_null(page);
    assert_non_null(strstr(page, "| shape | tag | median us [95% CI] | ratio to sdpa_cudnn [95% CI] | "
                                 "vs previous rung | TFLOP/s |"));
    const char *gpus[] = { "### NVIDIA Other GPU\n", "### NVIDIA Test GPU\n" }, *want[] = { "] | x2.00 | ", "] | x2.35 | " };
    for (int g = 0; g < 2; g++) {
        const char *section = strstr(page, gpus[g]);
        assert_non_null(section);
        char *row = line_of(section, "| 128x32x128x64 | sweep | ");
        assert_non_null(row);
        if (!strstr(row, want[g])) fail_msg("%sno step '%s' in '%s'", gpus[g], want[g], row);
        free(row);
    }
    free(page);
    page = read_rel(out, "phases/01_scalar.md");
    assert_non_null(page);
    /* the first rung: no column (one of dashes in every row would be a gap) */
    assert_non_null(strstr(page, "| ratio to sdpa_cudnn [95% CI] | TFLOP/s |"));
    assert_null(strstr(page, "vs previous rung | TFLOP/s | % of fp16 ceiling"));
    free(page);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* Each GPU's plot of its rungs against the baseline: a point a rung (6 in the test GPU's
 * run), each labelled with its points at or below 1.00 of all (06_tiling 30/30, 01_scalar
 * 0/28: two of its rows untimed), embedded in the GPU's section; the newest reference run's
 * copied to plots/versus.svg for the top-level README. */
static void versus_plot_per_gpu(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    assert_int_equal(setenv("ATTN_GNUPLOT_DRAW", "*-versus.svg", 1), 0);
    char out[512];
    char *tmp = fresh_report(out, sizeof out);
    char *svg = read_rel(out, "plots/nvidia-test-gpu-versus.svg");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "6 data points in 1 panel"));
    assert_non_null(strstr(svg, "30/30"));
    assert_non_null(strstr(svg, "0/28"));
    char *top = read_rel(out, "plots/versus.svg");
    assert_non_null(top);
    assert_string_equal(top, svg);   /* the newest reference run: the test GPU's (2026-02-01) */
    free(top);
    free(svg);
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    assert_non_null(strstr(readme, "](plots/nvidia-test-gpu-versus.svg)"));
    assert_non_null(strstr(readme, "](plots/nvidia-other-gpu-versus.svg)"));
    free(readme);
    assert_int_equal(unsetenv("ATTN_GNUPLOT_DRAW"), 0);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* A rung page says where the rung's own kernel or choice runs (an init note no rung below
 * has at the point) and whose kernel a profiled shape ran. In the test GPU's run, 05 notes
 * "five" everywhere and 06 "six" but at 1x8x512x64 and 128x32x128x64, where it notes
 * "five" (it hands those to 05): 06's own code at 28 of 30 points, its 1x8x512x64 profile
 * 05's kernel; 05's own code everywhere (the rungs below note nothing). */
static void pages_say_whose_kernel_runs(void **st)
{
    (void)st;
    char ev[512], out[512], run[1024];
    char *tmp = scratch_evidence(ev, out, sizeof ev);
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(doc, "results"), i, x) {
        const char *impl = json_string_value(json_object_get(x, "impl"));
        json_t *sh = json_object_get(x, "shape");
        long b = (long)json_integer_value(json_object_get(sh, "batch"));
        int causal = (int)json_integer_value(json_object_get(sh, "causal"));
        int handed = (b == 1 || b == 128) && !causal && json_integer_value(json_object_get(sh, "head_dim")) == 64 &&
                     json_integer_value(json_object_get(sh, "seq_q")) == (b == 1 ? 512 : 128);
        if (!strcmp(impl, "05_warp_specialized") || (!strcmp(impl, "06_tiling") && handed))
            json_object_set_new(x, "init_note", json_string("five"));
        else if (!strcmp(impl, "06_tiling"))
            json_object_set_new(x, "init_note", json_string("six"));
    }
    save_run(doc, run);
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    free(msg);
    char *page = read_rel(out, "phases/06_tiling.md");
    assert_non_null(page);
    assert_non_null(strstr(page, "NVIDIA Test GPU (ncu), 1x8x512x64, 1 kernel, the kernel of 05_warp_specialized "
                                 "(the same init note at this shape):"));
    assert_non_null(strstr(page, " Its own kernel or choice (an init note no rung below has there) runs at 28 of "
                                 "its 30 timed points: "));
    assert_non_null(strstr(page, " and more; elsewhere a lower rung's"));
    free(page);
    page = read_rel(out, "phases/05_warp_specialized.md");
    assert_non_null(page);
    assert_non_null(strstr(page, " Its own kernel or choice runs at every one of its 30 timed points"));
    free(page);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* The checker on pages written by hand: a column of dashes and a plot without data are
 * gaps; a table with one value in a column is not. */
static void gap_checker_reads_tables_and_plots(void **st)
{
    (void)st;
    char *tmp = temp_dir();
    char d[600];
    snprintf(d, sizeof d, "%s/plots", tmp);
    assert_int_equal(files_mkdirs(d), 0);
    snprintf(d, sizeof d, "%s/phases", tmp);
    assert_int_equal(files_mkdirs(d), 0);
    write_rel(tmp, "README.md", "# t\n\n## GPU A\n\n#### s\n\n| a | b | c |\n| --- | --- | --- |\n"
                                "| 1 | - | - |\n| 2 | - | 3 |\n\n| x | y |\n| --- | --- |\n| - | 1 |\n");
    write_rel(tmp, "phases/p.md", "## Sweep\n\n| u |\n| --- |\n| 4 |\n");
    write_rel(tmp, "plots/a.svg", "<svg><title>t</title>\n<desc>attnladder report: 12 data points in 2 panels; "
                                  "empty: D = 64 causal; missing: the roofs (no ceilings)</desc></svg>\n");
    write_rel(tmp, "plots/b.svg", "<svg><desc>attnladder report: 0 data points in 1 panel; empty: history</desc></svg>\n");
    write_rel(tmp, "plots/c.svg", "<svg><desc>attnladder report: 5 data points in 1 panel</desc></svg>\n");
    write_rel(tmp, "plots/d.svg", "<svg><desc>Produced by GNUPLOT</desc></svg>\n");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    long gaps = report_check_complete(tmp, f);
    fclose(f);
    assert_int_equal(gaps, 6);
    assert_non_null(strstr(text, "README.md, table under \"GPU A > s\": column \"b\" is \"-\" in all 2 rows"));
    assert_non_null(strstr(text, "column \"x\" is \"-\" in all 1 rows"));
    assert_null(strstr(text, "column \"c\""));
    assert_null(strstr(text, "phases/p.md"));
    assert_non_null(strstr(text, "plots/a.svg: no data in the panel(s) D = 64 causal"));
    assert_non_null(strstr(text, "plots/a.svg: missing the roofs (no ceilings)"));
    assert_non_null(strstr(text, "plots/b.svg: no data\n"));
    assert_null(strstr(text, "plots/c.svg"));
    assert_non_null(strstr(text, "plots/d.svg: no count of its data points"));
    free(text);
    char none[600];
    snprintf(none, sizeof none, "%s/none", tmp);
    assert_int_equal(report_check_complete(none, stderr), -1);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* A rung moved under a new name (its README's History names the old one as code) keeps
 * its history; the old name's page says where it went. */
static void moved_rung_keeps_its_history(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char cmd[2400], phases[600], out[600];
    snprintf(phases, sizeof phases, "%s/phases", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    snprintf(cmd, sizeof cmd, "cp -r " DATA "phases '%s' && mv '%s/06_tiling' '%s/09_tiles'", phases, phases, phases);
    assert_int_equal(system(cmd), 0);
    write_rel(phases, "09_tiles/README.md", "# 09_tiles: the tiles\n\nHistory: this rung is the former "
                                            "`phases/06_tiling`, moved, not changed.\n\n## Technique\n\nTiles.\n");
    char *argv[] = { "report", "--evidence", DATA "evidence", "--out", out, "--phases", phases, "--config",
                     DATA "gate_config.json", "--gnuplot", (char *)g_gnuplot, NULL };
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = cmd_report(11, argv);
    fclose(stdout);
    stdout = saved;
    assert_int_equal(rc, EXIT_OK);
    char *readme = read_rel(out, "README.md");
    assert_non_null(strstr(readme, "Former rungs, in older runs: [06_tiling](phases/06_tiling.md) (now "
                                   "[09_tiles](phases/09_tiles.md))"));
    assert_non_null(strstr(readme, "| [06_tiling](phases/06_tiling.md) (now 09_tiles) |"));
    assert_null(strstr(readme, "[09_tiles](phases/09_tiles.md) | **not in this run**"));
    free(readme);
    char *old = read_rel(out, "phases/06_tiling.md");
    assert_non_null(strstr(old, "**`06_tiling` is a former rung**"));
    assert_non_null(strstr(old, "It is now [09_tiles](09_tiles.md), whose README says:\n\n> History: this rung is "
                                "the former `phases/06_tiling`"));
    free(old);
    char *page = read_rel(out, "phases/09_tiles.md");
    assert_non_null(strstr(page, " (as `06_tiling`) |"));
    free(page);
    char *svg = read_rel(out, "plots/history-09_tiles.svg");
    assert_non_null(strstr(svg, "(as 06_tiling)"));
    assert_null(strstr(svg, "attnladder report: 0 data points"));
    free(svg);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* The first line of text that starts with prefix, as a string; NULL when none. */
static char *line_from(const char *text, const char *prefix)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix))) return strndup(p, strcspn(p, "\n"));
    return NULL;
}

static json_t *kernel_entry(const char *name, long regs, long smem, long st, long ld)
{
    return json_pack("{s:s, s:I, s:I, s:I, s:I}", "name", name, "registers", (json_int_t)regs, "smem_static",
                     (json_int_t)smem, "spill_stores", (json_int_t)st, "spill_loads", (json_int_t)ld);
}

static json_t *profiled(const char *name, json_t *regs, json_t *smem, json_t *dyn)
{
    json_t *m = json_object();
    if (regs) json_object_set_new(m, "launch__registers_per_thread", regs);
    if (smem) json_object_set_new(m, "launch__shared_mem_per_block_static", smem);
    if (dyn) json_object_set_new(m, "launch__shared_mem_per_block_dynamic", dyn);
    return json_pack("{s:s, s:o}", "kernel", name, "metrics", m);
}

/* The profile row of impl at 1x8x512x64 (not causal) in doc: its kernels replaced. */
static void set_profiled(json_t *doc, const char *impl, json_t *kernels)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(doc, "profile"), i, p) {
        json_t *s = json_object_get(p, "shape");
        if (!strcmp(json_string_value(json_object_get(p, "impl")), impl) &&
            json_integer_value(json_object_get(s, "causal")) == 0 &&
            json_integer_value(json_object_get(s, "seq_q")) == 512) {
            json_object_set_new(p, "kernels", kernels);
            return;
        }
    }
    fail_msg("no profile row of %s", impl);
}

static void set_resources(json_t *doc, const char *impl, long regs, long smem, long st, long ld, json_t *kernels)
{
    size_t i;
    json_t *im;
    json_array_foreach(json_object_get(doc, "implementations"), i, im)
        if (!strcmp(json_string_value(json_object_get(im, "name")), impl)) {
            json_object_set_new(im, "resources", json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o}", "arch", "sm_90",
                                "registers", (json_int_t)regs, "smem_static", (json_int_t)smem, "stack_bytes",
                                (json_int_t)0, "spill_stores", (json_int_t)st, "spill_loads", (json_int_t)ld,
                                "kernels", kernels));
            return;
        }
    fail_msg("no implementation %s", impl);
}

#define FLASH_BIG "_ZN6rung066tiling9flash_fwdILi64ELi128ELi128ELi4ELi2ELi1EEEvNS0_10fwd_paramsE"

/* The registers, shared memory and spills of a ladder row are those of the kernel that ran
 * at the row's shape (the profile there, spills from that kernel's entry), not the largest
 * of the shared object; where the shape was not profiled, the largest of the object's
 * kernels, said so. Rung 10's case: its object holds rung 06's kernels whole, the largest
 * of which (255 registers, 100 spill bytes) never runs at the headline shape. */
static void resources_of_the_kernel_that_ran(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char ev[512], out[512], run[1024];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    copy_evidence(tmp);
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    /* the object's totals as the loader writes them: the largest registers and static
     * smem of its kernels, the sum of their spills */
    set_resources(doc, "06_tiling", 255, 128, 56, 44,
                  json_pack("[o, o, o]", kernel_entry(FLASH_BIG, 255, 128, 56, 44), kernel_entry(LAT64, 162, 0, 0, 0),
                            kernel_entry(LAT128, 163, 0, 0, 0)));
    set_profiled(doc, "06_tiling",
                 json_pack("[o]", profiled(LAT64_RAN, json_real(162), json_real(0), json_real(93200))));
    save_run(doc, run);
    /* the other GPU: two kernels ran, one of them not the object's (cuBLAS's); and a
     * profile whose figures are no numbers */
    doc = load_run(ev, "nvidia-other-gpu/20260110T000000Z_ddddddd.json", run, sizeof run);
    set_profiled(doc, "06_tiling", json_pack("[o, o, o]", profiled("attn_kernel", json_real(128), json_real(0),
                                                                  json_real(1000)),
                                             profiled("nvjet_sm90_hss_128x128_64x6_1x2_h_bz_TNT", json_real(168),
                                                      json_real(0), json_real(200000)),
                                             profiled("attn_kernel", json_real(128), json_real(0), json_real(1000))));
    set_profiled(doc, "04_cp_async", json_pack("[o]", profiled("nvjet_sm90_x", json_string("n/a"), json_real(1e300),
                                                               json_real(-5))));
    save_run(doc, run);
    char *readme = report_readme(ev, out, tmp);
    assert_non_null(readme);
    char *top = first_lines(readme, 40);
    /* the kernel that ran: 162 registers, its own smem, no spills (was 255, 128, 100) */
    char *row = line_from(top, "| [NVIDIA Test GPU](#nvidia-test-gpu) | [06_tiling](phases/06_tiling.md) |");
    assert_non_null(row);
    if (!strstr(row, " | 162 | 0 + 93200 dyn | 0 | ")) fail_msg("row: %s", row);
    free(row);
    /* two kernels ran: the larger figures, said so; cuBLAS's spills are nobody's to give */
    row = line_from(top, "| [NVIDIA Other GPU](#nvidia-other-gpu) | [06_tiling](phases/06_tiling.md) |");
    assert_non_null(row);
    if (!strstr(row, " | 168 (largest of 2 kernels) | 0 + 200000 dyn (largest of 2 kernels) | - | "))
        fail_msg("row: %s", row);
    free(row);
    row = line_from(top, "| [NVIDIA Other GPU](#nvidia-other-gpu) | [04_cp_async](phases/04_cp_async.md) |");
    assert_non_null(row);
    if (!strstr(row, " | - | - | - | ")) fail_msg("row: %s", row);
    free(row);
    /* the legend says what the columns hold */
    assert_non_null(strstr(top, "(max of N kernels)"));
    free(top);
    /* at the causal shape nothing was profiled: the object's largest, marked */
    char *test_gpu = gpu_section(readme, "NVIDIA Test GPU");
    const char *causal = strstr(test_gpu, "#### 1x8x512x64 causal");
    assert_non_null(causal);
    row = line_from(causal, "| [06_tiling](phases/06_tiling.md) |");
    assert_non_null(row);
    if (!strstr(row, " | 255 (max of 3 kernels) | 128 static (max of 3 kernels) | 100 (max of 3 kernels) | "))
        fail_msg("row: %s", row);
    free(row);
    free(test_gpu);
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* The rows of the run at the ragged point 1x8x1x300x64, one per implementation, copied
 * to shape s and tagged "decode", with s's FLOPs and bytes and the figures they give
 * (the evidence's consistency check recomputes them from the median). */
static void add_decode_rows(json_t *doc, const attn_shape *s)
{
    json_t *results = json_object_get(doc, "results"), *added = json_array();
    json_t *ceil = json_object_get(doc, "ceilings");
    size_t i;
    json_t *r;
    json_array_foreach(results, i, r) {
        json_t *sh = json_object_get(r, "shape");
        if (strcmp(json_string_value(json_object_get(r, "tag")), "ragged") ||
            json_integer_value(json_object_get(sh, "seq_q")) != 1 ||
            json_integer_value(json_object_get(sh, "head_dim")) != 64 ||
            json_integer_value(json_object_get(sh, "causal")) != 0)
            continue;
        json_t *x = json_deep_copy(r);
        json_object_set_new(x, "tag", json_string("decode"));
        json_object_set_new(x, "shape", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "batch", s->batch, "heads",
                                                  s->heads, "seq_q", s->seq_q, "seq_kv", s->seq_kv, "head_dim",
                                                  s->head_dim, "causal", s->causal, "scale", 0.125));
        json_t *d = json_object_get(x, "derived");
        double med = json_number_value(json_object_get(json_object_get(json_object_get(x, "timing"), "graph"),
                                                       "median_us"));
        double tflops = shape_flops(s) / (med * 1e-6) / 1e12, gbps = shape_bytes(s) / (med * 1e-6) / 1e9;
        json_object_set_new(d, "flops", json_real(shape_flops(s)));
        json_object_set_new(d, "bytes", json_real(shape_bytes(s)));
        json_object_set_new(d, "tflops", json_real(tflops));
        json_object_set_new(d, "gbps", json_real(gbps));
        json_object_set_new(d, "frac_fp16_peak", json_real(tflops / json_number_value(json_object_get(ceil, "fp16_tflops"))));
        json_object_set_new(d, "frac_dram", json_real(gbps / json_number_value(json_object_get(ceil, "dram_gbps"))));
        json_array_append_new(added, x);
    }
    assert_int_equal(json_array_size(added), 7);   /* six rungs and the baseline */
    json_array_extend(results, added);
    json_decref(added);
}

/* A copy of the test evidence under a new temporary directory (returned) whose NVIDIA Test
 * GPU run has decode rows at each of the n shapes: ev, out and run name its evidence root,
 * a report directory and that run's file. */
static char *decode_evidence(char ev[512], char out[512], char run[1024], const attn_shape *shapes, size_t n)
{
    char *tmp = temp_dir();
    snprintf(ev, 512, "%s/evidence", tmp);
    snprintf(out, 512, "%s/r", tmp);
    copy_evidence(tmp);
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, 1024);
    for (size_t i = 0; i < n; i++) add_decode_rows(doc, &shapes[i]);
    save_run(doc, run);
    return tmp;
}

/* The batched decode view and the copy ceiling: with single-request decode points alone
 * the page says the run predates the batched ones; with batched points (batch > 1) it gets
 * its own plot, and they stay out of the single request's. A figure above the copy ceiling
 * (2,000 GB/s here, 1% slack) is drawn in the flagged series, never as its implementation's:
 * at 1x8x1x4096x64 06_tiling's 2,295 GB/s, at 1x8x1x8192x64 06_tiling's 4,590 and the
 * baseline's 3,855, at 4x8x1x1024x64 06_tiling's 2,295. */
static void batched_decode_and_ceiling(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char ev[512], out[512], run[1024];
    const attn_shape single[] = { { 1, 8, 1, 4096, 64, 0, 0.125f }, { 1, 8, 1, 8192, 64, 0, 0.125f } };
    attn_shape batched = { 4, 8, 1, 1024, 64, 0, 0.125f };
    char *tmp = decode_evidence(ev, out, run, single, 2);
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    free(msg);
    char *svg = read_rel(out, "plots/nvidia-test-gpu-decode.svg");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<desc>attnladder report: 14 data points in 1 panel</desc>"));
    assert_non_null(strstr(svg, "above the copy ceiling: inputs read from L2, not a DRAM figure (3)"));
    free(svg);
    assert_false(exists(out, "plots/nvidia-test-gpu-decode_batched.svg"));
    char *readme = read_rel(out, "README.md");
    char *test_gpu = gpu_section(readme, "NVIDIA Test GPU");
    char *note = line_from(test_gpu, "No batched-decode plot: ");
    assert_non_null(note);
    assert_non_null(strstr(note, "predates the batched decode points"));
    free(note);
    free(test_gpu);
    char *other = gpu_section(readme, "NVIDIA Other GPU");
    assert_null(strstr(other, "No batched-decode plot"));   /* no decode points at all: one note */
    free(other);
    free(readme);

    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    add_decode_rows(doc, &batched);
    save_run(doc, run);
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    free(msg);
    assert_int_equal(report(ev, out, 1), EXIT_OK);   /* matches and has no gap */
    svg = read_rel(out, "plots/nvidia-test-gpu-decode.svg");
    assert_non_null(strstr(svg, "<desc>attnladder report: 14 data points in 1 panel</desc>"));   /* batch 1 alone */
    free(svg);
    svg = read_rel(out, "plots/nvidia-test-gpu-decode_batched.svg");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<desc>attnladder report: 7 data points in 1 panel</desc>"));
    assert_non_null(strstr(svg, "batched decode"));
    assert_non_null(strstr(svg, "device copy ceiling"));
    assert_non_null(strstr(svg, "not a DRAM figure (1)"));
    free(svg);
    readme = read_rel(out, "README.md");
    test_gpu = gpu_section(readme, "NVIDIA Test GPU");
    assert_non_null(strstr(test_gpu, "](plots/nvidia-test-gpu-decode_batched.svg)\n"));
    assert_null(strstr(test_gpu, "No batched-decode plot"));
    free(test_gpu);
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* Marks every decode row at 1x8x1x8192x64 as timed on cold inputs (timing.l2
 * "cold_by_size", against an L2 of 4 MiB: K and V are 4 times it). */
static void mark_cold(json_t *doc, int seq_kv)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "results"), i, r) {
        json_t *sh = json_object_get(r, "shape");
        if (strcmp(json_string_value(json_object_get(r, "tag")), "decode") ||
            json_integer_value(json_object_get(sh, "seq_kv")) != seq_kv)
            continue;
        json_object_set_new(json_object_get(r, "timing"), "l2",
                            json_pack("{s:s, s:i, s:I, s:I, s:I}", "state", "cold_by_size", "copies", 1,
                                      "copy_bytes", (json_int_t)16778240, "bytes", (json_int_t)16778240,
                                      "l2_bytes", (json_int_t)(1 << 22)));   /* 1x8x1x8192x64's Q, K, V */
    }
}

/* Reports a decode run whose 1x8x1x8192x64 rows are cold and whose ceilings hold a read
 * stream's rate (none where read_gbps <= 0); the NVIDIA Test GPU's section (malloc'd) and,
 * with svg, its decode plot. */
static char *cold_decode_report(double read_gbps, char **svg)
{
    char ev[512], out[512], run[1024];
    const attn_shape single[] = { { 1, 8, 1, 4096, 64, 0, 0.125f }, { 1, 8, 1, 8192, 64, 0, 0.125f } };
    char *tmp = decode_evidence(ev, out, run, single, 2);
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    mark_cold(doc, 8192);
    if (read_gbps > 0) json_object_set_new(json_object_get(doc, "ceilings"), "read_gbps", json_real(read_gbps));
    save_run(doc, run);
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    free(msg);
    if (svg) *svg = read_rel(out, "plots/nvidia-test-gpu-decode.svg");
    char *readme = read_rel(out, "README.md");
    char *test_gpu = gpu_section(readme, "NVIDIA Test GPU");
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
    return test_gpu;
}

/* Cold reads past the copy's rate are not flagged as L2 figures, and the page says why
 * they may pass it (a copy writes as much as it reads) and by how much: at 1x8x1x8192x64,
 * 06_tiling's 4,586 GB/s against the 2,000 of the copy, +129.3%. */
static void cold_reads_past_the_copy_are_named(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *svg = NULL;
    char *test_gpu = cold_decode_report(0, &svg);
    assert_non_null(strstr(svg, "not a DRAM figure (1)"));   /* 4096's, resident; 8192's two are cold */
    free(svg);
    char *note = line_from(test_gpu, "Cold reads past the copy: ");
    assert_non_null(note);
    assert_non_null(strstr(note, "2 of the decode points"));
    if (!strstr(note, "up to +129.3% (06_tiling at 1x8x1:8192x64)")) fail_msg("%s", note);
    assert_non_null(strstr(note, "a copy writes as many bytes as it reads"));
    free(note);
    free(test_gpu);
}

/* With the read stream's ceiling in the run, cold reads are held to it: the note gives the
 * fastest cold read as a share of it and the plot draws it; a cold read past it is flagged
 * and drawn apart like an L2 figure. At 1x8x1x8192x64 06_tiling reads 4,586 GB/s: past a
 * 4,000 GB/s read ceiling (114.7%), within a 5,000 one (91.7%). */
static void cold_reads_held_to_the_read_ceiling(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *svg = NULL;
    char *test_gpu = cold_decode_report(4000, &svg);
    assert_non_null(strstr(svg, "device read ceiling, 4000 GB/s"));
    assert_non_null(strstr(svg, "device copy ceiling"));
    /* 4096's resident figure and 06_tiling's cold one at 8192 (the baseline's is below) */
    assert_non_null(strstr(svg, "not a DRAM figure (2)"));
    free(svg);
    assert_null(line_from(test_gpu, "Cold reads past the copy: "));
    char *note = line_from(test_gpu, "Cold reads against the read ceiling: ");
    assert_non_null(note);
    assert_non_null(strstr(note, "measured at 4000 GB/s"));
    if (!strstr(note, "is 114.7% of it (06_tiling at 1x8x1:8192x64")) fail_msg("%s", note);
    assert_non_null(strstr(note, "; 1 passes the read ceiling by more than 1%"));
    assert_non_null(strstr(test_gpu, "device read 4000 GB/s"));
    free(note);
    free(test_gpu);
}

static void cold_reads_within_the_read_ceiling(void **st)
{
    (void)st;
    char *test_gpu = cold_decode_report(5000, NULL);
    char *note = line_from(test_gpu, "Cold reads against the read ceiling: ");
    assert_non_null(note);
    if (!strstr(note, "is 91.7% of it (06_tiling at 1x8x1:8192x64")) fail_msg("%s", note);
    assert_non_null(strstr(note, "; none passes the read ceiling."));
    free(note);
    free(test_gpu);
}

/* The fastest cold read a few tenths of a percent past the read ceiling, within the slack
 * the ceiling's own spread allows (RUN_CEILING_SLACK): not flagged, and the note says it
 * passes by that much, not that none passes (the H100's reference run of 06127ea: 100.5%). */
static void cold_reads_within_the_slack_say_so(void **st)
{
    (void)st;
    char *test_gpu = cold_decode_report(4560, NULL);
    char *note = line_from(test_gpu, "Cold reads against the read ceiling: ");
    assert_non_null(note);
    if (!strstr(note, "is 100.6% of it (06_tiling at 1x8x1:8192x64")) fail_msg("%s", note);
    if (!strstr(note, "; the fastest passes it by 0.6%, within the 1% its measurement allows (the median of "
                      "ten reads): none passes it by more.")) fail_msg("%s", note);
    assert_null(strstr(note, "none passes the read ceiling"));
    free(note);
    free(test_gpu);
}

/* The decode view: a GPU whose reference run has decode points gets a plot of achieved
 * GB/s against seq_kv, every rung and the baseline with their points and the device copy
 * ceiling drawn, linked from its section; a GPU whose run predates them gets one line
 * saying so and no plot, and the report still passes its check. */
static void decode_plot_or_its_note(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char ev[512], out[512], run[1024];
    const attn_shape shapes[] = { { 1, 8, 1, 4096, 64, 0, 0.125f }, { 1, 8, 1, 8192, 64, 0, 0.125f } };
    char *tmp = decode_evidence(ev, out, run, shapes, 2);
    char *msg;
    assert_int_equal(report_quiet(ev, out, tmp, &msg), EXIT_OK);
    free(msg);
    assert_int_equal(report(ev, out, 1), EXIT_OK);   /* matches and has no gap */
    char *svg = read_rel(out, "plots/nvidia-test-gpu-decode.svg");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<desc>attnladder report: 14 data points in 1 panel</desc>"));
    assert_non_null(strstr(svg, "device copy ceiling"));
    assert_non_null(strstr(svg, "01_scalar"));
    assert_non_null(strstr(svg, "sdpa_cudnn"));
    free(svg);
    assert_false(exists(out, "plots/nvidia-other-gpu-decode.svg"));
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    char *test_gpu = gpu_section(readme, "NVIDIA Test GPU");
    assert_non_null(strstr(test_gpu, "](plots/nvidia-test-gpu-decode.svg)\n"));
    assert_null(strstr(test_gpu, "predates the decode sweep"));
    free(test_gpu);
    char *other = gpu_section(readme, "NVIDIA Other GPU");
    char *note = line_from(other, "No decode plot: ");
    assert_non_null(note);
    assert_non_null(strstr(note, "predates the decode sweep"));
    assert_non_null(strstr(note, "`attnladder run --sweep`"));
    free(note);
    assert_null(strstr(other, "-decode.svg"));
    free(other);
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* The staircase from paired ratios: where the run measured its ratios in rotation, a rung's
 * step over the rung below is the quotient of their paired ratios (both timed in the same
 * rounds as the baseline), not of their separate medians, which carry the clock's drift
 * between the two measurements. */
static void steps_from_paired_ratios(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char ev[512], out[512], run[1024];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    copy_evidence(tmp);
    json_t *doc = load_run(ev, "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json", run, sizeof run);
    json_t *method = json_object_get(doc, "method");
    json_object_set_new(method, "ratio", json_string("paired"));
    json_object_set_new(method, "ratio_design", json_pack("{s:s}", "rounds", "rotation"));
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "results"), i, r) {
        json_t *s = json_object_get(r, "shape");
        const char *impl = json_string_value(json_object_get(r, "impl"));
        double q = !strcmp(impl, "03_wmma") ? 2.04 : !strcmp(impl, "04_cp_async") ? 2.008
                 : !strcmp(impl, "05_warp_specialized") ? 2.0 : !strcmp(impl, "06_tiling") ? 0.5 : 0;
        if (q == 0 || json_integer_value(json_object_get(s, "seq_q")) != 512 ||
            json_integer_value(json_object_get(s, "batch")) != 1 || json_integer_value(json_object_get(s, "causal")))
            continue;
        /* 03 and 04 ran one kernel (their init notes are the same): 04's step of x1.016 is
         * that kernel measured twice, past the 1% of a tie */
        if (!strcmp(impl, "03_wmma") || !strcmp(impl, "04_cp_async"))
            json_object_set_new(r, "init_note", json_string("one kernel: 128-row blocks, 4 warps"));
        json_t *a = json_array(), *b = json_array();
        for (int k = 0; k < 5; k++) {
            json_array_append_new(a, json_real(5.8 * q));
            json_array_append_new(b, json_real(5.8));
        }
        json_object_set_new(r, "paired", json_pack("{s:s, s:s, s:i, s:i, s:s, s:o, s:o}", "baseline", "sdpa_cudnn",
                                                   "design", "rotation", "inner", 20, "n", 5, "stop", "noise",
                                                   "impl_us", a, "baseline_us", b));
        json_object_set_new(json_object_get(r, "derived"), "ratio",
                            json_pack("{s:s, s:f, s:f, s:f, s:s}", "baseline", "sdpa_cudnn", "median", q, "ci_lo", q,
                                      "ci_hi", q, "method", "paired"));
    }
    save_run(doc, run);
    char *readme = report_readme(ev, out, tmp);
    assert_non_null(readme);
    char *row = line_from(readme, "| [NVIDIA Test GPU](#nvidia-test-gpu) | [06_tiling]");
    assert_non_null(row);
    char want[32], medians[32];
    fmt_speedup(want, sizeof want, 2.0 / 0.5);
    fmt_speedup(medians, sizeof medians, 11.5791 / 4.9211);
    char cell[64];
    snprintf(cell, sizeof cell, "| %s |", want);
    if (!strstr(row, cell)) fail_msg("06_tiling's step is not the paired %s: %s", want, row);
    snprintf(cell, sizeof cell, "| %s |", medians);
    assert_null(strstr(row, cell));
    free(row);
    /* a step within the noise (05 over 04: x1.004, under 1%) says so, in the ladder and in
     * the staircase; a real one (06 over 05) does not */
    row = line_from(readme, "| [NVIDIA Test GPU](#nvidia-test-gpu) | [05_warp_specialized]");
    assert_non_null(row);
    if (!strstr(row, "| x1.00 tie |")) fail_msg("05's step of x1.004 is not marked a tie: %s", row);
    free(row);
    /* a step between two rungs that ran the same kernel says so, whatever its size */
    row = line_from(readme, "| [NVIDIA Test GPU](#nvidia-test-gpu) | [04_cp_async]");
    assert_non_null(row);
    if (!strstr(row, "| x1.02 same kernel |")) fail_msg("04's step over 03's same kernel is not marked: %s", row);
    free(row);
    row = line_from(readme, "| [NVIDIA Test GPU](#nvidia-test-gpu) | [05_warp_specialized]");
    assert_null(strstr(row, "same kernel"));
    free(row);
    char *sec = gpu_section(readme, "NVIDIA Test GPU");
    const char *steps = strstr(sec, "### Each rung against the rung below");
    assert_non_null(steps);
    row = line_from(steps, "| [05_warp_specialized](phases/05_warp_specialized.md) |");
    assert_non_null(row);
    if (!strstr(row, "| x1.00 tie (")) fail_msg("05's step in the staircase is not marked a tie: %s", row);
    free(row);
    row = line_from(steps, "| [06_tiling](phases/06_tiling.md) |");
    assert_non_null(row);
    assert_null(strstr(row, "tie"));
    free(row);
    free(sec);
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

static void no_evidence_yet(void **st)
{
    (void)st;
    char *tmp = temp_dir();
    char ev[512], out[512];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/reports", tmp);
    assert_int_equal(mkdir(ev, 0755), 0);
    assert_int_equal(report(ev, out, 0), EXIT_OK);
    char *readme = read_rel(out, "README.md");
    assert_non_null(readme);
    assert_non_null(strstr(readme, "No evidence yet"));
    free(readme);
    assert_int_equal(report(ev, out, 1), EXIT_OK);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

/* One colour per implementation in every plot: sixteen rungs each their own colour, none a
 * baseline's, and the baseline and four external backends each their own too (two rungs
 * once shared blue and two orange, the backends three greys). */
static void every_implementation_its_own_colour(void **st)
{
    (void)st;
    static const char *const phases[16] = { "01_a", "02_b", "03_c", "04_d", "05_e", "06_f", "07_g", "08_h",
                                             "09_i", "10_j", "11_k", "12_l", "13_m", "14_n", "15_o", "16_p" };
    gate_config cfg = { 0 };
    cfg.baseline = "sdpa_cudnn";
    report_ctx c = { .cfg = &cfg, .phases = (const char **)phases, .n_phases = 16 };
    const char *seen[32];
    size_t n = 0;
    for (size_t i = 0; i < 16; i++) seen[n++] = report_impl_colour(&c, phases[i], "phase");
    seen[n++] = report_impl_colour(&c, "sdpa_cudnn", "baseline");
    static const char *const ext[] = { "torch_flash", "torch_efficient", "torch_cudnn", "torch_math" };
    run_impl impls[4];
    memset(impls, 0, sizeof impls);
    run_data r = { 0 };
    for (size_t k = 0; k < 4; k++) {
        impls[k].name = ext[k];
        impls[k].kind = "external";
    }
    r.impls = impls;
    r.n_impls = 4;
    for (size_t k = 0; k < 4; k++) seen[n++] = report_baseline_colour(&c, &r, ext[k]);
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (strcmp(seen[a], seen[b]) == 0) fail_msg("implementations %zu and %zu share %s", a, b, seen[a]);
}

/* Every time of impl's graph timing at the headline shape (causal or not) times f, as a
 * slower session of the same code would read. */
static void slow_down(json_t *doc, const char *impl, int causal, double f)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "results"), i, r) {
        json_t *sh = json_object_get(r, "shape");
        if (strcmp(json_string_value(json_object_get(r, "impl")), impl) ||
            json_integer_value(json_object_get(sh, "seq_q")) != 512 ||
            json_integer_value(json_object_get(sh, "causal")) != causal)
            continue;
        json_t *g = json_object_get(json_object_get(r, "timing"), "graph"), *v;
        const char *key;
        json_object_foreach(g, key, v) {
            if (json_is_real(v) && strstr(key, "_us")) json_real_set(v, json_real_value(v) * f);
            if (strcmp(key, "samples_us") == 0) {
                size_t k;
                json_t *x;
                json_array_foreach(v, k, x) json_real_set(x, json_real_value(x) * f);
            }
        }
        /* what the run derives from the median moves with it */
        json_t *d = json_object_get(r, "derived"), *ratio = json_object_get(d, "ratio");
        json_object_foreach(d, key, v)
            if (json_is_real(v) && strcmp(key, "flops") && strcmp(key, "bytes"))
                json_real_set(v, json_real_value(v) / f);
        json_object_foreach(ratio, key, v)
            if (json_is_real(v)) json_real_set(v, json_real_value(v) * f);
    }
}

/* The ratio of one rung at one shape in a run of the copied evidence, by the report's rule. */
static double ratio_in(const char *ev, const char *rel, const char *impl, const attn_shape *s)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s", ev, rel);
    run_data r;
    assert_int_equal(run_open(&r, path, err, sizeof err), 0);
    const run_result *x = run_find(&r, impl, s);
    assert_non_null(x);
    double v;
    assert_int_equal(result_point_ratio(&r, x, "sdpa_cudnn", &v), 0);
    run_close(&r);
    return v;
}

/* The GPU's section shows, under its ladder, each rung's ratio at the headline and
 * throughput shapes across the accepted runs (separate sessions, the machines counted by
 * their GPUs' UUIDs): the lowest, the highest and their quotient. With one accepted run
 * there is nothing to show. */
static void ratios_between_sessions(void **st)
{
    (void)st;
    if (!have_gnuplot()) skip();
    char *tmp = temp_dir();
    char ev[512], out[512], path[1024];
    snprintf(ev, sizeof ev, "%s/evidence", tmp);
    snprintf(out, sizeof out, "%s/r", tmp);
    copy_evidence(tmp);
    const char *a = "nvidia-test-gpu/20260101T000000Z_aaaaaaa.json", *b = "nvidia-test-gpu/20260201T000000Z_bbbbbbb.json";
    const char *uuids[2] = { "GPU-aaaa0000", "GPU-bbbb1111" };
    for (int k = 0; k < 2; k++) {
        json_t *doc = load_run(ev, k ? b : a, path, sizeof path);
        json_object_set_new(json_object_get(json_object_get(doc, "context"), "gpu"), "uuid", json_string(uuids[k]));
        if (k) slow_down(doc, "03_wmma", 0, 1.05);   /* the second session reads 5% slower */
        save_run(doc, path);
    }
    write_rel(ev, "nvidia-test-gpu/accepted.txt", "20260101T000000Z_aaaaaaa.json\n20260201T000000Z_bbbbbbb.json\n");
    char *msg;
    int rc = report_quiet(ev, out, tmp, &msg);
    if (rc != EXIT_OK) fprintf(stderr, "%s", msg);
    assert_int_equal(rc, EXIT_OK);
    free(msg);
    char *readme = read_rel(out, "README.md");
    char *sec = gpu_section(readme, "NVIDIA Test GPU");
    assert_non_null(strstr(sec, "#### Between sessions\n"));
    assert_non_null(strstr(sec, "in the 2 accepted runs (`accepted.txt`; ratios of separate medians in all 2) on 2 "
                                "GPUs of this model, at the headline and throughput shapes"));
    const attn_shape h = { 1, 8, 512, 512, 64, 0, 0.125 };
    double ra = ratio_in(ev, a, "03_wmma", &h), rb = ratio_in(ev, b, "03_wmma", &h);
    assert_true(ra != rb);
    char lo[32], hi[32], ch[32], want[512];
    fmt_num(lo, sizeof lo, ra < rb ? ra : rb);
    fmt_num(hi, sizeof hi, ra < rb ? rb : ra);
    fmt_change(ch, sizeof ch, (ra < rb ? rb : ra) / (ra < rb ? ra : rb));
    assert_non_null(strstr(sec, "| phase | 1x8x512x64 | 1x8x512x64 causal |"));
    snprintf(want, sizeof want, "\n| [03_wmma](phases/03_wmma.md) | %s-%s (%s) |", lo, hi, ch);
    if (!strstr(sec, want)) fprintf(stderr, "want: %s\nin:\n%s\n", want, sec);
    assert_non_null(strstr(sec, want));
    free(sec);
    free(readme);
    /* one accepted run: no such section */
    write_rel(ev, "nvidia-test-gpu/accepted.txt", "20260101T000000Z_aaaaaaa.json\n");
    readme = report_readme(ev, out, tmp);
    assert_null(strstr(readme, "#### Between sessions"));
    free(readme);
    assert_int_equal(files_remove_tree(tmp), 0);
    free(tmp);
}

int main(void)
{
    if (getenv("ATTN_TEST_ONLY")) cmocka_set_test_filter(getenv("ATTN_TEST_ONLY"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(number_formats, stand_in_gnuplot),
        cmocka_unit_test_setup(every_implementation_its_own_colour, stand_in_gnuplot),
        cmocka_unit_test_setup(steps_from_paired_ratios, stand_in_gnuplot),
        cmocka_unit_test_setup(phase_readme_sections, stand_in_gnuplot),
        cmocka_unit_test_setup(reproducible_and_checked, real_gnuplot),
        cmocka_unit_test_setup(malformed_evidence_is_named_and_left_out, stand_in_gnuplot),
        cmocka_unit_test_setup(reference_run_not_newest, stand_in_gnuplot),
        cmocka_unit_test_setup(show_prints_reference_rows, stand_in_gnuplot),
        cmocka_unit_test_setup(first_screen_steps_and_time_axis, draw_history),
        cmocka_unit_test_setup(power_cap_is_not_called_throttled, stand_in_gnuplot),
        cmocka_unit_test_setup(gaps_fail_the_check, stand_in_gnuplot),
        cmocka_unit_test_setup(rung_not_yet_run_on_a_gpu, stand_in_gnuplot),
        cmocka_unit_test_setup(absent_rungs_share_a_row, stand_in_gnuplot),
        cmocka_unit_test_setup(clocks_sentence_says_how_long, stand_in_gnuplot),
        cmocka_unit_test_setup(sweep_rows_say_the_step, stand_in_gnuplot),
        cmocka_unit_test_setup(versus_plot_per_gpu, stand_in_gnuplot),
        cmocka_unit_test_setup(pages_say_whose_kernel_runs, stand_in_gnuplot),
        cmocka_unit_test_setup(gap_checker_reads_tables_and_plots, stand_in_gnuplot),
        cmocka_unit_test_setup(moved_rung_keeps_its_history, draw_history),
        cmocka_unit_test_setup(resources_of_the_kernel_that_ran, stand_in_gnuplot),
        cmocka_unit_test_setup(no_evidence_yet, stand_in_gnuplot),
        cmocka_unit_test_setup(ratios_between_sessions, stand_in_gnuplot),
        cmocka_unit_test_setup(decode_plot_or_its_note, draw_decode),
        cmocka_unit_test_setup(batched_decode_and_ceiling, draw_decode),
        cmocka_unit_test_setup(cold_reads_past_the_copy_are_named, draw_decode),
        cmocka_unit_test_setup(cold_reads_held_to_the_read_ceiling, draw_decode),
        cmocka_unit_test_setup(cold_reads_within_the_read_ceiling, stand_in_gnuplot),
        cmocka_unit_test_setup(cold_reads_within_the_slack_say_so, stand_in_gnuplot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
