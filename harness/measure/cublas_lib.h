/* measure/cublas_lib.h: cuBLAS, loaded on first use. A GPU run calls it twice (the fp16
 * GEMM ceiling and the library's version); linked, its ~700 MB (libcublasLt with it) would
 * be mapped and relocated by every process that starts the harness, every `show`, `gate`
 * and unit test included: 0.07 s a start, 0.2 s under AddressSanitizer. */
#ifndef ATTNLADDER_MEASURE_CUBLAS_LIB_H
#define ATTNLADDER_MEASURE_CUBLAS_LIB_H
#include <stddef.h>
#include <cublas_v2.h>

/* The entry points, typed by cublas_api.h's own declarations. */
typedef struct {
    __typeof__(cublasCreate_v2) *create;
    __typeof__(cublasDestroy_v2) *destroy;
    __typeof__(cublasSetStream_v2) *set_stream;
    __typeof__(cublasGemmEx) *gemm_ex;
    __typeof__(cublasGetProperty) *get_property;
    const char *path;   /* the file loaded, as the dynamic loader names it */
} cublas_lib;

/* The library of the cuBLAS major version the harness was compiled against
 * (libcublas.so.<CUBLAS_VER_MAJOR>, found as the linker's -lcublas would be at run time:
 * the binary's run path, then the system's), loaded once; NULL with the reason in err
 * when it cannot be loaded or lacks an entry point. */
const cublas_lib *cublas_lib_get(char *err, size_t errlen);

#endif
