/* report/baseline_libs.c: the baselines' libraries and the externals' paired figures
 * (baseline_libs.h). */
#include "report/baseline_libs.h"

#include <math.h>
#include <string.h>
#include "core/text_safe.h"
#include "evidence/result_ratio.h"

/* Two cuDNNs are said to differ at a shape past this (issue 51: the same library twice
 * agrees within 0.2%, the two differ by up to 12%). */
#define LIBRARIES_DIFFER 0.02

external_source report_external_source(const run_data *r, const run_result *x)
{
    double q;
    if (result_point_ratio(r, x, r->baseline, &q)) return EXTERNAL_NO_RATIO;
    if (result_bridge(r, x, r->baseline)) return EXTERNAL_PAIRED;
    /* paired in PyTorch's process with sdpa_cudnn itself: that one ran on PyTorch's cuDNN */
    return x->n_paired && !strcmp(x->paired_baseline, r->baseline) ? EXTERNAL_OLD_METHOD : EXTERNAL_PAIRED;
}

int report_external_time(const run_data *r, const run_result *x, double *us)
{
    double q;
    const run_result *b = run_find(r, r->baseline, &x->shape);
    if (!b || !b->timed || result_point_ratio(r, x, r->baseline, &q)) return -1;
    *us = b->median_us * q;
    return 0;
}

static void cudnn_version(char *buf, size_t len, long v)
{
    if (v > 0) snprintf(buf, len, "cuDNN %ld.%ld.%ld", v / 10000, (v / 100) % 100, v % 100);
    else snprintf(buf, len, "cuDNN (version not recorded)");
}

void report_baseline_library(char *buf, size_t len, const run_data *r)
{
    char v[64];
    cudnn_version(v, sizeof v, r->ctx.cudnn);
    snprintf(buf, len, "%s (the machine's)", v);
}

/* The externals' cuDNN, from the title torch_sdpa.py writes ("..., cuDNN 9.19.0)"). */
static const char *external_cudnn(const run_data *r, char *buf, size_t len)
{
    for (size_t i = 0; i < r->n_impls; i++) {
        const char *t = r->impls[i].title, *at = t ? strstr(t, "cuDNN ") : NULL;
        if (strcmp(r->impls[i].kind, "external") || !at) continue;
        size_t n = strspn(at + 6, "0123456789.");
        const char *torch = strstr(t, "torch ");
        size_t tn = torch ? strspn(torch + 6, "0123456789.") : 0;
        while (tn && torch[6 + tn - 1] == '.') tn--;
        snprintf(buf, len, "cuDNN %.*s (PyTorch %.*s's)", (int)n, at + 6, (int)(tn ? tn : 1), tn ? torch + 6 : "?");
        return buf;
    }
    return NULL;
}

/* The shapes where the C baseline on PyTorch's cuDNN and on the machine's differ past
 * LIBRARIES_DIFFER, one line each; how many shapes were compared. */
static size_t difference_lines(FILE *f, const run_data *r, size_t *n_differ)
{
    size_t n = 0;
    *n_differ = 0;
    for (size_t k = 0; k < r->n_results; k++) {
        const run_result *x = &r->results[k];
        double q, lo, hi;
        if (strcmp(x->impl, REPORT_ON_TORCH_CUDNN) || result_ratio(r, x, r->baseline, &q, &lo, &hi)) continue;
        n++;
        if (fabs(q - 1) <= LIBRARIES_DIFFER) continue;
        char text[96];
        run_shape_text(&x->shape, text, sizeof text);
        if (!(*n_differ)++)
            fprintf(f, "\n\n| shape | PyTorch's cuDNN / the machine's [95%% CI] | difference |\n| --- | ---: | ---: |\n");
        fprintf(f, "| %s | %.3f [%.3f, %.3f] | %+.1f%% |\n", text, q, lo, hi, 100 * (q - 1));
    }
    return n;
}

void report_libraries_paragraph(FILE *f, const report_ctx *c, const run_data *r)
{
    char lib[96], path[600] = "", ext[96];
    report_baseline_library(lib, sizeof lib, r);
    if (r->ctx.cudnn_path) {
        char esc[560];
        text_escape(esc, sizeof esc, r->ctx.cudnn_path, TEXT_MARKDOWN);
        snprintf(path, sizeof path, ", loaded from `%s`", esc);
    }
    fprintf(f, "Baselines: `%s` is %s%s, the library the harness loads on every machine, and the gate "
            "judges every rung against it: the bounds and the accepted sets were measured against it, "
            "and a rung's verdict must not move with a library that ships inside another package.",
            c->cfg->baseline, lib, path);
    const char *torch_lib = external_cudnn(r, ext, sizeof ext);
    if (!torch_lib) {
        fprintf(f, "\n\n");
        return;
    }
    int old = 0;
    for (size_t k = 0; k < r->n_results && !old; k++) {
        const run_impl *im = run_find_impl(r, r->results[k].impl);
        old = im && !strcmp(im->kind, "external") && report_external_source(r, &r->results[k]) == EXTERNAL_OLD_METHOD;
    }
    fprintf(f, " PyTorch's backends run on %s, timed in PyTorch's process", torch_lib);
    if (old) {
        fprintf(f, ". This run predates the bridge: there they were paired with `%s` running on PyTorch's cuDNN, "
                "so their ratios (old method) are to %s, not to this run's baseline, and their times and TFLOP/s "
                "are that ratio times this baseline's time.\n\n", c->cfg->baseline, torch_lib);
        return;
    }
    fprintf(f, " beside a rung timed in both processes (the bridge); their ratio to `%s` is the bridge's "
            "ratio in PyTorch's process times the bridge's paired ratio here, and their times and TFLOP/s "
            "are that ratio times this baseline's time.", c->cfg->baseline);
    size_t n_differ, n = difference_lines(f, r, &n_differ);
    if (!n)
        fprintf(f, " `%s` (the C baseline on PyTorch's cuDNN) is not in this run.\n\n", REPORT_ON_TORCH_CUDNN);
    else if (n_differ)
        fprintf(f, "\nThe two cuDNNs differ by more than %.0f%% at %zu of the %zu shapes where both ran "
                "(`%s`, the C baseline on PyTorch's cuDNN, against `%s`), above.\n\n", 100 * LIBRARIES_DIFFER,
                n_differ, n, REPORT_ON_TORCH_CUDNN, c->cfg->baseline);
    else
        fprintf(f, " The two cuDNNs agree within %.0f%% at all %zu shapes where both ran (`%s` against `%s`).\n\n",
                100 * LIBRARIES_DIFFER, n, REPORT_ON_TORCH_CUDNN, c->cfg->baseline);
}
