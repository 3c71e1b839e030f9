/* compare.c: `attnladder compare A.json B.json`: per-phase, per-shape changes of the
 * ratio to the baseline as markdown, with the verdicts of the one rule the gate and the
 * report apply to the same pair (the drift rule with the accepted set's tolerance). The
 * rows, their changes and verdicts come from gate/regression.h; this file renders them,
 * and says what a difference between two separate processes can and cannot show. */
#include "cmd/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/args.h"
#include "cmd/commands.h"
#include "core/files.h"
#include "evidence/consistency.h"
#include "evidence/run_lists.h"
#include "gate/drift_spread.h"
#include "gate/baseline_lib.h"
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
    char shape[96], a1[48], a2[64], b1[48], b2[64], ch[32], lo[32], hi[32], tol[32], note[200];
    run_shape_text(&w->shape, shape, sizeof shape);
    if (w->state != REG_ROW_COMPARED) {
        row_note(w, cfg, note, sizeof note);
        fprintf(f, "| %s | %s | %s | %s | - | - | %s |\n", w->impl, shape,
                w->ref && w->ref->has_ratio ? fmt_num(a1, sizeof a1, w->ref->ratio) : "-",
                w->now && w->now->has_ratio ? fmt_num(b1, sizeof b1, w->now->ratio) : "-", note);
        return;
    }
    const reg_change *c = &w->change;
    /* a judged row shows B's ratio as the rule read it (gate/ratio.h, the run's own
     * bootstrap); the change's CI comes from resampling both ratios' sample sets together
     * (gate/decide.h) */
    double bn = w->judged ? w->ratio : c->now, blo = w->judged ? w->ratio_lo : c->now_lo,
           bhi = w->judged ? w->ratio_hi : c->now_hi;
    int bold = w->judged && w->verdict == DRIFT_SLOWER;
    char moved[128] = "";
    if (w->judged) drift_move_note(moved, sizeof moved, &cfg->drift, w->plain, w->verdict, w->move);
    fprintf(f, "| %s | %s | %s %s | %s %s | %s [%s, %s] | %s | %s%s%s%s |\n", w->impl, shape,
            fmt_num(a1, sizeof a1, c->ref), fmt_ci(a2, sizeof a2, c->ref_lo, c->ref_hi),
            fmt_num(b1, sizeof b1, bn), fmt_ci(b2, sizeof b2, blo, bhi),
            fmt_change(ch, sizeof ch, c->change), fmt_change(lo, sizeof lo, c->lo),
            fmt_change(hi, sizeof hi, c->hi),
            w->judged ? fmt_change(tol, sizeof tol, 1 + w->ref_drift.tol) : "-", bold ? "**" : "",
            w->judged ? drift_verdict_name(w->verdict) : "not judged", bold ? "**" : "", moved);
}

static void table_head(FILE *f, const gate_config *c)
{
    fprintf(f, "| phase | shape | A: ratio to %s [CI] | B: ratio [CI] | change B/A [CI] | tolerance | verdict |\n",
            c->baseline);
    fprintf(f, "| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
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

/* The rows the first table shows: a judged row past its tolerance, or a row at a judged
 * shape that could not be compared (a phase or a shape one run lacks); the rest are in
 * the full table. */
static int notable(const gate_config *c, const reg_row *w)
{
    if (w->state == REG_ROW_COMPARED) return w->judged && w->verdict != DRIFT_WITHIN;
    return drift_judged_shape(c, &w->shape);
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

static void print_head(FILE *f, const run_data *a, const run_data *b)
{
    fprintf(f, "### attnladder compare: B against A\n\n");
    fprintf(f, "| | evidence | GPU | commit | date |\n| --- | --- | --- | --- | --- |\n");
    run_row(f, "A (reference)", a);
    run_row(f, "B", b);
    fprintf(f, "\n");
    cost_line(f, a, b);
    if (strcmp(a->slug, b->slug) != 0)
        fprintf(f, "> **Note:** the runs come from different GPUs; ratios to the baseline can be "
                "compared, absolute times cannot, and the gate refuses such a pair.\n\n");
}

/* The rule, and what it can and cannot say: the reader of a pull-request comment should
 * not take a between-process difference for a measured slowdown of the change. */
static void print_rule(FILE *f, const gate_config *c, const drift_spread *sp, const drift_params *p)
{
    char rule[1024], path[600];
    drift_rule_text(rule, sizeof rule, p, sp->n_runs, sp->measured);
    cell(path, sizeof path, c->path);
    fprintf(f, "Ratio = to `%s` in the same run: where the run timed the point's implementations in "
            "rotation, the median of the per-round quotients, else median latency / median latency; "
            "change = ratio B / ratio A (above 1: B is slower). Verdicts by %s. Judged (regression.shapes of %s): the "
            "phases at %s; the other rows are shown, not judged. `attnladder gate B --against A` and "
            "the report judge this pair by the same rule, row for row.\n\n", c->baseline, rule, path,
            c->reg.all_shapes ? "every shape both runs timed" : "the headline and throughput shapes");
    fprintf(f, "What two runs can show: A and B are separate processes, and between processes of "
            "unchanged code a ratio moves by up to its row's tolerance (the accepted set's own spread, "
            "never below the floor). A change inside it cannot be told from that; a row past it says "
            "that B's ratio moved further than the set's processes do, not what moved it (the code, "
            "the machine, or the baseline's own plan). A smaller slowdown of a change is the A/B gate's "
            "to find: `attnladder ab` times both builds in one process, pair by pair.\n\n");
}

/* The count line; returns the number of slower rows. */
static size_t print_counts(FILE *f, const reg_row *rows, size_t n)
{
    size_t count[4] = { 0 }, not_judged = 0, not_compared = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].state != REG_ROW_COMPARED) not_compared++;
        else if (!rows[i].judged) not_judged++;
        else count[rows[i].verdict]++;
    }
    fprintf(f, "**%zu slower, %zu faster, %zu unsure, %zu within; %zu shown, not judged; %zu not compared.**\n\n",
            count[DRIFT_SLOWER], count[DRIFT_FASTER], count[DRIFT_UNSURE], count[DRIFT_WITHIN], not_judged,
            not_compared);
    return count[DRIFT_SLOWER];
}

