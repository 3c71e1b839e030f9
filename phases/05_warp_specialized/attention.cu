// 05_warp_specialized: the 04 kernel's math with the loading moved to a warp of its own.
// Warps 0-3 (consumers) each own 16 query rows and only compute; warp 4 (producer) only
// copies Q and the K/V half-tiles K_0, V_0, K_1, ... into a ring of shared-memory slots.
// There is no block-wide barrier in the main loop: each slot has a `full` mbarrier (the
// producer's 32 lanes arrive, on sm_90 together with the copy engine's byte count) and
// an `empty` one (each consumer warp arrives once it has read the slot), so a consumer
// warp waits only for the data it needs and the producer only for the slot it refills.
#include <climits>
#include <cstdlib>
#include <cuda.h>   // CUtensorMap; the encoder is reached through the runtime, no -lcuda
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include "async_copy.cuh"
#include "attn_phase.h"
#include "warp_tile.cuh"

namespace {

using warp_tile::BN;
using warp_tile::ROWS;

constexpr int CONSUMERS = 4;
constexpr int THREADS = (CONSUMERS + 1) * 32;
constexpr int BM = CONSUMERS * ROWS;   // 64 query rows per block
constexpr float LOG2E = 1.4426950408889634f;

template <int D> struct Cfg {
    static constexpr int LDK = warp_tile::ld_kv<D>();
    static constexpr int NSLOT = D == 64 ? 4 : 3;   // as in 04: D = 128 stays under 99 KB
    // The register cap that lets as many blocks fit as shared memory allows (3 and 2 on
    // sm_90); without it the extra producer warp would cost a block per SM at D = 64.
    static constexpr int MIN_BLOCKS = D == 64 ? 3 : 2;
    static constexpr int BAR_BYTES = 128;
    static constexpr int Q_BYTES = BM * LDK * 2;
    static constexpr int SLOT_BYTES = BN * LDK * 2;
    static constexpr int BYTES =
        BAR_BYTES + Q_BYTES + NSLOT * SLOT_BYTES + CONSUMERS * warp_tile::STAGE_BYTES;
    static_assert((2 * NSLOT + 1) * 8 <= BAR_BYTES, "barriers fit");
    static_assert(Q_BYTES == SLOT_BYTES, "Q and K/V half-tiles share one box shape");
};

#if __CUDA_ARCH__ >= 900
constexpr unsigned FULL_ARRIVALS = 1;    // lane 0's arrive.expect_tx; the bytes do the rest
#else
constexpr unsigned FULL_ARRIVALS = 32;   // every producer lane, when its copies land
#endif

// The producer warp's copy of rows [row0, row0 + NR) of head bh of a [bh][n_rows][D]
// tensor into dst (LDK halves per row), rows past n_rows as zeros, completing one phase
// of bar.
// sm_90: one tensor-map box of (D + 8) x NR elements; the 8 columns past D and the rows
// past n_rows are out of bounds, so the copy engine writes the padded layout and the
// zero tail itself.
// sm_80/89: NR * D / 8 16-byte cp.async spread over the 32 lanes.
template <int D, int NR>
__device__ __forceinline__ void produce(__half *dst, const CUtensorMap *map, const __half *src,
                                        int row0, int n_rows, int bh, uint64_t *bar, int lane)
{
    static_assert(NR == BN && BN == BM, "one box shape for Q, K and V");
#if __CUDA_ARCH__ >= 900
    (void)src, (void)n_rows;
    if (lane == 0) {
        async_copy::mbar_arrive_expect_tx(bar, Cfg<D>::SLOT_BYTES);   // the whole box, zeros too
        async_copy::tensor_copy(dst, map, 0, row0, bh, bar);
    }
#else
    (void)map, (void)bh;
    constexpr int CHUNKS = D / 8;
#pragma unroll
    for (int i = 0; i < NR * CHUNKS / 32; ++i) {
        const int c = lane + i * 32;
        const int r = c / CHUNKS, ch = c % CHUNKS;
        const int g = row0 + r;
        const bool ok = g < n_rows;
        async_copy::copy16(dst + r * Cfg<D>::LDK + ch * 8, src + (size_t)(ok ? g : 0) * D + ch * 8, ok ? 16 : 0);
    }
    async_copy::copies_arrive(bar);
#endif
}

template <int D>
__global__ void __launch_bounds__(THREADS, Cfg<D>::MIN_BLOCKS)
attention_warp_specialized(const __half *__restrict__ q, const __half *__restrict__ k,
                           const __half *__restrict__ v, __half *__restrict__ o,
                           int seq_q, int seq_kv, int n_qblocks, int causal, float scale_log2,
                           const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                           const __grid_constant__ CUtensorMap tm_v)
{
    using C = Cfg<D>;
    constexpr int NSLOT = C::NSLOT;
    extern __shared__ __align__(128) unsigned char smem[];
    uint64_t *full = reinterpret_cast<uint64_t *>(smem);
    uint64_t *empty = full + NSLOT;
    uint64_t *q_full = empty + NSLOT;
    __half *qs = reinterpret_cast<__half *>(smem + C::BAR_BYTES);
    __half *ring = reinterpret_cast<__half *>(smem + C::BAR_BYTES + C::Q_BYTES);
    unsigned char *stage = smem + C::BAR_BYTES + C::Q_BYTES + NSLOT * C::SLOT_BYTES;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int bh = blockIdx.x / n_qblocks;
    const int q0 = (n_qblocks - 1 - blockIdx.x % n_qblocks) * BM;   // heavy causal blocks first
    const __half *kg = k + (size_t)bh * seq_kv * D;   // sm_80/89 producer only
    const __half *vg = v + (size_t)bh * seq_kv * D;

    const int diag = seq_kv - seq_q;   // bottom-right causal: row i sees keys j <= i + diag
    int kv_end = seq_kv;
    if (causal) kv_end = min(kv_end, min(q0 + BM, seq_q) - 1 + diag + 1);
    const int n_tiles = kv_end > 0 ? (kv_end + BN - 1) / BN : 0;

    if (threadIdx.x == 0) {
        for (int s = 0; s < NSLOT; ++s) {
            async_copy::mbar_init(&full[s], FULL_ARRIVALS);
            async_copy::mbar_init(&empty[s], CONSUMERS);
        }
        async_copy::mbar_init(q_full, FULL_ARRIVALS);
#if __CUDA_ARCH__ >= 900
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");   // for the copy engine
#endif
    }
    __syncthreads();   // the only block-wide barrier

    if (warp == CONSUMERS) {
        produce<D, BM>(qs, &tm_q, q + (size_t)bh * seq_q * D, q0, seq_q, bh, q_full, lane);
        for (int it = 0; it < 2 * n_tiles; ++it) {
            const int slot = it % NSLOT, round = it / NSLOT;
            if (round > 0) async_copy::mbar_wait(&empty[slot], (round - 1) & 1);
            produce<D, BN>(ring + slot * (C::SLOT_BYTES / 2), (it & 1) ? &tm_v : &tm_k,
                           (it & 1) ? vg : kg, (it >> 1) * BN, seq_kv, bh, &full[slot], lane);
        }
#if __CUDA_ARCH__ < 900
        async_copy::copies_drain();   // leave no cp.async of an exiting thread in flight
#endif
        return;
    }

    warp_tile::WarpTile<D> wt;
    wt.init(stage + warp * warp_tile::STAGE_BYTES, lane);
    const int my_row = q0 + warp * ROWS + (lane >> 1);
    const int row_limit = causal ? min(seq_kv, my_row + diag + 1) : seq_kv;
    const __half *q_rows = qs + warp * ROWS * C::LDK;

    async_copy::mbar_wait(q_full, 0);
    for (int j = 0; j < n_tiles; ++j) {
        const int ik = 2 * j, iv = 2 * j + 1;
        async_copy::mbar_wait(&full[ik % NSLOT], (ik / NSLOT) & 1);
        wt.scores(q_rows, ring + (ik % NSLOT) * (C::SLOT_BYTES / 2));   // ends in __syncwarp
        if (lane == 0) async_copy::mbar_arrive(&empty[ik % NSLOT]);
        wt.softmax(row_limit - j * BN, scale_log2);

        async_copy::mbar_wait(&full[iv % NSLOT], (iv / NSLOT) & 1);
        wt.accumulate(ring + (iv % NSLOT) * (C::SLOT_BYTES / 2));
        __syncwarp();
        if (lane == 0) async_copy::mbar_arrive(&empty[iv % NSLOT]);
    }

    wt.finish(o + (size_t)bh * seq_q * D, q0 + warp * ROWS, seq_q);
}

enum { ERR_CUDA = 1, ERR_SHAPE, ERR_ARCH, ERR_SMEM, ERR_ALLOC, ERR_TMAP };

// On sm_90 the kernel reads Q, K and V through tensor maps, which embed the device
// addresses; run() encodes them (host arithmetic, nothing enqueued) when the addresses
// differ from the last call. Elsewhere the maps are passed zeroed and never read.
struct State {
    attn_shape shape;
    PFN_cuTensorMapEncodeTiled_v12000 encode;   // NULL below sm_90
    const void *mapped[3];
    CUtensorMap maps[3];
};

cudaError_t g_cuda = cudaSuccess;
CUresult g_cu = CUDA_SUCCESS;

// Head-major [bh][rows][D] fp16 in boxes of 64 rows x (D + 8) elements: the box is wider
// than a row, and the out-of-bounds columns land as the zero padding of each smem row.
bool encode_map(const State &st, CUtensorMap *map, const void *base, int rows)
{
    const int D = st.shape.head_dim;
    cuuint64_t dims[3] = {(cuuint64_t)D, (cuuint64_t)rows,
                          (cuuint64_t)st.shape.batch * (cuuint64_t)st.shape.heads};
    cuuint64_t strides[2] = {(cuuint64_t)D * 2, (cuuint64_t)rows * D * 2};
    cuuint32_t box[3] = {(cuuint32_t)(D + 8), (cuuint32_t)BN, 1};
    cuuint32_t step[3] = {1, 1, 1};
    g_cu = st.encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, const_cast<void *>(base), dims, strides,
                     box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return g_cu == CUDA_SUCCESS;
}

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

template <int D> int prepare(State *st)
{
    int dev = 0, major = 0, optin = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (major < 8) return ERR_ARCH;
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (optin < Cfg<D>::BYTES) return ERR_SMEM;
    g_cuda = cudaFuncSetAttribute(attention_warp_specialized<D>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg<D>::BYTES);
    if (g_cuda != cudaSuccess) return ERR_CUDA;
    if (major >= 9) {
        cudaDriverEntryPointQueryResult found;
        void *fn = nullptr;
        g_cuda = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
        if (g_cuda != cudaSuccess) return ERR_CUDA;
        if (found != cudaDriverEntryPointSuccess || !fn) return ERR_TMAP;
        st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }
    return 0;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    const int rc = s->head_dim == 64 ? prepare<64>(st) : prepare<128>(st);
    if (rc) {
        free(st);
        return rc;
    }
    *state = st;
    return 0;
}

template <int D> void launch(const attn_shape &s, const attn_args *a, const CUtensorMap *maps)
{
    const int n_qblocks = (s.seq_q + BM - 1) / BM;
    const unsigned grid = (unsigned)(s.batch * s.heads * n_qblocks);
    attention_warp_specialized<D><<<grid, THREADS, Cfg<D>::BYTES, a->stream>>>(
        static_cast<const __half *>(a->q), static_cast<const __half *>(a->k),
        static_cast<const __half *>(a->v), static_cast<__half *>(a->o), s.seq_q, s.seq_kv,
        n_qblocks, s.causal != 0, s.scale * LOG2E, maps[0], maps[1], maps[2]);
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_SHAPE;
    State &st = *static_cast<State *>(state);
    const attn_shape &s = st.shape;
    if (st.encode) {
        const void *ptr[3] = {a->q, a->k, a->v};
        const int rows[3] = {s.seq_q, s.seq_kv, s.seq_kv};
        for (int i = 0; i < 3; ++i) {
            if (ptr[i] == st.mapped[i]) continue;
            if (!encode_map(st, &st.maps[i], ptr[i], rows[i])) {
                st.mapped[i] = nullptr;
                return ERR_TMAP;
            }
            st.mapped[i] = ptr[i];
        }
    }
    if (s.head_dim == 64) launch<64>(s, a, st.maps);
    else launch<128>(s, a, st.maps);
    g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
}

void fini(void *state) { free(state); }

const char *error_string(int code)
{
    switch (code) {
    case 0:
        return "4 consumer warps (64 query rows, WMMA 16x16x16) + 1 producer warp; K/V half-tiles "
               "in a ring of 4 (D=64) or 3 (D=128) slots with full/empty mbarriers; "
               "cp.async.bulk.tensor on sm_90, cp.async elsewhere";
    case ERR_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_SHAPE: return "shape not supported (see unsupported()) or init not called";
    case ERR_ARCH: return "needs compute capability 8.0 or newer (cp.async, mbarrier)";
    case ERR_SMEM: return "the device allows less dynamic shared memory per block than the kernel needs";
    case ERR_ALLOC: return "out of host memory for the phase state";
    case ERR_TMAP:
        return g_cu != CUDA_SUCCESS ? "cuTensorMapEncodeTiled failed (sm_90 tensor maps of Q/K/V)"
                                    : "cuTensorMapEncodeTiled not found in the driver";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "05_warp_specialized", "WMMA flash attention, producer warp + mbarrier K/V ring",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
