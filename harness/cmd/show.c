/* show.c: `attnladder show`: the headline table of each GPU's reference run from the
 * committed evidence, for a machine without a GPU (what `make run` prints there), or of
 * one run file. The run shown for a GPU is its reference run (evidence/<gpu>/reference.txt);
 * without one, the fallback of evidence/run_lists.h, said in a line before the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/args.h"
#include "cmd/commands.h"
#include "evidence/run_lists.h"
#include "evidence/evidence_file.h"
#include "evidence/reader.h"
#include "evidence/text_table.h"
#include "report/targets.h"

static void print_run(const run_data *run, const char *why, int all)
{
    printf("evidence: %s%s\n", run->path, run->partial ? " (partial: an interrupted run)" : "");
    if (why) printf("chosen: %s\n", why);
    printf("GPU: %s   date: %s   commit: %.12s%s%s\n", run->gpu_name, run->created_utc, run->commit,
           run->dirty ? " (dirty tree)" : "", run->clocks == RUN_CLOCKS_THROTTLED ? "   THROTTLED"
           : run->clocks == RUN_CLOCKS_POWER_CAP ? "   at the power cap" : "");
    if (all) table_print(stdout, run, NULL);
    else table_print_headline(stdout, run);
    report_vs_baseline_lines(stdout, run);   /* the whole run in a line a rung, past the headline */
}

/* The GPU slug of an evidence path root/<slug>/<file>, into buf. */
static const char *slug_of(const char *path, char *buf, size_t len)
{
    const char *end = strrchr(path, '/');
    const char *start = end;
    while (start && start > path && start[-1] != '/') start--;
    snprintf(buf, len, "%.*s", end && start ? (int)(end - start) : 0, start ? start : "");
    return buf;
}

/* One GPU: its reference run (or the fallback, said so). paths[0..n) are the GPU's run
 * files, oldest first; without reference.txt and accepted.txt the newest one that is
 * complete inside as well as by name stands in. 0 shown, -1 with err. */
static int show_gpu(const char *root, const char *slug, char **paths, size_t n, int all, char *err,
                    size_t errlen)
{
    for (size_t k = n; k-- > 0;) {
        char name[256], why[1024], path[4096];
        int rule = reference_choose(root, slug, strrchr(paths[k], '/') + 1, name, sizeof name, why, sizeof why,
                                    err, errlen);
        if (rule <= 0) return -1;
        if (snprintf(path, sizeof path, "%s/%s/%s", root, slug, name) >= (int)sizeof path) {
            snprintf(err, errlen, "%.200s...: --evidence makes too long a path", root);   /* never another file */
            return -1;
        }
        run_data run;
        if (run_open(&run, path, err, errlen)) return -1;
        if (run.partial) {
            run_close(&run);
            if (rule == REFERENCE_FALLBACK_NEWEST) continue;   /* partial inside, not by name */
            snprintf(err, errlen, "%.1000s: a partial (interrupted) run cannot stand for the GPU (%.900s)", path, why);
            return -1;
        }
        /* markdown's backquotes in the sentence read as noise on a terminal */
        for (char *p = why; *p; p++)
            if (*p == '`') memmove(p, p + 1, strlen(p));
        print_run(&run, why, all);
        run_close(&run);
        return 0;
    }
    snprintf(err, errlen, "no evidence under %s/%s yet (run `make run` on a GPU); partial runs are left out",
             root, slug);
    return -1;
}

/* Every GPU under root (or only `gpu`), in slug order, each with its reference run. */
static int show_reference_runs(const char *root, const char *gpu, int all)
{
    char err[2048], **paths = NULL;
    size_t n = 0, shown = 0, tried = 0;
    if (evidence_list(root, 0, &paths, &n, err, sizeof err)) {
        fprintf(stderr, "attnladder show: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_OK;
    /* paths are sorted by <slug>/<stamp>: each GPU's runs are one stretch, oldest first */
    for (size_t i = 0; i < n;) {
        char slug[512], next[512];
        slug_of(paths[i], slug, sizeof slug);
        size_t k = i;
        while (k < n && strcmp(slug_of(paths[k], next, sizeof next), slug) == 0) k++;
        size_t first = i;
        i = k;
        if (gpu && strcmp(gpu, slug) != 0) continue;
        tried++;
        if (shown) printf("\n");
        if (show_gpu(root, slug, paths + first, k - first, all, err, sizeof err)) {
            fprintf(stderr, "attnladder show: %s\n", err);
            rc = EXIT_BAD_INPUT;
        } else {
            shown++;
        }
    }
    evidence_free_list(paths, n);
    if (!tried) {
        fprintf(stderr, "attnladder show: no evidence under %s/%s yet (run `make run` on a GPU); partial runs "
                "are left out\n", root, gpu ? gpu : "");
        return EXIT_BAD_INPUT;
    }
    return rc;
}

int cmd_show(int argc, char **argv)
{
    const char *root = "evidence", *file = NULL, *gpu = NULL;
    int all = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--evidence")) {
            if (!(root = arg_value("show", argc, argv, &i))) return EXIT_BAD_INPUT;
        } else if (!strcmp(argv[i], "--gpu")) {
            if (!(gpu = arg_value("show", argc, argv, &i))) return EXIT_BAD_INPUT;
        } else if (!strcmp(argv[i], "--all")) {
            all = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: attnladder show [--evidence DIR] [--gpu SLUG] [--all] [FILE]\n"
                   "  the headline table (--all: every shape) of FILE, or of each GPU's reference\n"
                   "  run (DIR/<gpu>/reference.txt; without one, the fallback it says)\n");
            return EXIT_OK;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "attnladder show: unknown option '%s'; accepted: --evidence DIR, --gpu SLUG, "
                    "--all, FILE\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (file) {
            fprintf(stderr, "attnladder show: one run at a time ('%s' and '%s')\n", file, argv[i]);
            return EXIT_BAD_INPUT;
        } else {
            file = argv[i];
        }
    }
    if (!file) return show_reference_runs(root, gpu, all);
    char err[1024];
    run_data run;
    /* a file named on the command line is shown even when partial (it says so) */
    if (run_open(&run, file, err, sizeof err)) {
        fprintf(stderr, "attnladder show: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    print_run(&run, NULL, all);
    run_close(&run);
    return EXIT_OK;
}
