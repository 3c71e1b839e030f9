/* report.c: `attnladder report`: reports/ regenerated from every evidence file.
 * The report is written into a temporary directory beside the target and swapped into
 * place only when complete; `--check` writes it the same way and compares it with what
 * is there instead (what `make test` runs on the committed evidence). A malformed file
 * is named with its field and left out; the other evidence still reports, and the exit
 * status (2) says that something was left out (when nothing is left, nothing is written).
 * Each GPU's tables and plots come from its reference run (evidence/<gpu>/reference.txt,
 * evidence/run_lists.h), never simply the newest file; an invalid or dangling reference.txt
 * is named, the fallback is said on the page, and the exit status is 2.
 * Every path written is under --out: the names evidence puts in them are checked by the
 * evidence validator (core/names.h's rule). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/args.h"
#include "cmd/commands.h"
#include "evidence/evidence_file.h"
#include "core/files.h"
#include "report/complete.h"
#include "report/model.h"
#include "report/pages.h"
#include "report/plots.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: attnladder report [--check] [--evidence DIR] [--out DIR] [--config FILE]\n"
        "                         [--phases DIR] [--gnuplot PROGRAM] [--include-partial]\n"
        "                         [--keep-scripts DIR]\n"
        "  writes DIR (default reports/): README.md (the ladder per GPU), phases/<phase>.md,\n"
        "  plots/*.svg, from every evidence file under --evidence (default evidence/): each GPU's\n"
        "  tables and plots from its reference run (<gpu>/reference.txt), the others as history\n"
        "  --check          regenerate into a temporary directory and compare with --out;\n"
        "                   exit 1 when they differ (nothing is written)\n"
        "  --phases DIR     where the phase READMEs are (default phases)\n"
        "  --config FILE    the gate's bounds and rule (default " GATE_CONFIG_DEFAULT ")\n"
        "  --keep-scripts   also keep the gnuplot scripts in this directory\n"
        "  (--check also fails on a gap: a table column \"-\" in every row, a plot without data\n"
        "  or without what its caption promises)\n"
        "exit status: 0 written (or identical and complete), 1 --check found differences or\n"
        "             gaps, 2 bad input\n"
        "             (an evidence file was left out, a reference.txt is invalid, or the config\n"
        "             is unreadable)\n");
}

static int cmp_run(const void *pa, const void *pb)
{
    const run_data *a = pa, *b = pb;
    int c = strcmp(a->slug, b->slug);
    return c ? c : strcmp(a->base, b->base);
}

/* The file that makes a directory a report: --out is replaced whole only when it holds
 * it (or is new or empty), so a mistyped --out never deletes someone's files. */
#define REPORT_MARKER ".attnladder-report"

/* dir/name, or NULL after saying so (out of memory). */
static char *join_path(const char *dir, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0) {
        fprintf(stderr, "attnladder report: out of memory\n");
        return NULL;
    }
    return p;
}

/* The GPU's plot `what` copied to plots/<what>.svg. 0, or -1 after saying why. */
static int copy_top_plot(const report_ctx *c, const report_gpu *g, const char *what)
{
    char name[512];
    report_plot_name(name, sizeof name, g->slug, what);
    char *src = NULL, *dst = NULL;
    if (asprintf(&src, "%s/plots/%s", c->out, name) < 0) src = NULL;
    if (asprintf(&dst, "%s/plots/%s.svg", c->out, what) < 0) dst = NULL;
    size_t len;
    char *svg = src && dst ? files_read(src, &len) : NULL;
    int rc = svg ? files_write(dst, svg, len) : -1;
    if (rc) fprintf(stderr, "attnladder report: cannot copy %s to %s\n", src ? src : name, dst ? dst : what);
    free(svg);
    free(src);
    free(dst);
    return rc;
}

