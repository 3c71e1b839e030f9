/* report/model.c: the report model (model.h): runs grouped per GPU, the gates' verdicts,
 * the phases in ladder order and what pages and plots derive from them alike. */
#include "report/model.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include "core/names.h"
#include "core/shapes.h"
#include "report/phase_doc.h"
#include "evidence/run_lists.h"
#include "gate/drift_spread.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void find_accepted(const char *root, report_gpu *g)
{
    char path[4096], err[1024];
    int found = evidence_accepted(root, g->slug, g->accepted_name, sizeof g->accepted_name, path,
                                  sizeof path, err, sizeof err);
    if (found < 0) {
        fprintf(stderr, "attnladder report: %s\n", err);
        g->accepted_bad = 1;
        snprintf(g->accepted_name, sizeof g->accepted_name, "(invalid accepted.txt)");
        return;
    }
    if (found == 0) {
        g->accepted_name[0] = '\0';
        return;
    }
    for (size_t i = 0; i < g->n_runs; i++)
        if (strcmp(g->runs[i].base, g->accepted_name) == 0) g->accepted = &g->runs[i];
}

static const run_data *complete_run(const report_gpu *g, const char *name)
{
    for (size_t i = 0; i < g->n_runs; i++)
        if (!g->runs[i].partial && strcmp(g->runs[i].base, name) == 0) return &g->runs[i];
    return NULL;
}

/* The run the GPU's tables and plots are built from: its reference run, else the fallback
 * evidence/run_lists.h gives, each time with the sentence that says so; a file that is
 * invalid, or names a run that is not here, is reported and the newest complete run
 * stands in (never silently). */
static void choose_reference(const report_ctx *c, report_gpu *g)
{
    const run_data *newest = NULL;
    for (size_t i = g->n_runs; i-- > 0 && !newest;)
        if (!g->runs[i].partial) newest = &g->runs[i];
    char name[256], why[1024], err[1024];
    int rule = reference_choose(c->evidence_root, g->slug, newest ? newest->base : NULL, name, sizeof name,
                                why, sizeof why, err, sizeof err);
    if (rule == REFERENCE_NONE) return;
    const run_data *r = rule > 0 ? complete_run(g, name) : NULL;
    if (rule > 0 && !r)
        snprintf(err, sizeof err, "%s names `%s`, which is not among the readable complete runs of this GPU",
                 rule == REFERENCE_FROM_FILE ? "reference.txt" : "accepted.txt", name);
    if (r) {
        g->ref = r;
        g->ref_rule = rule;
        return;
    }
    fprintf(stderr, "attnladder report: %s/%s: %s\n", c->evidence_root, g->slug, err);
    g->ref_bad = 1;
    snprintf(g->ref_err, sizeof g->ref_err, "%s", err);
    g->ref = newest;
    g->ref_rule = REFERENCE_FALLBACK_NEWEST;
}

/* The accepted set among the GPU's complete runs (g->set), those it names that are not
 * among them counted (g->set_missing). An unreadable accepted.txt leaves the set empty:
 * find_accepted has said why. */
static void find_set(const report_ctx *c, report_gpu *g)
{
    static accepted_set set;   /* large; the report is single-threaded */
    char err[1024];
    if (evidence_accepted_set(c->evidence_root, g->slug, &set, err, sizeof err) != 1) return;
    for (size_t i = 0; i < set.n; i++) {
        const run_data *r = complete_run(g, set.name[i]);
        if (!r) g->set_missing++;
        else g->set[g->n_set++] = r;
    }
}

/* The accepted set, ref left out (a run is never its own reference), as shallow copies for
 * the drift rule; *n of them. NULL when out of memory. */
static run_data *accepted_runs(const report_gpu *g, size_t *n)
{
    *n = 0;
    run_data *runs = malloc((ACCEPTED_MAX + 1) * sizeof *runs);
    for (size_t i = 0; runs && i < g->n_set; i++)
        if (g->set[i] != g->ref) runs[(*n)++] = *g->set[i];
    return runs;
}

/* The drift rule on the reference run: against the accepted run when it is another run
 * (the pair compare and `gate --against` judge alike), else against the rest of the set. */
