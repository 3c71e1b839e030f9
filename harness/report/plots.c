/* report/plots.c: the report's plots, drawn by gnuplot's svg terminal.
 * Each plot is one gnuplot script with its data inline (data blocks), written out and
 * run with LC_ALL=C, so the same model gives the same bytes: numbers are printed with
 * fixed formats, nothing depends on the time or the locale, and gnuplot's version line
 * in the SVG header is replaced by the plot's title. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "report/plots.h"
#include "report/baseline_libs.h"
#include "report/targets.h"
#include "core/files.h"
#include "core/shapes.h"
#include "core/text_safe.h"


/* ---- one script ------------------------------------------------------------------------ */

/* No path reaches a script: gnuplot is given the script's path as its argument (no
 * shell) and writes the SVG to its standard output, which is the plot's file. Every
 * string from evidence or the config is written by gq(), one gnuplot single-quoted
 * string (core/text_safe.h), inside which gnuplot runs no `command`. */

typedef struct {
    char *text;
    size_t len;
    FILE *f;
    char *name;          /* file name under plots/ (a safe name: core/names.h) */
    char *title;
    /* what the plot drew, written into its <desc> for report/complete.c: data points,
     * panels, the panels without data and what the caption promises that is not drawn */
    long points;
    int panels;
    char empty[512], missing[1024];
    char not_yet[512];   /* rungs another GPU's reference run holds and this one's does not */
} script;

/* A list in a fixed buffer, ", " between items; cut (never overrun) when full. */
static void add_item(char *buf, size_t len, const char *what)
{
    size_t l = strlen(buf);
    if (l + 1 < len) snprintf(buf + l, len - l, "%s%s", l ? ", " : "", what);
}

/* One panel drawn with `points` data points (its name says which when it is empty). */
static void script_panel(script *s, const char *panel, long points)
{
    s->panels++;
    s->points += points;
    if (points <= 0) add_item(s->empty, sizeof s->empty, panel);
}

