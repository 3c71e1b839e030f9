/* measure/interleave.c: the paired A/B measurement (interleave.h). */
#include "measure/interleave.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "core/rng.h"
#include "measure/cuda_check.h"
#include "measure/timing.h"

static int grow(interleave_result *r, size_t *cap)
{
    if (r->n < *cap) return 0;
    size_t ncap = *cap ? 2 * *cap : 128;
    double *a = realloc(r->a_us, ncap * sizeof *a);
    if (!a) return -1;
    r->a_us = a;
    double *b = realloc(r->b_us, ncap * sizeof *b);
    if (!b) return -1;
    r->b_us = b;
    unsigned char *f = realloc(r->a_first, ncap);
    if (!f) return -1;
    r->a_first = f;
    unsigned char *g = realloc(r->a_alt, ncap);
    if (!g) return -1;
    r->a_alt = g;
    unsigned *m = realloc(r->sm_mhz, ncap * sizeof *m);
    if (!m) return -1;
    r->sm_mhz = m;
    *cap = ncap;
    return 0;
}

/* One replay between two events; its time per launch in *us. */
static int replay(cudaGraphExec_t g, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int inner,
                  double *us, char *err, size_t errlen)
{
    float ms = 0;
    CUDA_OR_GOTO(cudaEventRecord(e0, s), fail);
    CUDA_OR_GOTO(cudaGraphLaunch(g, s), fail);
    CUDA_OR_GOTO(cudaEventRecord(e1, s), fail);
    CUDA_OR_GOTO(cudaEventSynchronize(e1), fail);
    CUDA_OR_GOTO(cudaGetLastError(), fail);
    CUDA_OR_GOTO(cudaEventElapsedTime(&ms, e0, e1), fail);
    *us = round(ms * 1e3 / inner * 1e4) / 1e4;
    return 0;
fail:
    return -1;
}

/* Longer than a harness function should be: the two sides' estimates, their graphs on both
 * buffer sets and the alternation share one cleanup path, and keeping them together keeps
 * the pair's like-for-like rules (one inner count, one order per round) in one place. */
int interleave_measure(const timed_impl *a, const timed_impl *b, const interleave_config *cfg,
                       interleave_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    cudaEvent_t e0 = NULL, e1 = NULL;
    /* [side][buffer set]: A's and B's graphs on each set */
    cudaGraphExec_t ga = NULL, gb = NULL, ga2 = NULL, gb2 = NULL;
    cudaStream_t s = a->args.stream;
    size_t cap = 0;
    double ea = 0, eb = 0;
    CUDA_OR_GOTO(cudaEventCreate(&e0), fail);
    CUDA_OR_GOTO(cudaEventCreate(&e1), fail);
    if (time_estimate_us(a->ph, a->state, &a->args, e0, e1, &ea, err, errlen) ||
        time_estimate_us(b->ph, b->state, &b->args, e0, e1, &eb, err, errlen)) goto fail;
    /* the same launches per graph for both, so a pair compares like with like */
    double est = ea > eb ? ea : eb;
    int inner = (int)ceil(cfg->graph_target_us / (est > 0.1 ? est : 0.1));
    out->inner = inner < 1 ? 1 : inner > cfg->inner_max ? cfg->inner_max : inner;
    if (time_capture_graph(a->ph, a->state, &a->args, out->inner, NULL, &ga, err, errlen) ||
        time_capture_graph(b->ph, b->state, &b->args, out->inner, NULL, &gb, err, errlen) ||
        time_capture_graph(a->ph, a->state, &a->args_alt, out->inner, NULL, &ga2, err, errlen) ||
        time_capture_graph(b->ph, b->state, &b->args_alt, out->inner, NULL, &gb2, err, errlen)) goto fail;
    for (int i = 0; i < cfg->warmup; i++) {
        CUDA_OR_GOTO(cudaGraphLaunch(ga, s), fail);
        CUDA_OR_GOTO(cudaGraphLaunch(gb, s), fail);
        CUDA_OR_GOTO(cudaGraphLaunch(ga2, s), fail);
        CUDA_OR_GOTO(cudaGraphLaunch(gb2, s), fail);
    }
    CUDA_OR_GOTO(cudaStreamSynchronize(s), fail);
    rng_state rng;
    rng_seed(&rng, cfg->seed);
    double t0 = time_now_s();
    for (;;) {
        if (grow(out, &cap)) {
            snprintf(err, errlen, "out of host memory");
            goto fail;
        }
        uint64_t draw = rng_next(&rng);
        int a_first = (int)(draw >> 63), a_alt = (int)((draw >> 62) & 1);
        /* A on one buffer set, B on the other: A's args with B's args_alt, or the reverse */
        cudaGraphExec_t xa = a_alt ? ga2 : ga, xb = a_alt ? gb : gb2;
        double ta = 0, tb = 0;
        if (a_first) {
            if (replay(xa, s, e0, e1, out->inner, &ta, err, errlen) ||
                replay(xb, s, e0, e1, out->inner, &tb, err, errlen)) goto fail;
        } else {
            if (replay(xb, s, e0, e1, out->inner, &tb, err, errlen) ||
                replay(xa, s, e0, e1, out->inner, &ta, err, errlen)) goto fail;
        }
        out->gpu_s += (ta + tb) * out->inner * 1e-6;
        double el = time_now_s() - t0;
        unsigned mhz = 0;
        if (clock_tally_sample(&cfg->clock, &out->tally, &mhz)) {
            /* a pair under a discarded clock event: dropped, counted */
            if (clock_tally_over(&cfg->clock, &out->tally, out->n) ||
                (el >= cfg->max_seconds && out->n < 2)) { out->stop = "throttled"; break; }
            if (el >= cfg->max_seconds) { out->stop = "max_time"; break; }
            continue;
        }
        out->sm_mhz[out->n] = mhz;
        out->a_us[out->n] = ta;
        out->b_us[out->n] = tb;
        out->a_first[out->n] = (unsigned char)a_first;
        out->a_alt[out->n] = (unsigned char)a_alt;
        out->n++;
        if (out->n >= cfg->min_samples && out->gpu_s >= cfg->min_gpu_s) { out->stop = "min_gpu_time"; break; }
        if (out->n >= cfg->max_samples) { out->stop = "max_samples"; break; }
        if (el >= cfg->max_seconds && out->n >= 2) { out->stop = "max_time"; break; }
    }
    out->wall_s = time_now_s() - t0;
    cudaGraphExecDestroy(ga);
    cudaGraphExecDestroy(gb);
    cudaGraphExecDestroy(ga2);
    cudaGraphExecDestroy(gb2);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 0;
fail:
    if (ga) cudaGraphExecDestroy(ga);
    if (gb) cudaGraphExecDestroy(gb);
    if (ga2) cudaGraphExecDestroy(ga2);
    if (gb2) cudaGraphExecDestroy(gb2);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    interleave_result_free(out);
    return -1;
}

void interleave_result_free(interleave_result *r)
{
    free(r->a_us);
    free(r->b_us);
    free(r->a_first);
    free(r->a_alt);
    free(r->sm_mhz);
    r->sm_mhz = NULL;
    r->a_us = r->b_us = NULL;
    r->a_first = r->a_alt = NULL;
    r->n = 0;
}
