/* trace_driver.c: runs the trace build of rung 07 (-DATTN07_TRACE=1, `make hopper-trace`)
 * once at one shape and prints what its chained kernels recorded (README.md, "The boundary
 * traced"). Measuring only, not part of the harness: the harness times launches, this
 * shows where inside one launch the time goes.
 *   07_trace_driver TRACE_SO B H SEQ_Q SEQ_KV D > trace.csv
 * Output: a comment line with the rung's chosen configuration, then one line per
 * recorded value: block,item,slot,value (slots: see attention.cu, trace_at()). */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "attn_phase.h"

enum { TRACE_VALUES = 256 * 64 * 16 };   /* attention.cu: TRACE_BLOCKS x TRACE_ITEMS x TRACE_SLOTS */

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 1;
    fprintf(stderr, "07_trace_driver: %s: %s\n", what, cudaGetErrorString(e));
    return 0;
}

static int parse_dim(const char *s, const char *name, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > (1L << 24)) {
        fprintf(stderr, "07_trace_driver: %s must be an integer from 1 to %ld, got '%s'\n", name, 1L << 24, s);
        return 0;
    }
    *out = (int)v;
    return 1;
}

/* Q, K and V as fp16 bit patterns of magnitude 2^-5 to 2^0 and either sign, never zero
 * (a fixed linear congruential sequence: the trace needs realistic softmax work, not a
 * particular input). */
static void *random_halves(size_t n)
{
    uint16_t *h = malloc(n * sizeof *h);
    void *d = NULL;
    if (!h) return NULL;
    uint32_t x = 12345u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        const uint32_t r = x >> 8;
        h[i] = (uint16_t)(((r & 1u) << 15) | ((10u + (r >> 1) % 5u) << 10) | ((r >> 4) & 0x3ffu));
    }
    const int ok = cuda_ok(cudaMalloc(&d, n * sizeof *h), "cudaMalloc") &&
                   cuda_ok(cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice), "cudaMemcpy");
    free(h);
    return ok ? d : NULL;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s TRACE_SO B H SEQ_Q SEQ_KV D   (D 64 or 128; non-causal)\n", argv[0]);
        return 2;
    }
    attn_shape s;
    memset(&s, 0, sizeof s);
    if (!parse_dim(argv[2], "B", &s.batch) || !parse_dim(argv[3], "H", &s.heads) ||
        !parse_dim(argv[4], "SEQ_Q", &s.seq_q) || !parse_dim(argv[5], "SEQ_KV", &s.seq_kv) ||
        !parse_dim(argv[6], "D", &s.head_dim))
        return 2;
    s.scale = 1.0f / sqrtf((float)s.head_dim);
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "07_trace_driver: cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    const attn_phase *ph = dlsym(so, "attn_phase_entry");
    int (*trace_copy)(unsigned long long *, int) = (int (*)(unsigned long long *, int))dlsym(so, "attn07_trace_copy");
    if (!ph || !trace_copy) {
        fprintf(stderr, "07_trace_driver: %s is not rung 07's trace build (attn_phase_entry and attn07_trace_copy needed)\n",
                argv[1]);
        return 1;
    }
    const char *why = ph->unsupported(&s);
    if (why) {
        fprintf(stderr, "07_trace_driver: shape not supported: %s\n", why);
        return 1;
    }
    const size_t nq = (size_t)s.batch * s.heads * s.seq_q * s.head_dim;
    const size_t nkv = (size_t)s.batch * s.heads * s.seq_kv * s.head_dim;
    attn_args a;
    memset(&a, 0, sizeof a);
    a.q = random_halves(nq);
    a.k = random_halves(nkv);
    a.v = random_halves(nkv);
    void *o = NULL, *ws = NULL;
    const size_t ws_bytes = ph->workspace_bytes(&s);
    if (!a.q || !a.k || !a.v || !cuda_ok(cudaMalloc(&o, nq * 2), "cudaMalloc o") ||
        (ws_bytes && !cuda_ok(cudaMalloc(&ws, ws_bytes), "cudaMalloc workspace")))
        return 1;
    a.o = o;
    a.workspace = ws;
    a.stream = 0;
    void *state = NULL;
    int rc = ph->init(&state, &s);
    if (rc) {
        fprintf(stderr, "07_trace_driver: init failed: %s\n", ph->error_string(rc));
        return 1;
    }
    printf("# %s\n", ph->error_string(0));
    /* Five launches to warm the clocks and caches, then the traced one alone. */
    for (int i = 0; i < 5; i++)
        if ((rc = ph->run(state, &a)) != 0) {
            fprintf(stderr, "07_trace_driver: run failed: %s\n", ph->error_string(rc));
            return 1;
        }
    if (!cuda_ok(cudaDeviceSynchronize(), "warm-up") || !cuda_ok((cudaError_t)trace_copy(NULL, 1), "clearing the trace"))
        return 1;
    if ((rc = ph->run(state, &a)) != 0) {
        fprintf(stderr, "07_trace_driver: run failed: %s\n", ph->error_string(rc));
        return 1;
    }
    unsigned long long *t = calloc(TRACE_VALUES, sizeof *t);
    if (!t || !cuda_ok(cudaDeviceSynchronize(), "traced launch") || !cuda_ok((cudaError_t)trace_copy(t, 0), "copying the trace"))
        return 1;
    printf("block,item,slot,value\n");
    for (int i = 0; i < TRACE_VALUES; i++)
        if (t[i]) printf("%d,%d,%d,%llu\n", i / (64 * 16), (i / 16) % 64, i % 16, t[i]);
    ph->fini(state);
    free(t);
    return 0;
}