/* Something the plot's caption promises that it could not draw, and why. */
static void script_missing(script *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void script_missing(script *s, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    add_item(s->missing, sizeof s->missing, what);
}

/* fmt's text as one gnuplot string, to f. */
static void gq(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gq(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *t = NULL;
    if (vasprintf(&t, fmt, ap) < 0) t = NULL;
    va_end(ap);
    text_put(f, t ? t : "", TEXT_GNUPLOT);
    free(t);
}

/* The time a row is drawn at: its own graph median, or for an external baseline (timed
 * in PyTorch's process) the run baseline's median times its paired ratio, never that
 * process's own clock (NAN where it has no ratio: not drawn). */
static double shown_us(const run_data *r, const run_result *x)
{
    const run_impl *im = run_find_impl(r, x->impl);
    if (!im || strcmp(im->kind, "external")) return x->median_us;
    double us;
    return report_external_time(r, x, &us) ? NAN : us;
}

static double shown_tflops(const run_data *r, const run_result *x)
{
    double us = shown_us(r, x);
    return us == x->median_us ? x->tflops : x->flops / (us * 1e-6) / 1e12;
}

/* A series' legend: an external says how its figures were taken. */
static void series_title(FILE *f, const run_data *r, const run_impl *im)
{
    if (strcmp(im->kind, "external")) {
        gq(f, "%s", im->name);
        return;
    }
    int old = 0;
    for (size_t k = 0; k < r->n_results && !old; k++)
        old = !strcmp(r->results[k].impl, im->name) && report_external_source(r, &r->results[k]) == EXTERNAL_OLD_METHOD;
    gq(f, "%s (%s)", im->name, old ? "old method" : "paired");
}

/* A plot command's list of series, grown as needed: item() adds ", \\\n     " between. */
typedef struct {
    char *text;
    size_t len;
    FILE *f;
} plot_list;

static int list_open(plot_list *l)
{
    memset(l, 0, sizeof *l);
    l->f = open_memstream(&l->text, &l->len);
    return l->f ? 0 : -1;
}

static FILE *item(plot_list *l)
{
    if (ftell(l->f) > 0) fprintf(l->f, ", \\\n     ");
    return l->f;
}

/* Writes "plot <list>" (or the fallback when the list is empty) to f; frees the list. */
static int list_plot(plot_list *l, FILE *f, const char *fallback)
{
    long n = ftell(l->f);
    int rc = fclose(l->f);
    if (rc == 0) fprintf(f, "plot %s\n", n > 0 ? l->text : fallback);
    free(l->text);
    return rc ? -1 : 0;
}

static int script_begin(script *s, const char *name, const char *title, int width, int height)
{
    memset(s, 0, sizeof *s);
    s->name = strdup(name);
    s->title = strdup(title);
    s->f = s->name && s->title ? open_memstream(&s->text, &s->len) : NULL;
    if (!s->f) {
        free(s->name);
        free(s->title);
        fprintf(stderr, "attnladder report: out of memory\n");
        return -1;
    }
    fprintf(s->f, "set terminal svg size %d,%d fixed font \"sans-serif,13\" noenhanced "
            "background rgb \"white\"\n", width, height);
    fprintf(s->f, "set datafile missing \"NaN\"\nset grid lc rgb \"#e0e0e0\" lw 1\n"
            "set border lc rgb \"#404040\"\nset key box lc rgb \"#c0c0c0\" opaque samplen 2.5\n");
    return 0;
}

static void script_free(script *s)
{
    free(s->text);
    free(s->name);
    free(s->title);
}

/* environ with LC_ALL=C in place of any LC_ALL (the array only: the strings are
 * environ's), or NULL when out of memory */
static char **c_locale_environ(void)
{
    extern char **environ;
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **env = malloc((n + 2) * sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LC_ALL=", 7)) env[k++] = environ[i];
    env[k++] = "LC_ALL=C";
    env[k] = NULL;
    return env;
}

/* Starts gnuplot on the script gp, its standard output out_fd, its standard error the
 * file err, with LC_ALL=C; 0 and *pid, or the error number. posix_spawn rather than
 * fork: no copy of this process's page tables for a child that replaces them at once (a
 * fork of the ASan build copied its shadow memory's, most of a report's system time).
 * The program found as execlp finds it; no shell. */
static int start_gnuplot(const char *gnuplot, const char *gp, const char *err, int out_fd, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) return ENOMEM;
    char **env = c_locale_environ();
    int rc = env ? 0 : ENOMEM;
    if (!rc) rc = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    char *argv[] = { (char *)gnuplot, (char *)gp, NULL };
    if (!rc) rc = posix_spawnp(pid, gnuplot, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    return rc;
}

/* an error of the program itself (not there, not runnable), not of starting a process */
static int cannot_run(int e)
{
    return e == ENOENT || e == EACCES || e == ENOEXEC || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG ||
           e == EPERM || e == ETXTBSY;
}

/* Runs gnuplot on the script (its output the SVG file), then replaces its version line
 * in the SVG header by the plot's title.
 * Longer than a harness function should be: the script file, the kept copy, the child
 * process and its error file share one cleanup that removes the temporary files on every
 * exit; a step split out would need all of them to clean up. */
static int script_run(script *s, const report_ctx *c)
{
    if (fclose(s->f)) {
        script_free(s);
        return -1;
    }
    char *gp = NULL, *err = NULL, *svg = NULL, *keep = NULL;
    int rc = -1;
    if (asprintf(&gp, "%s/plots/.%s.gp", c->out, s->name) < 0) gp = NULL;
    if (asprintf(&err, "%s/plots/.%s.err", c->out, s->name) < 0) err = NULL;
    if (asprintf(&svg, "%s/plots/%s", c->out, s->name) < 0) svg = NULL;
    if (c->keep_scripts && asprintf(&keep, "%s/%.*s.gp", c->keep_scripts, (int)(strlen(s->name) - 4), s->name) < 0)
        keep = NULL;
    if (!gp || !err || !svg || (c->keep_scripts && !keep)) {
        fprintf(stderr, "attnladder report: out of memory\n");
        goto done;
    }
    if (files_write(gp, s->text, s->len)) goto done;
    if (keep && (files_mkdirs(c->keep_scripts) || files_write(keep, s->text, s->len))) goto done;
    int out_fd = open(svg, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out_fd < 0) {
        fprintf(stderr, "attnladder report: cannot write %s: %s\n", svg, strerror(errno));
        goto done;
    }
    pid_t pid = 0;
    int started = start_gnuplot(c->gnuplot, gp, err, out_fd, &pid);
    close(out_fd);
    if (started && !cannot_run(started)) {
        fprintf(stderr, "attnladder report: cannot start %s: %s\n", c->gnuplot, strerror(started));
        unlink(gp);
        unlink(err);
        goto done;
    }
    int status = 0;
    while (!started && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    /* whether the disk is full is asked before the script and error files go: removing
     * them frees the few blocks that would hide the cause of a truncated plot */
    const int full = !started && files_disk_full(c->out);
    size_t elen = 0;
    char *etext = started ? NULL : files_read(err, &elen);
    int ok = !started && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok)
        fprintf(stderr, "attnladder report: %s failed on plots/%s: %s\n", c->gnuplot, s->name,
                started ? "cannot run it (install gnuplot-nox, or name it with --gnuplot)\n"
                        : etext && elen ? etext : "(no message)");
    free(etext);
    unlink(gp);
    unlink(err);
    if (!ok) goto done;
    size_t len = 0;
    char *text = files_read(svg, &len);
    if (!text || !len || !strstr(text, "</svg>")) {
        /* gnuplot says nothing of a write that failed: a full disk is the likely cause */
        fprintf(stderr, "attnladder report: gnuplot wrote %s plots/%s%s%s%s\n", text && len ? "an incomplete" : "no",
                s->name, full ? ": " : "", full ? strerror(ENOSPC) : "", full ? " (the file system holding it)" : "");
        free(text);
        goto done;
    }
    const char *a = strstr(text, "<title>Gnuplot</title>");
    const char *b = a ? strstr(a, "</desc>") : NULL;
    FILE *f = fopen(svg, "wb");
    if (!f) {
        fprintf(stderr, "attnladder report: cannot write %s: %s\n", svg, strerror(errno));
        free(text);
        goto done;
    }
    if (a && b) {
        b += strlen("</desc>");
        fwrite(text, 1, (size_t)(a - text), f);
        fprintf(f, "<title>");
        for (const char *p = s->title; *p; p++) {   /* XML text: the two characters it reads */
            if (*p == '<') fputs("&lt;", f);
            else if (*p == '&') fputs("&amp;", f);
            else fputc(*p, f);
        }
        /* the names in the lists are safe names and the report's own words: no markup */
        fprintf(f, "</title>\n<desc>attnladder report: %ld data points in %d panel%s%s%s%s%s%s%s</desc>", s->points,
                s->panels, s->panels == 1 ? "" : "s", s->empty[0] ? "; empty: " : "", s->empty,
                s->missing[0] ? "; missing: " : "", s->missing,
                s->not_yet[0] ? "; not yet run on this GPU: " : "", s->not_yet);
        fwrite(b, 1, len - (size_t)(b - text), f);
    } else {
        fwrite(text, 1, len, f);
    }
    free(text);
    int e = files_close_errno(f, svg);
    if (e) fprintf(stderr, "attnladder report: writing %s failed: %s\n", svg, strerror(e));
    rc = e ? -1 : 0;
done:
    free(gp);
    free(err);
    free(svg);
    free(keep);
    script_free(s);
    return rc;
}

static void num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, " %.6g", x);
    else fprintf(f, " NaN");
}

/* ---- the ladder ------------------------------------------------------------------------ */

/* Longer than a harness function should be: one gnuplot script written top to bottom in
 * the order gnuplot reads it (settings, data blocks, then the panels that use them), so
 * that the plot's text is read in one place; its panels are already functions. */
static int plot_ladder(const report_ctx *c, const report_gpu *g)
{
    const run_data *r = g->ref;
    const gate_config *cfg = c->cfg;
    script s;
    char name[512], title[512], t2[96];
    report_plot_name(name, sizeof name, g->slug, "ladder");
    run_shape_text(&cfg->headline[0], t2, sizeof t2);
    snprintf(title, sizeof title, "%s: median latency per rung, %s", g->gpu_name, t2);   /* cut: only a title */
    if (script_begin(&s, name, title, 960, 540)) return -1;
    FILE *f = s.f;
    size_t nh = cfg->n_headline < 2 ? cfg->n_headline : 2;   /* two series read; more clutter */
    fprintf(f, "set title ");
    gq(f, "%s: median latency per rung (B x H x S x D = %s%s)", g->gpu_name, t2,
       nh > 1 ? ", non-causal and causal" : "");
    fprintf(f, "\n");
    fprintf(f, "set ylabel \"median latency per launch (us, log scale)\"\nset logscale y\n"
            "set xtics rotate by -25 nomirror\nset key inside top right vertical\n"
            "set bmargin 5\nset format y \"%%.10g\"\n");
    fprintf(f, "$rungs << EOD\n");
    int n = 0;
    long points = 0;
    for (size_t i = 0; i < c->n_phases; i++) {
        const run_impl *im = run_find_impl(r, c->phases[i]);
        if (!im || strcmp(im->kind, "phase") != 0) continue;
        fprintf(f, "%d \"%s\"", n++, c->phases[i]);   /* a safe name (core/names.h) */
        for (size_t h = 0; h < nh; h++) {
            const run_result *x = run_find(r, c->phases[i], &cfg->headline[h]);
            int t = x && x->timed;
            points += t;
            num(f, t ? x->median_us : NAN);
            num(f, t ? x->ci_lo_us : NAN);
            num(f, t ? x->ci_hi_us : NAN);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "EOD\nset xrange [-0.5:%f]\n", n > 0 ? n - 0.5 : 0.5);
    script_panel(&s, "ladder", points);
    for (size_t i = 0; i < c->n_phases; i++) {   /* every current rung, in the run */
        if (!c->current[i] || report_rung_in_run(c, r, i)) continue;
        /* run on another GPU only: said in the plot, no gap (report_rung_in_some_reference) */
        if (report_rung_in_some_reference(c, i)) add_item(s.not_yet, sizeof s.not_yet, c->phases[i]);
        else script_missing(&s, "%s (not in the run)", c->phases[i]);
    }
    if (s.not_yet[0]) {
        fprintf(f, "set label 1 ");
        gq(f, "not yet run on this GPU: %s", s.not_yet);
        fprintf(f, " at graph 0.01, graph 0.04 left font \",10\" tc rgb \"#555555\"\n");
    }
    static const char *const SERIES_COLOUR[] = { "#1f77b4", "#d62728" };
    static const char *const SERIES_NAME[] = { "non-causal", "causal" };
    plot_list pl;
    if (list_open(&pl)) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    for (size_t h = 0; h < nh; h++) {
        const char *sname = cfg->headline[h].causal ? SERIES_NAME[1] : SERIES_NAME[0];
        const char *col = SERIES_COLOUR[h];
        fprintf(item(&pl), "$rungs using 1:%zu:%zu:%zu%s with yerrorlines lw 2 pt %d ps 1.2 lc rgb \"%s\" "
                "title \"phases, %s\"", 3 + 3 * h, 4 + 3 * h, 5 + 3 * h,
                h == 0 ? ":xtic(2)" : "", h ? 5 : 7, col, sname);
        const run_result *b = run_find(r, cfg->baseline, &cfg->headline[h]);
        if (b && b->timed) {
            fprintf(item(&pl), "%.6g with lines dt 2 lw 2 lc rgb \"%s\" title ", b->median_us, col);
            gq(pl.f, "%s, %s", cfg->baseline, sname);
        } else {
            script_missing(&s, "%s, %s (not timed)", cfg->baseline, sname);
        }
        double fl = report_physical_floor_us(r, &cfg->headline[h]);
        if (isfinite(fl))
            fprintf(item(&pl), "%.6g with lines dt 3 lw 2 lc rgb \"%s\" title \"physical floor, %s\"", fl,
                    col, sname);
        else
            script_missing(&s, "the physical floor, %s (no ceilings in the run)", sname);
    }
    if (list_plot(&pl, f, "1 with lines lc rgb \"white\" notitle")) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    return script_run(&s, c);
}

/* ---- each rung against the baseline across the run ---------------------------------------- */

/* Every rung of the run against the baseline at every point where it has a ratio
 * (report_rung_vs_baseline): its geometric mean, its lowest and highest ratio as the bar,
 * and how many points are at or below 1.00 written above it. Where the headline plot is
 * flat (rungs 10 on run one latency kernel there), this one shows what each rung bought. */
static int plot_versus(const report_ctx *c, const report_gpu *g)
{
    const run_data *r = g->ref;
    script s;
    char name[512], title[512];
    report_plot_name(name, sizeof name, g->slug, "versus");
    snprintf(title, sizeof title, "%s: each rung against %s across the run", g->gpu_name, c->cfg->baseline);
    if (script_begin(&s, name, title, 960, 540)) return -1;   /* cut: only a title */
    FILE *f = s.f;
    char lib[96];
    report_baseline_library(lib, sizeof lib, r);
    fprintf(f, "set title ");
    gq(f, "%s: each rung's ratio to %s, %s, at every point of the run (lower is faster)", g->gpu_name,
       c->cfg->baseline, lib);
    fprintf(f, "\nset ylabel ");
    gq(f, "ratio to %s (log scale)", c->cfg->baseline);
    fprintf(f, "\nset logscale y\nset format y \"%%.10g\"\nset xtics rotate by -25 nomirror\n"
            "set key inside top right vertical\nset bmargin 5\n$rungs << EOD\n");
    int n = 0;
    double top = 1;
    for (size_t i = 0; i < c->n_phases; i++) {
        report_vs_baseline v;
        const run_impl *im = run_find_impl(r, c->phases[i]);
        if (!im || strcmp(im->kind, "phase") || report_rung_vs_baseline(r, c->phases[i], &v)) continue;
        /* a safe name (core/names.h); the label: at or below 1.00 of all */
        fprintf(f, "%d \"%s\"", n++, c->phases[i]);
        num(f, v.geomean);
        num(f, v.lowest);
        num(f, v.highest);
        fprintf(f, " \"%zu/%zu\"\n", v.at_or_below, v.points);
        top = fmax(top, v.highest);
    }
    fprintf(f, "EOD\nset xrange [-0.5:%f]\nset yrange [*:%.6g]\n", n > 0 ? n - 0.5 : 0.5, top * 4);
    script_panel(&s, "versus", n);
    fprintf(f, "plot $rungs using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb \"#1f77b4\" "
            "title \"geometric mean, lowest to highest\", \\\n     $rungs using 1:5:6 with labels offset 0,0.9 "
            "font \",10\" notitle, \\\n     1 with lines dt 2 lw 2 lc rgb \"#404040\" title ");
    gq(f, "%s (1.00); above each rung: its points at or below 1.00", c->cfg->baseline);
    fprintf(f, "\n");
    return script_run(&s, c);
}

/* ---- the speedup waterfall -------------------------------------------------------------- */

static void waterfall_panel(script *sc, const report_ctx *c, const run_data *r, const attn_shape *s,
                            const char *block)
{
    FILE *f = sc->f;
    const run_result *first = report_first_rung(c, r, s);
    char text[96];
    run_shape_text(s, text, sizeof text);
    fprintf(f, "$%s << EOD\n", block);
    int n = 0;
    double prev = 1.0, ymin = 1.0, ymax = 1.0;
    for (size_t i = 0; first && i < c->n_phases; i++) {
        const run_result *x = run_find(r, c->phases[i], s);
        if (!x || !x->timed) continue;
        double cum = first->median_us / x->median_us;
        double lo = x == first ? 0.985 : fmin(prev, cum), hi = x == first ? 1.015 : fmax(prev, cum);
        char label[48];
        if (x == first) snprintf(label, sizeof label, "1");
        else snprintf(label, sizeof label, "x%.2f", cum / prev);
        fprintf(f, "%d \"%s\" %.6g %.6g %s \"%s\" %.6g\n", n++, c->phases[i], lo, hi,
                x == first ? "0x555555" : cum >= prev ? "0x2ca02c" : "0xd62728", label, hi);
        prev = cum;
        ymin = fmin(ymin, lo);
        ymax = fmax(ymax, hi);
    }
    const run_result *b = run_find(r, c->cfg->baseline, s);
    if (first && b && b->timed) {
        double sp = first->median_us / b->median_us;
        /* the config's baseline is a safe name (gate/config.c), as data here */
        fprintf(f, "%d \"%s\" %.6g %.6g 0x888888 \"x%.3g\" %.6g\n", n++, c->cfg->baseline, fmin(1.0, sp),
                fmax(1.0, sp), sp, fmax(1.0, sp));
        ymin = fmin(ymin, sp);
        ymax = fmax(ymax, sp);
    }
    fprintf(f, "EOD\n");
    script_panel(sc, text, n);
    double fl = first ? first->median_us / report_physical_floor_us(r, s) : NAN;
    if (isfinite(fl)) ymax = fmax(ymax, fl);
    fprintf(f, "set title \"%s\"\nset xrange [-0.6:%f]\nset yrange [%.6g:%.6g]\n", text,
            n > 0 ? n - 0.4 : 0.4, ymin / 2, ymax * 3);
    fprintf(f, "plot $%s using 1:(sqrt($3*$4)):($1-0.35):($1+0.35):3:4:5:xtic(2) with boxxyerror "
            "fs solid 0.75 lc rgb variable notitle, \\\n     $%s using 1:7:6 with labels offset 0,0.7 "
            "font \",11\" notitle", block, block);
    if (isfinite(fl))
        fprintf(f, ", \\\n     %.6g with lines dt 3 lw 2 lc rgb \"#404040\" title \"physical floor\"", fl);
    fprintf(f, "\n");
}

static int plot_waterfall(const report_ctx *c, const report_gpu *g)
{
    const run_data *r = g->ref;
    script s;
    char name[512], title[512];
    report_plot_name(name, sizeof name, g->slug, "waterfall");
    const run_result *first = report_first_rung(c, r, &c->cfg->headline[0]);
    const char *over = first ? first->impl : "the first rung";
    snprintf(title, sizeof title, "%s: speedup waterfall over %s", g->gpu_name, over);   /* cut: only a title */
    size_t nh = c->cfg->n_headline < 2 ? c->cfg->n_headline : 2;
    if (script_begin(&s, name, title, 1100, 520)) return -1;
    FILE *f = s.f;
    fprintf(f, "set multiplot layout 1,%zu title ", nh);
    gq(f, "%s: cumulative speedup over %s, each rung's own factor on its bar", g->gpu_name, over);
    fprintf(f, "\nset logscale y\nset format y \"x%%g\"\nset ylabel ");
    gq(f, "speedup over %s (log scale)", over);
    fprintf(f, "\nset xtics rotate by -25 nomirror\nset key top left\nset bmargin 6\n");
    for (size_t h = 0; h < nh; h++) {
        char block[16];
        snprintf(block, sizeof block, "w%zu", h);
        waterfall_panel(&s, c, r, &c->cfg->headline[h], block);
    }
    fprintf(f, "unset multiplot\n");
    return script_run(&s, c);
}

/* ---- the roofline ---------------------------------------------------------------------- */

/* Longer than a harness function should be: one gnuplot script written top to bottom in
 * the order gnuplot reads it (the ceilings' lines, each rung's point, the labels), so that
 * the plot's text is read in one place. */
static int plot_roofline(const report_ctx *c, const report_gpu *g)
{
    const run_data *r = g->ref;
    script s;
    char name[512], title[512];
    report_plot_name(name, sizeof name, g->slug, "roofline");
    snprintf(title, sizeof title, "%s: roofline", g->gpu_name);   /* cut: only a title */
    if (script_begin(&s, name, title, 960, 600)) return -1;
    FILE *f = s.f;
    double amin = INFINITY, amax = 0, tmax = 0;
    long points = 0;
    fprintf(f, "set title ");
    gq(f, "%s: roofline, every timed shape of the reference run", g->gpu_name);
    fprintf(f, "\n");
    fprintf(f, "set logscale xy\nset xlabel \"arithmetic intensity (FLOPs per compulsory byte of Q, K, V, O; "
            "log scale)\"\nset ylabel \"achieved TFLOP/s (log scale)\"\nset format x \"%%g\"\nset format y \"%%g\"\n"
            "set key outside right top vertical\n");
    int series = 0;
    plot_list pl;
    if (list_open(&pl)) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->n_impls; i++) {
            const run_impl *im = &r->impls[i];
            int is_phase = strcmp(im->kind, "phase") == 0;
            if (pass == 0 ? !is_phase : (strcmp(im->kind, "baseline") && strcmp(im->kind, "external")))
                continue;
            fprintf(f, "$r%d << EOD\n", series);
            int any = 0;
            for (size_t k = 0; k < r->n_results; k++) {
                const run_result *x = &r->results[k];
                double tf = shown_tflops(r, x);
                if (strcmp(x->impl, im->name) != 0 || !x->timed || !(x->bytes > 0) || !isfinite(tf)) continue;
                double ai = x->flops / x->bytes;
                fprintf(f, "%.6g %.6g\n", ai, tf);
                points++;
                amin = fmin(amin, ai);
                amax = fmax(amax, ai);
                tmax = fmax(tmax, tf);
                any = 1;
            }
            fprintf(f, "EOD\n");
            if (!any) continue;
            const char *col = is_phase ? report_impl_colour(c, im->name, im->kind) : report_baseline_colour(c, r, im->name);
            fprintf(item(&pl), "$r%d using 1:2 with points pt %d ps 1.1 lc rgb \"%s\" title ", series,
                    is_phase ? 7 : 6 + 2 * (report_baseline_index(r, im->name) % 4), col);
            series_title(pl.f, r, im);
            series++;
        }
    int roof = r->fp16_tflops > 0 && r->dram_gbps > 0;
    script_panel(&s, "roofline", points);
    if (!roof) script_missing(&s, "the roofs (no ceilings in the run)");
    if (!isfinite(amin)) {
        amin = 1;
        amax = 1000;
    }
    double xlo = amin / 2, xhi = amax * 2;
    if (roof) {
        double ridge = r->fp16_tflops * 1000.0 / r->dram_gbps;
        xlo = fmin(xlo, ridge / 4);
        xhi = fmax(xhi, ridge * 2);
        fprintf(f, "set xrange [%.6g:%.6g]\nset yrange [*:%.6g]\n", xlo, xhi, r->fp16_tflops * 2);
        fprintf(f, "roof(x) = (x * %.6g / 1000.0 < %.6g) ? x * %.6g / 1000.0 : %.6g\n", r->dram_gbps,
                r->fp16_tflops, r->dram_gbps, r->fp16_tflops);
        fprintf(f, "set label 1 \"ridge: %.0f FLOP/B\" at %.6g,%.6g right offset -0.8,0 tc rgb \"#404040\"\n",
                ridge, ridge, r->fp16_tflops);
        fprintf(f, "set label 2 \"roof: device copy %.0f GB/s, fp16 GEMM %.0f TFLOP/s\" at graph 0.98,0.04 "
                "right tc rgb \"#404040\"\n", r->dram_gbps, r->fp16_tflops);
        fprintf(item(&pl), "roof(x) with lines lw 2 lc rgb \"#404040\" title \"roof\"");
    } else {
        fprintf(f, "set xrange [%.6g:%.6g]\nset label 1 \"ceilings not measured in this run\" at graph 0.5,0.95 "
                "center\n", xlo, xhi);
    }
    (void)tmax;
    if (list_plot(&pl, f, "1 with lines lc rgb \"white\" notitle")) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    return script_run(&s, c);
}

/* ---- against sequence length ------------------------------------------------------------- */

/* The standard sweep: square, 16384 tokens per batch, model width 2048. */
static int is_sweep_point(const attn_shape *s, int d, int causal)
{
    return s->seq_q == s->seq_kv && s->head_dim == d && s->causal == causal &&
           s->batch * s->seq_q == 16384 && s->heads * s->head_dim == 2048;
}

/* One series' data block of a sequence-length panel: S, the figure, its CI. */
static void seq_block(FILE *f, const run_data *r, const run_result *const *pts, size_t n, int tflops, int block)
{
    fprintf(f, "$s%d << EOD\n", block);
    for (size_t k = 0; k < n; k++) {
        fprintf(f, "%d", pts[k]->shape.seq_q);
        /* an external's time is the baseline's times its ratio: no CI of its own */
        int own = shown_us(r, pts[k]) == pts[k]->median_us;
        num(f, tflops ? shown_tflops(r, pts[k]) : shown_us(r, pts[k]));
        num(f, tflops || !own ? NAN : pts[k]->ci_lo_us);
        num(f, tflops || !own ? NAN : pts[k]->ci_hi_us);
        fprintf(f, "\n");
    }
    fprintf(f, "EOD\n");
}

static int seq_panel(script *sc, const report_ctx *c, const run_data *r, int d, int causal, int tflops,
                     int *block)
{
    FILE *f = sc->f;
    char panel[64], absent[1024] = "";
    snprintf(panel, sizeof panel, "D = %d %s", d, causal ? "causal" : "non-causal");
    long points = 0;
    plot_list pl;
    if (list_open(&pl)) return -1;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->n_impls; i++) {
            const run_impl *im = &r->impls[i];
            int is_phase = strcmp(im->kind, "phase") == 0;
            if (pass == 0 ? !is_phase : (strcmp(im->kind, "baseline") && strcmp(im->kind, "external")))
                continue;
            const run_result **pts = malloc((r->n_results + 1) * sizeof *pts);
            if (!pts) {
                list_plot(&pl, f, "");
                return -1;
            }
            size_t n = 0;
            for (size_t k = 0; k < r->n_results; k++) {
                const run_result *x = &r->results[k];
                if (strcmp(x->impl, im->name) == 0 && x->timed && is_sweep_point(&x->shape, d, causal) &&
                    isfinite(shown_us(r, x)))
                    pts[n++] = x;
            }
            /* in order of S (insertion sort: a handful of points) */
            for (size_t a = 1; a < n; a++)
                for (size_t b = a; b > 0 && pts[b - 1]->shape.seq_q > pts[b]->shape.seq_q; b--) {
                    const run_result *t = pts[b];
                    pts[b] = pts[b - 1];
                    pts[b - 1] = t;
                }
            points += (long)n;
            /* every rung and the gate's baseline, at least one point each */
            if (!n && (is_phase || strcmp(im->kind, "baseline") == 0)) add_item(absent, sizeof absent, im->name);
            if (n) {
                seq_block(f, r, pts, n, tflops, *block);
                const char *col = is_phase ? report_impl_colour(c, im->name, im->kind) : report_baseline_colour(c, r, im->name);
                fprintf(item(&pl), "$s%d using 1:2 with linespoints lw 2 pt %d ps 1.0 dt %d lc rgb \"%s\" title ",
                        *block, is_phase ? 7 : 6 + 2 * (report_baseline_index(r, im->name) % 4),
                        is_phase ? 1 : 2, col);
                series_title(pl.f, r, im);
                (*block)++;
            }
            free(pts);
        }
    if (!tflops && r->fp16_tflops > 0 && r->dram_gbps > 0) {
        fprintf(f, "$s%d << EOD\n", *block);
        for (int sq = 128; sq <= 16384; sq *= 2) {
            attn_shape s = { 16384 / sq, 2048 / d, sq, sq, d, causal, 0 };
            fprintf(f, "%d %.6g\n", sq, report_physical_floor_us(r, &s));
        }
        fprintf(f, "EOD\n");
        fprintf(item(&pl), "$s%d using 1:2 with lines dt 3 lw 2 lc rgb \"#404040\" title \"physical floor\"",
                *block);
        (*block)++;
    }
    if (tflops && r->fp16_tflops > 0)
        fprintf(item(&pl), "%.6g with lines dt 3 lw 2 lc rgb \"#404040\" title \"fp16 GEMM ceiling\"",
                r->fp16_tflops);
    if (!(r->fp16_tflops > 0 && r->dram_gbps > 0) && points > 0)
        script_missing(sc, "the %s at %s (no ceilings in the run)", tflops ? "fp16 GEMM ceiling" : "physical floor",
                       panel);
    script_panel(sc, panel, points);
    /* an empty panel is said once; in a drawn one, each rung or baseline without a point */
    if (points > 0 && absent[0]) script_missing(sc, "at %s no sweep point of %s", panel, absent);
    fprintf(f, "set title \"%s\"\n", causal ? "causal" : "non-causal");
    if (ftell(pl.f) == 0) fprintf(f, "set label 1 \"no sweep points in this run\" at graph 0.5,0.5 center\n");
    else fprintf(f, "unset label 1\n");
    return list_plot(&pl, f, "1 with lines lc rgb \"white\" notitle");
}