static void print_tables(FILE *f, const gate_config *c, const reg_row *rows, size_t n,
                         const compare_opts *o)
{
    size_t n_notable = 0;
    for (size_t i = 0; i < n; i++) n_notable += notable(c, &rows[i]);
    if (n_notable) {
        table_head(f, c);
        for (size_t i = 0; i < n; i++)
            if (notable(c, &rows[i])) print_row(f, &rows[i], c);
        fprintf(f, "\n");
    } else {
        fprintf(f, "Every judged row is within its tolerance; every judged shape was compared.\n\n");
    }
    if (!o->changed_only && n) {
        fprintf(f, "<details><summary>All %zu rows</summary>\n\n", n);
        table_head(f, c);
        for (size_t i = 0; i < n; i++) print_row(f, &rows[i], c);
        fprintf(f, "\n</details>\n");
    }
}

int runs_compare_markdown(FILE *f, const gate_config *c, const run_data *a, const run_data *b,
                          const run_data *set, size_t n_set, const compare_opts *o, char *err, size_t errlen)
{
    if (baselines_present(c, a, b, err, errlen)) return -1;
    drift_spread sp;
    if (drift_spread_of(c, set, n_set, &sp, err, errlen)) return -1;
    selection sel = { c, o };
    reg_row_filter filter = { wanted, &sel, 0 };
    reg_row *rows;
    size_t n;
    if (reg_rows(c, a, b, &sp, &filter, &rows, &n)) {
        drift_spread_free(&sp);
        snprintf(err, errlen, "out of memory comparing %s and %s", a->path, b->path);
        return -1;
    }
    print_head(f, a, b);
    baseline_lib lib = baseline_lib_of(b, a, 1);
    if (lib.verdict != BASELINE_LIB_SAME) {   /* a verdict of its own, before the counts */
        char text[768], esc[1600];
        baseline_lib_text(&lib, text, sizeof text);
        cell(esc, sizeof esc, text);
        fprintf(f, "> **%s**\n\n", esc);
    }
    size_t slower = print_counts(f, rows, n);
    print_rule(f, c, &sp, drift_params_for_runs(&sp, c, a, b));
    print_tables(f, c, rows, n, o);
    free(rows);
    drift_spread_free(&sp);
    return (int)slower;
}

/* `compare`'s options. */
typedef struct {
    const char *config, *files[2], *out, *root;
    compare_opts o;
    int nf, include_partial;
} compare_args;