static void drift_of_reference(const report_ctx *c, report_gpu *g)
{
    size_t n;
    run_data *set = accepted_runs(g, &n);
    if (!set) {
        g->reg_state = -1;
        snprintf(g->reg_err, sizeof g->reg_err, "out of memory");
        return;
    }
    g->set_runs = n;
    if (g->accepted != g->ref) {
        drift_spread sp;
        if (drift_spread_of(c->cfg, set, n, &sp, g->reg_err, sizeof g->reg_err)) {
            g->reg_state = -1;
        } else {
            g->reg_state = gate_regression(c->cfg, g->ref, g->accepted, &sp, &g->reg, g->reg_err,
                                           sizeof g->reg_err) == 0 ? 1 : -1;
            drift_spread_free(&sp);
        }
    } else {
        g->drift_state = gate_drift(c->cfg, g->ref, set, n, &g->drift, g->reg_err, sizeof g->reg_err) == 0
                       ? 1 : -1;
    }
    free(set);
}

static void evaluate_gpu(const report_ctx *c, report_gpu *g)
{
    choose_reference(c, g);
    if (!g->ref) return;
    g->gate_ok = gate_ladder(c->cfg, g->ref, &g->ladder, g->gate_err, sizeof g->gate_err) == 0;
    find_accepted(c->evidence_root, g);
    if (g->accepted) find_set(c, g);
    if (g->accepted && g->gate_ok) drift_of_reference(c, g);
}

/* The phases of every run, sorted, each once. */
static int collect_phases(report_ctx *c, run_data *runs, size_t n)
{
    size_t cap = 16;
    c->phases = malloc(cap * sizeof *c->phases);
    if (!c->phases) return -1;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r].n_impls; i++) {
            const run_impl *im = &runs[r].impls[i];
            if (strcmp(im->kind, "phase") != 0) continue;
            size_t k = 0;
            while (k < c->n_phases && strcmp(c->phases[k], im->name) != 0) k++;
            if (k < c->n_phases) continue;
            if (c->n_phases == cap) {
                const char **p = realloc(c->phases, 2 * cap * sizeof *p);
                if (!p) return -1;
                c->phases = p;
                cap *= 2;
            }
            c->phases[c->n_phases++] = im->name;
        }
    qsort(c->phases, c->n_phases, sizeof *c->phases, cmp_str);
    return 0;
}

/* Adds name (not yet among c->phases) with room for it; 0 or -1. */
static int add_phase(report_ctx *c, const char *name, size_t *cap)
{
    for (size_t k = 0; k < c->n_phases; k++)
        if (!strcmp(c->phases[k], name)) return 0;
    if (c->n_phases == *cap) {
        const char **p = realloc(c->phases, 2 * *cap * sizeof *p);
        if (!p) return -1;
        c->phases = p;
        *cap *= 2;
    }
    c->phases[c->n_phases++] = name;
    return 0;
}

/* The rungs of phases/: a directory <NN>_<name> with a README.md. Their names join the
 * phases, so a rung without a run yet still has its page and its place. */
static int collect_phase_dirs(report_ctx *c, size_t *cap)
{
    DIR *d = opendir(c->phases_dir);
    if (!d) return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        const char *n = e->d_name;
        if (!isdigit((unsigned char)n[0]) || !isdigit((unsigned char)n[1]) || n[2] != '_' || !name_is_safe(n))
            continue;
        char *readme = NULL;
        struct stat st;
        if (asprintf(&readme, "%s/%s/README.md", c->phases_dir, n) < 0) return -1;
        int has = stat(readme, &st) == 0 && S_ISREG(st.st_mode);
        free(readme);
        if (!has || report_phase_index(c, n) >= 0) continue;
        char **o = realloc(c->owned, (c->n_owned + 1) * sizeof *o);
        if (!o) {
            rc = -1;
            break;
        }
        c->owned = o;
        if (!(c->owned[c->n_owned] = strdup(n))) {
            rc = -1;
            break;
        }
        rc = add_phase(c, c->owned[c->n_owned++], cap);
    }
    closedir(d);
    return rc;
}

/* Which phases are current (a README in phases/) and, for a former one, which current
 * rung's History paragraph names it. */
static int find_successors(report_ctx *c)
{
    c->current = calloc(c->n_phases + 1, sizeof *c->current);
    c->successor = malloc((c->n_phases + 1) * sizeof *c->successor);
    phase_doc *docs = calloc(c->n_phases + 1, sizeof *docs);
    if (!c->current || !c->successor || !docs) {
        free(docs);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < c->n_phases && rc == 0; i++) {
        c->successor[i] = -1;
        int got = phase_doc_load(c->phases_dir, c->phases[i], &docs[i]);
        if (got < 0) rc = -1;
        c->current[i] = got == 0;
    }
    for (size_t i = 0; i < c->n_phases && rc == 0; i++) {
        if (c->current[i]) continue;
        for (size_t k = 0; k < c->n_phases && c->successor[i] < 0; k++)
            if (c->current[k] && phase_doc_names_former(&docs[k], c->phases[i])) c->successor[i] = (int)k;
    }
    for (size_t i = 0; i < c->n_phases; i++) phase_doc_free(&docs[i]);
    free(docs);
    return rc;
}