static int plot_seq(const report_ctx *c, const report_gpu *g, int d, int tflops)
{
    const run_data *r = g->ref;
    script s;
    char name[512], what[32], title[512];
    snprintf(what, sizeof what, "%s-d%d", tflops ? "tflops" : "latency", d);
    report_plot_name(name, sizeof name, g->slug, what);
    snprintf(title, sizeof title, "%s: %s against sequence length, D = %d", g->gpu_name,
             tflops ? "TFLOP/s" : "latency", d);   /* cut: only a title */
    if (script_begin(&s, name, title, 1200, 640)) return -1;
    FILE *f = s.f;
    fprintf(f, "set multiplot layout 1,2 title ");
    gq(f, "%s: %s against S at D = %d (B = 16384/S, H = 2048/D; phases solid, baselines dashed)",
       g->gpu_name, tflops ? "achieved TFLOP/s" : "median latency", d);
    fprintf(f, "\n");
    fprintf(f, "set logscale x 2\nset xrange [96:21000]\nset xtics (\"128\" 128, \"256\" 256, \"512\" 512, "
            "\"1k\" 1024, \"2k\" 2048, \"4k\" 4096, \"8k\" 8192, \"16k\" 16384)\n"
            "set xlabel \"sequence length S (log scale)\"\n"
            "set key outside below center horizontal maxrows 4 samplen 2.5\nset bmargin 10\n");
    if (tflops && r->fp16_tflops > 0)
        fprintf(f, "set ylabel \"achieved TFLOP/s\"\nset yrange [0:%.6g]\n", r->fp16_tflops * 1.08);
    else if (tflops)
        fprintf(f, "set ylabel \"achieved TFLOP/s\"\nset yrange [0:*]\n");
    else
        fprintf(f, "set ylabel \"median latency per launch (us, log scale)\"\nset logscale y\n"
                "set format y \"%%.10g\"\n");
    int block = 0;
    if (seq_panel(&s, c, r, d, 0, tflops, &block) || seq_panel(&s, c, r, d, 1, tflops, &block)) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    fprintf(f, "unset multiplot\n");
    return script_run(&s, c);
}

