// 07_wgmma_tma: flash attention on Hopper's own instructions, one consumer warpgroup.
// A block owns 64 query rows of one head and has two warpgroups:
//   - the producer (warpgroup 0): one thread issues the copy engine's tile loads
//     (cp.async.bulk.tensor) of Q once and of K and V into a ring of STAGES slots, each slot
//     with a `full` mbarrier (its bytes have landed) and an `empty` one (every consumer warp
//     has read it);
//   - the consumer (warpgroup 1): S = Q K^T and O += P V are warpgroup MMAs (wgmma) reading
//     Q, K and V straight from the swizzled tiles the copy engine wrote; the online softmax
//     runs on S in registers, and P is converted to fp16 in registers and fed back as
//     wgmma's A operand.
// The consumer's steps are serial: its MMAs, the softmax and the waits take turns, and the
// tensor cores idle while the softmax runs (the next rung overlaps them).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>   // CUtensorMap; the encoder is reached through the runtime, no -lcuda
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "hopper_ptx.cuh"

namespace {

constexpr float LOG2E = 1.4426950408889634f;
constexpr int BM = 64;    // query rows per block: one consumer warpgroup
constexpr int BN = 128;   // keys per K/V tile
constexpr int THREADS = 256;   // producer warpgroup + consumer warpgroup

template <int D> struct Cfg {
    static constexpr int STAGES = D == 64 ? 3 : 2;        // K/V ring depth
    static constexpr int CHUNKS = D / 64;                 // 64-column chunks of 128 bytes
    static_assert(CHUNKS * 64 == D, "D is a multiple of 64");
    static constexpr int Q_BYTES = BM * D * 2;
    static constexpr int KV_BYTES = BN * D * 2;
    static constexpr int TILE_BYTES = Q_BYTES + 2 * STAGES * KV_BYTES;
    static constexpr int BAR_BYTES = 8 * (1 + 4 * STAGES);
    static constexpr int SMEM = 1024 + TILE_BYTES + BAR_BYTES;   // 1024: alignment slack
    static_assert(SMEM <= 227 * 1024, "fits the sm_90 per-block limit");
};

struct Params {
    __half *o;
    int seq_q, seq_kv, heads, n_qblocks, causal;
    float scale_log2;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ float ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ uint32_t pack_half2(float a, float b)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}

// The consumer warpgroup's state and steps. Rows: this thread holds rows r0 and r0 + 8 of
// the block (r0 = 16 warp + lane / 4), columns 8g + 2(lane % 4) + {0, 1} (the accumulator
// layout of hopper_ptx.cuh).
template <int D> struct Consumer {
    using C = Cfg<D>;
    float o[D / 2];
    float s[BN / 2];
    uint32_t p[BN / 4];
    float m[2], l[2];
    uint32_t q_addr, k_addr, v_addr;   // shared addresses: the Q tile, the K and V rings

    // S = Q K^T of the K tile in `stage`: D / 16 k slices, four per 64-column chunk.
    __device__ __forceinline__ void qk(int stage)
    {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            const uint32_t off = (kk % 4) * 32;   // the k slice inside a 128-byte row
            const uint64_t a = hopper::make_desc(q_addr + (kk / 4) * BM * 128 + off, 16, 1024);
            const uint64_t b = hopper::make_desc(k_addr + stage * C::KV_BYTES + (kk / 4) * BN * 128 + off, 16, 1024);
            hopper::mma_ss_n128(s, a, b, kk > 0);
        }
        hopper::wgmma_commit();
    }

