/* measure/ceilings.c: copy and read bandwidth and GEMM throughput, each the median of timed
 * repeats. */
#include "measure/cuda_check.h"
#include "measure/ceilings.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cublas_v2.h>
#include "core/half.h"
#include "core/rng.h"
#include "core/stats.h"
#include "measure/cublas_lib.h"

#define REPEATS 10

#define CUBLAS_OR_FAIL(call)                                                            \
    do {                                                                                \
        cublasStatus_t s_ = (call);                                                     \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                              \
            snprintf(err, errlen, "%s: cuBLAS status %d", #call, (int)s_);              \
            goto done;                                                                  \
        }                                                                               \
    } while (0)

/* Median over REPEATS of the event time of `what` (ms). */
typedef int (*enqueue_fn)(void *ctx, cudaStream_t s);

static int time_median_ms(enqueue_fn what, void *ctx, cudaStream_t stream, double *ms_out,
                          char *err, size_t errlen)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    double ms[REPEATS];
    int rc = -1;
    CUDA_OR_GOTO(cudaEventCreate(&e0), done);
    CUDA_OR_GOTO(cudaEventCreate(&e1), done);
    for (int i = -2; i < REPEATS; i++) {   /* two warm-ups */
        CUDA_OR_GOTO(cudaEventRecord(e0, stream), done);
        if (what(ctx, stream)) {
            snprintf(err, errlen, "enqueue failed");
            goto done;
        }
        CUDA_OR_GOTO(cudaEventRecord(e1, stream), done);
        CUDA_OR_GOTO(cudaEventSynchronize(e1), done);
        float t = 0;
        CUDA_OR_GOTO(cudaEventElapsedTime(&t, e0, e1), done);
        if (i >= 0) ms[i] = t;
    }
    *ms_out = stats_median(ms, REPEATS);
    rc = 0;
done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return rc;
}

typedef struct { void *dst, *src; size_t bytes; } copy_ctx;

static int enqueue_copy(void *ctx, cudaStream_t s)
{
    copy_ctx *c = ctx;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess;
}

typedef struct { const cublas_lib *lib; cublasHandle_t h; int n; void *a, *b, *c; } gemm_ctx;

static int enqueue_gemm(void *ctx, cudaStream_t s)
{
    gemm_ctx *g = ctx;
    (void)s;
    const float one = 1.0f, zero = 0.0f;
    return g->lib->gemm_ex(g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n, &one,
                        g->a, CUDA_R_16F, g->n, g->b, CUDA_R_16F, g->n, &zero,
                        g->c, CUDA_R_16F, g->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
           != CUBLAS_STATUS_SUCCESS;
}

/* Random fp16 in [-1, 1) over a device buffer: one host block repeated (a GEMM on
 * zeros runs faster than on data). */
static int fill_random(void *dst, size_t elems, char *err, size_t errlen)
{
    const size_t block = (size_t)1 << 20;
    uint16_t *h = malloc(block * sizeof *h);
    int rc = -1;
    if (!h) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    rng_state r;
    rng_seed(&r, 42);
    for (size_t i = 0; i < block; i++) h[i] = half_from_float((float)(2.0 * rng_uniform(&r) - 1.0));
    for (size_t off = 0; off < elems; off += block) {
        size_t n = elems - off < block ? elems - off : block;
        CUDA_OR_GOTO(cudaMemcpy((uint16_t *)dst + off, h, n * sizeof *h, cudaMemcpyHostToDevice), done);
    }
    rc = 0;
done:
    free(h);
    return rc;
}

typedef struct { read_stream_fn read; const void *src; size_t bytes; unsigned long long *sink; } read_ctx;

static int enqueue_read(void *ctx, cudaStream_t s)
{
    read_ctx *c = ctx;
    return c->read(c->src, c->bytes, c->sink, s) != 0;
}

/* The read stream over the copy's source (1 GiB or what fits, far beyond any L2): every
 * repeat reads it from DRAM. */
static int measure_read(cudaStream_t stream, read_stream_fn read, const void *src, size_t bytes, ceilings *out,
                        char *err, size_t errlen)
{
    read_ctx c = { read, src, bytes, NULL };
    int rc = -1;
    CUDA_OR_GOTO(cudaMalloc((void **)&c.sink, sizeof *c.sink), done);
    double ms;
    if (time_median_ms(enqueue_read, &c, stream, &ms, err, errlen)) goto done;
    out->read_gbps = (double)bytes / (ms * 1e-3) / 1e9;
    rc = 0;
done:
    if (c.sink) cudaFree(c.sink);
    return rc;
}

static int measure_copy(cudaStream_t stream, read_stream_fn read, ceilings *out, char *err, size_t errlen)
{
    size_t free_b = 0, total = 0;
    int rc = -1;
    copy_ctx c = { NULL, NULL, 0 };
    CUDA_OR_GOTO(cudaMemGetInfo(&free_b, &total), done);
    c.bytes = (size_t)1 << 30;                     /* 1 GiB: far beyond any L2 */
    while (c.bytes > ((size_t)64 << 20) && 3 * c.bytes > free_b) c.bytes /= 2;
    CUDA_OR_GOTO(cudaMalloc(&c.src, c.bytes), done);
    CUDA_OR_GOTO(cudaMalloc(&c.dst, c.bytes), done);
    CUDA_OR_GOTO(cudaMemset(c.src, 0x3c, c.bytes), done);
    double ms;
    if (time_median_ms(enqueue_copy, &c, stream, &ms, err, errlen)) goto done;
    out->copy_bytes = c.bytes;
    out->dram_gbps = 2.0 * c.bytes / (ms * 1e-3) / 1e9;
    if (read && measure_read(stream, read, c.src, c.bytes, out, err, errlen)) goto done;
    rc = 0;
done:
    if (c.src) cudaFree(c.src);
    if (c.dst) cudaFree(c.dst);
    return rc;
}

static int measure_gemm(cudaStream_t stream, ceilings *out, char *err, size_t errlen)
{
    gemm_ctx g = { cublas_lib_get(err, errlen), NULL, 8192, NULL, NULL, NULL };
    size_t elems = (size_t)g.n * g.n;
    int rc = -1;
    if (!g.lib) return -1;
    CUBLAS_OR_FAIL(g.lib->create(&g.h));
    CUBLAS_OR_FAIL(g.lib->set_stream(g.h, stream));
    CUDA_OR_GOTO(cudaMalloc(&g.a, elems * 2), done);
    CUDA_OR_GOTO(cudaMalloc(&g.b, elems * 2), done);
    CUDA_OR_GOTO(cudaMalloc(&g.c, elems * 2), done);
    if (fill_random(g.a, elems, err, errlen) || fill_random(g.b, elems, err, errlen)) goto done;
    double ms;
    if (time_median_ms(enqueue_gemm, &g, stream, &ms, err, errlen)) goto done;
    out->gemm_n = g.n;
    out->fp16_tflops = 2.0 * g.n * (double)g.n * g.n / (ms * 1e-3) / 1e12;
    rc = 0;
done:
    if (g.a) cudaFree(g.a);
    if (g.b) cudaFree(g.b);
    if (g.c) cudaFree(g.c);
    if (g.h) g.lib->destroy(g.h);
    return rc;
}

int ceilings_measure(cudaStream_t stream, read_stream_fn read, ceilings *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (measure_copy(stream, read, out, err, errlen)) return -1;
    return measure_gemm(stream, out, err, errlen);
}