/* ---- decode: achieved bandwidth against the key length ---------------------------------- */

/* A decode point reads K and V once and does little arithmetic on them, so its measure is
 * the bandwidth it reaches on the compulsory bytes (core/shapes.h) against the device's
 * copy ceiling, not its FLOP/s. */
#define DECODE_MAX_SHAPES 64

static double result_gbps(const run_data *r, const run_result *x)
{
    double us = shown_us(r, x);
    if (us != x->median_us) return shape_bytes(&x->shape) / (us * 1e3);
    if (isfinite(x->gbps)) return x->gbps;
    return shape_bytes(&x->shape) / (x->median_us * 1e3);
}

static int in_shapes(const attn_shape *shapes, size_t n, const attn_shape *s)
{
    for (size_t i = 0; i < n; i++)
        if (shape_same(&shapes[i], s)) return 1;
    return 0;
}

/* The x axis: seq_kv on a log scale, a tic at each power of two ("4k") over the points'
 * range. */
static void decode_axis(FILE *f, const attn_shape *shapes, size_t n)
{
    int lo = shapes[0].seq_kv, hi = shapes[0].seq_kv;
    for (size_t i = 1; i < n; i++) {
        if (shapes[i].seq_kv < lo) lo = shapes[i].seq_kv;
        if (shapes[i].seq_kv > hi) hi = shapes[i].seq_kv;
    }
    fprintf(f, "set logscale x 2\nset xrange [%.6g:%.6g]\nset xtics (", lo / 1.5, hi * 1.5);
    int first = 1;
    for (long k = 1; k <= hi; k *= 2) {
        if (k * 2 <= lo) continue;
        if (k >= 1024) fprintf(f, "%s\"%ldk\" %ld", first ? "" : ", ", k / 1024, k);
        else fprintf(f, "%s\"%ld\" %ld", first ? "" : ", ", k, k);
        first = 0;
    }
    fprintf(f, ")\nset xlabel \"keys per query, seq_kv (log scale)\"\n");
}

