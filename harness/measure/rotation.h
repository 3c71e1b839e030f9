/* measure/rotation.h: every implementation of a point timed in rotation, in one process,
 * on the same inputs and stream, so that each ratio to the baseline is a median of
 * per-round quotients.
 *
 * Why: the GPU's power-capped clock wanders (1365-1980 MHz on an H100 under its 700 W cap)
 * over seconds, while each implementation's own measurement lasts a fraction of one. Timed
 * one after another, two implementations see different clocks and their ratio carries the
 * difference (the same kernel measured twice in one run differed by -5% to +9% at long
 * shapes). In a round every implementation's CUDA graph is replayed once, in an order
 * drawn per round, so a clock change falls on all of them alike and cancels in each
 * round's quotient; and, unlike pairing each one with the baseline in turn, every
 * implementation shares the same neighbours, so no ratio depends on the power draw of the
 * one it happened to be paired with.
 *
 * The loop is written against a replay callback, so that its order, stop rule and
 * bookkeeping are tested without a GPU (harness/tests/measure/test_rotation.c); rotation_gpu_*
 * below is the CUDA side. */
#ifndef ATTNLADDER_MEASURE_ROTATION_H
#define ATTNLADDER_MEASURE_ROTATION_H
#include <stddef.h>
#include <stdint.h>
#include "measure/clock_watch.h"
#include "measure/interleave.h"
#include "measure/l2_copies.h"

/* Replays implementation `impl`'s graph once on buffer set `alt` (0 or 1) and returns its
 * time per launch in *us. 0, or -1 with err. */
typedef int (*rotation_replay_fn)(void *ctx, size_t impl, int alt, double *us, char *err, size_t errlen);

typedef struct {
    size_t min_rounds, max_rounds;
    double min_gpu_s;         /* at least this much timed device time, all together */
    double max_seconds;       /* wall time of the sampling loop */
    double rel_ci_target;     /* stop once every ratio's CI width / median <= this */
    size_t check_every;       /* the ratio CIs are recomputed every this many rounds */
    size_t resamples;         /* bootstrap resamples of the stop rule's CIs */
    double ci_level;
    uint64_t seed;            /* draws each round's order and buffer sets */
    int alt_sets;             /* 1: two buffer sets, drawn per implementation and round */
    clock_policy clock;       /* read after each round; a throttled round is discarded */
} rotation_rule;

typedef struct {
    size_t k;                 /* implementations in the rotation */
    size_t base;              /* the baseline's index among them */
    size_t n;                 /* rounds kept */
    double *us;               /* us[r * k + i]: implementation i's time per launch in round r */
    unsigned char *pos;       /* pos[r * k + i]: its place in round r (0 first) */
    unsigned char *alt;       /* alt[r * k + i]: the buffer set it used in round r */
    unsigned *sm_mhz;         /* after round r (0: not read) */
    double gpu_s, wall_s;
    const char *stop;         /* "noise", "max_samples", "max_time", "throttled" */
    clock_tally tally;        /* discarded rounds, power-capped rounds, reasons seen */
} rotation_result;

/* Runs rounds until the rule stops them: 0, or -1 with err (a failed replay, out of
 * memory). k >= 2, base < k, k <= 255. */
int rotation_run(size_t k, size_t base, rotation_replay_fn replay, void *ctx, const rotation_rule *rule,
                 rotation_result *out, char *err, size_t errlen);
void rotation_result_free(rotation_result *r);

/* Implementation i's times and the baseline's, round by round (n each, caller frees), and
 * whether i ran before the baseline in each round: the shape of an evidence `paired`
 * block. 0, or -1 out of memory. */
int rotation_pairs(const rotation_result *r, size_t i, double **impl_us, double **base_us,
                   unsigned char **impl_first);

/* The widest relative CI width (hi - lo) / median over every implementation's ratio to the
 * baseline (the stop rule's figure); +inf when a ratio cannot be taken. */
double rotation_widest_ci(const rotation_result *r, size_t resamples, uint64_t seed, double conf);

/* ---- the CUDA side ---------------------------------------------------------------------- */

/* The graphs of a rotation: two per implementation (its args and args_alt), each with its
 * own `inner` so that a replay lasts about graph_target_us. */
typedef struct {
    const timed_impl *impls;
    size_t k;
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    cudaGraphExec_t *graphs;  /* [2 * i + alt] */
    int *inner;
    double *est_us;           /* one synchronised launch of each, after its warm-up */
} rotation_gpu;

/* Estimates, captures and warms every graph (alt_sets: the args_alt graphs too); copies:
 * the point's input copies every graph's launches read in turn, as in each one's own
 * timing (measure/l2_copies.h; NULL or one copy: the one set). 0, or -1 with err
 * (everything made so far released). */
int rotation_gpu_prepare(rotation_gpu *g, const timed_impl *impls, size_t k, int alt_sets,
                         const l2_layout *copies, int inner_max, double graph_target_us, int warmup, char *err,
                         size_t errlen);
/* The rotation_replay_fn over a prepared rotation_gpu. */
int rotation_gpu_replay(void *g, size_t impl, int alt, double *us, char *err, size_t errlen);
void rotation_gpu_release(rotation_gpu *g);

#endif
