/* faulty_skip_tile: a test-only implementation that is wrong in one interior query tile,
 * to prove the correctness check reaches every tile (never built by `make build`).
 *
 * It runs a correct implementation (06_tiling, from the phases/ directory next to this
 * object's testing/ directory, or $ATTN_FAULTY_BASE) and then overwrites query rows
 * [64, min(128, seq_q)) of the middle (batch, head), B*H/2, with that head's rows
 * [0, 64): finite, plausible values, in the place a kernel that skipped the tile would
 * have left stale ones. Wrong wherever those rows differ, i.e. seq_q > 64 unless both
 * tiles see no key (causal, seq_q - seq_kv >= 128: all zeros). Written in C against the
 * CUDA runtime: its only device work is the base's and one device-to-device copy. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "attn_phase.h"

static const attn_phase *g_base;
static char g_error[512];

static const attn_phase *base(void)
{
    if (g_base) return g_base;
    char path[4096];
    const char *env = getenv("ATTN_FAULTY_BASE");
    if (env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        Dl_info info;
        if (!dladdr((void *)base, &info) || !info.dli_fname) return NULL;
        snprintf(path, sizeof path, "%s", info.dli_fname);
        char *slash = strrchr(path, '/');
        if (slash) *slash = '\0';
        else snprintf(path, sizeof path, ".");
        strncat(path, "/../phases/06_tiling.so", sizeof path - strlen(path) - 1);
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        snprintf(g_error, sizeof g_error, "cannot load the base implementation %s: %s", path, dlerror());
        return NULL;
    }
    g_base = (const attn_phase *)dlsym(dl, "attn_phase_entry");
    if (!g_base) snprintf(g_error, sizeof g_error, "%s exports no attn_phase_entry", path);
    return g_base;
}

typedef struct {
    void *base_state;
    attn_shape s;
} faulty_state;

static const char *unsupported(const attn_shape *s)
{
    const attn_phase *b = base();
    return b ? b->unsupported(s) : g_error;
}

static size_t workspace_bytes(const attn_shape *s)
{
    const attn_phase *b = base();
    return b ? b->workspace_bytes(s) : 0;
}

static int init(void **state, const attn_shape *s)
{
    const attn_phase *b = base();
    if (!b) return 1;
    faulty_state *f = calloc(1, sizeof *f);
    if (!f) return 2;
    f->s = *s;
    int rc = b->init(&f->base_state, s);
    if (rc) {
        free(f);
        return 100 + rc;
    }
    *state = f;
    return 0;
}

static int run(void *state, const attn_args *a)
{
    faulty_state *f = state;
    int rc = g_base->run(f->base_state, a);
    if (rc) return 100 + rc;
    const attn_shape *s = &f->s;
    if (s->seq_q <= 64) return 0;
    size_t rows = (size_t)(s->seq_q < 128 ? s->seq_q : 128) - 64;
    size_t bh = (size_t)s->batch * s->heads / 2, d = (size_t)s->head_dim;
    char *head = (char *)a->o + bh * (size_t)s->seq_q * d * 2;
    cudaError_t e = cudaMemcpyAsync(head + 64 * d * 2, head, rows * d * 2, cudaMemcpyDeviceToDevice, a->stream);
    if (e != cudaSuccess) {
        snprintf(g_error, sizeof g_error, "cudaMemcpyAsync: %s", cudaGetErrorString(e));
        return 3;
    }
    return 0;
}

static void fini(void *state)
{
    faulty_state *f = state;
    if (!f) return;
    if (g_base) g_base->fini(f->base_state);
    free(f);
}

static const char *error_string(int code)
{
    if (code == 0) return "06_tiling with query rows 64..127 of the middle head overwritten (test only)";
    if (code > 100 && g_base) return g_base->error_string(code - 100);
    return g_error[0] ? g_error : "faulty_skip_tile failed";
}

ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    ATTN_PHASE_ABI_VERSION, "99_faulty_skip_tile", "Test only: 06_tiling with one interior query tile wrong",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