/* One implementation's decode points as a data block and a series, in order of seq_kv;
 * their count (*drawn of them in its own series: a figure above the copy ceiling is not
 * a DRAM figure, and the flagged series draws it instead). *ymax grows to the largest
 * figure. */
static long decode_series(script *sc, plot_list *pl, const report_ctx *c, const run_data *r, const run_impl *im,
                          const attn_shape *shapes, size_t ns, int block, double *ymax, long *drawn)
{
    const run_result **pts = malloc((r->n_results + 1) * sizeof *pts);
    if (!pts) return -1;
    size_t n = 0, all = 0;
    for (size_t k = 0; k < r->n_results; k++) {
        const run_result *x = &r->results[k];
        if (strcmp(x->impl, im->name) || !x->timed || !in_shapes(shapes, ns, &x->shape)) continue;
        all++;
        if (!x->above_ceiling) pts[n++] = x;
    }
    *drawn = (long)n;
    for (size_t a = 1; a < n; a++)   /* insertion sort, stable: a handful of points */
        for (size_t b = a; b > 0 && pts[b - 1]->shape.seq_kv > pts[b]->shape.seq_kv; b--) {
            const run_result *t = pts[b];
            pts[b] = pts[b - 1];
            pts[b - 1] = t;
        }
    if (n) {
        fprintf(sc->f, "$d%d << EOD\n", block);
        for (size_t k = 0; k < n; k++) {
            double gbps = result_gbps(r, pts[k]);
            fprintf(sc->f, "%d", pts[k]->shape.seq_kv);
            num(sc->f, gbps);
            fprintf(sc->f, "\n");
            if (isfinite(gbps)) *ymax = fmax(*ymax, gbps);
        }
        fprintf(sc->f, "EOD\n");
        int is_phase = strcmp(im->kind, "phase") == 0;
        const char *col = is_phase ? report_impl_colour(c, im->name, im->kind) : report_baseline_colour(c, r, im->name);
        /* points, not lines: shapes of one seq_kv differ in heads, queries or D */
        fprintf(item(pl), "$d%d using 1:2 with points pt %d ps 1.3 lc rgb \"%s\" title ", block,
                is_phase ? 7 : 6 + 2 * (report_baseline_index(r, im->name) % 4), col);
        series_title(pl->f, r, im);
    }
    free(pts);
    return (long)all;
}

