/* gate/config.h: ci/gate.json, the gate's parameters: the baseline the ratios are
 * taken against, the headline shapes, each phase's ladder bound, the drift rule's
 * parameters and which rows two runs are compared on (see harness/gate/README.md for why they have the values they have). */
#ifndef ATTNLADDER_GATE_CONFIG_H
#define ATTNLADDER_GATE_CONFIG_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "attn_phase.h"
#include "gate/drift.h"

#define GATE_CONFIG_DEFAULT "ci/gate.json"
#define GATE_MAX_HEADLINE 24              /* a list of gate.json: headline, throughput, decode (16) */
#define GATE_MAX_RESAMPLES 5000             /* regression.resamples: bootstraps cost this x samples */
#define GATE_CONFIG_MAX_BYTES (1u << 20)    /* ci/gate.json is 4 KB */
#define GATE_MAX_GPU_BOUNDS 8               /* GPUs with decode bounds of their own, a phase */

/* Two runs compared (gate --against RUN, compare, the report's line): the rows judged
 * and the bootstrap of the change shown beside each verdict. The verdict itself is the
 * drift rule's (`drift` below, gate/drift.h). */
typedef struct {
    double ci_level;             /* of the bootstrap CIs the gate computes */
    size_t resamples;
    uint64_t seed;
    int all_shapes;              /* 1: every shape both runs timed; 0: the headline and
                                  * throughput shapes (the drift gate's) */
} regression_params;

typedef struct {
    char *phase;
    double ratio_max;            /* pass when the ratio's CI upper end is below this */
    double throughput_ratio_max; /* the same at the throughput shapes; 0: none */
    double decode_ratio_max[GATE_MAX_HEADLINE];   /* the same at each decode shape, one
                                  * bound a shape (they differ by 7x); 0: none */
    /* decode_ratio_max_gpu: a GPU's own list (by its evidence directory name, the run's
     * slug), which replaces decode_ratio_max for that GPU's runs: a decode point's ratio
     * to cuDNN differs by GPU, so one list would be as loose as the loosest GPU. */
    size_t n_decode_gpu;
    char *decode_gpu_slug[GATE_MAX_GPU_BOUNDS];
    double decode_gpu_ratio_max[GATE_MAX_GPU_BOUNDS][GATE_MAX_HEADLINE];
} gate_bound;

typedef struct {
    char *path;
    char *baseline;
    attn_shape headline[GATE_MAX_HEADLINE];
    size_t n_headline;
    attn_shape throughput[GATE_MAX_HEADLINE];   /* where attention is heavy (optional) */
    size_t n_throughput;
    attn_shape decode[GATE_MAX_HEADLINE];   /* few queries against long keys (optional) */
    size_t n_decode;
    gate_bound *bounds;
    size_t n_bounds;
    regression_params reg;
    drift_params drift;          /* the drift gate against the accepted set */
} gate_config;

/* 0, or -1 with err naming the file and the field. Every key is known or refused by name
 * (a comment is a "note" member, or "bounds_note"). */
int gate_config_load(const char *path, gate_config *c, char *err, size_t errlen);
int gate_config_from_json(json_t *j, const char *path, gate_config *c, char *err, size_t errlen);
void gate_config_free(gate_config *c);

const gate_bound *gate_config_bound(const gate_config *c, const char *phase);

/* The decode bounds that judge a run of the GPU `slug` (NULL: unknown): its own list
 * when the bound has one, else decode_ratio_max; *own (may be NULL) says which. */
const double *gate_bound_decode(const gate_bound *b, const char *slug, int *own);

#endif
