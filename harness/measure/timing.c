/* measure/timing.c: graph, single-launch and cold-L2 measurement loops. */
#include "measure/cuda_check.h"
#include "measure/timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>

static const char *const MODE_NAMES[MODE_COUNT] = { "graph", "single", "cold" };

const char *time_mode_name(time_mode m) { return m < MODE_COUNT ? MODE_NAMES[m] : "?"; }

int time_mode_parse(const char *name)
{
    for (int m = 0; m < MODE_COUNT; m++)
        if (strcmp(name, MODE_NAMES[m]) == 0) return m;
    return -1;
}

/* Samples keep 4 decimals (0.1 ns): event resolution is about 0.5 us per replay. They are
 * rounded when taken, so every figure computed from them here (the summary, the ratio)
 * is the one a reader recomputes from the evidence. */
static double round4(double x) { return round(x * 1e4) / 1e4; }

double time_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int run_once(const attn_phase *ph, void *state, const attn_args *args,
                    char *err, size_t errlen)
{
    int rc = ph->run(state, args);
    if (rc != 0) {
        snprintf(err, errlen, "%s: run failed (%d): %s", ph->name, rc, ph->error_string(rc));
        return -1;
    }
    return 0;
}

/* One synchronised launch timed with events: the warm-up and the estimate that sizes
 * the graph. */
int time_estimate_us(const attn_phase *ph, void *state, const attn_args *args,
                     cudaEvent_t e0, cudaEvent_t e1, double *us, char *err, size_t errlen)
{
    float ms = 0;
    for (int i = 0; i < 2; i++) {
        CUDA_OR_GOTO(cudaEventRecord(e0, args->stream), fail);
        if (run_once(ph, state, args, err, errlen)) return -1;
        CUDA_OR_GOTO(cudaEventRecord(e1, args->stream), fail);
        CUDA_OR_GOTO(cudaEventSynchronize(e1), fail);
        CUDA_OR_GOTO(cudaEventElapsedTime(&ms, e0, e1), fail);
    }
    *us = ms * 1e3;
    return 0;
fail:
    return -1;
}

int time_capture_graph(const attn_phase *ph, void *state, const attn_args *args, int inner,
                       const l2_layout *copies, cudaGraphExec_t *exec, char *err, size_t errlen)
{
    cudaGraph_t graph = NULL;
    CUDA_OR_GOTO(cudaStreamBeginCapture(args->stream, cudaStreamCaptureModeThreadLocal), fail);
    for (int i = 0; i < inner; i++) {
        attn_args ai = l2_launch_args(args, copies, i);
        int rc = ph->run(state, &ai);
        if (rc != 0) {
            cudaStreamEndCapture(args->stream, &graph);
            if (graph) cudaGraphDestroy(graph);
            snprintf(err, errlen, "%s: run failed during graph capture (%d): %s", ph->name,
                     rc, ph->error_string(rc));
            return -1;
        }
    }
    CUDA_OR_GOTO(cudaStreamEndCapture(args->stream, &graph), fail);
    CUDA_OR_GOTO(cudaGraphInstantiate(exec, graph, 0), fail);
    cudaGraphDestroy(graph);
    return 0;
fail:
    if (graph) cudaGraphDestroy(graph);
    return -1;
}

static int grow(time_result *out, size_t *cap)
{
    if (out->n < *cap) return 0;
    size_t ncap = *cap ? 2 * *cap : 64;
    double *s = realloc(out->samples_us, ncap * sizeof *s);
    if (!s) return -1;
    out->samples_us = s;
    unsigned *m = realloc(out->sm_mhz, ncap * sizeof *m);
    if (!m) return -1;
    out->sm_mhz = m;
    *cap = ncap;
    return 0;
}

static int keep_discarded(time_result *out, double us, size_t *cap)
{
    if (out->n_discarded == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        double *d = realloc(out->discarded_us, ncap * sizeof *d);
        if (!d) return -1;
        out->discarded_us = d;
        *cap = ncap;
    }
    out->discarded_us[out->n_discarded++] = us;
    return 0;
}

/* Longer than a harness function should be: one sampling loop whose events, graph, clock
 * tally and sample buffers share one cleanup path, and whose stop rules (noise, GPU time,
 * samples, throttled clocks) are read in the order they apply; split, each part would take
 * the whole state. */