/* Every figure above the copy ceiling (evidence/reader.h, above_ceiling) at these shapes,
 * one series of crosses named for what it is: inputs read from L2 between launches (runs
 * before the cold inputs of measure/l2_copies.h), not a bandwidth of the device memory. */
static void decode_flagged(script *sc, plot_list *pl, const run_data *r, const attn_shape *shapes, size_t ns,
                           int block, double *ymax)
{
    long n = 0;
    for (size_t k = 0; k < r->n_results; k++) {
        const run_result *x = &r->results[k];
        if (!x->timed || !x->above_ceiling || !in_shapes(shapes, ns, &x->shape)) continue;
        if (!n++) fprintf(sc->f, "$d%d << EOD\n", block);
        fprintf(sc->f, "%d", x->shape.seq_kv);
        num(sc->f, result_gbps(r, x));
        fprintf(sc->f, "\n");
        *ymax = fmax(*ymax, result_gbps(r, x));
    }
    if (!n) return;
    fprintf(sc->f, "EOD\n");
    fprintf(item(pl), "$d%d using 1:2 with points pt 2 ps 1.6 lc rgb \"#909090\" title ", block);
    gq(pl->f, "%s (%ld)", r->read_gbps > 0 ? "above its ceiling (the copy's; the read stream's where cold): not a DRAM figure"
                                              : "above the copy ceiling: inputs read from L2, not a DRAM figure", n);
}