const char *report_name_in_run(const report_ctx *c, const run_data *r, const char *phase)
{
    if (run_find_impl(r, phase)) return phase;
    int i = report_phase_index(c, phase);
    size_t former[8];
    size_t n = i >= 0 ? report_former_names(c, (size_t)i, former, 8) : 0;
    for (size_t k = 0; k < n; k++)
        if (run_find_impl(r, c->phases[former[k]])) return c->phases[former[k]];
    return NULL;
}

int report_rung_in_run(const report_ctx *c, const run_data *r, size_t i)
{
    return report_name_in_run(c, r, c->phases[i]) != NULL;
}

int report_rung_in_some_reference(const report_ctx *c, size_t i)
{
    for (size_t k = 0; k < c->n_gpus; k++)
        if (c->gpus[k].ref && report_rung_in_run(c, c->gpus[k].ref, i)) return 1;
    return 0;
}

size_t report_step_shapes(const report_ctx *c, attn_shape *out, size_t cap)
{
    /* where the steps of rungs 07-09 were measured and predicted (their READMEs): the
     * throughput shape, a long sequence, and D = 64 with many heads */
    static const attn_shape STEPS[] = {
        { 4, 16, 4096, 4096, 128, 0, 0.0f },
        { 1, 16, 16384, 16384, 128, 0, 0.0f },
        { 4, 32, 4096, 4096, 64, 0, 0.0f },
    };
    size_t n = 0;
    for (size_t k = 0; k < c->cfg->n_headline + sizeof STEPS / sizeof STEPS[0] && n < cap; k++) {
        const attn_shape *s = k < c->cfg->n_headline ? &c->cfg->headline[k] : &STEPS[k - c->cfg->n_headline];
        int seen = 0;
        for (size_t j = 0; j < n; j++) seen |= shape_same(&out[j], s);
        if (!seen) out[n++] = *s;
    }
    return n;
}

static int is_decode(const run_result *x, int batched)
{
    return strcmp(x->tag, "decode") == 0 && (x->shape.batch > 1) == (batched != 0);
}

int report_has_decode(const run_data *r, int batched)
{
    for (size_t k = 0; r && k < r->n_results; k++)
        if (is_decode(&r->results[k], batched)) return 1;
    return 0;
}

size_t report_decode_shapes(const run_data *r, int batched, attn_shape *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < r->n_results && n < cap; k++) {
        if (!is_decode(&r->results[k], batched)) continue;
        int seen = 0;
        for (size_t j = 0; j < n && !seen; j++) seen = shape_same(&out[j], &r->results[k].shape);
        if (!seen) out[n++] = r->results[k].shape;
    }
    return n;
}

size_t report_former_names(const report_ctx *c, size_t i, size_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; c->successor && k < c->n_phases && n < cap; k++)
        if (c->successor[k] == (int)i) out[n++] = k;
    return n;
}

int report_model_build(report_ctx *c, run_data *runs, size_t n_runs)
{
    c->gpus = calloc(n_runs + 1, sizeof *c->gpus);
    if (!c->gpus || collect_phases(c, runs, n_runs)) return -1;
    size_t cap = c->n_phases;
    if (cap < 16) {
        const char **p = realloc(c->phases, 16 * sizeof *p);
        if (!p) return -1;
        c->phases = p;
        cap = 16;
    }
    if (collect_phase_dirs(c, &cap)) return -1;
    qsort(c->phases, c->n_phases, sizeof *c->phases, cmp_str);
    if (find_successors(c)) return -1;
    for (size_t i = 0; i < n_runs;) {
        report_gpu *g = &c->gpus[c->n_gpus++];
        g->slug = runs[i].slug;
        g->gpu_name = runs[i].gpu_name;
        g->runs = &runs[i];
        while (i < n_runs && strcmp(runs[i].slug, g->slug) == 0) {
            g->n_runs++;
            i++;
        }
        evaluate_gpu(c, g);
    }
    return 0;
}

void report_model_free(report_ctx *c)
{
    for (size_t i = 0; c->gpus && i < c->n_gpus; i++) {
        gate_outcome_free(&c->gpus[i].ladder);
        gate_outcome_free(&c->gpus[i].reg);
        drift_outcome_free(&c->gpus[i].drift);
    }
    free(c->gpus);
    free(c->phases);
    free(c->current);
    free(c->successor);
    for (size_t i = 0; i < c->n_owned; i++) free(c->owned[i]);
    free(c->owned);
    c->owned = NULL;
    c->n_owned = 0;
    c->current = NULL;
    c->successor = NULL;
    c->gpus = NULL;
    c->phases = NULL;
    c->n_gpus = c->n_phases = 0;
}

