/* attn_oracle_gpu.h: the GPU fp64 oracle (kernels/oracle_gpu/), as the harness
 * loads it: one exported struct, attn_reference_gpu_entry, in build/kernels/oracle_gpu.so.
 *
 * It computes what attn_oracle.h computes on the CPU (the same definition: scores of
 * the visible keys in double, the softmax's maximum first, then exp, sum and P·V in
 * double, a row with no key all zeros, causal bottom-right aligned) for every row of a
 * shape, on the device, and compares an fp16 output with it there. It shares no code
 * with any rung; the harness checks it against the CPU oracle on chosen rows at every
 * point it is used. */
#ifndef ATTNLADDER_REFERENCE_GPU_H
#define ATTNLADDER_REFERENCE_GPU_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "attn_phase.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ATTN_REFERENCE_GPU_VERSION 1
/* blocks of the comparison: one partial each, reduced by the caller in this order */
#define ATTN_REFERENCE_GPU_PARTIALS 512

/* One block's share of a comparison (the fields of compare_result's accumulator). */
typedef struct {
    double sum_d2, sum_r2;        /* finite elements: sum (out - ref)^2, sum ref^2 */
    double max_abs;               /* max |out - ref| over finite elements */
    unsigned long long nonfinite; /* elements where out or ref is NaN or Inf */
    unsigned long long checked;   /* elements compared */
    unsigned long long worst;     /* flat index of max_abs (the lowest among equals) */
} attn_reference_gpu_partial;

typedef struct {
    int version;   /* ATTN_REFERENCE_GPU_VERSION */
    /* NULL when it computes s, else why not (e.g. head_dim odd or above 192) */
    const char *(*unsupported)(const attn_shape *s);
    /* out[((b * H + h) * Sq + i) * D + d] for every row: device memory, B*H*Sq*D doubles.
     * q, k, v: device fp16 bits, BHSD. Enqueues on stream; returns a cudaError_t. */
    int (*attention)(const attn_shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                     double *out, cudaStream_t stream);
    /* Compares the fp16 output `out` with the fp64 `ref` (both device, n elements), writing
     * ATTN_REFERENCE_GPU_PARTIALS partials to device memory. Returns a cudaError_t. */
    int (*compare)(const uint16_t *out, const double *ref, size_t n,
                   attn_reference_gpu_partial *partials, cudaStream_t stream);
    /* out[r * head_dim + d] = ref[rows[r] * head_dim + d] (device pointers). */
    int (*gather_rows)(const double *ref, const size_t *rows, size_t nrows, int head_dim,
                       double *out, cudaStream_t stream);
    const char *(*error_string)(int code);
} attn_reference_gpu;

#ifdef __cplusplus
}
#endif

#endif