/* Every rung's and baseline's series, the rungs first; the points drawn, or -1 when out
 * of memory. A rung or the gate's baseline without a decode point is named as missing. */
static long decode_all_series(script *sc, plot_list *pl, const report_ctx *c, const run_data *r,
                              const attn_shape *shapes, size_t ns, double *ymax)
{
    char absent[1024] = "";
    long points = 0;
    int block = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->n_impls; i++) {
            const run_impl *im = &r->impls[i];
            int is_phase = strcmp(im->kind, "phase") == 0;
            if (pass == 0 ? !is_phase : (strcmp(im->kind, "baseline") && strcmp(im->kind, "external"))) continue;
            long drawn = 0, n = decode_series(sc, pl, c, r, im, shapes, ns, block, ymax, &drawn);
            if (n < 0) return -1;
            block += drawn > 0;
            points += n;
            if (!n && (is_phase || strcmp(im->kind, "baseline") == 0)) add_item(absent, sizeof absent, im->name);
        }
    if (points > 0 && absent[0]) script_missing(sc, "no decode point of %s", absent);
    decode_flagged(sc, pl, r, shapes, ns, block, ymax);
    return points;
}

/* Achieved GB/s against seq_kv at the run's decode points, every rung and baseline, with
 * the measured device copy ceiling drawn: the single request's (batch 1) or, batched, a
 * serving step's. None for a run without such points (one from before them: the page says
 * so instead of showing an empty plot). */
static int plot_decode(const report_ctx *c, const report_gpu *g, int batched)
{
    const run_data *r = g->ref;
    attn_shape shapes[DECODE_MAX_SHAPES];
    size_t ns = report_decode_shapes(r, batched, shapes, DECODE_MAX_SHAPES);
    if (!ns) return 0;
    script s;
    char name[512], title[512];
    report_plot_name(name, sizeof name, g->slug, batched ? "decode_batched" : "decode");
    snprintf(title, sizeof title, "%s: achieved GB/s against seq_kv at the %sdecode points", g->gpu_name,
             batched ? "batched " : "");   /* cut: only a title */
    if (script_begin(&s, name, title, 1100, 640)) return -1;
    FILE *f = s.f;
    fprintf(f, "set title ");
    if (batched)
        gq(f, "%s: achieved bandwidth at batched decode (batch 4-32, one or a few queries each; phases filled, "
           "baselines open)", g->gpu_name);
    else
        gq(f, "%s: achieved bandwidth at the decode points (one or a few queries; phases filled, baselines open)",
           g->gpu_name);
    fprintf(f, "\nset ylabel \"GB/s of the compulsory traffic (Q, K, V read once, O written once)\"\n"
            "set key outside below center horizontal maxrows 4 samplen 2.5\nset bmargin 10\n");
    decode_axis(f, shapes, ns);
    plot_list pl;
    if (list_open(&pl)) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    double ymax = r->dram_gbps > 0 ? r->dram_gbps : 0;
    long points = decode_all_series(&s, &pl, c, r, shapes, ns, &ymax);
    if (points >= 0) script_panel(&s, batched ? "decode_batched" : "decode", points);
    if (points >= 0 && r->read_gbps > 0) {   /* the cold reads' own ceiling */
        fprintf(item(&pl), "%.6g with lines dt 1 lw 2 lc rgb \"#404040\" title ", r->read_gbps);
        gq(pl.f, "device read ceiling, %.0f GB/s", r->read_gbps);
        ymax = fmax(ymax, r->read_gbps);
    }
    if (points >= 0 && r->dram_gbps > 0) {
        fprintf(item(&pl), "%.6g with lines dt 3 lw 2 lc rgb \"#404040\" title ", r->dram_gbps);
        gq(pl.f, "device copy ceiling, %.0f GB/s", r->dram_gbps);
    } else if (points >= 0) {
        script_missing(&s, "the device copy ceiling (no ceilings in the run)");
    }
    fprintf(f, "set yrange [0:%.6g]\n", ymax > 0 ? ymax * 1.12 : 1.0);
    if (list_plot(&pl, f, "1 with lines lc rgb \"white\" notitle") || points < 0) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    return script_run(&s, c);
}

int report_plots_gpu(const report_ctx *c, const report_gpu *g)
{
    if (plot_ladder(c, g) || plot_versus(c, g) || plot_waterfall(c, g) || plot_roofline(c, g)) return -1;
    for (int d = 64; d <= 128; d *= 2)
        if (plot_seq(c, g, d, 0) || plot_seq(c, g, d, 1)) return -1;
    return plot_decode(c, g, 0) || plot_decode(c, g, 1) ? -1 : 0;
}

