// 08_warpgroup_pingpong: the wgmma + TMA kernel of rung 07 with its tensor cores kept busy
// through the softmax. A block owns 64 * NCONS query rows of one head:
//   - the producer (warpgroup 0): one thread issues the copy engine's loads of Q once and
//     of K and V into a ring of STAGES slots (a `full` and an `empty` mbarrier per slot),
//     then the warpgroup gives its registers back (setmaxnreg.dec) to
//   - NCONS consumer warpgroups (setmaxnreg.inc), 64 query rows each, which
//       overlap: issue S(j) = Q K^T(j) together with O += P V(j - 1), and run the softmax
//         of tile j while P V(j - 1) is still on the tensor cores;
//       take turns: warpgroup w issues its MMAs only after warpgroup w - 1 has issued
//         its own (named barriers, a round robin), so one warpgroup's softmax runs under
//         the others' MMAs instead of beside them by chance.
// Two consumer warpgroups at D = 128 (240 registers each), three at D = 64 (160 each): at
// D = 64 the softmax costs as much issue time as the MMAs (half the MMA work per score), so
// it takes two other warpgroups' MMAs to hide it.
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
constexpr int BN = 128;   // keys per K/V tile

template <int D> struct Cfg {
    static constexpr int NCONS = D == 64 ? 3 : 2;         // consumer warpgroups
    static constexpr int BM = 64 * NCONS;                 // query rows per block
    static constexpr int THREADS = 128 * (NCONS + 1);
    static constexpr int STAGES = D == 64 ? 3 : 2;        // K/V ring depth
    static constexpr int CHUNKS = D / 64;                 // 64-column chunks of 128 bytes
    static_assert(CHUNKS * 64 == D, "D is a multiple of 64");
    static constexpr int Q_BYTES = BM * D * 2;
    static constexpr int KV_BYTES = BN * D * 2;
    static constexpr int TILE_BYTES = Q_BYTES + 2 * STAGES * KV_BYTES;
    static constexpr int BAR_BYTES = 8 * (1 + 4 * STAGES);
    static constexpr int SMEM = 1024 + TILE_BYTES + BAR_BYTES;   // 1024: alignment slack
    static_assert(SMEM <= 227 * 1024, "fits the sm_90 per-block limit");
    // setmaxnreg: the producer keeps 24 (two consumers) or 32 (three) registers, the
    // consumers share the rest of the 64K-register file (multiples of 8).
    static constexpr int REG_PRODUCER = NCONS == 2 ? 24 : 32;
    static constexpr int REG_CONSUMER = NCONS == 2 ? 240 : 160;
    static_assert((REG_PRODUCER + NCONS * REG_CONSUMER) * 128 <= 65536, "register file");
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
// the block (r0 = 64 wg + 16 warp + lane / 4), columns 8g + 2(lane % 4) + {0, 1} (the
// accumulator layout of hopper_ptx.cuh).
template <int D> struct Consumer {
    using C = Cfg<D>;
    float o[D / 2];
    float s[BN / 2];
    uint32_t p[BN / 4];
    float m[2], l[2];
    uint32_t q_addr, k_addr, v_addr;   // shared addresses: this warpgroup's Q rows, the rings
    int wg;

    // S = Q K^T of the K tile in `stage`: D / 16 k slices, four per 64-column chunk.
    __device__ __forceinline__ void qk(int stage)
    {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            const uint32_t off = (kk % 4) * 32;   // the k slice inside a 128-byte row
            const uint64_t a = hopper::make_desc(q_addr + (kk / 4) * C::BM * 128 + off, 16, 1024);
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
__global__ void __launch_bounds__(Cfg<D>::THREADS, 1)
hopper_attention(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                 const __grid_constant__ CUtensorMap tm_v, const Params prm)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using C = Cfg<D>;
    constexpr int ST = C::STAGES, NCONS = C::NCONS;
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
    const int q0 = qb * C::BM;
    const int diag = prm.seq_kv - prm.seq_q;   // bottom-right causal: row i sees keys j <= i + diag
    // Key tiles of this block: causal tiles past its last row's diagonal are never loaded.
    int kv_end = prm.seq_kv;
    if (prm.causal) kv_end = min(kv_end, min(q0 + C::BM, prm.seq_q) + diag);
    const int n_tiles = kv_end > 0 ? (kv_end + BN - 1) / BN : 0;

    if (threadIdx.x == 0) {
        hopper::mbar_init(q_full, 1);
        for (int i = 0; i < ST; ++i) {
            hopper::mbar_init(&k_full[i], 1);
            hopper::mbar_init(&v_full[i], 1);
            hopper::mbar_init(&k_empty[i], 4 * NCONS);   // one arrival per consumer warp
            hopper::mbar_init(&v_empty[i], 4 * NCONS);
        }
        hopper::fence_barrier_init();
    }
    __syncthreads();

    if (threadIdx.x < 128) {
        // ---- producer warpgroup: one thread issues every copy ----
        hopper::regs_dec<C::REG_PRODUCER>();
        if (threadIdx.x == 0) {
            hopper::prefetch_tmap(&tm_q);
            hopper::prefetch_tmap(&tm_k);
            hopper::prefetch_tmap(&tm_v);
            hopper::mbar_arrive_expect_tx(q_full, C::Q_BYTES);
#pragma unroll
            for (int c = 0; c < C::CHUNKS; ++c)
                hopper::tma_load_3d(q_s + c * C::BM * 128, &tm_q, 64 * c, q0, bh, q_full);
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

    // ---- consumer warpgroups ----
    hopper::regs_inc<C::REG_CONSUMER>();
    Consumer<D> cs;
    cs.wg = threadIdx.x / 128 - 1;
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row0 = q0 + cs.wg * 64 + warp * 16 + lane / 4;
    cs.q_addr = hopper::smem_u32(q_s) + cs.wg * 64 * 128;
    cs.k_addr = hopper::smem_u32(k_s);
    cs.v_addr = hopper::smem_u32(v_s);
#pragma unroll
    for (int i = 0; i < D / 2; ++i) cs.o[i] = 0.f;
    cs.m[0] = cs.m[1] = -INFINITY;
    cs.l[0] = cs.l[1] = 0.f;
    // Tiles before n_plain need no mask for any row of this warpgroup.
    const int wg_row = q0 + cs.wg * 64;
    const int plain_end = prm.causal ? min(prm.seq_kv, wg_row + diag + 1) : prm.seq_kv;
    const int n_plain = plain_end > 0 ? plain_end / BN : 0;

    // The turns: warpgroup w issues its MMAs after bar.sync on named barrier 1 + w, which
    // warpgroup w - 1 arrives at once it has issued its own. The last warpgroup opens the
    // first turn for warpgroup 0, and warpgroup 0 takes one more sync at the end for the
    // last warpgroup's last arrival, so every barrier phase completes exactly (each: 128
    // threads syncing, 128 arriving). Every warpgroup of a block has the same key tiles,
    // so the same number of turns.
    auto turn_begin = [&]() { hopper::named_sync(1 + cs.wg, 256); };
    auto turn_end = [&]() { hopper::named_arrive(1 + (cs.wg + 1) % NCONS, 256); };
    // Each warp frees a stage once its MMAs have read it.
    auto release = [&](uint64_t *bar) {
        __syncwarp();
        if (lane == 0) hopper::mbar_arrive(bar);
    };
    if (cs.wg == NCONS - 1) hopper::named_arrive(1, 256);

    hopper::mbar_wait(q_full, 0);
    if (n_tiles > 0) {
        float alpha[2];
        // Prologue: S of tile 0 and its softmax (O is zero: nothing to rescale).
        hopper::mbar_wait(&k_full[0], 0);
        turn_begin();
        hopper::wgmma_fence();
        cs.qk(0);
        turn_end();
        hopper::wgmma_wait<0>();
        hopper::reg_fence(cs.s);
        release(&k_empty[0]);
        if (0 >= n_plain) cs.template softmax<true>(0, row0, lane, prm, alpha);
        else cs.template softmax<false>(0, row0, lane, prm, alpha);
        cs.convert();
        for (int j = 1; j < n_tiles; ++j) {
            const int st = j % ST, sp = (j - 1) % ST;
            hopper::mbar_wait(&k_full[st], (j / ST) & 1);
            hopper::mbar_wait(&v_full[sp], ((j - 1) / ST) & 1);
            turn_begin();
            hopper::wgmma_fence();
            cs.qk(st);        // S(j)
            cs.pv(sp);        // O += P(j - 1) V(j - 1)
            turn_end();
            hopper::wgmma_wait<1>();   // S(j) is in; P V may still run
            hopper::reg_fence(cs.s);
            release(&k_empty[st]);
            if (j >= n_plain) cs.template softmax<true>(j, row0, lane, prm, alpha);
            else cs.template softmax<false>(j, row0, lane, prm, alpha);
            hopper::wgmma_wait<0>();
            hopper::reg_fence(cs.o);
            hopper::reg_fence(cs.p);
            release(&v_empty[sp]);
            cs.rescale(alpha);
            cs.convert();
        }
        // The last tile's P V.
        const int sl = (n_tiles - 1) % ST;
        hopper::mbar_wait(&v_full[sl], ((n_tiles - 1) / ST) & 1);
        turn_begin();
        hopper::wgmma_fence();
        cs.pv(sl);
        turn_end();
        hopper::wgmma_wait<0>();
        hopper::reg_fence(cs.o);
        release(&v_empty[sl]);
    }
    if (cs.wg == 0) hopper::named_sync(1, 256);

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
    int smem, bm, threads, n_qblocks;
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
                 "needs compute capability 9.0 (H100/H200: wgmma, setmaxnreg, built for sm_90a only); "
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
    const bool d64 = s->head_dim == 64;
    const void *fn = d64 ? reinterpret_cast<const void *>(&hopper_attention<64>)
                         : reinterpret_cast<const void *>(&hopper_attention<128>);
    const int smem = d64 ? Cfg<64>::SMEM : Cfg<128>::SMEM;
    const int bm = d64 ? Cfg<64>::BM : Cfg<128>::BM;
    const int threads = d64 ? Cfg<64>::THREADS : Cfg<128>::THREADS;
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
    st->bm = bm;
    st->threads = threads;
    st->n_qblocks = (s->seq_q + bm - 1) / bm;
    st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    snprintf(g_chosen, sizeof g_chosen,
             "%d consumer warpgroups taking turns, BM=%d BN=%d, %d B shared memory, %d registers at entry "
             "(sm_90a code, wgmma, setmaxnreg), %lld CTAs of %d threads",
             bm / 64, bm, BN, smem, fa.numRegs, (long long)st->n_qblocks * s->batch * s->heads, threads);
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
    const int box[3] = {st.bm, BN, BN};
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
    g_cuda = cudaLaunchKernel(st.fn, grid, dim3((unsigned)st.threads), args, (size_t)st.smem, a->stream);
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
    1, "08_warpgroup_pingpong", "wgmma + TMA: producer warpgroup with setmaxnreg, consumer warpgroups taking turns",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
