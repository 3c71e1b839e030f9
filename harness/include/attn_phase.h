/* attn_phase.h: the phase ABI, version 1.
 *
 * Every phase (phases/NN_name/) and every baseline (kernels/) builds to its own
 * shared object exporting exactly one symbol, attn_phase_entry. The harness, and any
 * other tool (a Python ctypes check, a profiler script), loads it by that name.
 * Field order and types are a contract: changing them needs abi_version 2 and a
 * migration of every phase.
 *
 * Conventions that ride on version 1 without changing its layout:
 *  - every entry point returns 0 on success; error_string(code) names a failure;
 *  - error_string(0) describes the state after a successful init (for a library
 *    baseline: the engine chosen, the library version loaded); the harness records it;
 *  - run() only enqueues on args->stream: no synchronisation, no allocation, no host
 *    blocking, so it can be captured in a CUDA graph.
 */
#ifndef ATTN_PHASE_H
#define ATTN_PHASE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTN_PHASE_ABI_VERSION 1

typedef struct {
    int batch, heads, seq_q, seq_kv, head_dim;
    int causal;          /* 0 or 1; causal aligns the last query with the last key */
    float scale;         /* softmax scale; 1/sqrt(head_dim) by default */
} attn_shape;

typedef struct {
    const void *q, *k, *v;   /* __half, BHSD, contiguous */
    void *o;                 /* __half, BHSD (seq_q rows) */
    void *workspace;         /* device memory of workspace_bytes(shape), may be NULL if 0 */
    cudaStream_t stream;
} attn_args;

typedef struct {
    int abi_version;                                  /* 1 */
    const char *name;                                 /* "03_wmma" */
    const char *title;                                /* one line for tables */
    const char *(*unsupported)(const attn_shape *);   /* NULL if supported, else the reason */
    size_t (*workspace_bytes)(const attn_shape *);
    int  (*init)(void **state, const attn_shape *);   /* handles, plans: outside timing */
    int  (*run)(void *state, const attn_args *);      /* enqueue only: no sync, no alloc,
                                                         capturable in a CUDA graph */
    void (*fini)(void *state);
    const char *(*error_string)(int code);
} attn_phase;

/* Causal masking, bottom-right aligned: query row i (0-based) may attend key column j
 * when j <= i + (seq_kv - seq_q). A query row with no admissible key (possible when
 * seq_q > seq_kv) outputs zeros. */

/* The one exported symbol. Shared objects build with -fvisibility=hidden; the
 * definition carries ATTN_PHASE_EXPORT so that it alone is visible. */
#define ATTN_PHASE_EXPORT __attribute__((visibility("default")))

extern const attn_phase attn_phase_entry;

#ifdef __cplusplus
}
#endif

#endif /* ATTN_PHASE_H */
