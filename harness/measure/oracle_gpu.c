/* measure/oracle_gpu.c: loading the GPU fp64 oracle and judging outputs with it. */
#include "measure/cuda_check.h"
#include "measure/oracle_gpu.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/loader.h"

struct oracle_gpu {
    void *dl;
    const attn_reference_gpu *api;
    attn_reference_gpu_partial *parts;   /* device, ATTN_REFERENCE_GPU_PARTIALS */
    char path[512];
};

oracle_gpu *oracle_gpu_open(const char *build_dir, char *why, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/%s", build_dir, LOADER_REFERENCE_GPU_FILE);
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        snprintf(why, len, "%s: cannot load: %s", path, dlerror());
        return NULL;
    }
    const attn_reference_gpu *api = (const attn_reference_gpu *)dlsym(dl, "attn_reference_gpu_entry");
    if (!api || api->version != ATTN_REFERENCE_GPU_VERSION || !api->unsupported || !api->attention ||
        !api->compare || !api->gather_rows || !api->error_string) {
        snprintf(why, len, "%s: no attn_reference_gpu_entry of version %d", path, ATTN_REFERENCE_GPU_VERSION);
        dlclose(dl);
        return NULL;
    }
    oracle_gpu *g = calloc(1, sizeof *g);
    if (!g || cudaMalloc((void **)&g->parts, ATTN_REFERENCE_GPU_PARTIALS * sizeof *g->parts) != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, len, "%s: out of memory for its partials", path);
        free(g);
        dlclose(dl);
        return NULL;
    }
    g->dl = dl;
    g->api = api;
    snprintf(g->path, sizeof g->path, "%s", path);
    return g;
}

void oracle_gpu_close(oracle_gpu *g)
{
    if (!g) return;
    cudaFree(g->parts);
    dlclose(g->dl);
    free(g);
}

const char *oracle_gpu_path(const oracle_gpu *g) { return g->path; }

const char *oracle_gpu_unsupported(const oracle_gpu *g, const attn_shape *s) { return g->api->unsupported(s); }

int oracle_gpu_attention(const oracle_gpu *g, const attn_shape *s, const void *q, const void *k,
                      const void *v, double *out, cudaStream_t stream, char *err, size_t errlen)
{
    int rc = g->api->attention(s, q, k, v, out, stream);
    if (rc == 0) rc = (int)cudaStreamSynchronize(stream);
    if (rc != 0) {
        snprintf(err, errlen, "GPU reference: %s", g->api->error_string(rc));
        return -1;
    }
    return 0;
}

static void merge(compare_result *r, double *d2, double *r2, const attn_reference_gpu_partial *p,
                  unsigned long long *worst)
{
    *d2 += p->sum_d2;
    *r2 += p->sum_r2;
    r->nonfinite += (size_t)p->nonfinite;
    r->checked += (size_t)p->checked;
    if (p->checked > p->nonfinite &&
        (p->max_abs > r->max_abs || (p->max_abs == r->max_abs && p->worst < *worst))) {
        r->max_abs = p->max_abs;
        *worst = p->worst;
    }
}

compare_result oracle_gpu_reduce(const attn_reference_gpu_partial *parts, size_t n, int head_dim,
                              compare_bounds b)
{
    compare_result r = { 0 };
    double d2 = 0, r2 = 0;
    unsigned long long worst = ~0ull;
    for (size_t i = 0; i < n; i++) merge(&r, &d2, &r2, &parts[i], &worst);
    if (worst != ~0ull && head_dim > 0) {
        r.worst_row = (size_t)(worst / (unsigned long long)head_dim);
        r.worst_col = (int)(worst % (unsigned long long)head_dim);
    }
    /* compare_output's verdict: nothing checked is no pass */
    r.rel_l2 = r2 > 0 ? sqrt(d2) / sqrt(r2) : sqrt(d2);
    r.pass = r.checked > 0 && r.nonfinite == 0 && r.rel_l2 <= b.rel_l2_max && r.max_abs <= b.max_abs_max;
    return r;
}

int oracle_gpu_compare(const oracle_gpu *g, const attn_shape *s, const void *out, const double *ref,
                    compare_bounds b, compare_result *r, cudaStream_t stream, char *err, size_t errlen)
{
    attn_reference_gpu_partial parts[ATTN_REFERENCE_GPU_PARTIALS];
    size_t n = (size_t)s->batch * s->heads * s->seq_q * s->head_dim;
    int rc = g->api->compare(out, ref, n, g->parts, stream);
    if (rc != 0) {
        snprintf(err, errlen, "GPU comparison: %s", g->api->error_string(rc));
        return -1;
    }
    CUDA_OR_GOTO(cudaMemcpyAsync(parts, g->parts, sizeof parts, cudaMemcpyDeviceToHost, stream), fail);
    CUDA_OR_GOTO(cudaStreamSynchronize(stream), fail);
    *r = oracle_gpu_reduce(parts, ATTN_REFERENCE_GPU_PARTIALS, s->head_dim, b);
    return 0;
fail:
    return -1;
}

int oracle_gpu_rows(const oracle_gpu *g, const attn_shape *s, const double *ref, const size_t *rows,
                 size_t nrows, double *host, cudaStream_t stream, char *err, size_t errlen)
{
    size_t dim = (size_t)s->head_dim;
    if (!rows) {
        CUDA_OR_GOTO(cudaMemcpy(host, ref, nrows * dim * sizeof *host, cudaMemcpyDeviceToHost), fail);
        return 0;
    }
    size_t *drows = NULL;
    double *dout = NULL;
    int rc = -1;
    CUDA_OR_GOTO(cudaMalloc((void **)&drows, nrows * sizeof *drows), done);
    CUDA_OR_GOTO(cudaMalloc((void **)&dout, nrows * dim * sizeof *dout), done);
    CUDA_OR_GOTO(cudaMemcpy(drows, rows, nrows * sizeof *drows, cudaMemcpyHostToDevice), done);
    int e = g->api->gather_rows(ref, drows, nrows, (int)dim, dout, stream);
    if (e != 0) {
        snprintf(err, errlen, "GPU reference rows: %s", g->api->error_string(e));
        goto done;
    }
    CUDA_OR_GOTO(cudaStreamSynchronize(stream), done);
    CUDA_OR_GOTO(cudaMemcpy(host, dout, nrows * dim * sizeof *host, cudaMemcpyDeviceToHost), done);
    rc = 0;
done:
    cudaFree(drows);
    cudaFree(dout);
    return rc;
fail:
    return -1;
}