/* ---- a phase's history ------------------------------------------------------------------- */

/* A run's UTC stamp (yyyy-mm-ddThh:mm:ssZ) in seconds since 1970; -1 when malformed. */
static long long utc_seconds(const char *t)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(t, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end) return -1;
    return (long long)timegm(&tm);
}

/* The time axis: about six tics at a round step, labelled so that no two read alike (a
 * step under a day shows the hour), from a tic at a multiple of the step. */
static void time_axis(FILE *f, long long first, long long last)
{
    static const long long STEPS[] = { 600, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400,
                                       2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 365 * 86400 };
    long long span = last - first;
    long long pad = span / 20 > 1800 ? span / 20 : 1800;   /* a lone run still gets a range */
    long long lo = first - pad, hi = last + pad, step = STEPS[0];
    for (size_t k = 0; k < sizeof STEPS / sizeof STEPS[0] && (hi - lo) / STEPS[k] > 6; k++)
        step = k + 1 < sizeof STEPS / sizeof STEPS[0] ? STEPS[k + 1] : STEPS[k];
    long long start = (lo + step - 1) / step * step;
    fprintf(f, "set xdata time\nset timefmt \"%%s\"\nset xrange [\"%lld\":\"%lld\"]\n", lo, hi);
    fprintf(f, "set xtics \"%lld\", %lld, \"%lld\" rotate by -25 nomirror\nset format x \"%s\"\n", start, step, hi,
            step < 86400 ? "%m-%d %H:%M" : "%Y-%m-%d");
    fprintf(f, "set xlabel \"run date (UTC%s)\"\n", step < 86400 ? ", month-day hour:minute" : "");
}

/* Longer than a harness function should be: one gnuplot script written top to bottom in
 * the order gnuplot reads it (the runs' data block per GPU, the time axis, the lines), so
 * that the plot's text is read in one place; the axis's steps are already a function. */
int report_plot_history(const report_ctx *c, const char *phase)
{
    script s;
    char name[512], title[512];
    if (snprintf(name, sizeof name, "history-%s.svg", phase) >= (int)sizeof name) {   /* a safe name is shorter */
        fprintf(stderr, "attnladder report: phase name '%.80s...' too long for a plot name\n", phase);
        return -1;
    }
    snprintf(title, sizeof title, "%s: ratio to %s across evidence runs", phase, c->cfg->baseline);   /* cut: only a title */
    if (script_begin(&s, name, title, 960, 560)) return -1;
    FILE *f = s.f;
    /* the rung under this name and under its former names (a moved rung keeps its history) */
    size_t names[8], n_names = 1;
    int pi = report_phase_index(c, phase);
    names[0] = pi >= 0 ? (size_t)pi : 0;
    if (pi >= 0) n_names += report_former_names(c, (size_t)pi, names + 1, 7);
    fprintf(f, "set title ");
    gq(f, "%s: ratio to %s at the headline shapes across the evidence runs", phase, c->cfg->baseline);
    fprintf(f, "\nset ylabel ");
    gq(f, "ratio to %s (median, 95%% CI)", c->cfg->baseline);
    fprintf(f, "\nset key outside below center horizontal maxcols 2 samplen 2.5\n");
    long long first = -1, last = -1;
    plot_list pl;
    if (list_open(&pl)) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    double ymax = 0;
    int block = 0;
    long points = 0;
    size_t nh = c->cfg->n_headline < 2 ? c->cfg->n_headline : 2;
    for (size_t i = 0; i < c->n_gpus && pi >= 0; i++) {
        const report_gpu *g = &c->gpus[i];
        for (size_t nm = 0; nm < n_names; nm++)
            for (size_t h = 0; h < nh; h++) {
                const char *rung = c->phases[names[nm]];
                const attn_shape *hs = &c->cfg->headline[h];
                int any = 0;
                for (size_t k = 0; k < g->n_runs; k++) {
                    const run_data *r = &g->runs[k];
                    const run_result *x = run_find(r, rung, hs);
                    double ratio, lo, hi;
                    long long t = utc_seconds(r->created_utc);
                    if (!x || !x->timed || t < 0 || gate_result_ratio(c->cfg, r, x, &ratio, &lo, &hi)) continue;
                    if (!any) fprintf(f, "$h%d << EOD\n", block);
                    any = 1;
                    fprintf(f, "%lld %.6g %.6g %.6g\n", t, ratio, lo, hi);
                    points++;
                    ymax = fmax(ymax, hi);
                    if (first < 0 || t < first) first = t;
                    if (last < 0 || t > last) last = t;
                }
                if (!any) continue;
                fprintf(f, "EOD\n");
                char text[96];
                run_shape_text(hs, text, sizeof text);
                /* a former name: open symbols, the same colour */
                fprintf(item(&pl), "$h%d using 1:2:3:4 with yerrorlines lw 2 pt %d dt %d lc rgb \"%s\" title ", block,
                        nm ? (hs->causal ? 4 : 6) : (hs->causal ? 5 : 7), hs->causal ? 2 : 1, report_series_colour(i));
                if (nm) gq(pl.f, "%s, %s (as %s)", g->gpu_name, text, rung);
                else gq(pl.f, "%s, %s", g->gpu_name, text);
                block++;
            }
    }
    script_panel(&s, "history", points);
    const gate_bound *b = gate_config_bound(c->cfg, phase);
    if (b) {
        fprintf(item(&pl), "%.6g with lines dt 4 lw 2 lc rgb \"#d62728\" title ", b->ratio_max);
        gq(pl.f, "ladder bound (%s)", c->cfg->path);   /* a path from the command line: a string */
    }
    if (first >= 0) {
        time_axis(f, first, last);
        fprintf(f, "set yrange [0:%.6g]\n", fmax(ymax, b ? b->ratio_max : 0) * 1.12);
    } else {
        fprintf(f, "set xrange [0:86400]\nset yrange [0:1]\n"
                "set label 1 \"no timed headline results in any run\" at graph 0.5,0.5 center\n");
    }
    /* the key sits below the axis label; its rows need the room made explicit */
    fprintf(f, "set bmargin %d\n", 7 + (block + (b != NULL) + 1) / 2);
    if (list_plot(&pl, f, "-1 with lines lc rgb \"white\" notitle")) {
        fclose(s.f);
        script_free(&s);
        return -1;
    }
    return script_run(&s, c);
}