int time_measure(const attn_phase *ph, void *state, const attn_args *args, time_mode mode,
                 const time_config *cfg, time_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->mode = mode;
    out->inner = 1;
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaGraphExec_t exec = NULL;
    size_t cap = 0, dcap = 0;
    double est = 0;
    clock_tally tally = { 0 };
    out->clock_read = cfg->clock.watch != NULL;
    CUDA_OR_GOTO(cudaEventCreate(&e0), fail);
    CUDA_OR_GOTO(cudaEventCreate(&e1), fail);
    if (time_estimate_us(ph, state, args, e0, e1, &est, err, errlen)) goto fail;

    if (mode == MODE_GRAPH) {
        int inner = (int)ceil(cfg->graph_target_us / (est > 0.1 ? est : 0.1));
        out->inner = inner < 1 ? 1 : inner > cfg->inner_max ? cfg->inner_max : inner;
        /* cold inputs: every replay reads each copy alike (l2_copies.h) */
        out->inner = l2_graph_inner(out->inner, cfg->copies.copies);
        if (time_capture_graph(ph, state, args, out->inner, &cfg->copies, &exec, err, errlen)) goto fail;
        /* warm-up replays: clocks up, instruction cache and TLBs warm */
        int warm = (int)ceil(10e3 / (est * out->inner + 1.0));
        warm = warm < 2 ? 2 : warm > 50 ? 50 : warm;
        for (int i = 0; i < warm; i++) CUDA_OR_GOTO(cudaGraphLaunch(exec, args->stream), fail);
        CUDA_OR_GOTO(cudaStreamSynchronize(args->stream), fail);
    }

    double t0 = time_now_s();
    for (;;) {
        if (grow(out, &cap)) {
            snprintf(err, errlen, "out of host memory");
            goto fail;
        }
        if (mode == MODE_COLD)
            CUDA_OR_GOTO(cudaMemsetAsync(cfg->scrub, (int)(out->n & 0xff), cfg->scrub_bytes,
                                         args->stream), fail);
        CUDA_OR_GOTO(cudaEventRecord(e0, args->stream), fail);
        if (mode == MODE_GRAPH) {
            CUDA_OR_GOTO(cudaGraphLaunch(exec, args->stream), fail);
        } else if (run_once(ph, state, args, err, errlen)) {
            goto fail;
        }
        CUDA_OR_GOTO(cudaEventRecord(e1, args->stream), fail);
        CUDA_OR_GOTO(cudaEventSynchronize(e1), fail);
        CUDA_OR_GOTO(cudaGetLastError(), fail);
        float ms = 0;
        CUDA_OR_GOTO(cudaEventElapsedTime(&ms, e0, e1), fail);
        double us = round4(ms * 1e3 / out->inner);
        out->gpu_s += ms * 1e-3;
        double el = time_now_s() - t0;
        unsigned mhz = 0;
        if (clock_tally_sample(&cfg->clock, &tally, &mhz)) {
            if (keep_discarded(out, us, &dcap)) {
                snprintf(err, errlen, "out of host memory");
                goto fail;
            }
            if (clock_tally_over(&cfg->clock, &tally, out->n) || el >= cfg->rule.max_seconds) {
                out->stop = STOP_THROTTLED;
                break;
            }
            continue;
        }
        out->sm_mhz[out->n] = mhz;
        out->samples_us[out->n++] = us;
        /* the noise rule may stop sampling only after min_gpu_s of timed work (stats.h) */
        out->stop = stats_should_stop_after(out->samples_us, out->n, el, out->gpu_s, cfg->min_gpu_s, &cfg->rule,
                                            cfg->seed + out->n);
        if (out->stop != STOP_CONTINUE) break;
        if (clock_tally_over(&cfg->clock, &tally, out->n)) {
            out->stop = STOP_THROTTLED;
            break;
        }
    }
    out->wall_s = time_now_s() - t0;
    out->power_capped = tally.power_capped;
    out->reasons_seen = tally.seen;
    if (out->n == 0) {
        /* every sample was discarded: the measurement is marked throttled and keeps the
         * discarded samples, so it still says how fast it ran */
        for (size_t i = 0; i < out->n_discarded; i++) {
            if (grow(out, &cap)) goto fail;
            out->sm_mhz[out->n] = 0;
            out->samples_us[out->n++] = out->discarded_us[i];
        }
    }
    if (stats_summarize(out->samples_us, out->n, cfg->resamples, cfg->seed, cfg->ci_level,
                        &out->sum)) {
        snprintf(err, errlen, "statistics failed on %zu samples", out->n);
        goto fail;
    }
    if (exec) cudaGraphExecDestroy(exec);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 0;
fail:
    if (exec) cudaGraphExecDestroy(exec);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    time_result_free(out);
    return -1;
}

void time_result_free(time_result *r)
{
    free(r->samples_us);
    free(r->sm_mhz);
    free(r->discarded_us);
    r->samples_us = r->discarded_us = NULL;
    r->sm_mhz = NULL;
    r->n = r->n_discarded = 0;
}