static int write_all(const report_ctx *c)
{
    static const char marker[] = "This directory is written by `attnladder report` and replaced whole "
                                 "by the next report; edit nothing in it.\n";
    char *m = join_path(c->out, REPORT_MARKER), *ph = join_path(c->out, "phases"),
         *pl = join_path(c->out, "plots");
    int rc = !m || !ph || !pl || files_write(m, marker, sizeof marker - 1) || files_mkdirs(ph) ||
             files_mkdirs(pl) ? -1 : 0;
    free(m);
    free(ph);
    free(pl);
    if (rc || report_write_readme(c)) return -1;
    /* no evidence yet: the README says so, and no rung has a page to show */
    for (size_t i = 0; c->n_gpus && i < c->n_phases; i++)
        if (report_write_phase(c, c->phases[i]) || report_plot_history(c, c->phases[i])) return -1;
    for (size_t i = 0; i < c->n_gpus; i++)
        if (c->gpus[i].ref && report_plots_gpu(c, &c->gpus[i])) return -1;
    /* The ladder and the rungs against the baseline of the GPU whose reference run is the
     * newest, under fixed names for the top-level README. */
    const report_gpu *newest = NULL;
    for (size_t i = 0; i < c->n_gpus; i++)
        if (c->gpus[i].ref && (!newest || strcmp(c->gpus[i].ref->base, newest->ref->base) > 0))
            newest = &c->gpus[i];
    static const char *const TOP[] = { "ladder", "versus" };
    for (size_t k = 0; newest && !rc && k < sizeof TOP / sizeof *TOP; k++) rc = copy_top_plot(c, newest, TOP[k]);
    return rc;
}

/* "./evidence/" and "evidence" name the same tree and must write the same links.
 * malloc'd (never cut to a buffer), or NULL when out of memory. */
static char *tidy_dir(const char *d)
{
    while (d[0] == '.' && d[1] == '/') d += 2;
    char *buf = strdup(d);
    size_t n = buf ? strlen(buf) : 0;
    while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0';
    return buf;
}

/* 0 when dir is an existing directory (following links); else -1 after naming it. */
/* 1 when a leading part of path (up to a '/') exists and is not a directory, with that
 * part in comp: `--out FILE/sub` names FILE, not "cannot read it". */
static int not_dir_component(const char *path, char *comp, size_t len)
{
    for (const char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        size_t n = (size_t)(s - path);
        if (n >= len) return 0;
        memcpy(comp, path, n);
        comp[n] = '\0';
        struct stat st;
        if (stat(comp, &st) == 0 && !S_ISDIR(st.st_mode)) return 1;
    }
    return 0;
}

static int need_dir(const char *opt, const char *dir)
{
    struct stat st;
    if (dir[0] && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
    fprintf(stderr, "attnladder report: %s '%s': not a directory\n", opt, dir);
    return -1;
}

/* An output directory may not be, hold, or lie inside what the report reads: replacing
 * it would delete the evidence or the phases, writing into it would add to them. */
static int apart_from_inputs(const char *opt, const char *dir, const char *const inputs[][2], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (inputs[i][1] && files_overlap(dir, inputs[i][1])) {
            fprintf(stderr, "attnladder report: %s '%s' is %s '%s', holds it or lies inside it; "
                    "give a directory apart from what the report reads\n", opt, dir, inputs[i][0],
                    inputs[i][1]);
            return -1;
        }
    return 0;
}

/* The directories read must exist. --out must be new, empty, or an earlier report (it
 * is replaced whole): an existing file, a link (whose target the swap would not replace
 * but whose name it would), or a directory of other files is refused before anything is
 * written or renamed. --check only reads --out. */
/* The pages and plots build their paths and links from these in fixed buffers of a few
 * KiB (report/): a longer one is refused here, never cut there into another path. */
#define REPORT_MAX_PATH 1024

static int check_dirs(const char *root, const char *phases, const char *config, const char *out,
                      const char *keep, int check)
{
    const char *const given[][2] = { { "--evidence", root }, { "--phases", phases }, { "--config", config },
                                     { "--out", out }, { "--keep-scripts", keep } };
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        if (given[i][1] && strlen(given[i][1]) > REPORT_MAX_PATH) {
            fprintf(stderr, "attnladder report: %s: %zu bytes long, longer than the %d a report's paths may be\n",
                    given[i][0], strlen(given[i][1]), REPORT_MAX_PATH);
            return -1;
        }
    if (need_dir("--evidence", root) || need_dir("--phases", phases)) return -1;
    struct stat st;
    if (!out[0]) {
        fprintf(stderr, "attnladder report: --out '': give a directory\n");
        return -1;
    }
    if (keep && !keep[0]) {
        fprintf(stderr, "attnladder report: --keep-scripts '': give a directory\n");
        return -1;
    }
    const char *const inputs[][2] = { { "--evidence", root }, { "--phases", phases }, { "--config", config },
                                      { "--keep-scripts", keep } };
    if (keep && apart_from_inputs("--keep-scripts", keep, inputs, 3)) return -1;
    if (check) return 0;
    if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode)) {
        fprintf(stderr, "attnladder report: --out '%s': not a directory but a symbolic link; the report "
                "replaces --out whole, so give the directory itself\n", out);
        return -1;
    }
    if (lstat(out, &st) == 0 && !S_ISDIR(st.st_mode) && need_dir("--out", out)) return -1;
    if (apart_from_inputs("--out", out, inputs, 4)) return -1;
    int ok = files_dir_replaceable(out, REPORT_MARKER);
    if (ok != 1) {
        char comp[4096];
        int e = errno;
        if (ok < 0 && not_dir_component(out, comp, sizeof comp))
            fprintf(stderr, "attnladder report: --out '%s': '%s' is a file, not a directory, so nothing "
                    "can be made below it\n", out, comp);
        else if (ok < 0) fprintf(stderr, "attnladder report: --out '%s': cannot read it (%s)\n", out, strerror(e));
        else fprintf(stderr, "attnladder report: --out '%s': a directory that holds no report (no %s in it); "
                     "the report replaces --out whole, so give a new or empty directory or an earlier "
                     "report's\n", out, REPORT_MARKER);
        return -1;
    }
    return 0;
}