int report_phase_index(const report_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->n_phases; i++)
        if (strcmp(c->phases[i], name) == 0) return (int)i;
    return -1;
}

double report_physical_floor_us(const run_data *r, const attn_shape *s)
{
    if (!(r->fp16_tflops > 0) || !(r->dram_gbps > 0)) return NAN;
    double t = fmax(shape_flops(s) / (r->fp16_tflops * 1e12), shape_bytes(s) / (r->dram_gbps * 1e9)) * 1e6;
    return t + (isfinite(r->launch_floor_us) ? r->launch_floor_us : 0.0);
}

const run_result *report_first_rung(const report_ctx *c, const run_data *r, const attn_shape *s)
{
    for (size_t i = 0; i < c->n_phases; i++) {
        const run_result *x = run_find(r, c->phases[i], s);
        if (x && x->timed) return x;
    }
    return NULL;
}

const run_result *report_previous_rung(const report_ctx *c, const run_data *r, const char *phase,
                                       const attn_shape *s)
{
    int k = report_phase_index(c, phase);
    for (int i = k - 1; i >= 0; i--) {
        const run_result *x = run_find(r, c->phases[i], s);
        if (x && x->timed) return x;
    }
    return NULL;
}

const run_result *report_kernel_origin(const report_ctx *c, const run_data *r, const run_result *x)
{
    int k = report_phase_index(c, x->impl);
    for (int i = 0; i < k; i++) {
        const run_result *y = run_find(r, c->phases[i], &x->shape);
        if (y && run_same_kernel(x, y)) return y;
    }
    return x;
}

/* ---- plot names and colours --------------------------------------------------------- */

/* Phases: distinct saturated colours in ladder order. Baselines: black and greys, drawn
 * dashed with open symbols, so they never read as a rung. */
/* Sixteen colours that a reader tells apart (Tableau's ten, then six darker ones), so that
 * every rung of the ladder has its own; the baselines black and four greys, none of them a
 * rung's. In ladder order (phases/ and the runs' names sorted: 07_hopper, a former rung seen
 * only in its history plot, is the seventh), the dark red-brown sits on the former rung and
 * Tableau's pink on 11_split_keys: beside 06_tiling's brown in the same plots, the top rung
 * read as the same colour. */
static const char *const PHASE_COLOURS[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                             "#8c564b", "#843c39", "#17becf", "#bcbd22", "#393b79",
                                             "#637939", "#e377c2", "#7b4173", "#e6550d", "#3182bd",
                                             "#31a354" };
static const char *const BASE_COLOURS[] = { "#000000", "#404040", "#6e6e6e", "#9a9a9a", "#c2c2c2" };
#define N_BASE_COLOURS (sizeof BASE_COLOURS / sizeof BASE_COLOURS[0])
#define N_PHASE_COLOURS (sizeof PHASE_COLOURS / sizeof PHASE_COLOURS[0])

void report_plot_name(char *buf, size_t len, const char *slug, const char *what)
{
    snprintf(buf, len, "%s-%s.svg", slug, what);
}

int report_baseline_index(const run_data *r, const char *name)
{
    int k = 0;
    for (size_t i = 0; i < r->n_impls; i++) {
        const char *kind = r->impls[i].kind;
        if (strcmp(kind, "baseline") && strcmp(kind, "external")) continue;
        if (strcmp(r->impls[i].name, name) == 0) return k;
        k++;
    }
    return k;
}

const char *report_impl_colour(const report_ctx *c, const char *name, const char *kind)
{
    if (kind && strcmp(kind, "phase") == 0) {
        int i = report_phase_index(c, name);
        return PHASE_COLOURS[(i < 0 ? 0 : (size_t)i) % N_PHASE_COLOURS];
    }
    return strcmp(name, c->cfg->baseline) == 0 ? BASE_COLOURS[0] : BASE_COLOURS[1];
}

const char *report_baseline_colour(const report_ctx *c, const run_data *r, const char *name)
{
    if (strcmp(name, c->cfg->baseline) == 0) return BASE_COLOURS[0];
    int k = report_baseline_index(r, name);
    return BASE_COLOURS[1 + (size_t)k % (N_BASE_COLOURS - 1)];
}

const char *report_series_colour(size_t i)
{
    return PHASE_COLOURS[i % N_PHASE_COLOURS];
}
