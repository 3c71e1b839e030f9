// 03_wmma: one fused kernel on the tensor cores. A block owns 64 query rows (4 warps of
// 16, warp_rows.cuh); it walks the keys in tiles of 64, bringing each K and V tile into
// shared memory with ordinary loads and a barrier, and keeps the softmax online in fp32,
// so no score ever reaches device memory. The loads are synchronous: a tile is fetched
// only once the previous one has been consumed (overlap comes only from the other
// blocks on the SM); taking that wait off the critical path is the next rung's idea.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "warp_rows.cuh"

namespace {

using warp_rows::BN;
using warp_rows::ROWS;

constexpr int WARPS = 4;
constexpr int THREADS = WARPS * 32;
constexpr int BM = WARPS * ROWS;   // 64 query rows per block
constexpr float LOG2E = 1.4426950408889634f;

template <int D> struct Smem {
    static constexpr int LDH = warp_rows::ldh<D>();
    static constexpr int Q_OFF = 0;
    static constexpr int K_OFF = Q_OFF + BM * LDH * 2;
    static constexpr int V_OFF = K_OFF + BN * LDH * 2;
    static constexpr int STAGE_OFF = V_OFF + BN * LDH * 2;
    static constexpr int BYTES = STAGE_OFF + WARPS * warp_rows::STAGE_BYTES;
};

// One [ROWS_][D] tile, rows row0.. of an [n_rows][D] matrix, 16 bytes per thread per step:
// all of a thread's loads are issued before any is used.
template <int D, int ROWS_> struct Tile {
    static constexpr int CHUNKS = D / 8;   // 16-byte pieces per row
    static constexpr int PER_THREAD = ROWS_ * CHUNKS / THREADS;
    static_assert(ROWS_ * CHUNKS % THREADS == 0, "whole steps");
    uint4 r[PER_THREAD];

    // Rows past n_rows read as zeros: V's ragged tail then adds 0 * 0, never stale data.
    __device__ __forceinline__ void load(const __half *src, int row0, int n_rows)
    {
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            const int c = threadIdx.x + i * THREADS;
            const int g = row0 + c / CHUNKS;
            r[i] = g < n_rows ? *reinterpret_cast<const uint4 *>(src + (size_t)g * D + (c % CHUNKS) * 8)
                              : make_uint4(0, 0, 0, 0);
        }
    }
    __device__ __forceinline__ void store(__half *dst) const
    {
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            const int c = threadIdx.x + i * THREADS;
            *reinterpret_cast<uint4 *>(dst + (c / CHUNKS) * Smem<D>::LDH + (c % CHUNKS) * 8) = r[i];
        }
    }
};

template <int D>
__global__ void __launch_bounds__(THREADS)
attention_wmma(const __half *__restrict__ q, const __half *__restrict__ k,
               const __half *__restrict__ v, __half *__restrict__ o,
               int seq_q, int seq_kv, int n_qblocks, int causal, float scale_log2)
{
    using L = Smem<D>;
    extern __shared__ __align__(128) unsigned char smem[];
    __half *qs = reinterpret_cast<__half *>(smem + L::Q_OFF);
    __half *ks = reinterpret_cast<__half *>(smem + L::K_OFF);
    __half *vs = reinterpret_cast<__half *>(smem + L::V_OFF);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const long long bh = blockIdx.x / n_qblocks;
    // Last query blocks first: under a causal mask they have the most tiles to walk.
    const int q0 = (n_qblocks - 1 - (int)(blockIdx.x % n_qblocks)) * BM;
    const __half *qg = q + (size_t)bh * seq_q * D;
    const __half *kg = k + (size_t)bh * seq_kv * D;
    const __half *vg = v + (size_t)bh * seq_kv * D;

    // Bottom-right causal: row i sees keys j <= i + diag. The block stops after the
    // last row's last key; a block whose rows see none walks no tile and writes zeros.
    const int diag = seq_kv - seq_q;
    int kv_end = seq_kv;
    if (causal) kv_end = (int)min((long long)seq_kv, (long long)min(q0 + BM, seq_q) + diag);
    const int n_tiles = kv_end > 0 ? (kv_end + BN - 1) / BN : 0;

    {
        Tile<D, BM> qt;
        qt.load(qg, q0, seq_q);
        qt.store(qs);   // published by the first tile's barriers
    }

    warp_rows::WarpRows<D> w;
    w.init(smem + L::STAGE_OFF + warp * warp_rows::STAGE_BYTES, lane);
    const int row = q0 + warp * ROWS + (lane >> 1);   // the row this lane's softmax serves
    const int row_limit = causal ? (int)min((long long)seq_kv, (long long)row + diag + 1) : seq_kv;
    const __half *q_rows = qs + warp * ROWS * L::LDH;

    for (int j = 0; j < n_tiles; ++j) {
        Tile<D, BN> kt, vt;
        kt.load(kg, j * BN, seq_kv);
        vt.load(vg, j * BN, seq_kv);
        __syncthreads();   // every warp is done with tile j - 1
        kt.store(ks);
        vt.store(vs);
        __syncthreads();
        w.scores(q_rows, ks);
        w.softmax(row_limit - j * BN, scale_log2);
        w.accumulate(vs);
    }

    w.store(o + (size_t)bh * seq_q * D, q0 + warp * ROWS, seq_q);
}