    // O += P V of the V tile in `stage`: BN / 16 k slices of 16 keys, P from registers.
    __device__ __forceinline__ void pv(int stage)
    {
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
            const uint64_t b = hopper::make_desc(v_addr + stage * C::KV_BYTES + kk * 16 * 128, BN * 128, 1024);
            const uint32_t a[4] = {p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3]};
            if constexpr (D == 128) hopper::mma_rs_n128(o, a, b, 1);
            else hopper::mma_rs_n64(o, a, b, 1);
        }
        hopper::wgmma_commit();
    }

    // Online softmax of key tile j on s (raw scores in, unnormalised probabilities out);
    // alpha: the factor the running output must be rescaled by. MASK: the tile crosses the
    // causal diagonal or the end of the keys, and the scores past them become -inf.
    template <bool MASK>
    __device__ __forceinline__ void softmax(int j, int row0, int lane, const Params &prm, float (&alpha)[2])
    {
        const int diag = prm.seq_kv - prm.seq_q;   // bottom-right causal: row i sees keys <= i + diag
        if constexpr (MASK) {
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int row = row0 + 8 * i;
                const int lim = prm.causal ? min(prm.seq_kv, row + diag + 1) : prm.seq_kv;
#pragma unroll
                for (int g = 0; g < BN / 8; ++g)
#pragma unroll
                    for (int c = 0; c < 2; ++c)
                        if (j * BN + 8 * g + 2 * (lane % 4) + c >= lim) s[4 * g + 2 * i + c] = -INFINITY;
            }
        }
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            // The row's max over this thread's columns, then over the quad that shares the row.
            float mx = m[i];
#pragma unroll
            for (int g = 0; g < BN / 8; ++g) mx = fmaxf(mx, fmaxf(s[4 * g + 2 * i], s[4 * g + 2 * i + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            // A row that has seen no key yet keeps max -inf: its exponentials are 0, not NaN.
            const float ms = mx == -INFINITY ? 0.f : mx * prm.scale_log2;
            alpha[i] = ex2(m[i] * prm.scale_log2 - ms);
            m[i] = mx;
            float sum = 0.f;
#pragma unroll
            for (int g = 0; g < BN / 8; ++g)
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    float &x = s[4 * g + 2 * i + c];
                    x = ex2(fmaf(x, prm.scale_log2, -ms));   // the scale folded into one FMA
                    sum += x;
                }
            l[i] = l[i] * alpha[i] + sum;
        }
    }

    __device__ __forceinline__ void rescale(const float (&alpha)[2])
    {
#pragma unroll
        for (int g = 0; g < D / 8; ++g)
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                o[4 * g + 2 * i] *= alpha[i];
                o[4 * g + 2 * i + 1] *= alpha[i];
            }
    }

    // P in the A-fragment order of wgmma: p[4kk + r] pairs the same elements the S
    // accumulator holds in s[8kk + 2r], s[8kk + 2r + 1].
    __device__ __forceinline__ void convert()
    {
#pragma unroll
        for (int i = 0; i < BN / 4; ++i) p[i] = pack_half2(s[2 * i], s[2 * i + 1]);
    }
};
#endif

