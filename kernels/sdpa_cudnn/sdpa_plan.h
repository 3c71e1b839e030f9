/* sdpa_plan.h: from a finalized operation graph to an execution plan (cuDNN's
 * heuristics pick the engine configurations, the first that finalizes wins, as the
 * frontend's build_plans does), a description of the engine chosen, and the variant
 * pack that run() executes. Plain C over the sdpa_api table, like sdpa_graph.h. */
#ifndef SDPA_PLAN_H
#define SDPA_PLAN_H

#include "sdpa_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const sdpa_api *api;
    cudnnBackendDescriptor_t heur;
    cudnnBackendDescriptor_t *cfgs;   /* the heuristics' engine configurations, best first */
    int n_cfgs;
    cudnnBackendHeurMode_t mode;      /* the heuristics mode that gave the plan */
    int choice;                       /* index into cfgs of the plan's configuration */
    cudnnBackendDescriptor_t plan;
    int64_t workspace_bytes;
    int64_t engine_index;             /* CUDNN_ATTR_ENGINE_GLOBAL_INDEX, -1 unknown */
    char knobs[160];                  /* "type=value ..." of the configuration's knobs */
    char err[1024];
} sdpa_plan;

/* Tries heuristics mode A, then FALLBACK. CUDNN_STATUS_SUCCESS, or a failure status
 * (CUDNN_STATUS_NOT_SUPPORTED when no configuration finalizes) with pl->err listing
 * what each configuration answered. Call sdpa_plan_destroy either way. */
SDPA_CUDNN_API cudnnStatus_t sdpa_plan_build(sdpa_plan *pl, const sdpa_api *api, cudnnBackendDescriptor_t op_graph,
                              cudnnHandle_t handle);
SDPA_CUDNN_API void sdpa_plan_destroy(sdpa_plan *pl);

/* "engine 8 (heuristics A, choice 1 of 3), knobs 15=1 ..., workspace 0 B" */
SDPA_CUDNN_API void sdpa_plan_describe(const sdpa_plan *pl, char *buf, size_t n);

/* A finalized variant pack of n tensors (uids[i] at ptrs[i]) and the workspace. */
SDPA_CUDNN_API cudnnStatus_t sdpa_variant_pack(const sdpa_api *api, int n, const int64_t *uids, void *const *ptrs,
                                void *workspace, cudnnBackendDescriptor_t *out, char *err,
                                size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* SDPA_PLAN_H */
