/* libFuzzer targets: the commands that read evidence, run in-process on a mutated evidence
 * run, so what the fuzzer reaches is what a pull request's evidence reaches on the GPU
 * runner. Built once per command: -DFUZZ_SHOW, -DFUZZ_GATE, -DFUZZ_COMPARE or -DFUZZ_REPORT.
 * Each input is written as a run file under a temporary evidence root (made at the first
 * input, removed at exit); gate and compare set it against the accepted run; report writes
 * only into that temporary directory, drawing with a stand-in gnuplot that writes an
 * empty SVG, and its output is removed after each input. Mutations are structural as well
 * as bytes (mutate_structure.c). Must never crash, hang or
 * leak. Run from the repository root (ci/gate.json, phases/, evidence/). The reference
 * run is $FUZZ_REFERENCE when set (the Makefile names the accepted run cut small, so an
 * input costs one small parse), else the accepted H100 run. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "cmd/commands.h"
#include "core/files.h"
#include "core/names.h"

#define ACCEPTED_DIR "evidence/nvidia-h100-80gb-hbm3"

static char g_dir[64];                /* the temporary tree: ev/, out/, gnuplot */
static char g_run[256], g_accepted[512], g_out[128], g_gnuplot[128], g_evroot[128];

/* gate and compare read the reference run on every input: one that cannot be read would
 * stop each input at the same refusal, and the fuzzer would reach nothing past it. */
static int reference_readable(void)
{
    if (access(g_accepted, R_OK) == 0) return 0;
    fprintf(stderr, "fuzz_consumer: the reference run %s cannot be read (FUZZ_REFERENCE or %s/accepted.txt)\n",
            g_accepted, ACCEPTED_DIR);
    return -1;
}

static void remove_dir(void)
{
    if (g_dir[0]) files_remove_tree(g_dir);
}

/* A stand-in gnuplot: writes an empty SVG to its standard output, which report opens as
 * the plot's file and reads back, so every plot's script is generated without drawing it. */
static const char STANDIN[] =
    "#!/bin/sh\n"
    "printf '<svg><title>Gnuplot</title><desc></desc></svg>\\n'\n";

static int setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/fuzz_consumer.XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    atexit(remove_dir);
    snprintf(g_evroot, sizeof g_evroot, "%s/ev", g_dir);
    snprintf(g_run, sizeof g_run, "%s/ev/nvidia-h100-80gb-hbm3", g_dir);
    if (files_mkdirs(g_run)) return -1;
    snprintf(g_run, sizeof g_run, "%s/ev/nvidia-h100-80gb-hbm3/20990101T000000Z_fuzz000.json", g_dir);
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    snprintf(g_gnuplot, sizeof g_gnuplot, "%s/gnuplot", g_dir);
    if (files_write(g_gnuplot, STANDIN, sizeof STANDIN - 1) || chmod(g_gnuplot, 0755)) return -1;
    const char *ref = getenv("FUZZ_REFERENCE");
    if (ref && ref[0]) {
        snprintf(g_accepted, sizeof g_accepted, "%s", ref);
        return reference_readable();
    }
    char name[256] = "";
    FILE *f = fopen(ACCEPTED_DIR "/accepted.txt", "r");
    if (!f || !fgets(name, sizeof name, f)) {
        if (f) fclose(f);
        fprintf(stderr, "fuzz_consumer: run from the repository root (no " ACCEPTED_DIR "/accepted.txt)\n");
        return -1;
    }
    fclose(f);
    name[strcspn(name, " \n")] = '\0';
    snprintf(g_accepted, sizeof g_accepted, ACCEPTED_DIR "/%s", name);
    return reference_readable();
}

static int run_command(void)
{
#if defined(FUZZ_SHOW)
    char *argv[] = { "show", "--all", g_run, NULL };
    return cmd_show(3, argv);
#elif defined(FUZZ_GATE)
    char json[160];
    snprintf(json, sizeof json, "%s/gate.json", g_dir);
    /* --evidence: the accepted set the tolerances come from is the fuzzer's own (none: the
     * floor), not the 20 committed runs read again on every input */
    char *argv[] = { "gate", g_run, "--against", g_accepted, "--json", json, "--evidence", g_evroot, NULL };
    return cmd_gate(8, argv);
#elif defined(FUZZ_COMPARE)
    char *argv[] = { "compare", g_accepted, g_run, "--evidence", g_evroot, NULL };
    return cmd_compare(5, argv);
#elif defined(FUZZ_REPORT)
    char *argv[] = { "report", "--evidence", g_evroot, "--out", g_out, "--gnuplot", g_gnuplot,
                     "--include-partial", NULL };
    int rc = cmd_report(8, argv);
    files_remove_tree(g_out);
    return rc;
#else
#error "build with one of -DFUZZ_SHOW, -DFUZZ_GATE, -DFUZZ_COMPARE, -DFUZZ_REPORT"
#endif
}

static int run_one(void);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready = -1;
    if (ready < 0) ready = setup() == 0;
    if (!ready) abort();   /* a broken setup must not pass as a clean run */
    /* filed under its own GPU's directory (the reader refuses a run filed elsewhere): an
     * H200 seed is read as one */
    json_t *doc = json_loadb((const char *)data, size, 0, NULL);
    const char *slug = json_string_value(json_object_get(json_object_get(json_object_get(doc, "context"), "gpu"),
                                                         "slug"));
    char dir[256];
    snprintf(dir, sizeof dir, "%s/ev/%s", g_dir, slug && name_is_safe(slug) ? slug : "nvidia-h100-80gb-hbm3");
    json_decref(doc);
    if (files_mkdirs(dir) || snprintf(g_run, sizeof g_run, "%s/20990101T000000Z_fuzz000.json", dir) >= (int)sizeof g_run)
        return 0;
    if (files_write(g_run, (const char *)data, size)) return 0;
    int rc = run_one();
    unlink(g_run);   /* the next input may be another GPU's */
    rmdir(dir);      /* and at most a few GPU directories stay (the listing bounds them) */
    return rc;
}

static int run_one(void)
{
    FILE *saved_err = stderr, *saved_out = stdout;
    stderr = fopen("/dev/null", "w");   /* every refusal is explained there */
    stdout = fopen("/dev/null", "w");
    int rc = run_command();
    fclose(stderr);
    fclose(stdout);
    stderr = saved_err;
    stdout = saved_out;
    if (rc < 0 || rc > 3) abort();      /* every command answers with one of its exit codes */
    return 0;
}
