/* measure/cublas_lib.c: cuBLAS loaded on first use (cublas_lib.h). */
#include "measure/cublas_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CUBLAS_SONAME "libcublas.so." STR(CUBLAS_VER_MAJOR)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cublas_lib lib;
static int loaded;
static char why[512];

static void load(void)
{
    /* never closed: the process keeps it, as a linked library would be kept */
    void *h = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "cannot load %s: %s", CUBLAS_SONAME, e ? e : "unknown error");
        return;
    }
    static const char *const names[] = { "cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
                                         "cublasGemmEx", "cublasGetProperty" };
    void *syms[sizeof names / sizeof names[0]];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(syms[i] = dlsym(h, names[i]))) {
            snprintf(why, sizeof why, "%s has no %s", CUBLAS_SONAME, names[i]);
            return;
        }
    /* POSIX: a data pointer from dlsym converts to the function's type */
    *(void **)&lib.create = syms[0];
    *(void **)&lib.destroy = syms[1];
    *(void **)&lib.set_stream = syms[2];
    *(void **)&lib.gemm_ex = syms[3];
    *(void **)&lib.get_property = syms[4];
    Dl_info info;
    lib.path = dladdr(syms[4], &info) && info.dli_fname ? info.dli_fname : NULL;
    loaded = 1;
}

const cublas_lib *cublas_lib_get(char *err, size_t errlen)
{
    pthread_once(&once, load);
    if (loaded) return &lib;
    if (err && errlen) snprintf(err, errlen, "%s", why);
    return NULL;
}
