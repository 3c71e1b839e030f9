/* compare.c: `attnladder compare A.json B.json`: per-phase, per-shape changes of the
 * ratio to the baseline as markdown, with the regression gate's rule and verdicts. The
 * rows, their changes and verdicts come from gate/regression.h; this file renders them. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/args.h"
#include "commands.h"
#include "core/files.h"
#include "gate/regression.h"
#include "core/numfmt.h"
#include "core/text_safe.h"

typedef struct {
    const gate_config *c;
    const compare_opts *o;
} selection;

static int wanted(const run_data *r, const char *impl, void *ctx)
{
    const selection *sel = ctx;
    const run_impl *im = run_find_impl(r, impl);
    if (!im || strcmp(impl, sel->c->baseline) == 0) return 0;
    return strcmp(im->kind, "phase") == 0 || (sel->o->all_impls && strcmp(im->kind, "external") == 0);
}

/* Free text (a reason, a path from the command line) as markdown text: no table cell,
 * heading, link, mention or HTML can start in it (core/text_safe.h). */
static void cell(char *dst, size_t len, const char *src)
{
    text_escape(dst, len, src, TEXT_MARKDOWN);
}

static int timed(const run_result *r) { return r && r->timed; }

/* Why a row has no change (A is the reference, B the run compared with it). */
static void row_note(const reg_row *w, const gate_config *c, char *note, size_t len)
{
    char why[160];
    const run_result *u;
    switch (w->state) {
    case REG_ROW_ONLY_REF:
    case REG_ROW_ONLY_NOW:
        snprintf(note, len, "only in %s", w->ref ? "A" : "B");
        break;
    case REG_ROW_UNTIMED:
        u = !w->now->timed ? w->now : w->ref;
        cell(why, sizeof why, reg_untimed_reason(u));
        snprintf(note, len, "not timed in %s: %s", u == w->now ? "B" : "A", why);
        break;
    case REG_ROW_NO_BASELINE:
        snprintf(note, len, "no %s timing in %s", c->baseline,
                 !timed(w->base_ref) ? (!timed(w->base_now) ? "A and B" : "A") : "B");
        break;
    case REG_ROW_COMPARED:
        snprintf(note, len, "-");
        break;
    }
}

static void print_row(FILE *f, const reg_row *w, const gate_config *cfg)
{
    char shape[96], a1[48], a2[64], b1[48], b2[64], ch[32], lo[32], hi[32], note[200];
    run_shape_text(&w->shape, shape, sizeof shape);
    if (w->state != REG_ROW_COMPARED) {
        row_note(w, cfg, note, sizeof note);
        fprintf(f, "| %s | %s | %s | %s | - | %s |\n", w->impl, shape,
                w->ref && w->ref->has_ratio ? fmt_num(a1, sizeof a1, w->ref->ratio) : "-",
                w->now && w->now->has_ratio ? fmt_num(b1, sizeof b1, w->now->ratio) : "-", note);
        return;
    }
    const reg_change *c = &w->change;
    const char *v = reg_verdict_name(w->verdict);
    fprintf(f, "| %s | %s | %s %s | %s %s | %s [%s, %s] | %s%s%s |\n", w->impl, shape,
            fmt_num(a1, sizeof a1, c->ref), fmt_ci(a2, sizeof a2, c->ref_lo, c->ref_hi),
            fmt_num(b1, sizeof b1, c->now), fmt_ci(b2, sizeof b2, c->now_lo, c->now_hi),
            fmt_change(ch, sizeof ch, c->change), fmt_change(lo, sizeof lo, c->lo),
            fmt_change(hi, sizeof hi, c->hi), w->verdict == REG_REGRESSED ? "**" : "", v,
            w->verdict == REG_REGRESSED ? "**" : "");
}

static void table_head(FILE *f, const gate_config *c)
{
    fprintf(f, "| phase | shape | A: ratio to %s [CI] | B: ratio [CI] | change B/A [CI] | verdict |\n",
            c->baseline);
    fprintf(f, "| --- | --- | ---: | ---: | ---: | --- |\n");
}

static void run_row(FILE *f, const char *label, const run_data *r)
{
    char file[1024];
    cell(file, sizeof file, r->path);
    fprintf(f, "| %s | %s | %s | `%.12s`%s | %s |\n", label, file, r->gpu_name, r->commit,
            r->dirty ? " (dirty)" : "", r->created_utc);
}

