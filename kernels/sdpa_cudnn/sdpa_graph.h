/* sdpa_graph.h: the SDPA forward operation graph, built through cuDNN's backend C API.
 *
 * Two forms, both what cuDNN's own frontend emits for SDPA inference:
 *  - composite: Q K^T matmul -> * scale -> [causal mask] -> max, sub, exp, sum, div
 *    (plus log and add into a virtual stats tensor) -> matmul with V. cuDNN's fused
 *    flash-attention engines match this pattern; it serves every cuDNN 9 and causal.
 *  - unified: one SDPA_FWD operation (cuDNN >= 9.13.1), no mask before 9.21; the
 *    frontend prefers it where it applies.
 *
 * Everything here is plain C and reaches cuDNN only through an sdpa_api table, so the
 * unit tests can record, inspect and fail every call without a GPU. */
#ifndef SDPA_GRAPH_H
#define SDPA_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <cudnn_graph.h>
#include "attn_phase.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The linkage of the functions below: external by default; a translation unit that
 * includes the .c files themselves (sdpa_cudnn.cu) defines it as static. */
#ifndef SDPA_CUDNN_API
#define SDPA_CUDNN_API
#endif

/* The backend entry points this code calls. */
typedef struct {
    cudnnStatus_t (*create)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
    cudnnStatus_t (*destroy)(cudnnBackendDescriptor_t);
    cudnnStatus_t (*set)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                         cudnnBackendAttributeType_t, int64_t, const void *);
    cudnnStatus_t (*get)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                         cudnnBackendAttributeType_t, int64_t, int64_t *, void *);
    cudnnStatus_t (*finalize)(cudnnBackendDescriptor_t);
    void (*last_error)(char *, size_t);   /* cudnnGetLastErrorString; may be NULL */
} sdpa_api;

typedef enum {
    SDPA_MASK_NONE = 0,
    SDPA_MASK_CAUSAL_TOP_LEFT,       /* row >= col: seq_q == seq_kv */
    SDPA_MASK_CAUSAL_BOTTOM_RIGHT    /* row + seq_kv - seq_q >= col: seq_q < seq_kv */
} sdpa_mask;

typedef enum { SDPA_GRAPH_COMPOSITE = 0, SDPA_GRAPH_UNIFIED } sdpa_graph_kind;

/* What the graph computes, in the caller's buffers. A causal shape with seq_q > seq_kv
 * has seq_q - seq_kv leading rows that see no key (zeros, per the ABI); cuDNN refuses
 * bottom-right masks there, so the graph covers only the last seq_kv rows (Q and O
 * addressed from row q_row0 with the caller's strides: a square, top-left mask) and the
 * leading rows are zeroed outside cuDNN. */
typedef struct {
    int64_t b, h, s_q, s_kv, d;   /* the graph's problem */
    int64_t q_rows;               /* rows per (batch, head) in the caller's Q and O */
    int64_t q_row0;               /* first caller row the graph computes */
    sdpa_mask mask;
} sdpa_layout;

/* NULL and *out filled, or the reason the shape cannot be served. */
SDPA_CUDNN_API const char *sdpa_layout_from_shape(const attn_shape *s, sdpa_layout *out);

/* Unique ids: the real and by-value tensors (the variant pack), then the virtual ones. */
enum {
    SDPA_UID_Q = 1, SDPA_UID_K, SDPA_UID_V, SDPA_UID_O,
    SDPA_UID_SCALE, SDPA_UID_MASK_VALUE, SDPA_UID_SEQ_KV, SDPA_UID_SEQ_Q,
    SDPA_UID_VIRTUAL = 100
};

#define SDPA_MAX_DESCS 64
#define SDPA_MAX_OPS 24
#define SDPA_MAX_UIDS 8

typedef struct {
    sdpa_layout lay;
    sdpa_graph_kind kind;
    int stats_ops;   /* composite: log(sum) + max into a virtual stats tensor, as the frontend */
} sdpa_graph_params;

typedef struct {
    const sdpa_api *api;
    cudnnBackendDescriptor_t descs[SDPA_MAX_DESCS];   /* every descriptor made, freed in reverse */
    int n_descs;
    cudnnBackendDescriptor_t ops[SDPA_MAX_OPS];
    int n_ops;
    cudnnBackendDescriptor_t op_graph;
    int64_t uids[SDPA_MAX_UIDS];   /* the variant pack's tensors, in this order */
    int n_uids;
    char err[768];
} sdpa_graph;

/* Builds and finalizes every descriptor and the operation graph (handle may be NULL:
 * cuDNN >= 9.8 finalizes a graph without one). CUDNN_STATUS_SUCCESS, or the status
 * of the failing call with g->err naming it. Call sdpa_graph_destroy either way. */
SDPA_CUDNN_API cudnnStatus_t sdpa_graph_build(sdpa_graph *g, const sdpa_api *api, const sdpa_graph_params *p,
                               cudnnHandle_t handle);
SDPA_CUDNN_API void sdpa_graph_destroy(sdpa_graph *g);

/* "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN"; an unknown code gets its family's name. */
SDPA_CUDNN_API const char *sdpa_status_name(cudnnStatus_t st);
/* The family: 0 success, 1000 init/library, 2000 bad param, 3000 not supported,
 * 4000 internal, 5000 execution; -1 unknown. */
SDPA_CUDNN_API int sdpa_status_family(cudnnStatus_t st);

/* Writes "<what>: <STATUS_NAME> (<code>)[: <cuDNN's last error>]" into buf. */
SDPA_CUDNN_API void sdpa_format_status(const sdpa_api *api, char *buf, size_t n, const char *what,
                        cudnnStatus_t st);

#ifdef __cplusplus
}
#endif

#endif /* SDPA_GRAPH_H */
