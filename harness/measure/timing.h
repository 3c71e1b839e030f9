/* measure/timing.h: the measuring method. One implementation, one shape, one mode:
 *  graph  - a CUDA graph of `inner` back-to-back run() calls, timed per replay with
 *           events; a sample is replay time / inner (warm L2, launch gaps amortised);
 *  single - one run() between two events, synchronised each time;
 *  cold   - as single, after an L2-sized scrub (a memset outside the events).
 * Sampling stops on the stop rule (stats.h); every mode reports why it stopped. */
#ifndef ATTNLADDER_TIMING_H
#define ATTNLADDER_TIMING_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "attn_phase.h"
#include "core/stats.h"
#include "measure/clock_watch.h"
#include "measure/l2_copies.h"

typedef enum { MODE_GRAPH = 0, MODE_SINGLE, MODE_COLD, MODE_COUNT } time_mode;

const char *time_mode_name(time_mode m);
/* -1 when the name is not one of graph, single, cold */
int time_mode_parse(const char *name);

typedef struct {
    stop_rule rule;
    size_t resamples;          /* bootstrap resamples for the summary CI */
    double ci_level;           /* 0.95 */
    uint64_t seed;
    int inner_max;             /* launches per graph (20) */
    double graph_target_us;    /* slow kernels: fewer launches, so a replay stays near this */
    double min_gpu_s;          /* the noise rule stops sampling only after this much GPU time */
    void *scrub;               /* cold mode: device buffer written between samples */
    size_t scrub_bytes;
    clock_policy clock;        /* the clock read after every sample (STOP_THROTTLED) */
    l2_layout copies;          /* graph mode: launch i reads input copy i mod copies
                                  (measure/l2_copies.h); copies <= 1: one set */
} time_config;

typedef struct {
    time_mode mode;
    int inner;
    double *samples_us;        /* per launch, in sampling order */
    size_t n;
    stop_reason stop;
    stats_summary sum;
    double wall_s;             /* host time the sampling loop took */
    double gpu_s;              /* device time inside the timed regions (replays, launches) */
    unsigned *sm_mhz;          /* per kept sample, when the clock was read (else NULL) */
    double *discarded_us;      /* the discarded samples, in order */
    size_t n_discarded;
    size_t power_capped;       /* kept samples taken under the software power cap */
    unsigned long long reasons_seen;   /* every reason bit read during the measurement */
    int clock_read;            /* the clock was read after every sample */
} time_result;

/* Measures ph->run(state, args) on args->stream (a non-default stream). 0, or -1 with
 * err naming the failing call (a failed run() is reported through ph->error_string). */
int time_measure(const attn_phase *ph, void *state, const attn_args *args, time_mode mode,
                 const time_config *cfg, time_result *out, char *err, size_t errlen);
void time_result_free(time_result *r);

/* The pieces the interleaved measurement (interleave.h) shares with this one: two
 * synchronised launches timed with events (the last one's time in *us), and a graph of
 * `inner` back-to-back run() calls. 0, or -1 with err. */
int time_estimate_us(const attn_phase *ph, void *state, const attn_args *args,
                     cudaEvent_t e0, cudaEvent_t e1, double *us, char *err, size_t errlen);
/* Launch i of the graph reads input copy i mod copies->copies (NULL or one copy: args's
 * inputs every launch); inner is then a multiple of the copies (l2_graph_inner). */
int time_capture_graph(const attn_phase *ph, void *state, const attn_args *args, int inner,
                       const l2_layout *copies, cudaGraphExec_t *exec, char *err, size_t errlen);

/* Seconds on the monotonic clock: the one host clock of the harness's measurements. */
double time_now_s(void);

#endif
