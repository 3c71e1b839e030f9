/* measure/rotation.c: implementations timed in rotation (rotation.h). */
#include "measure/rotation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "core/rng.h"
#include "core/stats.h"
#include "measure/cuda_check.h"
#include "measure/timing.h"

/* Room for one more round (k values each). 0, or -1 out of memory. */
static int grow(rotation_result *r, size_t *cap)
{
    if (r->n < *cap) return 0;
    size_t ncap = *cap ? 2 * *cap : 64, k = r->k;
    double *us = realloc(r->us, ncap * k * sizeof *us);
    if (!us) return -1;
    r->us = us;
    unsigned char *pos = realloc(r->pos, ncap * k);
    if (!pos) return -1;
    r->pos = pos;
    unsigned char *alt = realloc(r->alt, ncap * k);
    if (!alt) return -1;
    r->alt = alt;
    unsigned *m = realloc(r->sm_mhz, ncap * sizeof *m);
    if (!m) return -1;
    r->sm_mhz = m;
    *cap = ncap;
    return 0;
}

/* A uniformly drawn order of 0..k-1 (Fisher-Yates). */
static void draw_order(rng_state *rng, size_t k, unsigned char *order)
{
    for (size_t i = 0; i < k; i++) order[i] = (unsigned char)i;
    for (size_t i = k - 1; i > 0; i--) {
        size_t j = (size_t)rng_below(rng, i + 1);
        unsigned char t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

int rotation_pairs(const rotation_result *r, size_t i, double **impl_us, double **base_us,
                   unsigned char **impl_first)
{
    *impl_us = malloc((r->n ? r->n : 1) * sizeof **impl_us);
    *base_us = malloc((r->n ? r->n : 1) * sizeof **base_us);
    *impl_first = malloc(r->n ? r->n : 1);
    if (!*impl_us || !*base_us || !*impl_first) {
        free(*impl_us);
        free(*base_us);
        free(*impl_first);
        *impl_us = *base_us = NULL;
        *impl_first = NULL;
        return -1;
    }
    for (size_t rd = 0; rd < r->n; rd++) {
        (*impl_us)[rd] = r->us[rd * r->k + i];
        (*base_us)[rd] = r->us[rd * r->k + r->base];
        (*impl_first)[rd] = r->pos[rd * r->k + i] < r->pos[rd * r->k + r->base];
    }
    return 0;
}

double rotation_widest_ci(const rotation_result *r, size_t resamples, uint64_t seed, double conf)
{
    double widest = 0;
    for (size_t i = 0; i < r->k; i++) {
        if (i == r->base) continue;
        double *a, *b;
        unsigned char *f;
        if (rotation_pairs(r, i, &a, &b, &f)) return INFINITY;
        double q, lo, hi;
        int rc = stats_paired_ratio_ci(a, b, r->n, resamples, seed + i, conf, &q, &lo, &hi);
        free(a);
        free(b);
        free(f);
        if (rc || !(q > 0)) return INFINITY;
        double w = (hi - lo) / q;
        if (w > widest) widest = w;
    }
    return widest;
}

int rotation_run(size_t k, size_t base, rotation_replay_fn replay, void *ctx, const rotation_rule *rule,
                 rotation_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (k < 2 || k > 255 || base >= k || rule->min_rounds < 1 || rule->max_rounds < rule->min_rounds) {
        snprintf(err, errlen, "rotation: %zu implementations (2 to 255), baseline %zu, rounds %zu to %zu "
                 "(at least 1)", k, base, rule->min_rounds, rule->max_rounds);
        return -1;
    }
    out->k = k;
    out->base = base;
    size_t cap = 0, every = rule->check_every ? rule->check_every : 1;
    unsigned char order[256], alt[256];
    double us[256];
    rng_state rng;
    rng_seed(&rng, rule->seed);
    double t0 = time_now_s();
    for (;;) {
        if (grow(out, &cap)) {
            snprintf(err, errlen, "out of host memory");
            goto fail;
        }
        draw_order(&rng, k, order);
        for (size_t j = 0; j < k; j++) alt[j] = rule->alt_sets ? (unsigned char)(rng_next(&rng) >> 63) : 0;
        double round_us = 0;
        for (size_t j = 0; j < k; j++) {
            size_t i = order[j];
            if (replay(ctx, i, alt[i], &us[i], err, errlen)) goto fail;
            round_us += us[i];
        }
        /* the time per launch times the launches would be exact; per launch is a lower
         * bound that keeps the rule independent of each graph's inner */
        out->gpu_s += round_us * 1e-6;
        double el = time_now_s() - t0;
        unsigned mhz = 0;
        if (clock_tally_sample(&rule->clock, &out->tally, &mhz)) {
            /* a round under a discarded clock event: dropped, counted */
            if (clock_tally_over(&rule->clock, &out->tally, out->n) || (el >= rule->max_seconds && out->n < 2)) {
                out->stop = "throttled";
                break;
            }
            if (el >= rule->max_seconds) { out->stop = "max_time"; break; }
            continue;
        }
        size_t rd = out->n++;
        out->sm_mhz[rd] = mhz;
        for (size_t j = 0; j < k; j++) {
            out->pos[rd * k + order[j]] = (unsigned char)j;
            out->us[rd * k + j] = us[j];
            out->alt[rd * k + j] = alt[j];
        }
        if (out->n >= rule->max_rounds) { out->stop = "max_samples"; break; }
        if (el >= rule->max_seconds && out->n >= 2) { out->stop = "max_time"; break; }
        if (out->n >= rule->min_rounds && out->gpu_s >= rule->min_gpu_s && out->n % every == 0 &&
            rotation_widest_ci(out, rule->resamples, rule->seed + out->n, rule->ci_level) <= rule->rel_ci_target) {
            out->stop = "noise";
            break;
        }
    }
    out->wall_s = time_now_s() - t0;
    return 0;
fail:
    rotation_result_free(out);
    return -1;
}

void rotation_result_free(rotation_result *r)
{
    free(r->us);
    free(r->pos);
    free(r->alt);
    free(r->sm_mhz);
    r->us = NULL;
    r->pos = r->alt = NULL;
    r->sm_mhz = NULL;
    r->n = 0;
}

/* ---- the CUDA side ---------------------------------------------------------------------- */

int rotation_gpu_prepare(rotation_gpu *g, const timed_impl *impls, size_t k, int alt_sets,
                         const l2_layout *copies, int inner_max, double graph_target_us, int warmup, char *err,
                         size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->impls = impls;
    g->k = k;
    g->stream = impls[0].args.stream;
    g->graphs = calloc(2 * k, sizeof *g->graphs);
    g->inner = calloc(k, sizeof *g->inner);
    g->est_us = calloc(k, sizeof *g->est_us);
    if (!g->graphs || !g->inner || !g->est_us) {
        snprintf(err, errlen, "out of host memory");
        goto fail;
    }
    CUDA_OR_GOTO(cudaEventCreate(&g->e0), fail);
    CUDA_OR_GOTO(cudaEventCreate(&g->e1), fail);
    for (size_t i = 0; i < k; i++) {
        const timed_impl *t = &impls[i];
        double est = 0;
        if (time_estimate_us(t->ph, t->state, &t->args, g->e0, g->e1, &est, err, errlen)) goto fail;
        g->est_us[i] = est;
        /* each graph its own launches, so that every replay lasts about the target: a
         * round gives every implementation a like share of the GPU's time */
        int inner = (int)ceil(graph_target_us / (est > 0.1 ? est : 0.1));
        g->inner[i] = inner < 1 ? 1 : inner > inner_max ? inner_max : inner;
        /* on cold inputs, each replay reads every copy alike, as in its own timing */
        g->inner[i] = l2_graph_inner(g->inner[i], copies ? copies->copies : 1);
        if (time_capture_graph(t->ph, t->state, &t->args, g->inner[i], copies, &g->graphs[2 * i], err, errlen))
            goto fail;
        if (alt_sets && time_capture_graph(t->ph, t->state, &t->args_alt, g->inner[i], copies,
                                           &g->graphs[2 * i + 1], err, errlen))
            goto fail;
    }
    /* warm-up: the first replays after a capture are the slowest */
    for (int w = 0; w < warmup; w++)
        for (size_t i = 0; i < 2 * k; i++)
            if (g->graphs[i]) CUDA_OR_GOTO(cudaGraphLaunch(g->graphs[i], g->stream), fail);
    CUDA_OR_GOTO(cudaStreamSynchronize(g->stream), fail);
    CUDA_OR_GOTO(cudaGetLastError(), fail);
    return 0;
fail:
    rotation_gpu_release(g);
    return -1;
}

int rotation_gpu_replay(void *ctx, size_t impl, int alt, double *us, char *err, size_t errlen)
{
    rotation_gpu *g = ctx;
    cudaGraphExec_t x = g->graphs[2 * impl + (alt && g->graphs[2 * impl + 1])];
    float ms = 0;
    CUDA_OR_GOTO(cudaEventRecord(g->e0, g->stream), fail);
    CUDA_OR_GOTO(cudaGraphLaunch(x, g->stream), fail);
    CUDA_OR_GOTO(cudaEventRecord(g->e1, g->stream), fail);
    CUDA_OR_GOTO(cudaEventSynchronize(g->e1), fail);
    CUDA_OR_GOTO(cudaGetLastError(), fail);
    CUDA_OR_GOTO(cudaEventElapsedTime(&ms, g->e0, g->e1), fail);
    /* rounded as every sample of the harness (timing.c says why) */
    *us = round(ms * 1e3 / g->inner[impl] * 1e4) / 1e4;
    if (!(*us > 0)) *us = 1e-4;   /* below the events' resolution: the smallest time kept */
    return 0;
fail:
    return -1;
}

void rotation_gpu_release(rotation_gpu *g)
{
    if (g->graphs)
        for (size_t i = 0; i < 2 * g->k; i++)
            if (g->graphs[i]) cudaGraphExecDestroy(g->graphs[i]);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    free(g->graphs);
    free(g->inner);
    free(g->est_us);
    memset(g, 0, sizeof *g);
}
