/* sdpa_plan.c: heuristics -> execution plan, the engine's description, the variant
 * pack (see sdpa_plan.h). */
#include "sdpa_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(char *buf, size_t n, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < n) snprintf(buf + used, n - used, "%s", text);
}

static const char *mode_name(cudnnBackendHeurMode_t m)
{
    switch (m) {
    case CUDNN_HEUR_MODE_INSTANT: return "INSTANT";
    case CUDNN_HEUR_MODE_B: return "B";
    case CUDNN_HEUR_MODE_FALLBACK: return "FALLBACK";
    case CUDNN_HEUR_MODE_A: return "A";
    default: return "?";
    }
}

static void free_cfgs(sdpa_plan *pl)
{
    for (int i = pl->n_cfgs - 1; i >= 0; i--)
        if (pl->cfgs[i]) pl->api->destroy(pl->cfgs[i]);
    free(pl->cfgs);
    pl->cfgs = NULL;
    pl->n_cfgs = 0;
    if (pl->heur) pl->api->destroy(pl->heur);
    pl->heur = NULL;
}

/* One heuristics query; on success pl->plan is the first configuration that finalizes.
 * Every answer goes to pl->err, so a failure says what each engine said. */
static cudnnStatus_t try_mode(sdpa_plan *pl, cudnnBackendDescriptor_t op_graph,
                              cudnnHandle_t handle, cudnnBackendHeurMode_t mode)
{
    const sdpa_api *api = pl->api;
    char what[160], line[600];
    cudnnStatus_t st;
#define STEP(call, text)                                                                \
    do {                                                                                \
        st = (call);                                                                    \
        if (st != CUDNN_STATUS_SUCCESS) {                                               \
            snprintf(what, sizeof what, "heuristics %s: %s", mode_name(mode), text);     \
            sdpa_format_status(api, line, sizeof line, what, st);                       \
            append(pl->err, sizeof pl->err, line);                                      \
            append(pl->err, sizeof pl->err, "; ");                                      \
            return st;                                                                  \
        }                                                                               \
    } while (0)

    STEP(api->create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &pl->heur),
         "cudnnBackendCreateDescriptor(ENGINEHEUR)");
    STEP(api->set(pl->heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                  &op_graph),
         "set CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH");
    STEP(api->set(pl->heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode),
         "set CUDNN_ATTR_ENGINEHEUR_MODE");
    STEP(api->finalize(pl->heur), "cudnnBackendFinalize(ENGINEHEUR)");
    int64_t count = 0;
    STEP(api->get(pl->heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                  NULL),
         "count of CUDNN_ATTR_ENGINEHEUR_RESULTS");
    if (count <= 0) {
        snprintf(line, sizeof line, "heuristics %s: no engine configuration for this graph; ",
                 mode_name(mode));
        append(pl->err, sizeof pl->err, line);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (count > 64) count = 64;
    pl->cfgs = (cudnnBackendDescriptor_t *)calloc((size_t)count, sizeof *pl->cfgs);
    if (!pl->cfgs) {
        append(pl->err, sizeof pl->err, "out of host memory; ");
        return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    }
    for (int64_t i = 0; i < count; i++) {
        STEP(api->create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &pl->cfgs[i]),
             "cudnnBackendCreateDescriptor(ENGINECFG)");
        pl->n_cfgs = (int)i + 1;
    }
    int64_t got = 0;
    STEP(api->get(pl->heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                  &got, pl->cfgs),
         "CUDNN_ATTR_ENGINEHEUR_RESULTS");
    if (got < count) count = got;

    for (int64_t i = 0; i < count; i++) {
        cudnnBackendDescriptor_t plan = NULL;
        STEP(api->create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan),
             "cudnnBackendCreateDescriptor(EXECUTION_PLAN)");
        st = api->set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        if (st == CUDNN_STATUS_SUCCESS)
            st = api->set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pl->cfgs[i]);
        if (st == CUDNN_STATUS_SUCCESS) st = api->finalize(plan);
        if (st == CUDNN_STATUS_SUCCESS) {
            pl->plan = plan;
            pl->mode = mode;
            pl->choice = (int)i;
            return CUDNN_STATUS_SUCCESS;
        }
        snprintf(what, sizeof what, "heuristics %s, configuration %d of %d: plan", mode_name(mode),
                 (int)i + 1, (int)count);
        sdpa_format_status(api, line, sizeof line, what, st);
        append(pl->err, sizeof pl->err, line);
        append(pl->err, sizeof pl->err, "; ");
        api->destroy(plan);
    }
    return st;
#undef STEP
}

