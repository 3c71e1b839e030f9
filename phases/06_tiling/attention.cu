// 06_tiling: the phase's ABI entry. init() picks a tile configuration for the shape from
// config_table.h (or, for tuning only, from ATTN06_CONFIG), finds the compiled kernel for
// it and prepares the split-KV counters; run() is one launch.
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "config_table.h"
#include "flash_kernel.cuh"

namespace {

constexpr float LOG2E = 1.4426950408889634f;

enum {
    ERR_SHAPE = 1,   // unsupported shape, or no state
    ERR_CONFIG,      // ATTN06_CONFIG malformed or not runnable here
    ERR_CUDA,        // a CUDA runtime call failed; g_cuda says which error
    ERR_ARCH,        // compute capability < 8.0
    ERR_ALLOC,       // host allocation
    ERR_WORKSPACE,   // split-KV configuration launched without a workspace
};

struct variant {
    int d, bm, bn, warps, stages, wn;
    const void *fn;
};

static_assert(TILING_MAX_SPLIT == tiling::MAX_SPLIT, "the table and the kernel agree on splits");

#define TILING_ENTRY(D, BM, BN, W, ST, WN) \
    { D, BM, BN, W, ST, WN, reinterpret_cast<const void *>(&tiling::flash_fwd<D, BM, BN, W, ST, WN>) },
const variant VARIANTS[] = { TILING_VARIANTS(TILING_ENTRY) };
#undef TILING_ENTRY

struct State {
    attn_shape shape;
    tile_config cfg;
    const void *fn;
    int m_tiles;
    int *counters;   // device, [bh][m_tiles], zero between launches
};

cudaError_t g_cuda = cudaSuccess;
char g_config_error[160];
// error_string(0): the configuration the last successful init() chose.
char g_chosen[200] = "not initialised";

const char *unsupported(const attn_shape *s)
{
    if (s->head_dim != 64 && s->head_dim != 128)
        return "head_dim must be 64 or 128 (the kernels are instantiated for those two)";
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1)
        return "batch, heads, seq_q and seq_kv must be >= 1";
    if (!(s->scale > 0.f) || !std::isfinite(s->scale))
        return "scale must be positive and finite (the row max is taken before scaling)";
    if ((long long)s->batch * s->heads > INT_MAX || (s->seq_q + 15) / 16 > 65535)
        return "grid too large (batch * heads > INT_MAX or more than 65535 query tiles)";
    return nullptr;
}

int device_limits(int *sms, size_t *smem)
{
    int dev = 0, major = 0, n = 0, optin = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (major < 8) return ERR_ARCH;
    if ((g_cuda = cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return ERR_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_CUDA;
    *sms = n;
    *smem = (size_t)optin;
    return 0;
}

// The configuration for s: the table's, or ATTN06_CONFIG's when that is set (tuning).
int resolve(const attn_shape *s, tile_config *c, int *from_env)
{
    int sms = 0;
    size_t smem = 0;
    const int rc = device_limits(&sms, &smem);
    if (rc) return rc;
    const char *env = getenv("ATTN06_CONFIG");
    *from_env = env && *env;
    if (*from_env) {
        if (tiling_parse(env, s->head_dim, c)) {
            snprintf(g_config_error, sizeof g_config_error,
                     "ATTN06_CONFIG='%.60s' is malformed (want bm=,bn=,w=,st=,split=[,wn=])", env);
            return ERR_CONFIG;
        }
    } else {
        *c = choose_config(s, sms, smem);
    }
    const char *why = tiling_invalid(c, smem);
    if (why) {
        char buf[64];
        tiling_format(c, buf, sizeof buf);
        snprintf(g_config_error, sizeof g_config_error, "configuration %s: %s", buf, why);
        return ERR_CONFIG;
    }
    return 0;
}

size_t workspace_bytes(const attn_shape *s)
{
    tile_config c;
    int from_env = 0;
    if (unsupported(s) || resolve(s, &c, &from_env)) return 0;
    return tiling_workspace_bytes(s, &c);
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    tile_config c;
    int from_env = 0;
    int rc = resolve(s, &c, &from_env);
    if (rc) return rc;
    const void *fn = nullptr;
    for (const variant &v : VARIANTS)
        if (v.d == c.head_dim && v.bm == c.bm && v.bn == c.bn && v.warps == c.warps &&
            v.stages == c.stages && v.wn == c.wn)
            fn = v.fn;
    if (!fn) return ERR_CONFIG;   // tiling_invalid() already checked the list
    const size_t smem = tiling_smem_bytes(&c);
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) != cudaSuccess)
        return ERR_CUDA;

    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    st->cfg = c;
    st->fn = fn;
    st->m_tiles = tiling_cdiv(s->seq_q, c.bm);
    if (c.split > 1) {
        // The counters live with the state, not in the workspace: they must start at zero
        // once, and the kernel keeps them at zero after every launch.
        const size_t bytes = (size_t)s->batch * s->heads * st->m_tiles * sizeof(int);
        if ((g_cuda = cudaMalloc(&st->counters, bytes)) != cudaSuccess ||
            (g_cuda = cudaMemset(st->counters, 0, bytes)) != cudaSuccess ||
            (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
            cudaFree(st->counters);
            free(st);
            return ERR_CUDA;
        }
    }
    char buf[64];
    tiling_format(&c, buf, sizeof buf);
    snprintf(g_chosen, sizeof g_chosen, "%s (%s), %zu B shared memory, %ld CTAs of %d threads",
             buf, from_env ? "ATTN06_CONFIG tuning override" : "table", smem, tiling_ctas(s, &c),
             c.warps * 32);
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_SHAPE;
    const State *st = static_cast<const State *>(state);
    const attn_shape &s = st->shape;
    const tile_config &c = st->cfg;
    if (c.split > 1 && !a->workspace) return ERR_WORKSPACE;

    tiling::fwd_params p;
    p.q = static_cast<const __half *>(a->q);
    p.k = static_cast<const __half *>(a->k);
    p.v = static_cast<const __half *>(a->v);
    p.o = static_cast<__half *>(a->o);
    const size_t rows = (size_t)c.split * s.batch * s.heads * s.seq_q;
    p.ws_o = static_cast<float *>(a->workspace);
    p.ws_ml = a->workspace ? reinterpret_cast<float2 *>(p.ws_o + rows * s.head_dim) : nullptr;
    p.counters = st->counters;
    p.bh_total = s.batch * s.heads;
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.causal = s.causal != 0;
    p.m_tiles = st->m_tiles;
    p.split = c.split;
    p.scale_log2 = s.scale * LOG2E;

    void *args[] = { &p };
    const dim3 grid((unsigned)p.bh_total, (unsigned)st->m_tiles, (unsigned)c.split);
    g_cuda = cudaLaunchKernel(st->fn, grid, dim3((unsigned)c.warps * 32), args,
                              tiling_smem_bytes(&c), a->stream);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
}

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
    cudaFree(st->counters);
    free(st);
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_chosen;
    case ERR_SHAPE: return "shape not supported (see unsupported()) or init not called";
    case ERR_CONFIG: return g_config_error;
    case ERR_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_ARCH: return "needs compute capability 8.0 or newer (mma.sync m16n8k16, cp.async, ldmatrix)";
    case ERR_ALLOC: return "out of host memory for the phase state";
    case ERR_WORKSPACE: return "split-KV configuration needs the workspace workspace_bytes() asked for";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "06_tiling", "mma.sync flash attention: tuned tiles, swizzled smem, split-KV",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
