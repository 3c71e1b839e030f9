/* measure/cuda_check.h: the one way the harness checks a CUDA runtime call. */
#ifndef ATTNLADDER_MEASURE_CUDA_CHECK_H
#define ATTNLADDER_MEASURE_CUDA_CHECK_H
#include <stdio.h>
#include <cuda_runtime_api.h>

/* On failure: err (a char array of errlen bytes in scope) names the call and the
 * runtime's message, and control goes to `label`, where the caller frees what it holds. */
#define CUDA_OR_GOTO(call, label)                                                       \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));              \
            goto label;                                                                 \
        }                                                                               \
    } while (0)

#endif