/* What each run cost on its GPU (runs made before the cost was recorded: nothing). */
static void cost_line(FILE *f, const run_data *a, const run_data *b)
{
    if (!isfinite(a->cost_wall_s) && !isfinite(b->cost_wall_s)) return;
    const run_data *runs[2] = { a, b };
    fprintf(f, "Cost of the runs:");
    for (int k = 0; k < 2; k++) {
        char w[32], g[32];
        if (isfinite(runs[k]->cost_wall_s))
            fprintf(f, " %s %s s wall, %s s of timed GPU work (%ld measurements)%s", k ? "B" : "A",
                    fmt_num(w, sizeof w, runs[k]->cost_wall_s), fmt_num(g, sizeof g, runs[k]->cost_gpu_s),
                    runs[k]->cost_measurements, k ? "." : ";");
        else
            fprintf(f, " %s not recorded%s", k ? "B" : "A", k ? "." : ";");
    }
    fprintf(f, "\n\n");
}

static int notable(const reg_row *w)
{
    return w->state != REG_ROW_COMPARED || w->verdict != REG_UNCHANGED;
}

/* Both runs need the baseline timed at the headline shapes. */
static int baselines_present(const gate_config *c, const run_data *a, const run_data *b,
                             char *err, size_t errlen)
{
    const run_data *runs[2] = { a, b };
    for (int k = 0; k < 2; k++) {
        const attn_shape *gap = reg_baseline_gap(c, runs[k], NULL);
        if (!gap) continue;
        char text[96];
        run_shape_text(gap, text, sizeof text);
        snprintf(err, errlen, "%s: the baseline '%s' has no graph timing at the headline shape "
                 "%s; no ratio can be compared without it", runs[k]->path, c->baseline, text);
        return -1;
    }
    return 0;
}

static void print_head(FILE *f, const gate_config *c, const run_data *a, const run_data *b)
{
    char t1[32], t2[32], rule[1024];
    cell(rule, sizeof rule, c->path);   /* a path from the command line: text, not code */
    fprintf(f, "### attnladder compare: B against A\n\n");
    fprintf(f, "| | evidence | GPU | commit | date |\n| --- | --- | --- | --- | --- |\n");
    run_row(f, "A (reference)", a);
    run_row(f, "B", b);
    fprintf(f, "\n");
    cost_line(f, a, b);
    if (strcmp(a->slug, b->slug) != 0)
        fprintf(f, "> **Note:** the runs come from different GPUs; ratios to the baseline can be "
                "compared, absolute times cannot, and the gate refuses such a pair.\n\n");
    fprintf(f, "Ratio = median latency / median latency of `%s` in the same run; change = "
            "ratio B / ratio A (above 1: B is slower). Rule of %s (%s): **regressed** when "
            "change > %s", c->baseline, rule, reg_method_name(c->reg.method),
            fmt_num(t1, sizeof t1, 1 + c->reg.tolerance));
    if (c->reg.method == REG_METHOD_RATIO_CI)
        fprintf(f, " and its %.0f%% bootstrap CI lies above %s", c->reg.ci_level * 100,
                fmt_num(t2, sizeof t2, 1 + c->reg.tolerance * c->reg.ci_floor_fraction));
    else if (c->reg.method == REG_METHOD_CI_NONOVERLAP)
        fprintf(f, " and the two ratios' %.0f%% CIs do not overlap", c->reg.ci_level * 100);
    fprintf(f, "; improved symmetrically; inconclusive when the estimate crosses the tolerance "
            "but the CI does not.\n\n");
}

/* The count line; returns the number of regressed rows. */
static size_t print_counts(FILE *f, const reg_row *rows, size_t n)
{
    size_t count[4] = { 0 }, not_compared = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].state == REG_ROW_COMPARED) count[rows[i].verdict]++;
        else not_compared++;
    }
    fprintf(f, "**%zu regressed, %zu improved, %zu inconclusive, %zu unchanged, %zu not compared.**\n\n",
            count[REG_REGRESSED], count[REG_IMPROVED], count[REG_INCONCLUSIVE], count[REG_UNCHANGED],
            not_compared);
    return count[REG_REGRESSED];
}

static void print_tables(FILE *f, const gate_config *c, const reg_row *rows, size_t n,
                         const compare_opts *o)
{
    size_t n_notable = 0;
    for (size_t i = 0; i < n; i++) n_notable += notable(&rows[i]);
    if (n_notable) {
        table_head(f, c);
        for (size_t i = 0; i < n; i++)
            if (notable(&rows[i])) print_row(f, &rows[i], c);
        fprintf(f, "\n");
    } else {
        fprintf(f, "Every compared row is unchanged.\n\n");
    }
    if (!o->changed_only && n) {
        fprintf(f, "<details><summary>All %zu rows</summary>\n\n", n);
        table_head(f, c);
        for (size_t i = 0; i < n; i++) print_row(f, &rows[i], c);
        fprintf(f, "\n</details>\n");
    }
}

