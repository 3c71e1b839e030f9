/* runs_compare.c: `attnladder compare A.json B.json`: per-phase, per-shape changes of the
 * ratio to the baseline as markdown, with the regression gate's rule and verdicts. */
#include "compare.h"

#include <stdlib.h>
#include <string.h>
#include "core/args.h"
#include "commands.h"
#include "gate/decide.h"
#include "core/numfmt.h"

typedef struct {
    const char *impl;
    attn_shape shape;
    const run_result *ra, *rb;
    int compared;                  /* change holds numbers */
    reg_change change;
    reg_verdict verdict;
    char note[200];                /* why not compared */
} row;

typedef struct {
    row *rows;
    size_t n, cap;
} rows;

static const gate_config *g_cfg;   /* for qsort's comparator */

static int cmp_row(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    int c = strcmp(a->impl, b->impl);
    if (c) return c;
    return run_shape_order(&a->shape, &b->shape, g_cfg->headline, g_cfg->n_headline);
}

static int wanted(const run_data *r, const char *impl, const gate_config *c, const compare_opts *o)
{
    const run_impl *im = run_find_impl(r, impl);
    if (!im || strcmp(impl, c->baseline) == 0) return 0;
    return strcmp(im->kind, "phase") == 0 || (o->all_impls && strcmp(im->kind, "external") == 0);
}

static int collect(rows *rs, const run_data *from, const run_data *other, int from_is_a,
                   const gate_config *c, const compare_opts *o)
{
    for (size_t i = 0; i < from->n_results; i++) {
        const run_result *r = &from->results[i];
        if (!wanted(from, r->impl, c, o)) continue;
        int seen = 0;
        for (size_t k = 0; k < rs->n && !seen; k++)
            seen = strcmp(rs->rows[k].impl, r->impl) == 0 && run_same_shape(&rs->rows[k].shape, &r->shape);
        if (seen) continue;
        if (rs->n == rs->cap) {
            size_t cap = rs->cap ? 2 * rs->cap : 64;
            row *n = realloc(rs->rows, cap * sizeof *n);
            if (!n) return -1;
            rs->rows = n;
            rs->cap = cap;
        }
        row *w = &rs->rows[rs->n++];
        memset(w, 0, sizeof *w);
        w->impl = r->impl;
        w->shape = r->shape;
        const run_result *o2 = run_find(other, r->impl, &r->shape);
        w->ra = from_is_a ? r : o2;
        w->rb = from_is_a ? o2 : r;
    }
    return 0;
}

static const char *untimed_why(const run_result *r)
{
    if (!r->supported) return r->reason ? r->reason : "unsupported";
    if (r->checked && !r->correct) return "failed correctness";
    return "no graph timing";
}

/* Markdown cells cannot hold '|' or newlines. */
static void cell(char *dst, size_t len, const char *src)
{
    size_t k = 0;
    for (; *src && k + 2 < len; src++) {
        if (*src == '|') dst[k++] = '/';
        else if (*src == '\n' || *src == '\r') dst[k++] = ' ';
        else dst[k++] = *src;
    }
    dst[k] = '\0';
}

static int decide(row *w, const gate_config *c, const run_data *a, const run_data *b)
{
    char why[160];
    if (!w->ra || !w->rb) {
        snprintf(w->note, sizeof w->note, "only in %s", w->ra ? "A" : "B");
        return 0;
    }
    if (!w->ra->timed || !w->rb->timed) {
        const run_result *u = !w->rb->timed ? w->rb : w->ra;
        cell(why, sizeof why, untimed_why(u));
        snprintf(w->note, sizeof w->note, "not timed in %s: %s", u == w->rb ? "B" : "A", why);
        return 0;
    }
    const run_result *ba = run_find(a, c->baseline, &w->shape), *bb = run_find(b, c->baseline, &w->shape);
    if (!ba || !ba->timed || !bb || !bb->timed) {
        snprintf(w->note, sizeof w->note, "no %s timing in %s", c->baseline,
                 !ba || !ba->timed ? (!bb || !bb->timed ? "A and B" : "A") : "B");
        return 0;
    }
    if (gate_change_ci(w->rb->samples, w->rb->n_samples, bb->samples, bb->n_samples,
                       w->ra->samples, w->ra->n_samples, ba->samples, ba->n_samples,
                       c->reg.resamples, c->reg.seed, c->reg.ci_level, &w->change))
        return -1;
    w->compared = 1;
    w->verdict = gate_regression_decide(&c->reg, &w->change);
    return 0;
}