static void describe_engine(sdpa_plan *pl)
{
    const sdpa_api *api = pl->api;
    cudnnBackendDescriptor_t cfg = pl->cfgs[pl->choice], eng = NULL;
    int64_t n = 0;
    pl->engine_index = -1;
    if (api->create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng) == CUDNN_STATUS_SUCCESS) {
        int64_t idx = -1;
        if (api->get(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng) ==
                CUDNN_STATUS_SUCCESS &&
            api->get(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &idx) ==
                CUDNN_STATUS_SUCCESS)
            pl->engine_index = idx;
        api->destroy(eng);
    }
    enum { MAX_KNOBS = 24 };
    cudnnBackendDescriptor_t knobs[MAX_KNOBS] = { 0 };
    int made = 0;
    while (made < MAX_KNOBS &&
           api->create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &knobs[made]) == CUDNN_STATUS_SUCCESS)
        made++;
    n = 0;
    if (made && api->get(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, made,
                         &n, knobs) == CUDNN_STATUS_SUCCESS) {
        for (int64_t i = 0; i < n && i < made; i++) {
            cudnnBackendKnobType_t type;
            int64_t value = 0, c = 0;
            char kv[32];
            if (api->get(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &c,
                         &type) != CUDNN_STATUS_SUCCESS ||
                api->get(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &c,
                         &value) != CUDNN_STATUS_SUCCESS)
                continue;
            snprintf(kv, sizeof kv, "%s%d=%lld", pl->knobs[0] ? " " : "", (int)type,
                     (long long)value);
            append(pl->knobs, sizeof pl->knobs, kv);
        }
    }
    for (int i = made - 1; i >= 0; i--) api->destroy(knobs[i]);
}

SDPA_CUDNN_API cudnnStatus_t sdpa_plan_build(sdpa_plan *pl, const sdpa_api *api, cudnnBackendDescriptor_t op_graph,
                              cudnnHandle_t handle)
{
    memset(pl, 0, sizeof *pl);
    pl->api = api;
    pl->engine_index = -1;
    static const cudnnBackendHeurMode_t modes[] = { CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK };
    cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        st = try_mode(pl, op_graph, handle, modes[m]);
        if (st == CUDNN_STATUS_SUCCESS) break;
        free_cfgs(pl);
    }
    if (st != CUDNN_STATUS_SUCCESS) return st;   /* the last answer; pl->err has them all */
    int64_t n = 0, ws = 0;
    st = api->get(pl->plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &ws);
    if (st != CUDNN_STATUS_SUCCESS) {
        sdpa_format_status(api, pl->err, sizeof pl->err, "plan workspace size", st);
        return st;
    }
    pl->workspace_bytes = ws;
    describe_engine(pl);
    return CUDNN_STATUS_SUCCESS;
}

SDPA_CUDNN_API void sdpa_plan_destroy(sdpa_plan *pl)
{
    if (!pl->api) return;
    if (pl->plan) pl->api->destroy(pl->plan);
    pl->plan = NULL;
    free_cfgs(pl);
}

SDPA_CUDNN_API void sdpa_plan_describe(const sdpa_plan *pl, char *buf, size_t n)
{
    char eng[32];
    if (pl->engine_index >= 0)
        snprintf(eng, sizeof eng, "engine %lld", (long long)pl->engine_index);
    else
        snprintf(eng, sizeof eng, "engine ?");
    snprintf(buf, n, "%s (heuristics %s, choice %d of %d), knobs [%s], workspace %lld B", eng,
             mode_name(pl->mode), pl->choice + 1, pl->n_cfgs, pl->knobs,
             (long long)pl->workspace_bytes);
}

SDPA_CUDNN_API cudnnStatus_t sdpa_variant_pack(const sdpa_api *api, int n, const int64_t *uids, void *const *ptrs,
                                void *workspace, cudnnBackendDescriptor_t *out, char *err,
                                size_t errlen)
{
    cudnnBackendDescriptor_t vp = NULL;
    const char *what = "cudnnBackendCreateDescriptor(VARIANT_PACK)";
    cudnnStatus_t st = api->create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    if (st == CUDNN_STATUS_SUCCESS) {
        what = "set CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS";
        st = api->set(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids);
    }
    if (st == CUDNN_STATUS_SUCCESS) {
        what = "set CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS";
        st = api->set(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs);
    }
    if (st == CUDNN_STATUS_SUCCESS) {
        what = "set CUDNN_ATTR_VARIANT_PACK_WORKSPACE";
        st = api->set(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    }
    if (st == CUDNN_STATUS_SUCCESS) {
        what = "cudnnBackendFinalize(VARIANT_PACK)";
        st = api->finalize(vp);
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        sdpa_format_status(api, err, errlen, what, st);
        if (vp) api->destroy(vp);
        return st;
    }
    *out = vp;
    return CUDNN_STATUS_SUCCESS;
}