static int report_paths(const char *root, const char *out, const char *phases, const char *config,
                        const char *gnuplot, const char *keep, int check, int include_partial);

int cmd_report(int argc, char **argv)
{
    const char *root = "evidence", *out = "reports", *config = GATE_CONFIG_DEFAULT;
    const char *phases = "phases", *gnuplot = "gnuplot", *keep = NULL;
    int check = 0, include_partial = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--check")) {
            check = 1;
        } else if (!strcmp(a, "--include-partial")) {
            include_partial = 1;
        } else if (!strcmp(a, "--evidence") || !strcmp(a, "--out") || !strcmp(a, "--config") ||
                   !strcmp(a, "--phases") || !strcmp(a, "--gnuplot") || !strcmp(a, "--keep-scripts")) {
            const char *v = arg_value("report", argc, argv, &i);
            if (!v) return EXIT_BAD_INPUT;
            if (!strcmp(a, "--evidence")) root = v;
            else if (!strcmp(a, "--out")) out = v;
            else if (!strcmp(a, "--config")) config = v;
            else if (!strcmp(a, "--phases")) phases = v;
            else if (!strcmp(a, "--gnuplot")) gnuplot = v;
            else keep = v;
        } else {
            fprintf(stderr, "attnladder report: unknown option '%s'; accepted: --check, --evidence, "
                    "--out, --config, --phases, --gnuplot, --include-partial, --keep-scripts\n", a);
            return EXIT_BAD_INPUT;
        }
    }
    char *root_buf = tidy_dir(root), *out_buf = tidy_dir(out), *phases_buf = tidy_dir(phases);
    if (!root_buf || !out_buf || !phases_buf) {
        fprintf(stderr, "attnladder report: out of memory\n");
        free(root_buf);
        free(out_buf);
        free(phases_buf);
        return EXIT_BAD_INPUT;
    }
    int rc = report_paths(root_buf, out_buf, phases_buf, config, gnuplot, keep, check, include_partial);
    free(root_buf);
    free(out_buf);
    free(phases_buf);
    return rc;
}

/* Longer than a harness function should be: the command's stages (config, runs, model,
 * pages into a temporary tree, then --check's comparison or the swap into place) share one
 * cleanup path that must remove the temporary tree on every exit; a stage split out would
 * need all of it to clean up. */