int runs_compare_markdown(FILE *f, const gate_config *c, const run_data *a, const run_data *b,
                          const compare_opts *o, char *err, size_t errlen)
{
    if (baselines_present(c, a, b, err, errlen)) return -1;
    selection sel = { c, o };
    reg_row_filter filter = { wanted, &sel, 0 };
    reg_row *rows;
    size_t n;
    if (reg_rows(c, a, b, &filter, &rows, &n)) {
        snprintf(err, errlen, "out of memory comparing %s and %s", a->path, b->path);
        return -1;
    }
    print_head(f, c, a, b);
    size_t regressed = print_counts(f, rows, n);
    print_tables(f, c, rows, n, o);
    free(rows);
    return (int)regressed;
}

int cmd_compare(int argc, char **argv)
{
    const char *config = GATE_CONFIG_DEFAULT, *files[2] = { NULL, NULL }, *out = NULL;
    compare_opts o = { 0 };
    int nf = 0, include_partial = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: attnladder compare A.json B.json [--config FILE] [--all] [--changed]\n"
                   "                          [--include-partial] [--out FILE]\n"
                   "  markdown table of the change of every phase's ratio to the baseline from run A\n"
                   "  (the reference) to run B, with bootstrap CIs and the regression gate's verdicts\n"
                   "  --all      also the external baselines    --changed  only rows not unchanged\n"
                   "  --config   the gate's rule (default " GATE_CONFIG_DEFAULT ")\n"
                   "exit status: 0 written (whatever the verdicts), 2 bad input\n");
            return EXIT_OK;
        } else if (!strcmp(a, "--all")) {
            o.all_impls = 1;
        } else if (!strcmp(a, "--changed")) {
            o.changed_only = 1;
        } else if (!strcmp(a, "--include-partial")) {
            include_partial = 1;
        } else if (!strcmp(a, "--config") || !strcmp(a, "--out")) {
            const char *v = arg_value("compare", argc, argv, &i);
            if (!v) return EXIT_BAD_INPUT;
            if (!strcmp(a, "--config")) config = v;
            else out = v;
        } else if (a[0] == '-') {
            fprintf(stderr, "attnladder compare: unknown option '%s'; accepted: --config, --all, "
                    "--changed, --include-partial, --out, A.json B.json\n", a);
            return EXIT_BAD_INPUT;
        } else if (nf == 2) {
            fprintf(stderr, "attnladder compare: takes two evidence files, got a third: '%s'\n", a);
            return EXIT_BAD_INPUT;
        } else {
            files[nf++] = a;
        }
    }
    if (nf != 2) {
        fprintf(stderr, "attnladder compare: needs two evidence files: A.json (the reference) B.json\n");
        return EXIT_BAD_INPUT;
    }
    char err[1536];
    /* --out is written whole over what is there: never over a run or the config */
    const char *inputs[] = { files[0], files[1], config };
    if (out && files_output_file("--out", out, inputs, 3, err, sizeof err)) {
        fprintf(stderr, "attnladder compare: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    gate_config cfg;
    if (gate_config_load(config, &cfg, err, sizeof err)) {
        fprintf(stderr, "attnladder compare: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    run_data a = { 0 }, b = { 0 };
    int rc = EXIT_BAD_INPUT;
    FILE *f = NULL;
    char *text = NULL;
    size_t len = 0;
    if (run_open(&a, files[0], err, sizeof err) || run_open(&b, files[1], err, sizeof err)) goto bad;
    /* an interrupted run holds a subset of the points: comparing it says less than it seems */
    for (int k = 0; k < 2 && !include_partial; k++)
        if ((k ? b.partial : a.partial)) {
            snprintf(err, sizeof err, "%s: a partial (interrupted) run; compare it with --include-partial",
                     files[k]);
            goto bad;
        }
    /* the table is made in memory and written whole: a failed command leaves no half file */
    f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, sizeof err, "out of memory");
        goto bad;
    }
    if (runs_compare_markdown(f, &cfg, &a, &b, &o, err, sizeof err) < 0) goto bad;
    if (fclose(f)) {
        f = NULL;
        snprintf(err, sizeof err, "out of memory");
        goto bad;
    }
    f = NULL;
    if (out ? files_write_atomic(out, text, len, err, sizeof err) : fwrite(text, 1, len, stdout) != len) {
        if (!out) snprintf(err, sizeof err, "cannot write the table to standard output");
        goto bad;
    }
    rc = EXIT_OK;
    goto done;
bad:
    fprintf(stderr, "attnladder compare: %s\n", err);
done:
    if (f) fclose(f);
    free(text);
    run_close(&a);
    run_close(&b);
    gate_config_free(&cfg);
    return rc;
}
