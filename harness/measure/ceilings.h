/* measure/ceilings.h: the device's measured ceilings, once per run: memory bandwidth from a
 * large device-to-device copy (bytes read + written) and fp16 tensor throughput from a
 * large cuBLAS GEMM (fp16 in, fp32 accumulate, as attention kernels compute). */
#ifndef ATTNLADDER_CEILINGS_H
#define ATTNLADDER_CEILINGS_H
#include <stddef.h>
#include <cuda_runtime_api.h>

typedef struct {
    double dram_gbps;          /* 0 when not measured */
    double fp16_tflops;
    size_t copy_bytes;
    int gemm_n;                /* square GEMM n x n x n */
} ceilings;

/* 0, or -1 with err; a failure leaves the fields 0 and the run goes on. */
int ceilings_measure(cudaStream_t stream, ceilings *out, char *err, size_t errlen);

#endif