template <int D>
__global__ void __launch_bounds__(THREADS, 1)
hopper_attention(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                 const __grid_constant__ CUtensorMap tm_v, const Params prm)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using C = Cfg<D>;
    constexpr int ST = C::STAGES;
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));   // swizzle atoms: 1024-aligned
    unsigned char *q_s = smem;
    unsigned char *k_s = q_s + C::Q_BYTES;
    unsigned char *v_s = k_s + ST * C::KV_BYTES;
    uint64_t *q_full = reinterpret_cast<uint64_t *>(v_s + ST * C::KV_BYTES);
    uint64_t *k_full = q_full + 1, *v_full = k_full + ST, *k_empty = v_full + ST, *v_empty = k_empty + ST;

    const int qb = prm.n_qblocks - 1 - (int)blockIdx.x;   // heaviest causal blocks first
    const int bh = (int)blockIdx.z * prm.heads + (int)blockIdx.y;
    const int q0 = qb * BM;
    const int diag = prm.seq_kv - prm.seq_q;   // bottom-right causal: row i sees keys j <= i + diag
    // Key tiles of this block: causal tiles past its last row's diagonal are never loaded.
    int kv_end = prm.seq_kv;
    if (prm.causal) kv_end = min(kv_end, min(q0 + BM, prm.seq_q) + diag);
    const int n_tiles = kv_end > 0 ? (kv_end + BN - 1) / BN : 0;

    if (threadIdx.x == 0) {
        hopper::mbar_init(q_full, 1);
        for (int i = 0; i < ST; ++i) {
            hopper::mbar_init(&k_full[i], 1);
            hopper::mbar_init(&v_full[i], 1);
            hopper::mbar_init(&k_empty[i], 4);   // one arrival per consumer warp
            hopper::mbar_init(&v_empty[i], 4);
        }
        hopper::fence_barrier_init();
    }
    __syncthreads();

    if (threadIdx.x < 128) {
        // ---- producer warpgroup: one thread issues every copy ----
        if (threadIdx.x == 0) {
            hopper::prefetch_tmap(&tm_q);
            hopper::prefetch_tmap(&tm_k);
            hopper::prefetch_tmap(&tm_v);
            hopper::mbar_arrive_expect_tx(q_full, C::Q_BYTES);
#pragma unroll
            for (int c = 0; c < C::CHUNKS; ++c)
                hopper::tma_load_3d(q_s + c * BM * 128, &tm_q, 64 * c, q0, bh, q_full);
            for (int j = 0; j < n_tiles; ++j) {
                const int st = j % ST;
                const unsigned ph = (j / ST) & 1;
                if (j >= ST) hopper::mbar_wait(&k_empty[st], ph ^ 1);
                hopper::mbar_arrive_expect_tx(&k_full[st], C::KV_BYTES);
#pragma unroll
                for (int c = 0; c < C::CHUNKS; ++c)
                    hopper::tma_load_3d(k_s + st * C::KV_BYTES + c * BN * 128, &tm_k, 64 * c, j * BN, bh, &k_full[st]);
                if (j >= ST) hopper::mbar_wait(&v_empty[st], ph ^ 1);
                hopper::mbar_arrive_expect_tx(&v_full[st], C::KV_BYTES);
#pragma unroll
                for (int c = 0; c < C::CHUNKS; ++c)
                    hopper::tma_load_3d(v_s + st * C::KV_BYTES + c * BN * 128, &tm_v, 64 * c, j * BN, bh, &v_full[st]);
            }
        }
        return;
    }

    // ---- consumer warpgroup ----
    Consumer<D> cs;
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row0 = q0 + warp * 16 + lane / 4;
    cs.q_addr = hopper::smem_u32(q_s);
    cs.k_addr = hopper::smem_u32(k_s);
    cs.v_addr = hopper::smem_u32(v_s);
#pragma unroll
    for (int i = 0; i < D / 2; ++i) cs.o[i] = 0.f;
    cs.m[0] = cs.m[1] = -INFINITY;
    cs.l[0] = cs.l[1] = 0.f;
    // Tiles before n_plain need no mask for any row of the block.
    const int plain_end = prm.causal ? min(prm.seq_kv, q0 + diag + 1) : prm.seq_kv;
    const int n_plain = plain_end > 0 ? plain_end / BN : 0;
    // Each warp frees a stage once its MMAs have read it.
    auto release = [&](uint64_t *bar) {
        __syncwarp();
        if (lane == 0) hopper::mbar_arrive(bar);
    };

    hopper::mbar_wait(q_full, 0);
    float alpha[2];
    for (int j = 0; j < n_tiles; ++j) {
        const int st = j % ST;
        const unsigned ph = (j / ST) & 1;
        hopper::mbar_wait(&k_full[st], ph);
        hopper::wgmma_fence();
        cs.qk(st);
        hopper::wgmma_wait<0>();
        hopper::reg_fence(cs.s);
        release(&k_empty[st]);
        if (j >= n_plain) cs.template softmax<true>(j, row0, lane, prm, alpha);
        else cs.template softmax<false>(j, row0, lane, prm, alpha);
        cs.rescale(alpha);
        cs.convert();
        hopper::mbar_wait(&v_full[st], ph);
        hopper::wgmma_fence();
        cs.pv(st);
        hopper::wgmma_wait<0>();
        hopper::reg_fence(cs.o);
        release(&v_empty[st]);
    }

    // Epilogue: normalise by the row sums (reduced over the quad); rows that saw no key
    // (sum 0) write zeros.
    __half *o = prm.o + (size_t)bh * prm.seq_q * D;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        float l = cs.l[i];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        const float inv = l > 0.f ? 1.f / l : 0.f;
        const int row = row0 + 8 * i;
        if (row < prm.seq_q) {
            __half2 *dst = reinterpret_cast<__half2 *>(o + (size_t)row * D + 2 * (lane % 4));
#pragma unroll
            for (int g = 0; g < D / 8; ++g)
                dst[4 * g] = __floats2half2_rn(cs.o[4 * g + 2 * i] * inv, cs.o[4 * g + 2 * i + 1] * inv);
        }
    }