static void print_row(FILE *f, const row *w)
{
    char shape[96], a1[48], a2[64], b1[48], b2[64], ch[32], lo[32], hi[32];
    run_shape_text(&w->shape, shape, sizeof shape);
    if (!w->compared) {
        fprintf(f, "| %s | %s | %s | %s | - | %s |\n", w->impl, shape,
                w->ra && w->ra->has_ratio ? fmt_num(a1, sizeof a1, w->ra->ratio) : "-",
                w->rb && w->rb->has_ratio ? fmt_num(b1, sizeof b1, w->rb->ratio) : "-", w->note);
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
    char file[256];
    cell(file, sizeof file, r->path);
    fprintf(f, "| %s | `%s` | %s | `%.12s`%s | %s |\n", label, file, r->gpu_name, r->commit,
            r->dirty ? " (dirty)" : "", r->created_utc);
}

int runs_compare_markdown(FILE *f, const gate_config *c, const run_data *a, const run_data *b,
                          const compare_opts *o, char *err, size_t errlen)
{
    const run_data *runs[2] = { a, b };
    for (int k = 0; k < 2; k++)
        for (size_t h = 0; h < c->n_headline; h++) {
            const run_result *br = run_find(runs[k], c->baseline, &c->headline[h]);
            if (br && br->timed) continue;
            char text[96];
            run_shape_text(&c->headline[h], text, sizeof text);
            snprintf(err, errlen, "%s: the baseline '%s' has no graph timing at the headline shape "
                     "%s; no ratio can be compared without it", runs[k]->path, c->baseline, text);
            return -1;
        }
    rows rs = { 0 };
    if (collect(&rs, a, b, 1, c, o) || collect(&rs, b, a, 0, c, o)) goto oom;
    g_cfg = c;
    qsort(rs.rows, rs.n, sizeof *rs.rows, cmp_row);
    size_t count[4] = { 0 }, not_compared = 0;
    for (size_t i = 0; i < rs.n; i++) {
        if (decide(&rs.rows[i], c, a, b)) goto oom;
        if (rs.rows[i].compared) count[rs.rows[i].verdict]++;
        else not_compared++;
    }
    char t1[32], t2[32];
    fprintf(f, "### attnladder compare: B against A\n\n");
    fprintf(f, "| | evidence | GPU | commit | date |\n| --- | --- | --- | --- | --- |\n");
    run_row(f, "A (reference)", a);
    run_row(f, "B", b);
    fprintf(f, "\n");
    if (strcmp(a->slug, b->slug) != 0)
        fprintf(f, "> **Note:** the runs come from different GPUs; ratios to the baseline can be "
                "compared, absolute times cannot, and the gate refuses such a pair.\n\n");
    fprintf(f, "Ratio = median latency / median latency of `%s` in the same run; change = "
            "ratio B / ratio A (above 1: B is slower). Rule of `%s` (%s): **regressed** when "
            "change > %s", c->baseline, c->path, reg_method_name(c->reg.method),
            fmt_num(t1, sizeof t1, 1 + c->reg.tolerance));
    if (c->reg.method == REG_METHOD_RATIO_CI)
        fprintf(f, " and its %.0f%% bootstrap CI lies above %s", c->reg.ci_level * 100,
                fmt_num(t2, sizeof t2, 1 + c->reg.tolerance * c->reg.ci_floor_fraction));
    else if (c->reg.method == REG_METHOD_CI_NONOVERLAP)
        fprintf(f, " and the two ratios' %.0f%% CIs do not overlap", c->reg.ci_level * 100);
    fprintf(f, "; improved symmetrically; inconclusive when the estimate crosses the tolerance "
            "but the CI does not.\n\n");
    fprintf(f, "**%zu regressed, %zu improved, %zu inconclusive, %zu unchanged, %zu not compared.**\n\n",
            count[REG_REGRESSED], count[REG_IMPROVED], count[REG_INCONCLUSIVE], count[REG_UNCHANGED],
            not_compared);
    size_t notable = 0;
    for (size_t i = 0; i < rs.n; i++)
        notable += !rs.rows[i].compared || rs.rows[i].verdict != REG_UNCHANGED;
    if (notable) {
        table_head(f, c);
        for (size_t i = 0; i < rs.n; i++)
            if (!rs.rows[i].compared || rs.rows[i].verdict != REG_UNCHANGED) print_row(f, &rs.rows[i]);
        fprintf(f, "\n");
    } else {
        fprintf(f, "Every compared row is unchanged.\n\n");
    }
    if (!o->changed_only && rs.n) {
        fprintf(f, "<details><summary>All %zu rows</summary>\n\n", rs.n);
        table_head(f, c);
        for (size_t i = 0; i < rs.n; i++) print_row(f, &rs.rows[i]);
        fprintf(f, "\n</details>\n");
    }
    free(rs.rows);
    return (int)count[REG_REGRESSED];
oom:
    free(rs.rows);
    snprintf(err, errlen, "out of memory comparing %s and %s", a->path, b->path);
    return -1;
}

int cmd_compare(int argc, char **argv)
{
    const char *config = GATE_CONFIG_DEFAULT, *files[2] = { NULL, NULL }, *out = NULL;
    compare_opts o = { 0 };
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: attnladder compare A.json B.json [--config FILE] [--all] [--changed]\n"
                   "                          [--out FILE]\n"
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
        } else if (!strcmp(a, "--config") || !strcmp(a, "--out")) {
            const char *v = arg_value("compare", argc, argv, &i);
            if (!v) return EXIT_BAD_INPUT;
            if (!strcmp(a, "--config")) config = v;
            else out = v;
        } else if (a[0] == '-') {
            fprintf(stderr, "attnladder compare: unknown option '%s'; accepted: --config, --all, "
                    "--changed, --out, A.json B.json\n", a);
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
    gate_config cfg;
    if (gate_config_load(config, &cfg, err, sizeof err)) {
        fprintf(stderr, "attnladder compare: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    run_data a = { 0 }, b = { 0 };
    int rc = EXIT_BAD_INPUT;
    FILE *f = NULL;
    if (run_open(&a, files[0], err, sizeof err) || run_open(&b, files[1], err, sizeof err)) goto bad;
    f = out ? fopen(out, "w") : stdout;
    if (!f) {
        snprintf(err, sizeof err, "--out %s: cannot write it", out);
        goto bad;
    }
    if (runs_compare_markdown(f, &cfg, &a, &b, &o, err, sizeof err) < 0) goto bad;
    rc = EXIT_OK;
    goto done;
bad:
    fprintf(stderr, "attnladder compare: %s\n", err);
done:
    if (f && f != stdout && fclose(f) && rc == EXIT_OK) {
        fprintf(stderr, "attnladder compare: --out %s: write failed\n", out);
        rc = EXIT_BAD_INPUT;
    }
    run_close(&a);
    run_close(&b);
    gate_config_free(&cfg);
    return rc;
}