/* 0, 1 (--help printed: exit OK), or -1 (refused, said). */
static int compare_parse(compare_args *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: attnladder compare A.json B.json [--config FILE] [--evidence DIR] [--all]\n"
                   "                          [--changed] [--include-partial] [--out FILE]\n"
                   "  markdown table of the change of every phase's ratio to the baseline from run A\n"
                   "  (the reference) to run B, with bootstrap CIs and the verdicts of the drift rule\n"
                   "  (tolerances from the accepted set DIR/<gpu>/accepted.txt, B left out), the rule\n"
                   "  `gate B --against A` and the report apply to the same pair\n"
                   "  --all      also the external baselines    --changed  only rows not within\n"
                   "  --config   the gate's parameters (default " GATE_CONFIG_DEFAULT ")\n"
                   "  --evidence the evidence root the accepted set is read from (default evidence)\n"
                   "exit status: 0 written (whatever the verdicts), 2 bad input\n");
            return 1;
        } else if (!strcmp(a, "--all")) {
            c->o.all_impls = 1;
        } else if (!strcmp(a, "--changed")) {
            c->o.changed_only = 1;
        } else if (!strcmp(a, "--include-partial")) {
            c->include_partial = 1;
        } else if (!strcmp(a, "--config") || !strcmp(a, "--out") || !strcmp(a, "--evidence")) {
            const char *v = arg_value("compare", argc, argv, &i);
            if (!v) return -1;
            if (!strcmp(a, "--config")) c->config = v;
            else if (!strcmp(a, "--evidence")) c->root = v;
            else c->out = v;
        } else if (a[0] == '-') {
            fprintf(stderr, "attnladder compare: unknown option '%s'; accepted: --config, --evidence, "
                    "--all, --changed, --include-partial, --out, A.json B.json\n", a);
            return -1;
        } else if (c->nf == 2) {
            fprintf(stderr, "attnladder compare: takes two evidence files, got a third: '%s'\n", a);
            return -1;
        } else {
            c->files[c->nf++] = a;
        }
    }
    if (c->nf != 2) {
        fprintf(stderr, "attnladder compare: needs two evidence files: A.json (the reference) B.json\n");
        return -1;
    }
    return 0;
}

/* The two runs, the table made in memory (a failed command leaves no half file), then
 * written whole to --out or standard output. 0, or -1 (err). */
static int compare_table(const compare_args *c, const gate_config *cfg, char *err, size_t errlen)
{
    run_data a = { 0 }, b = { 0 }, *set = NULL;
    size_t n_set = 0, len = 0;
    int rc = -1;
    char *text = NULL;
    FILE *f = NULL;
    if (run_open(&a, c->files[0], err, errlen) || run_open(&b, c->files[1], err, errlen)) goto done;
    /* an interrupted run holds a subset of the points: comparing it says less than it seems */
    for (int k = 0; k < 2 && !c->include_partial; k++)
        if ((k ? b.partial : a.partial)) {
            snprintf(err, errlen, "%s: a partial (interrupted) run; compare it with --include-partial",
                     c->files[k]);
            goto done;
        }
    f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    /* the tolerances: the accepted set of B's GPU without B (a run is never its own
     * reference); without accepted.txt the floor alone, said in the table's rule line */
    if (evidence_accepted_open(c->root, b.slug, b.base, &set, &n_set, err, errlen) < 0) goto done;
    if (runs_compare_markdown(f, cfg, &a, &b, set, n_set, &c->o, err, errlen) < 0) goto done;
    int closed = fclose(f);
    f = NULL;
    if (closed) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (c->out ? files_write_atomic(c->out, text, len, err, errlen) : fwrite(text, 1, len, stdout) != len) {
        if (!c->out) snprintf(err, errlen, "cannot write the table to standard output");
        goto done;
    }
    rc = 0;
done:
    if (f) fclose(f);
    free(text);
    run_close(&a);
    run_close(&b);
    for (size_t i = 0; i < n_set; i++) run_close(&set[i]);
    free(set);
    return rc;
}

/* Every argument checked without reading the evidence: --out a file that can be made
 * (never over a run or the config), both runs and the config files that can be read,
 * --evidence no file. The runs and the accepted set are 8 MB each on a GPU: a wrong
 * argument is refused before they are read, not after. 0, or -1 (err). */
static int compare_check_arguments(const compare_args *c, char *err, size_t errlen)
{
    /* --out is written whole over what is there: never over a run or the config */
    const char *inputs[] = { c->files[0], c->files[1], c->config, c->root };
    if (c->out && (files_output_file("--out", c->out, inputs, 4, err, errlen) ||
                   files_output_folder("--out", c->out, err, errlen)))
        return -1;
    for (int k = 0; k < 2; k++)
        if (files_input_ok("", c->files[k], EVIDENCE_MAX_FILE_BYTES, err, errlen)) return -1;
    if (files_input_ok("--config", c->config, GATE_CONFIG_MAX_BYTES, err, errlen)) return -1;
    struct stat st;
    if (stat(c->root, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char shown[FILES_SHOWN];
        snprintf(err, errlen, "--evidence '%s': not a directory (the evidence root: DIR/<gpu>/...)",
                 files_shown(c->root, shown));
        return -1;
    }
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    compare_args c = { .config = GATE_CONFIG_DEFAULT, .root = "evidence" };
    int parsed = compare_parse(&c, argc, argv);
    if (parsed) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    char err[1536];
    gate_config cfg;
    if (compare_check_arguments(&c, err, sizeof err) || gate_config_load(c.config, &cfg, err, sizeof err)) {
        fprintf(stderr, "attnladder compare: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_OK;
    if (compare_table(&c, &cfg, err, sizeof err)) {
        fprintf(stderr, "attnladder compare: %s\n", err);
        rc = EXIT_BAD_INPUT;
    }
    gate_config_free(&cfg);
    return rc;
}
