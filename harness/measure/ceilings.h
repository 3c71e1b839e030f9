/* measure/ceilings.h: the device's measured ceilings, once per run: memory bandwidth from a
 * large device-to-device copy (bytes read + written), the read-only rate of a stream that
 * reads the same size and writes nothing (the launch floor's attn_read_stream: a decode step
 * reads K and V and writes one row, so its cold rate is bounded by this, not by the copy's),
 * and fp16 tensor throughput from a large cuBLAS GEMM (fp16 in, fp32 accumulate, as
 * attention kernels compute). */
#ifndef ATTNLADDER_CEILINGS_H
#define ATTNLADDER_CEILINGS_H
#include <stddef.h>
#include <cuda_runtime_api.h>

typedef struct {
    double dram_gbps;          /* 0 when not measured */
    double read_gbps;          /* 0 when not measured (no read stream given) */
    double fp16_tflops;
    size_t copy_bytes;         /* the copy's source, and the read stream's buffer */
    int gemm_n;                /* square GEMM n x n x n */
} ceilings;

/* The launch floor's read stream (kernels/launch_floor): 0 or the CUDA error of its launch. */
typedef int (*read_stream_fn)(const void *src, size_t bytes, unsigned long long *sink, cudaStream_t stream);
#define CEILINGS_READ_SYMBOL "attn_read_stream"

/* 0, or -1 with err; a failure leaves the fields 0 and the run goes on. read: the read stream,
 * or NULL to measure no read ceiling (read_gbps stays 0). */
int ceilings_measure(cudaStream_t stream, read_stream_fn read, ceilings *out, char *err, size_t errlen);

#endif