#else
    (void)tm_q, (void)tm_k, (void)tm_v, (void)prm;
#endif
}

// Writes 1 from the sm_90a machine code, 2 from any other: init() checks that the code the
// driver picked is the one with wgmma.
__global__ void arch_probe(int *flag)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *flag = 1;
#else
    *flag = 2;
#endif
}

// ---- host side ---------------------------------------------------------------------------

enum { ERR_CUDA = 1, ERR_SHAPE, ERR_SMEM, ERR_ALLOC, ERR_TMAP, ERR_ALIGN, ERR_NOT_90A };

struct State {
    attn_shape shape;
    const void *fn;
    int smem, n_qblocks;
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    const void *mapped[3];
    CUtensorMap maps[3];
};

cudaError_t g_cuda = cudaSuccess;
CUresult g_cu = CUDA_SUCCESS;
char g_chosen[200] = "not initialised";
char g_arch[160];

// [batch * heads][rows][D] fp16, boxes of box_rows x 64 columns, 128-byte swizzle (the
// layout rule of hopper_ptx.cuh). Rows past `rows` of a head are out of bounds of that
// head's plane, so the copy engine fills them with zeros.
bool encode_map(State &st, CUtensorMap *map, const void *base, int rows, int box_rows)
{
    const int D = st.shape.head_dim;
    cuuint64_t dims[3] = {(cuuint64_t)D, (cuuint64_t)rows,
                          (cuuint64_t)st.shape.batch * (cuuint64_t)st.shape.heads};
    cuuint64_t strides[2] = {(cuuint64_t)D * 2, (cuuint64_t)rows * D * 2};
    cuuint32_t box[3] = {64, (cuuint32_t)box_rows, 1};
    cuuint32_t step[3] = {1, 1, 1};
    g_cu = st.encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, const_cast<void *>(base), dims, strides, box,
                     step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return g_cu == CUDA_SUCCESS;
}

// NULL when the current device is an sm_90 part, else why the rung declines.
const char *arch_reason()
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return "no CUDA device to query (the rung needs compute capability 9.0)";
    if (major != 9 || minor != 0) {
        snprintf(g_arch, sizeof g_arch,
                 "needs compute capability 9.0 (H100/H200: wgmma and the copy engine, built for sm_90a only); "
                 "this device is %d.%d", major, minor);
        return g_arch;
    }
    return nullptr;
}

const char *unsupported(const attn_shape *s)
{
    if (s->head_dim != 64 && s->head_dim != 128)
        return "head_dim must be 64 or 128 (the kernel is instantiated for those two)";
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1)
        return "batch, heads, seq_q and seq_kv must be >= 1";
    if (s->batch > 65535 || s->heads > 65535)
        return "batch and heads must be <= 65535 (grid y and z)";
    if (!(s->scale > 0.f) || !std::isfinite(s->scale))
        return "scale must be positive and finite (the row max is taken before scaling)";
    return arch_reason();
}

size_t workspace_bytes(const attn_shape *) { return 0; }

