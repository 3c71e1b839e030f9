/* measure/oracle_gpu.h: the GPU fp64 oracle (kernels/oracle_gpu), loaded from the
 * build beside the baselines, and the comparison of an output with it on the device.
 *
 * The CPU oracle (attn_oracle.h) computes every row of a point up to
 * `--full-ref-gflop` and a sample of rows above; the GPU one computes every row of every
 * point. measure_shape.c checks the GPU oracle against the CPU rows at every point and
 * then judges every implementation on every row on the device, so no output crosses to
 * the host. Without the object (an older build) the CPU oracle alone is used, as it was. */
#ifndef ATTNLADDER_MEASURE_REFERENCE_GPU_H
#define ATTNLADDER_MEASURE_REFERENCE_GPU_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "attn_phase.h"
#include "attn_oracle_gpu.h"
#include "measure/correctness.h"

typedef struct oracle_gpu oracle_gpu;

/* Loads build_dir/kernels/oracle_gpu.so; NULL with why when it is absent or wrong. */
oracle_gpu *oracle_gpu_open(const char *build_dir, char *why, size_t len);
void oracle_gpu_close(oracle_gpu *g);
const char *oracle_gpu_path(const oracle_gpu *g);

/* NULL when the GPU oracle computes s, else why not. */
const char *oracle_gpu_unsupported(const oracle_gpu *g, const attn_shape *s);

/* Every row of s into out (device, B*H*Sq*D doubles), synchronised. 0, or -1 with err. */
int oracle_gpu_attention(const oracle_gpu *g, const attn_shape *s, const void *q, const void *k,
                      const void *v, double *out, cudaStream_t stream, char *err, size_t errlen);

/* The fp16 output `out` (device) against `ref` (device, every row): the same fields and
 * verdict as compare_output, computed on the device. 0, or -1 with err. */
int oracle_gpu_compare(const oracle_gpu *g, const attn_shape *s, const void *out, const double *ref,
                    compare_bounds b, compare_result *r, cudaStream_t stream, char *err, size_t errlen);

/* Rows `rows` (host, nrows) of the device oracle copied to host (nrows * D doubles);
 * rows NULL: every row in order. 0, or -1 with err. */
int oracle_gpu_rows(const oracle_gpu *g, const attn_shape *s, const double *ref, const size_t *rows,
                 size_t nrows, double *host, cudaStream_t stream, char *err, size_t errlen);

/* Reduces the device's partials in their order (the same bits every time). */
compare_result oracle_gpu_reduce(const attn_reference_gpu_partial *parts, size_t n, int head_dim,
                              compare_bounds b);

#endif