enum { ERR_LAUNCH = 1, ERR_SETUP, ERR_SHAPE, ERR_ARCH, ERR_SMEM, ERR_ALLOC };

struct State {
    attn_shape shape;
};

// The last CUDA failure, for error_string (asked right after the failing call).
cudaError_t g_cuda = cudaSuccess;
char g_msg[160];

const char *unsupported(const attn_shape *s)
{
    if (s->head_dim != 64 && s->head_dim != 128)
        return "head_dim must be 64 or 128 (the kernel is a template instantiated for those two)";
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1)
        return "batch, heads, seq_q and seq_kv must be >= 1";
    if ((long long)s->batch * s->heads * ((s->seq_q + BM - 1) / BM) > INT_MAX)
        return "more than INT_MAX blocks of 64 query rows";
    return nullptr;
}

size_t workspace_bytes(const attn_shape *) { return 0; }

template <int D> int prepare()
{
    int dev = 0, major = 0, optin = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_SETUP;
    if ((g_cuda = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess)
        return ERR_SETUP;
    if (major < 8) return ERR_ARCH;
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_SETUP;
    if (optin < Smem<D>::BYTES) return ERR_SMEM;
    // Both instances need more than the default 48 KB of dynamic shared memory.
    g_cuda = cudaFuncSetAttribute(attention_wmma<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, Smem<D>::BYTES);
    return g_cuda == cudaSuccess ? 0 : ERR_SETUP;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    const int rc = s->head_dim == 64 ? prepare<64>() : prepare<128>();
    if (rc) return rc;
    State *st = static_cast<State *>(malloc(sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    *state = st;
    return 0;
}

template <int D> void launch(const attn_shape &s, const attn_args *a)
{
    const int n_qblocks = (s.seq_q + BM - 1) / BM;
    const unsigned grid = (unsigned)((long long)s.batch * s.heads * n_qblocks);
    attention_wmma<D><<<grid, THREADS, Smem<D>::BYTES, a->stream>>>(
        static_cast<const __half *>(a->q), static_cast<const __half *>(a->k),
        static_cast<const __half *>(a->v), static_cast<__half *>(a->o), s.seq_q, s.seq_kv,
        n_qblocks, s.causal != 0, s.scale * LOG2E);
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_SHAPE;
    const attn_shape &s = static_cast<State *>(state)->shape;
    if (s.head_dim == 64) launch<64>(s, a);
    else launch<128>(s, a);
    g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_LAUNCH;
}

void fini(void *state) { free(state); }

const char *error_string(int code)
{
    switch (code) {
    case 0:
        return "64 query rows / 4 warps per block, 64-key tiles, WMMA 16x16x16 fp16->fp32; K/V tiles by "
               "plain loads (D=64: 54 KB smem, D=128: 78 KB)";
    case ERR_LAUNCH:
        snprintf(g_msg, sizeof g_msg, "kernel launch failed: %s", cudaGetErrorString(g_cuda));
        return g_msg;
    case ERR_SETUP:
        snprintf(g_msg, sizeof g_msg, "device query or cudaFuncSetAttribute failed: %s", cudaGetErrorString(g_cuda));
        return g_msg;
    case ERR_SHAPE: return "shape not supported (see unsupported()) or init not called";
    case ERR_ARCH: return "needs compute capability 8.0 or newer";
    case ERR_SMEM: return "the device allows less dynamic shared memory per block than the kernel needs";
    case ERR_ALLOC: return "out of host memory for the phase state";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "03_wmma", "fused WMMA flash attention, K/V tiles by plain loads into shared memory",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