int check_sm90a()
{
    int *flag = nullptr, host = 0;
    if ((g_cuda = cudaMalloc(&flag, sizeof(int))) != cudaSuccess) return ERR_CUDA;
    arch_probe<<<1, 1>>>(flag);
    if ((g_cuda = cudaGetLastError()) == cudaSuccess)
        g_cuda = cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost);
    const cudaError_t freed = cudaFree(flag);
    if (g_cuda == cudaSuccess) g_cuda = freed;
    if (g_cuda != cudaSuccess) return ERR_CUDA;
    return host == 1 ? 0 : ERR_NOT_90A;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    const void *fn = s->head_dim == 64 ? reinterpret_cast<const void *>(&hopper_attention<64>)
                                       : reinterpret_cast<const void *>(&hopper_attention<128>);
    const int smem = s->head_dim == 64 ? Cfg<64>::SMEM : Cfg<128>::SMEM;
    int dev = 0, optin = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (optin < smem) return ERR_SMEM;
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)) != cudaSuccess)
        return ERR_CUDA;
    int rc = check_sm90a();
    if (rc) return rc;
    cudaFuncAttributes fa;
    if ((g_cuda = cudaFuncGetAttributes(&fa, fn)) != cudaSuccess) return ERR_CUDA;

    cudaDriverEntryPointQueryResult found;
    void *enc = nullptr;
    g_cuda = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &enc, 12000, cudaEnableDefault, &found);
    if (g_cuda != cudaSuccess) return ERR_CUDA;
    if (found != cudaDriverEntryPointSuccess || !enc) return ERR_TMAP;

    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    st->fn = fn;
    st->smem = smem;
    st->n_qblocks = (s->seq_q + BM - 1) / BM;
    st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    snprintf(g_chosen, sizeof g_chosen,
             "one consumer warpgroup, BM=%d BN=%d, %d B shared memory, %d registers (sm_90a code, wgmma), "
             "%lld CTAs of %d threads",
             BM, BN, smem, fa.numRegs, (long long)st->n_qblocks * s->batch * s->heads, THREADS);
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_SHAPE;
    State &st = *static_cast<State *>(state);
    const attn_shape &s = st.shape;
    // The tensor maps embed the addresses: re-encoded (host arithmetic, nothing enqueued)
    // only when a buffer differs from the last call's.
    const void *ptr[3] = {a->q, a->k, a->v};
    const int rows[3] = {s.seq_q, s.seq_kv, s.seq_kv};
    const int box[3] = {BM, BN, BN};
    for (int i = 0; i < 3; ++i) {
        if (ptr[i] == st.mapped[i]) continue;
        if (reinterpret_cast<uintptr_t>(ptr[i]) % 16) return ERR_ALIGN;
        if (!encode_map(st, &st.maps[i], ptr[i], rows[i], box[i])) {
            st.mapped[i] = nullptr;
            return ERR_TMAP;
        }
        st.mapped[i] = ptr[i];
    }
    if (reinterpret_cast<uintptr_t>(a->o) % 4) return ERR_ALIGN;
    Params p;
    p.o = static_cast<__half *>(a->o);
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.heads = s.heads;
    p.n_qblocks = st.n_qblocks;
    p.causal = s.causal != 0;
    p.scale_log2 = s.scale * LOG2E;
    void *args[] = {&st.maps[0], &st.maps[1], &st.maps[2], &p};
    const dim3 grid((unsigned)st.n_qblocks, (unsigned)s.heads, (unsigned)s.batch);
    g_cuda = cudaLaunchKernel(st.fn, grid, dim3(THREADS), args, (size_t)st.smem, a->stream);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
}

void fini(void *state) { free(state); }

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_chosen;
    case ERR_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_SHAPE: return "shape or device not supported (see unsupported()) or init not called";
    case ERR_SMEM: return "the device allows less dynamic shared memory per block than the kernel needs";
    case ERR_ALLOC: return "out of host memory for the phase state";
    case ERR_TMAP:
        return g_cu != CUDA_SUCCESS ? "cuTensorMapEncodeTiled failed (tensor maps of Q/K/V)"
                                    : "cuTensorMapEncodeTiled not found in the driver";
    case ERR_ALIGN: return "q/k/v must be 16-byte aligned and o 4-byte aligned";
    case ERR_NOT_90A: return "the driver picked code other than sm_90a for this GPU (no wgmma path)";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "07_wgmma_tma", "wgmma + TMA flash attention: a producer warpgroup, one consumer warpgroup",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
