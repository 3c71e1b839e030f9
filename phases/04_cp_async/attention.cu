// 04_cp_async: the fused WMMA flash-attention kernel with its K/V tiles brought in by
// cp.async into a ring of shared-memory slots, so that the copy of the next tile runs
// while the tensor cores work on the current one.
//
// Block: 64 query rows, 4 warps of 16 rows (warp_tile.cuh does each warp's math).
// The ring holds half-tiles, K_0, V_0, K_1, V_1, ...: item `it` lives in slot
// it % NSLOT and is issued NSLOT - 1 items ahead of its use. With 4 slots (D = 64) the
// whole of tile j+1 is in flight while tile j is computed; with 3 slots (D = 128, kept
// under the 99 KB a block may have on sm_86/89) K_{j+1} loads during softmax and P V_j,
// and V_{j+1} during P V_j and Q K_{j+1}^T.
#include <climits>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "cp_async.cuh"
#include "warp_tile.cuh"

namespace {

using warp_tile::BN;
using warp_tile::ROWS;

constexpr int WARPS = 4;
constexpr int THREADS = WARPS * 32;
constexpr int BM = WARPS * ROWS;   // 64 query rows per block
constexpr float LOG2E = 1.4426950408889634f;

template <int D> struct Cfg {
    static constexpr int LDK = warp_tile::ld_kv<D>();
    static constexpr int NSLOT = D == 64 ? 4 : 3;
    static constexpr int Q_BYTES = BM * LDK * 2;
    static constexpr int SLOT_BYTES = BN * LDK * 2;
    static constexpr int BYTES = Q_BYTES + NSLOT * SLOT_BYTES + WARPS * warp_tile::STAGE_BYTES;
};

// Copies rows [row0, row0 + rows) of a row-major [n_rows][D] matrix into dst (LDK halves
// per row), 16 bytes per thread per step; rows past n_rows are zero-filled so a ragged
// tail of V contributes 0 * 0 rather than 0 * garbage.
template <int D, int ROWS_>
__device__ __forceinline__ void load_rows(__half *dst, const __half *src, int row0, int n_rows)
{
    constexpr int CHUNKS = D / 8;
    constexpr int LDK = Cfg<D>::LDK;
    static_assert((ROWS_ * CHUNKS) % THREADS == 0, "whole steps");
#pragma unroll
    for (int i = 0; i < ROWS_ * CHUNKS / THREADS; ++i) {
        const int c = threadIdx.x + i * THREADS;
        const int r = c / CHUNKS, ch = c % CHUNKS;
        const int g = row0 + r;
        const bool ok = g < n_rows;
        cp_async::copy16(dst + r * LDK + ch * 8, src + (size_t)(ok ? g : 0) * D + ch * 8, ok ? 16 : 0);
    }
}

template <int D>
__global__ void __launch_bounds__(THREADS)
attention_cp_async(const __half *__restrict__ q, const __half *__restrict__ k,
                   const __half *__restrict__ v, __half *__restrict__ o,
                   int seq_q, int seq_kv, int n_qblocks, int causal, float scale_log2)
{
    using C = Cfg<D>;
    constexpr int NSLOT = C::NSLOT;
    extern __shared__ __align__(128) unsigned char smem[];
    __half *qs = reinterpret_cast<__half *>(smem);
    __half *ring = reinterpret_cast<__half *>(smem + C::Q_BYTES);
    unsigned char *stage = smem + C::Q_BYTES + NSLOT * C::SLOT_BYTES;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int bh = blockIdx.x / n_qblocks;
    // Highest query blocks first: under a causal mask they have the most tiles.
    const int q0 = (n_qblocks - 1 - blockIdx.x % n_qblocks) * BM;
    const __half *qg = q + (size_t)bh * seq_q * D;
    const __half *kg = k + (size_t)bh * seq_kv * D;
    const __half *vg = v + (size_t)bh * seq_kv * D;

    // Bottom-right causal: row i sees keys j <= i + diag. Tiles past the last row's
    // limit are skipped; a block whose rows see no key runs no tile and writes zeros.
    const int diag = seq_kv - seq_q;
    int kv_end = seq_kv;
    if (causal) kv_end = min(kv_end, min(q0 + BM, seq_q) - 1 + diag + 1);
    const int n_tiles = kv_end > 0 ? (kv_end + BN - 1) / BN : 0;
    const int n_items = 2 * n_tiles;

    auto issue = [&](int it) {
        if (it < n_items)
            load_rows<D, BN>(ring + (it % NSLOT) * (C::SLOT_BYTES / 2), (it & 1) ? vg : kg,
                             (it >> 1) * BN, seq_kv);
        cp_async::commit();   // empty groups keep the wait count uniform
    };

    load_rows<D, BM>(qs, qg, q0, seq_q);   // rides in the first group with K_0
#pragma unroll
    for (int it = 0; it < NSLOT - 1; ++it) issue(it);

    warp_tile::WarpTile<D> wt;
    wt.init(stage + warp * warp_tile::STAGE_BYTES, lane);
    const int my_row = q0 + warp * ROWS + (lane >> 1);
    const int row_limit = causal ? min(seq_kv, my_row + diag + 1) : seq_kv;
    const __half *q_rows = qs + warp * ROWS * C::LDK;

    for (int j = 0; j < n_tiles; ++j) {
        // Item 2j (K_j) has landed once at most NSLOT - 2 groups are pending. The barrier
        // publishes every thread's copies and retires the slot read one step ago, which
        // is where item 2j + NSLOT - 1 goes.
        cp_async::wait<NSLOT - 2>();
        __syncthreads();
        issue(2 * j + NSLOT - 1);
        wt.scores(q_rows, ring + ((2 * j) % NSLOT) * (C::SLOT_BYTES / 2));
        wt.softmax(row_limit - j * BN, scale_log2);

        cp_async::wait<NSLOT - 2>();   // V_j
        __syncthreads();
        issue(2 * j + NSLOT);
        wt.accumulate(ring + ((2 * j + 1) % NSLOT) * (C::SLOT_BYTES / 2));
    }
    cp_async::wait<0>();

    wt.finish(o + (size_t)bh * seq_q * D, q0 + warp * ROWS, seq_q);
}

enum { ERR_CUDA = 1, ERR_SHAPE, ERR_ARCH, ERR_SMEM, ERR_ALLOC };

struct State {
    attn_shape shape;
};

cudaError_t g_cuda = cudaSuccess;

const char *unsupported(const attn_shape *s)
{
    if (s->head_dim != 64 && s->head_dim != 128)
        return "head_dim must be 64 or 128 (the kernel is instantiated for those two)";
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
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (major < 8) return ERR_ARCH;
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (optin < Cfg<D>::BYTES) return ERR_SMEM;
    g_cuda = cudaFuncSetAttribute(attention_cp_async<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  Cfg<D>::BYTES);
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
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
    const unsigned grid = (unsigned)(s.batch * s.heads * n_qblocks);
    attention_cp_async<D><<<grid, THREADS, Cfg<D>::BYTES, a->stream>>>(
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
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
}

void fini(void *state) { free(state); }

const char *error_string(int code)
{
    switch (code) {
    case 0:
        return "64 query rows / 4 warps per block, 64-key tiles, WMMA 16x16x16; K/V half-tiles "
               "by 16-byte cp.async into a ring of 4 slots (D=64, 72 KB smem) or 3 (D=128, 95 KB)";
    case ERR_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_SHAPE: return "shape not supported (see unsupported()) or init not called";
    case ERR_ARCH: return "needs compute capability 8.0 or newer (cp.async)";
    case ERR_SMEM: return "the device allows less dynamic shared memory per block than the kernel needs";
    case ERR_ALLOC: return "out of host memory for the phase state";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "04_cp_async", "WMMA flash attention, cp.async multi-buffered K/V tiles",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