static int report_paths(const char *root, const char *out, const char *phases, const char *config,
                        const char *gnuplot, const char *keep, int check, int include_partial)
{
    char err[2048];
    gate_config cfg;
    if (gate_config_load(config, &cfg, err, sizeof err)) {
        fprintf(stderr, "attnladder report: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (check_dirs(root, phases, config, out, keep, check)) {
        gate_config_free(&cfg);
        return EXIT_BAD_INPUT;
    }
    char **paths = NULL;
    size_t n_paths = 0;
    if (evidence_list(root, include_partial, &paths, &n_paths, err, sizeof err)) {
        fprintf(stderr, "attnladder report: %s\n", err);
        gate_config_free(&cfg);
        return EXIT_BAD_INPUT;
    }
    run_data *runs = calloc(n_paths + 1, sizeof *runs);
    size_t n_runs = 0, bad = 0;
    for (size_t i = 0; runs && i < n_paths; i++) {
        if (run_open(&runs[n_runs], paths[i], err, sizeof err) == 0) {
            /* a run partial inside though not by name: left out like one named so */
            if (runs[n_runs].partial && !include_partial) {
                fprintf(stderr, "attnladder report: %s: partial (interrupted) run, left out "
                        "(--include-partial to report it)\n", paths[i]);
                run_close(&runs[n_runs]);
            } else {
                n_runs++;
            }
        } else {
            fprintf(stderr, "attnladder report: %s (left out; the other evidence still reports)\n", err);
            bad++;
        }
    }
    evidence_free_list(paths, n_paths);
    int rc = EXIT_BAD_INPUT;
    report_ctx c = { .cfg = &cfg, .evidence_root = root, .phases_dir = phases, .gnuplot = gnuplot,
                     .keep_scripts = keep };
    char tmp[8192] = "";
    if (!runs) goto out;
    if (bad && n_runs == 0) {   /* a report of nothing would only hide the refusals above */
        fprintf(stderr, "attnladder report: every evidence file under %s was left out; nothing written\n", root);
        goto out;
    }
    qsort(runs, n_runs, sizeof *runs, cmp_run);
    if (report_model_build(&c, runs, n_runs)) goto out;
    for (size_t i = 0; i < c.n_gpus; i++) bad += (size_t)(c.gpus[i].ref_bad + c.gpus[i].accepted_bad);
    if (files_temp_beside(out, tmp, sizeof tmp, err, sizeof err)) {
        fprintf(stderr, "attnladder report: %s\n", err);
        tmp[0] = '\0';
        goto out;
    }
    c.out = tmp;
    if (write_all(&c)) {
        fprintf(stderr, "attnladder report: nothing written to %s\n", out);
        goto out;
    }
    if (check) {
        long d = files_diff_trees(tmp, out, stderr);
        if (d < 0) {
            fprintf(stderr, "attnladder report --check: cannot read %s\n", out);
        } else if (d > 0) {
            fprintf(stderr, "attnladder report --check: %s differs from the report the evidence "
                    "gives (%ld file%s); regenerate it with `build/attnladder report` and commit it\n",
                    out, d, d == 1 ? "" : "s");
            rc = EXIT_GATE;
        } else {
            printf("report --check: %s matches the %zu evidence run%s\n", out, n_runs, n_runs == 1 ? "" : "s");
            rc = EXIT_OK;
        }
        /* matching the evidence is not enough: the report must show what it promises */
        long gaps = d < 0 ? 0 : report_check_complete(out, stderr);
        if (gaps != 0) {
            fprintf(stderr, "attnladder report --check: %s has %s: each GPU's reference run must hold every "
                    "column and plot (run `make run` on that GPU and name the run in its reference.txt)\n",
                    out, gaps < 0 ? "no README.md" : "the gaps above");
            rc = EXIT_GATE;
        }
        if (bad && rc != EXIT_GATE) rc = EXIT_BAD_INPUT;
        goto out;
    }
    if (files_swap_into_place(tmp, out, err, sizeof err)) {
        fprintf(stderr, "attnladder report: %s\n", err);
        goto out;
    }
    tmp[0] = '\0';
    printf("report: %s/README.md, %zu phase page%s, from %zu run%s on %zu GPU%s\n", out, c.n_phases,
           c.n_phases == 1 ? "" : "s", n_runs, n_runs == 1 ? "" : "s", c.n_gpus, c.n_gpus == 1 ? "" : "s");
    /* written, and said: what the reference runs leave empty fails `report --check` */
    long gaps = report_check_complete(out, stderr);
    if (gaps > 0)
        fprintf(stderr, "attnladder report: %ld gap%s above; `report --check` (make test) fails on them until each "
                "GPU's reference run holds every column and plot\n", gaps, gaps == 1 ? "" : "s");
    rc = bad ? EXIT_BAD_INPUT : EXIT_OK;
out:
    if (tmp[0]) files_remove_tree(tmp);
    report_model_free(&c);
    for (size_t i = 0; i < n_runs; i++) run_close(&runs[i]);
    free(runs);
    gate_config_free(&cfg);
    return rc;
}
