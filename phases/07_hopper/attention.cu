// 07_hopper: flash attention on Hopper's own instructions. One block owns BM = 64 * NCONS
// query rows of one head. Warpgroup 0 is the producer: one thread issues the copy engine's
// tile loads (cp.async.bulk.tensor) of Q once and of K and V into a ring of STAGES slots,
// each slot with a `full` mbarrier (the bytes land) and an `empty` one (every consumer warp
// has read it). Warpgroups 1..NCONS are consumers, 64 query rows each: S = Q K^T and
// O += P V are warpgroup MMAs (wgmma) reading K and V straight from the swizzled tiles the
// copy engine wrote, the online softmax runs on S in registers, and P is converted to fp16
// in registers and fed back as wgmma's A operand. The steps of the rung are template
// switches, so each one is measured on its own (ATTN07_VARIANT, see README.md):
//   OVERLAP:  S of tile j is computed while the softmax of tile j - 1 still has P V to do:
//             both MMAs are issued together and the softmax of j runs while P V(j - 1) is
//             in flight;
//   PINGPONG: the two consumer warpgroups take turns issuing their MMAs (named barriers),
//             so one's softmax runs while the other's MMAs use the tensor cores.
// setmaxnreg moves registers from the producer (24; 40 with the dynamic scheduler or 176-key
// tiles) to the consumers (240; 232) when NCONS = 2.
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda.h>   // CUtensorMap; the encoder is reached through the runtime, no -lcuda
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "hopper_ptx.cuh"

namespace {

constexpr float LOG2E = 1.4426950408889634f;
constexpr int BN = 128;   // keys per K/V tile (every variant but pingpong-176: Cfg's KN)

// With 176-key tiles, the S width of a last K/V tile holding rem (1..176) keys: the
// narrowest wgmma N of 48, 96, 128 and 176 that covers them (README.md, thirteenth round).
__host__ __device__ constexpr int width176(int rem) { return rem <= 48 ? 48 : rem <= 96 ? 96 : rem <= 128 ? 128 : 176; }


template <int D, int NCONS, int KN = BN> struct Cfg {
    static constexpr int BM = 64 * NCONS;
    static_assert(KN == 128 || KN == 176, "K/V tiles of 128 or 176 keys (the S wgmma wrappers that exist)");
    static constexpr int THREADS = 128 * (NCONS + 1);
#ifndef ATTN07_STAGES128
#define ATTN07_STAGES128 2
#endif
    static constexpr int STAGES = D == 64 ? 3 : ATTN07_STAGES128;   // K/V ring depth
    static constexpr int CHUNKS = D / 64;                 // 64-column chunks of 128 bytes
    static_assert(CHUNKS * 64 == D, "D is a multiple of 64");
    static constexpr int Q_BYTES = BM * D * 2;
    static constexpr int KV_BYTES = KN * D * 2;
    static constexpr int TILE_BYTES = Q_BYTES + 2 * STAGES * KV_BYTES;
    static constexpr int BAR_BYTES = 8 * (2 + 4 * STAGES) + 8 + 32;   // + two work-tile slots, split pieces
    static constexpr int SMEM = 1024 + TILE_BYTES + BAR_BYTES;   // 1024: alignment slack
    static_assert(SMEM <= 227 * 1024, "fits the sm_90 per-block limit");
    // setmaxnreg: the producer keeps 24 (two consumer warpgroups; 40 with the dynamic tile
    // scheduler's hand-out, and with 176-key tiles, whose chained producer's split pieces
    // and next-Q prefetch spilled in 24: README.md, twenty-sixth round) or 32 (three)
    // registers, the consumers share the rest of the 64K-register file (multiples of 8).
    // One consumer warpgroup needs no move.
    template <bool DYN> static constexpr int REG_PRODUCER = NCONS == 2 ? (DYN || KN == 176 ? 40 : 24) : 32;
    template <bool DYN> static constexpr int REG_CONSUMER = NCONS == 2 ? (DYN || KN == 176 ? 232 : 240) : 160;
    static_assert(NCONS == 1 || (REG_PRODUCER<true> + NCONS * REG_CONSUMER<true>) * 128 <= 65536, "register file");
    static_assert(NCONS == 1 || (REG_PRODUCER<false> + NCONS * REG_CONSUMER<false>) * 128 <= 65536, "register file");
};

struct Params {
    __half *o;
    int *sched;   // dynamic tile scheduler: {next, done}, zero between launches; NULL: static
    int seq_q, seq_kv, n_qblocks, n_work, causal;   // n_work: query blocks * batch * heads
    int group_log2;   // the tile order's heads per group, log2 (tile_coords)
    float scale_log2;
    // The split tail (chained kernels; README.md, eighteenth round): the work tiles from
    // n_dp on are not taken whole but cut into sk_units = (n_work - n_dp) * n_kt key tiles,
    // dealt to the blocks in equal contiguous ranges before their whole tiles. sk_units = 0:
    // every tile whole (n_dp = n_work).
    int n_dp, n_kt;     // n_kt: key tiles per work tile (non-causal: the same for all)
    int sk_units;       // G * sk_units < 2^31 (split_plan), so b * sk_units / G is 32-bit
    float4 *part;       // workspace: a split piece's O, m and l per (block, piece, consumer thread)
    int *part_count;    // arrivals per (tail tile, consumer warp); zero between launches
    int o16;            // o is 16-byte aligned: the looping kernels store 16-byte chunks
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Build-time switches, for measuring only (README.md): the row max and sum in
// ATTN07_CHAINS independent chains (default: four; one for three consumer warpgroups,
// whose 160 registers do not hold four without spilling); rescale the running output at
// every tile instead of only when a row max grows by more than 2^RESCALE_LOG2.
#ifndef ATTN07_RESCALE_ALWAYS
#define ATTN07_RESCALE_ALWAYS 0
#endif
constexpr bool RESCALE_ALWAYS = ATTN07_RESCALE_ALWAYS != 0;
constexpr float RESCALE_LOG2 = 8.f;

// Work tile t -> query block (0 = the first rows; each head's last, heaviest causal block
// gets the smallest t) and batch * head. A looping block (two or more consumer
// warpgroups) derives them from t; a one-tile block reads them off its 2-D grid, with no
// integer division on the short critical path of the small grids it serves.
// Looping blocks take the tiles in groups of 2^p.group_log2 heads (a power of two that
// divides batch * heads): inside a group the query-block rank runs slowest (every head's
// heaviest causal block first), the groups one after the other. One head per group
// (non-causal) is the plain head-major order; causal shapes use several (README.md, eighth
// round), so that the last tiles handed out are light ones.
template <bool LOOP> __device__ __forceinline__ void tile_coords(const Params &p, int t, int &qb, int &bh)
{
    if constexpr (LOOP) {
        const int per_group = p.n_qblocks << p.group_log2;
        const int g = t / per_group;
        const int r = t - g * per_group;
        bh = (g << p.group_log2) + (r & ((1 << p.group_log2) - 1));
        qb = p.n_qblocks - 1 - (r >> p.group_log2);
    } else {
        qb = p.n_qblocks - 1 - (int)blockIdx.x;
        bh = (int)blockIdx.y;
    }
}
template <bool LOOP> __device__ __forceinline__ int qblock_of(const Params &p, int t)
{
    int qb, bh;
    tile_coords<LOOP>(p, t, qb, bh);
    return qb;
}

// A looping block's work item `count` of the static order: work tile t, its key tiles
// [kb0, kb1), and seg: -1 for a whole tile, else which of this block's (at most two) pieces
// of the split tail it is (the workspace slot). With the split tail (SPLIT, sk_units > 0)
// block b first takes units [b U / G, (b + 1) U / G) of the tail's U key tiles (tail tile i
// is work tile n_dp + i, its units i n_kt .. (i + 1) n_kt - 1), then the whole tiles
// b, b + G, ... below n_dp. U < G n_kt (the tail is fewer tiles than blocks), so a range
// spans at most two tail tiles. Without the split: tiles b, b + G, ... below n_work.
// The pieces take integer divisions, which the 24-register producer cannot hold beside its
// loop (they spilled): thread 0 works them out once (split_pieces) into shared memory,
// where both sides read them (item_of).
struct Item {
    int t, kb0, kb1, seg;
};
__device__ __forceinline__ int split_start(const Params &p, int b)
{
    return b * p.sk_units / (int)gridDim.x;
}
// pieces[0]: how many (0-2); pieces[1 + 3c ..]: piece c's work tile, kb0, kb1.
constexpr int PIECE_INTS = 7;
__device__ __forceinline__ void split_pieces(const Params &p, int *pieces)
{
    const int b = (int)blockIdx.x;
    const int s = split_start(p, b), e = split_start(p, b + 1);
    int n = 0;
    if (s < e) {
        const int first = s / p.n_kt;
        n = (e - 1) / p.n_kt - first + 1;
        for (int c = 0; c < n; ++c) {
            const int i = first + c, u0 = i * p.n_kt;
            pieces[1 + 3 * c] = p.n_dp + i;
            pieces[2 + 3 * c] = max(s, u0) - u0;
            pieces[3 + 3 * c] = min(e, u0 + p.n_kt) - u0;
        }
    }
    pieces[0] = n;
}
template <bool SPLIT> __device__ __forceinline__ bool item_of(const Params &p, uint32_t pieces, int count, Item &w)
{
    const int b = (int)blockIdx.x, G = (int)gridDim.x;
    w.kb0 = 0;
    w.kb1 = p.n_kt;
    w.seg = -1;
    if constexpr (SPLIT) {
        const int n = hopper::ld_shared(pieces);
        if (count < n) {
            const uint32_t at = pieces + 4 * (1 + 3 * count);
            w.t = hopper::ld_shared(at);
            w.kb0 = hopper::ld_shared(at + 4);
            w.kb1 = hopper::ld_shared(at + 8);
            if (w.kb0 > 0 || w.kb1 < p.n_kt) w.seg = count;
            return true;
        }
        w.t = b + (count - n) * G;
        return w.t < p.n_dp;
    } else {
        w.t = b + count * G;
        return w.t < p.n_work;
    }
}

// v as lane 0 holds it: ptxas then knows the value is the same in every lane of the warp and
// keeps what derives from it (loop counts, the K/V ring position, the descriptors) on the
// uniform datapath. Values loaded from shared memory or derived from threadIdx are not
// known uniform otherwise (README.md, twenty-second and twenty-third rounds).
__device__ __forceinline__ int warp_uniform(int v)
{
    return __shfl_sync(0xffffffffu, v, 0);
}

__device__ __forceinline__ float ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// 2^x on the FMA pipe instead of the MUFU unit (which does 16 per clock and SM: at D = 64
// as many cycles as the tensor cores spend on the same tile). x is rounded to an integer j
// by the 1.5 * 2^23 trick (j lands in the low mantissa bits of t), 2^(x - j) on
// [-0.5, 0.5] by a degree-3 minimax polynomial (relative error 7.5e-5, under fp16's
// 4.9e-4 rounding of P), and j added to the exponent field: (t's bits << 23) is j << 23
// modulo 2^32. x is clamped at -126 (the result is then 0 or a denormal, never NaN).
__device__ __forceinline__ float ex2_poly(float x)
{
    x = fmaxf(x, -126.f);
    const float t = x + 12582912.f;
    const float f = x - (t - 12582912.f);
    const float p = fmaf(fmaf(fmaf(0.0551716685f, f, 0.2426111251f), f, 0.6932609677f), f, 0.9999280572f);
    return __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
}
#ifndef ATTN07_POLY_EVERY
#define ATTN07_POLY_EVERY 0   // 0: every exponential on MUFU; N: one column group in N on the FMA pipe
#endif

// The epilogue's 4x4 transpose inside a quad of lanes (c = lane % 4): m[j] is this lane's
// half2 of 16-byte chunk j (columns 2c, 2c + 1 of it); afterwards out[j] is chunk c's
// half2 from lane j, so each lane holds one whole chunk (README.md, twenty-fifth round).
// Two butterfly stages (lanes c ^ 2, then c ^ 1), two shuffles each; every lane of the
// warp takes part.
__device__ __forceinline__ void quad_transpose(const uint32_t (&m)[4], int c, uint32_t (&out)[4])
{
    const bool hi = c & 2, odd = c & 1;
    // Stage 1: keep this half's two chunks (j / 2 == c / 2), send the other half's.
    const uint32_t keep0 = hi ? m[2] : m[0], keep1 = hi ? m[3] : m[1];
    const uint32_t recv0 = __shfl_xor_sync(0xffffffffu, hi ? m[0] : m[2], 2);
    const uint32_t recv1 = __shfl_xor_sync(0xffffffffu, hi ? m[1] : m[3], 2);
    // Now lanes c and c ^ 2's halves of chunks 2 (c / 2) and 2 (c / 2) + 1. Stage 2: keep
    // chunk c's, send the other one's.
    const uint32_t own_a = odd ? keep1 : keep0, own_b = odd ? recv1 : recv0;   // from lanes c, c ^ 2
    const uint32_t got_a = __shfl_xor_sync(0xffffffffu, odd ? keep0 : keep1, 1);   // from lane c ^ 1
    const uint32_t got_b = __shfl_xor_sync(0xffffffffu, odd ? recv0 : recv1, 1);   // from lane c ^ 3
    // In lane order: c = 0 holds {own_a, got_a, own_b, got_b}; an odd c swaps inside the
    // pairs, c >= 2 swaps the pairs.
    const uint32_t lo0 = odd ? got_a : own_a, lo1 = odd ? own_a : got_a;
    const uint32_t hi0 = odd ? got_b : own_b, hi1 = odd ? own_b : got_b;
    out[0] = hi ? hi0 : lo0;
    out[1] = hi ? hi1 : lo1;
    out[2] = hi ? lo0 : hi0;
    out[3] = hi ? lo1 : hi1;
}

__device__ __forceinline__ uint32_t pack_half2(float a, float b)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}

// The consumer warpgroup's state and steps. Rows: this thread holds rows r0 and r0 + 8 of
// the block (r0 = 64 wg + 16 warp + lane / 4), columns 8g + 2(lane % 4) + {0, 1}.
template <int D, int NCONS, int PB, int KN = BN> struct Consumer {
    using C = Cfg<D, NCONS, KN>;
#ifdef ATTN07_CHAINS
    static constexpr int CHAINS = ATTN07_CHAINS;
#else
    static constexpr int CHAINS = NCONS == 3 ? 1 : 4;
#endif
    // PB: P in one buffer or two (see p_buffers below).
    float o[D / 2];
    float s[KN / 2];
    uint32_t p[PB][KN / 4];
    float m[2], l[2];
    uint32_t tiles;   // shared address of the Q tile; the K and V rings follow it
    int wg;

    // S = Q K^T of the tile in `stage`, N keys wide (KN, or the narrow last tile of
    // pingpong-176: the kernel's TW).
    template <int N, bool FRESH = false> __device__ __forceinline__ void qk_n(int stage)
    {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            const uint32_t off = (kk % 4) * 32;   // the k slice inside a 128-byte row
            const uint64_t a = hopper::make_desc(tiles + wg * 64 * 128 + (kk / 4) * C::BM * 128 + off, 16, 1024);
            const uint64_t b = hopper::make_desc(tiles + C::Q_BYTES + stage * C::KV_BYTES + (kk / 4) * KN * 128 + off,
                                                 16, 1024);
            // FRESH (the narrow first tile's S): its first k slice only writes S, so S's old
            // values are dead there; with the accumulating form ptxas keeps them live and
            // serialises the 96- and 128-wide kernels' wgmma for want of registers (C7511).
            // The loop keeps the accumulating form (FRESH there cost 56 register moves per
            // step in run 17's narrow kernels, and 80 bytes of spills in the full-width one).
            if (FRESH && kk == 0) hopper::mma_ss<N, true>(s, a, b, 0);
            else hopper::mma_ss<N>(s, a, b, kk > 0);
        }
        hopper::wgmma_commit();
    }
    __device__ __forceinline__ void qk(int stage) { qk_n<KN>(stage); }

    // O += P V of the tile in `stage`, its first KS * 16 keys (KN, or the narrow last tile).
    template <int B, int KS> __device__ __forceinline__ void pv_k(int stage)
    {
#pragma unroll
        for (int kk = 0; kk < KS; ++kk) {
            const uint64_t b = hopper::make_desc(
                tiles + C::Q_BYTES + (C::STAGES + stage) * C::KV_BYTES + kk * 16 * 128, KN * 128, 1024);
            const uint32_t(&q)[KN / 4] = p[B % PB];
            const uint32_t a[4] = {q[4 * kk], q[4 * kk + 1], q[4 * kk + 2], q[4 * kk + 3]};
            if constexpr (D == 128) hopper::mma_rs_n128(o, a, b, 1);
            else hopper::mma_rs_n64(o, a, b, 1);
        }
        hopper::wgmma_commit();
    }
    template <int B = 0> __device__ __forceinline__ void pv(int stage) { pv_k<B, KN / 16>(stage); }

    // Online softmax of tile j on s (raw scores in, unnormalised probabilities out);
    // alpha: the factor the running output must be rescaled by; returns whether any row
    // of the warp needs it (warp-uniform). NW: the tile's S width (KN, or a narrow last
    // tile's: its other columns are past every key and are not read).
    // kv_lim: the end of the keys for non-causal masking (seq_kv; the narrow first tile's
    // keys for its own columns).
    template <bool MASK, int NW = KN>
    __device__ __forceinline__ bool softmax(int j, int t, const Params &prm, float (&alpha)[2], int kv_lim)
    {
        const int diag = prm.seq_kv - prm.seq_q;
        const int lane = threadIdx.x % 32;
        if constexpr (MASK) {
            // This thread's first row, derived here from the work tile (opaque, so the
            // compiler does not keep it live through the unmasked iterations).
            asm volatile("" : "+r"(t));
            const int row0 = qblock_of<(NCONS >= 2)>(prm, t) * C::BM + wg * 64 + (threadIdx.x / 32) % 4 * 16 + lane / 4;
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int row = row0 + 8 * i;
                const int lim = prm.causal ? min(prm.seq_kv, row + diag + 1) : kv_lim;
#pragma unroll
                for (int g = 0; g < NW / 8; ++g)
#pragma unroll
                    for (int c = 0; c < 2; ++c)
                        if (j * KN + 8 * g + 2 * (lane % 4) + c >= lim) s[4 * g + 2 * i + c] = -INFINITY;
            }
        }
        // The running max moves only when a row's max grows by more than 2^8 (in exp2
        // units): below that the probabilities stay under 256 (fp16 and the fp32 sums hold
        // them exactly as well) and the running output needs no rescale, so in most tiles
        // the D/2 multiplies of the rescale are skipped (the warp agrees through a vote).
        bool grew = false;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            float mxc[CHAINS];
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) mxc[c] = c == 0 ? m[i] : -INFINITY;
#pragma unroll
            for (int g = 0; g < NW / 8; ++g)
                mxc[g % CHAINS] = fmaxf(mxc[g % CHAINS], fmaxf(s[4 * g + 2 * i], s[4 * g + 2 * i + 1]));
            float mx = mxc[0];
#pragma unroll
            for (int c = 1; c < CHAINS; ++c) mx = fmaxf(mx, mxc[c]);
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const bool up = RESCALE_ALWAYS || (mx - m[i]) * prm.scale_log2 > RESCALE_LOG2;   // m = -inf: up
            alpha[i] = up ? ex2((m[i] - mx) * prm.scale_log2) : 1.f;   // -inf - finite: 0
            if (up) m[i] = mx;
            grew |= up;
            const float ms = m[i] == -INFINITY ? 0.f : m[i] * prm.scale_log2;
            float sum[CHAINS];
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) sum[c] = 0.f;
#pragma unroll
            for (int g = 0; g < NW / 8; ++g)
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    float &x = s[4 * g + 2 * i + c];
                    // At D = 64 (looping variants) one column group in POLY_EVERY takes
                    // the polynomial, the rest MUFU.EX2 (README.md, eighth round).
                    constexpr int PE = D == 64 && NCONS >= 2 ? ATTN07_POLY_EVERY : 0;
                    const bool poly = PE > 0 && g % (PE > 0 ? PE : 1) == PE - 1;   // folded when unrolled
                    x = poly ? ex2_poly(fmaf(x, prm.scale_log2, -ms)) : ex2(fmaf(x, prm.scale_log2, -ms));
                    sum[g % CHAINS] += x;
                }
#pragma unroll
            for (int c = 1; c < CHAINS; ++c) sum[0] += sum[c];
            l[i] = l[i] * alpha[i] + sum[0];
        }
        return __any_sync(0xffffffffu, grew);
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
    template <int B = 0, int NW = KN> __device__ __forceinline__ void convert()
    {
#pragma unroll
        for (int i = 0; i < NW / 4; ++i) p[B % PB][i] = pack_half2(s[2 * i], s[2 * i + 1]);
    }
};
#endif

// P in two buffers at two consumer warpgroups (README.md, eleventh round: 0.77% / 0.26%
// faster at D=128 non-causal, 0.47% at 16x32x1024x64 causal, paired): P(j) is converted
// into one while P V(j - 1) still reads the other, before the wait for that MMA instead of
// after it. Three consumer warpgroups (160 registers), the one-warpgroup path and the
// dynamic scheduler at D = 128 (232 registers: the second buffer spills) keep one; so do
// 176-key tiles (pingpong-176), whose S takes 88 registers (two buffers spill).
// -DATTN07_PBUF=1 builds round 10's kernel for comparison.
#ifndef ATTN07_PBUF
#define ATTN07_PBUF 2
#endif
template <int D, int NCONS, bool DYN, int KN> __host__ __device__ constexpr int p_buffers()
{
    return NCONS == 2 && !(DYN && D == 128) && KN == BN ? ATTN07_PBUF : 1;
}
// Work tiles chained (README.md, sixteenth round): in the looping ragged-first kernels
// with one P buffer, the next work tile's first S is issued beside this one's last P V and
// its softmax runs before this one's stores, so the tensor cores do not wait out the
// epilogue and the prologue at every work tile. -DATTN07_CHAIN=0 builds the kernels
// without it (measuring).
#ifndef ATTN07_CHAIN
#define ATTN07_CHAIN 1
#endif
template <int D, int NCONS, bool DYN, int KN, bool FIRST> __host__ __device__ constexpr bool chained()
{
    return ATTN07_CHAIN && FIRST && NCONS >= 2 && !DYN && p_buffers<D, NCONS, DYN, KN>() == 1;
}
// The split tail (README.md, eighteenth round): the chained kernels cut the work tiles of
// the last, partly filled round into key-tile pieces spread over every block (Item,
// item_of), and the last piece of a tile to finish merges the others' partial O from the
// workspace. The host turns it on per launch (split_plan); -DATTN07_SPLIT=0 builds
// without it.
#ifndef ATTN07_SPLIT
#define ATTN07_SPLIT 1
#endif
// The chained kernels' producer also prefetches the next work item's Q into L2 (README.md,
// seventeenth and twentieth rounds); -DATTN07_QPREFETCH=0 builds without (measuring).
#ifndef ATTN07_QPREFETCH
#define ATTN07_QPREFETCH 1
#endif
// The epilogue's 16-byte stores (README.md, twenty-fifth round); -DATTN07_WIDESTORE=0 builds
// the 4-byte stores (measuring).
#ifndef ATTN07_WIDESTORE
#define ATTN07_WIDESTORE 1
#endif
// A warpgroup skips the MMAs of tiles none of its rows sees (README.md, twenty-second
// round); -DATTN07_SKIP=0 builds without (measuring).
#ifndef ATTN07_SKIP
#define ATTN07_SKIP 1
#endif
template <int D, int NCONS, bool DYN, int KN, bool FIRST> __host__ __device__ constexpr bool split_tail()
{
    return ATTN07_SPLIT && chained<D, NCONS, DYN, KN, FIRST>();
}

// -DATTN07_TRACE=1 (measuring only; `make hopper-trace`, README.md, "The boundary traced"):
// the chained kernels record, per block and work item, the SM clock at a few points of the
// chained boundary (consumer warp 0 of each warpgroup, the producer's copies) and the
// global timer at the block's start and end, into g_trace, which attn07_trace_copy() (an
// extra export of the trace build) copies out. Off, it compiles to nothing.
#ifndef ATTN07_TRACE
#define ATTN07_TRACE 0
#endif
#if ATTN07_TRACE
constexpr int TRACE_BLOCKS = 256, TRACE_ITEMS = 64, TRACE_SLOTS = 16;
__device__ unsigned long long g_trace[TRACE_BLOCKS * TRACE_ITEMS * TRACE_SLOTS];
#endif
// Slots: 0-3 and 4-7 consumer warpgroup 0 and 1 (item start, boundary reached, boundary
// MMAs issued, item's stores done), 8 the producer's Q copy issued, 9 its first K issued,
// 10 / 11 the block's start / end (global timer, ns), 12 / 13 the same on the SM clock.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__)   // (unused in the empty sm_80-90 bodies)
__device__ __forceinline__ void trace_at(int item, int slot, unsigned long long v)
{
#if ATTN07_TRACE
    if (item < TRACE_ITEMS && blockIdx.x < TRACE_BLOCKS)
        g_trace[((size_t)blockIdx.x * TRACE_ITEMS + item) * TRACE_SLOTS + slot] = v;
#else
    (void)item, (void)slot, (void)v;
#endif
}
__device__ __forceinline__ unsigned long long globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
    return t;
}
#endif

// FIRST (non-causal launches only; README.md, thirteenth and fourteenth rounds): every work
// tile sees keys [0, seq_kv), and the ragged ones go in the first K/V tile: keys [0, r),
// r = (seq_kv - 1) % KN + 1, the tiles after it whole. No later tile needs a mask, so the
// main loop has no masked softmax. TW: that first tile's S width, KN or (176-key tiles) the
// narrowest of 48, 96 and 128 that covers r (width176()); a launch-wide constant, so the
// narrow S is straight-line code, not a branch.
template <int D, int NCONS, bool OVERLAP, bool PINGPONG, bool DYN, int KN = BN, int TW = KN, bool FIRST = false>
__global__ void __launch_bounds__(Cfg<D, NCONS, KN>::THREADS, 1)
hopper_attention(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                 const __grid_constant__ CUtensorMap tm_v, const Params prm)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using C = Cfg<D, NCONS, KN>;
    constexpr int ST = C::STAGES;
    static_assert(!PINGPONG || (OVERLAP && NCONS >= 2), "ping-pong takes turns between overlapped warpgroups");
    static_assert(!FIRST || (OVERLAP && !DYN), "ragged keys first: overlapped, static tile order");
    static_assert(TW == KN || (FIRST && KN == 176 && (TW == 48 || TW == 96 || TW == 128)),
                  "a narrow first tile: 176-key tiles, ragged keys first");
    // One consumer warpgroup serves small grids only: one tile per block, no loop code.
    constexpr bool LOOP = NCONS >= 2;
    // The dynamic tile scheduler (two consumer warpgroups only): the producer takes the
    // tiles from a global counter and hands them out (slot). Otherwise each side computes
    // the static round robin itself (24 or 32 producer registers do not hold the hand-out).
    static_assert(!DYN || NCONS == 2, "the dynamic scheduler serves two consumer warpgroups");
    constexpr bool SLOT = DYN;
    constexpr int PB = p_buffers<D, NCONS, DYN, KN>();
    constexpr bool CHAIN = chained<D, NCONS, DYN, KN, FIRST>();
    constexpr bool SPLIT = split_tail<D, NCONS, DYN, KN, FIRST>();
    // Tiles no row of a warpgroup sees, skipped (README.md, twenty-second round): in the
    // three-warpgroup kernel that takes its work tiles whole from key 0 (causal `3wg`, and
    // non-causal without ragged keys first), whose 192-row blocks leave such tiles. (The
    // two-warpgroup kernels have none but the padding of a ragged last query block; with
    // the skip built in, the dynamic scheduler's D=64 kernel ran 5% slower, run 41.)
    constexpr bool SKIPS = ATTN07_SKIP && NCONS == 3 && OVERLAP && !FIRST && !CHAIN;
    // The epilogue stores 16-byte chunks after a transpose inside each quad (README.md,
    // twenty-fifth round) in the looping kernels; one-warpgroup kernels store 4 bytes a time.
    constexpr bool WIDE = ATTN07_WIDESTORE && LOOP;
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));   // swizzle atoms: 1024-aligned
    unsigned char *q_s = smem;
    unsigned char *k_s = q_s + C::Q_BYTES;
    unsigned char *v_s = k_s + ST * C::KV_BYTES;
    uint64_t *q_full = reinterpret_cast<uint64_t *>(v_s + ST * C::KV_BYTES);
    uint64_t *q_empty = q_full + 1;
    uint64_t *k_full = q_full + 2, *v_full = k_full + ST, *k_empty = v_full + ST, *v_empty = k_empty + ST;
    int *slot = reinterpret_cast<int *>(v_empty + ST);   // the work tile of Q phase c is slot[c & 1]
    // SPLIT: this block's pieces of the split tail, at a constant offset from q_full (whose
    // address the producer holds anyway: the offset folds into the loads).
    constexpr uint32_t PIECES_AT = 8 * (2 + 4 * ST) + 8;
    static_assert(PIECES_AT + 4 * PIECE_INTS <= C::BAR_BYTES, "the split pieces fit in the barrier area");
    auto pieces_addr = [&]() { return hopper::smem_u32(q_full) + PIECES_AT; };

    // Work tiles: t -> (query block, batch * head), query blocks of one head next to each
    // other (their K and V stay in L2), each head's heaviest causal block first. A looping
    // block starts at t = blockIdx.x and the producer picks the next one: t + gridDim.x
    // (static round robin; gridDim.x = the number of tiles, or the number of SMs for a
    // persistent launch) or, with the dynamic scheduler, the next of a global counter
    // (atomicAdd; the last block to finish resets it). The producer hands each tile to the consumers through slot[count & 1] with the
    // Q load's mbarrier; t >= n_work there means stop. A one-tile block (2-D grid) takes
    // its one tile. The K/V ring's slot and phase run on across tiles (counter `it`),
    // Q's phase with the tile count.
    const int diag = prm.seq_kv - prm.seq_q;   // bottom-right causal: row i sees keys j <= i + diag
    const int t_first = LOOP ? (int)blockIdx.x : (int)(blockIdx.y * gridDim.x + blockIdx.x);
    auto tile_of = [](const Params &pr, int t, int &q0, int &bh, int &n_tiles) {
        int qb;
        tile_coords<LOOP>(pr, t, qb, bh);
        q0 = qb * C::BM;
        int kv_end = pr.seq_kv;
        if (pr.causal) kv_end = min(kv_end, min(q0 + C::BM, pr.seq_q) + pr.seq_kv - pr.seq_q);
        n_tiles = kv_end > 0 ? (kv_end + KN - 1) / KN : 0;
    };

    if (threadIdx.x == 0) {
        hopper::mbar_init(q_full, 1);
        hopper::mbar_init(q_empty, 4 * NCONS);
        for (int i = 0; i < ST; ++i) {
            hopper::mbar_init(&k_full[i], 1);
            hopper::mbar_init(&v_full[i], 1);
            hopper::mbar_init(&k_empty[i], 4 * NCONS);   // one arrival per consumer warp
            hopper::mbar_init(&v_empty[i], 4 * NCONS);
        }
        hopper::fence_barrier_init();
        if constexpr (SPLIT) split_pieces(prm, reinterpret_cast<int *>(reinterpret_cast<unsigned char *>(q_full) + PIECES_AT));
    }
    // Programmatic dependent launch: the next launch in the stream may start its blocks
    // (barrier set-up) now; nothing here reads Q/K/V or writes O before the previous
    // launch has completed (griddepcontrol.wait; a no-op without the launch attribute).
    hopper::launch_dependents();
    hopper::wait_prior_grid();
    __syncthreads();
    if (ATTN07_TRACE && threadIdx.x == 128) {
        trace_at(0, 10, globaltimer());
        trace_at(0, 12, clock64());
    }
    // Warp 0, lane 0 of consumer warpgroups 0 and 1 (a third, in 3wg, is not traced).
    const bool tracer = ATTN07_TRACE && (threadIdx.x == 128 || threadIdx.x == 256);

    if (threadIdx.x < 128) {
        // ---- producer warpgroup: one thread issues every copy ----
        if constexpr (NCONS >= 2) hopper::regs_dec<C::template REG_PRODUCER<DYN>>();
        if (threadIdx.x == 0) {
            hopper::prefetch_tmap(&tm_q);
            hopper::prefetch_tmap(&tm_k);
            hopper::prefetch_tmap(&tm_v);
            int it = 0, t = t_first;
            for (int count = 0;; ++count) {
                int j0 = 0, j1 = 0;   // SPLIT: the work item's key tiles
                if constexpr (SPLIT) {
                    Item w;
                    if (!item_of<true>(prm, pieces_addr(), count, w)) break;
                    t = w.t;
                    j0 = w.kb0;
                    j1 = w.kb1;
                } else if constexpr (LOOP && !SLOT) {
                    if (t >= prm.n_work) break;
                }
                // SPLIT (the chained kernels; README.md, twentieth round): the work item's first
                // K goes out before its Q, whose buffer frees only with the last item's last S.
                auto load_q = [&](int q0, int bh) {
                    if (count > 0) hopper::mbar_wait(q_empty, (count - 1) & 1);
                    hopper::mbar_arrive_expect_tx(q_full, C::Q_BYTES);
#pragma unroll
                    for (int c = 0; c < C::CHUNKS; ++c)
                        hopper::tma_load_3d(q_s + c * C::BM * 128, &tm_q, 64 * c, q0, bh, q_full);
                    // The next item's Q into L2 (a Q tile is read once, from DRAM).
                    if constexpr (SPLIT && ATTN07_QPREFETCH) {
                        Item nw;
                        if (item_of<true>(prm, pieces_addr(), count + 1, nw)) {
                            int q0n, bhn, ntn;
                            tile_of(prm, nw.t, q0n, bhn, ntn);
#pragma unroll
                            for (int c = 0; c < C::CHUNKS; ++c) hopper::tma_prefetch_3d(&tm_q, 64 * c, q0n, bhn);
                        }
                    }
                };
                if (!SPLIT && count > 0) hopper::mbar_wait(q_empty, (count - 1) & 1);
                if constexpr (SLOT) {
                    hopper::handout_put(&slot[count & 1], t);
                    if (t >= prm.n_work) {
                        hopper::mbar_arrive(q_full);   // no copy: the consumers read the stop
                        break;
                    }
                }
                int q0, bh, n_tiles;
                tile_of(prm, t, q0, bh, n_tiles);
                if constexpr (!SPLIT) {
                    hopper::mbar_arrive_expect_tx(q_full, C::Q_BYTES);
#pragma unroll
                    for (int c = 0; c < C::CHUNKS; ++c)
                        hopper::tma_load_3d(q_s + c * C::BM * 128, &tm_q, 64 * c, q0, bh, q_full);
                    j1 = n_tiles;
                }
                for (int j = j0; j < j1; ++j, ++it) {
                    const int st = it % ST;
                    const unsigned ph = (it / ST) & 1;
                    // FIRST: tile 0 holds keys [0, r), tile j >= 1 starts at r + (j - 1) KN.
                    // Tile 0 is still loaded KN keys long.
                    const int key0 = FIRST && j > 0 ? j * KN + (prm.seq_kv - 1) % KN + 1 - KN : j * KN;
                    if (it >= ST) hopper::mbar_wait(&k_empty[st], ph ^ 1);
                    hopper::mbar_arrive_expect_tx(&k_full[st], C::KV_BYTES);
#pragma unroll
                    for (int c = 0; c < C::CHUNKS; ++c)
                        hopper::tma_load_3d(k_s + st * C::KV_BYTES + c * KN * 128, &tm_k, 64 * c, key0, bh,
                                            &k_full[st]);
                    if (ATTN07_TRACE && SPLIT && j == j0) trace_at(count, 9, clock64());
                    if (SPLIT && j == j0) {
                        load_q(q0, bh);
                        if (ATTN07_TRACE) trace_at(count, 8, clock64());
                    }
                    if (it >= ST) hopper::mbar_wait(&v_empty[st], ph ^ 1);
                    hopper::mbar_arrive_expect_tx(&v_full[st], C::KV_BYTES);
#pragma unroll
                    for (int c = 0; c < C::CHUNKS; ++c)
                        hopper::tma_load_3d(v_s + st * C::KV_BYTES + c * KN * 128, &tm_v, 64 * c, key0, bh,
                                            &v_full[st]);
                }
                if constexpr (!LOOP) break;
                // The next tile (the ring keeps the producer ahead of the consumers, so the
                // atomic's latency is hidden).
                if constexpr (SLOT) t = atomicAdd(prm.sched, 1) + (int)gridDim.x;
                else if constexpr (!SPLIT) t += (int)gridDim.x;
            }
            if constexpr (SLOT) {
                // This block fetches no more: count it; the last one resets the scheduler
                // for the next launch (which reads it only after griddepcontrol.wait).
                __threadfence();
                if (atomicAdd(prm.sched + 1, 1) == (int)gridDim.x - 1) {
                    atomicExch(prm.sched, 0);
                    atomicExch(prm.sched + 1, 0);
                }
            }
        }
        return;
    }

    // ---- consumer warpgroups ----
    if constexpr (NCONS >= 2) hopper::regs_inc<C::template REG_CONSUMER<DYN>>();
    Consumer<D, NCONS, PB, KN> cs;
    // The warpgroup index warp-uniform (README.md, twenty-fourth round): it picks the Q
    // rows' descriptor and the turn's named barriers. (One consumer warpgroup: unchanged.)
    cs.wg = NCONS == 1 ? (int)(threadIdx.x / 128 - 1) : warp_uniform((int)(threadIdx.x / 128 - 1));
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    cs.tiles = hopper::smem_u32(q_s);

    // Ping-pong (round robin for three): warpgroup w issues its MMAs after bar.sync on
    // barrier 1 + w, which warpgroup w - 1 arrives at once it has issued its own. The last
    // warpgroup opens the first turn for warpgroup 0; warpgroup 0 takes one more sync at
    // the end for the last warpgroup's last arrival, so every barrier phase completes
    // exactly (each barrier: 128 syncing + 128 arriving). The turns run on across work
    // tiles: every warpgroup of a block has the same tiles.
    auto turn_begin = [&]() {
        if constexpr (PINGPONG) hopper::named_sync(1 + cs.wg, 256);
    };
    auto turn_end = [&]() {
        if constexpr (PINGPONG) hopper::named_arrive(1 + (cs.wg + 1) % NCONS, 256);
    };
    auto release = [&](uint64_t *bar) {
        __syncwarp();
        if (lane == 0) hopper::mbar_arrive(bar);
    };
    if constexpr (PINGPONG)
        if (cs.wg == NCONS - 1) hopper::named_arrive(1, 256);

    int it = 0;
    bool primed = false;   // CHAIN: this work tile's first S and softmax are done already
    // Epilogue of work tile tt: normalises this thread's two rows by their row sums (this
    // thread's partial sums l, reduced over the quad here, row by row between the stores)
    // and stores them; rows that saw no key write zeros. The tile's coordinates are derived
    // again from tt (opaque to the compiler) rather than kept live through the main loop.
    auto store_o = [&](int tt, const float (&l)[2]) {
        int q0, bh, n_tiles;
        asm volatile("" : "+r"(tt));
        tile_of(prm, tt, q0, bh, n_tiles);
        const int row0e = q0 + cs.wg * 64 + warp * 16 + lane / 4;
        __half *o = prm.o + (size_t)bh * prm.seq_q * D;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            float sum = l[i];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            const float inv = sum > 0.f ? 1.f / sum : 0.f;
            const int row = row0e + 8 * i;
            if (WIDE && prm.o16) {
                // Chunks 4k + c of the row, 16 bytes each: the quad's four lanes trade halves
                // (every lane, before the row test) so that each stores whole chunks. (o only
                // 4-byte aligned, which the ABI allows: the 4-byte stores below.)
                uint4 *dst = reinterpret_cast<uint4 *>(o + (size_t)row * D) + lane % 4;
#pragma unroll
                for (int k = 0; k < D / 32; ++k) {
                    uint32_t m[4], out[4];
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        m[j] = pack_half2(cs.o[4 * (4 * k + j) + 2 * i] * inv, cs.o[4 * (4 * k + j) + 2 * i + 1] * inv);
                    quad_transpose(m, lane % 4, out);
                    if (row < prm.seq_q) dst[4 * k] = make_uint4(out[0], out[1], out[2], out[3]);
                }
            } else if (row < prm.seq_q) {
                __half2 *dst = reinterpret_cast<__half2 *>(o + (size_t)row * D + 2 * (lane % 4));
#pragma unroll
                for (int g = 0; g < D / 8; ++g)
                    dst[4 * g] = __floats2half2_rn(cs.o[4 * g + 2 * i] * inv, cs.o[4 * g + 2 * i + 1] * inv);
            }
        }
    };
    // SPLIT: the end of a piece of a split tail tile. Each consumer warp (16 rows) writes
    // its partial O (unnormalised, against its running max m), m and its threads' partial
    // row sums l into this block's slot for the piece (its item number: only items 0 and 1
    // can be pieces) in the workspace, then counts itself in for the tile; the warp that
    // arrives last merges the other pieces' partials into its own and stores the tile. No
    // warp waits for another, so the blocks need not run at once. m and l are put in the
    // slot first (stash), before the next item's softmax resets them, so they are not held
    // in registers through the chained boundary.
    constexpr int NCT = NCONS * 128, K4 = D / 8;   // consumer threads; O's float4 per thread
    auto part_slot = [&](int b, int seg) {
        return prm.part + (size_t)(b * 2 + seg) * (K4 + 1) * NCT + ((int)threadIdx.x - 128);
    };
    // Whether item cnt is a piece: derived again where needed (cnt opaque to the compiler)
    // rather than kept in a register through the main loop.
    auto is_piece = [&](int cnt) {
        if constexpr (!SPLIT) return false;
        asm volatile("" : "+r"(cnt));
        Item x;
        return cnt < 2 && item_of<true>(prm, pieces_addr(), cnt, x) && x.seg >= 0;
    };
    auto stash = [&](int cnt) { *(part_slot((int)blockIdx.x, cnt) + K4 * NCT) = make_float4(cs.m[0], cs.m[1], cs.l[0], cs.l[1]); };
    auto finish = [&](int tt, int cnt, const float (&l)[2]) {
        if (!is_piece(cnt)) {
            store_o(tt, l);
            return;
        }
        const int G = (int)gridDim.x;
        float4 *mine = part_slot((int)blockIdx.x, cnt);
#pragma unroll
        for (int k = 0; k < K4; ++k)
            mine[k * NCT] = make_float4(cs.o[4 * k], cs.o[4 * k + 1], cs.o[4 * k + 2], cs.o[4 * k + 3]);
        // The pieces of tail tile i: the blocks from the one holding its first unit to the
        // one holding its last (the owner of unit x: the last b with b U / G <= x), less
        // those with empty ranges.
        const int i = tt - prm.n_dp;
        const int u0 = i * prm.n_kt, u1 = u0 + prm.n_kt;
        const int b0 = ((u0 + 1) * G - 1) / prm.sk_units, b1 = (u1 * G - 1) / prm.sk_units;
        int pieces = 0;
        for (int b = b0; b <= b1; ++b) pieces += split_start(prm, b) < split_start(prm, b + 1);
        int *arrivals = prm.part_count + (i * NCONS + cs.wg) * 4 + warp;
        __threadfence();   // the partial is visible before the count says so
        __syncwarp();
        int before = 0;
        if (lane == 0) before = atomicAdd(arrivals, 1);
        if (__shfl_sync(0xffffffffu, before, 0) != pieces - 1) return;
        __threadfence();   // the others' partials are read after their counts
        const float4 own = mine[K4 * NCT];   // this thread's own stash
        float mf[2] = {own.x, own.y}, lf[2] = {own.z, own.w};
        for (int b = b0; b <= b1; ++b) {
            const int st0 = split_start(prm, b);
            if (b == (int)blockIdx.x || st0 >= split_start(prm, b + 1)) continue;
            const float4 *other = part_slot(b, i - st0 / prm.n_kt);   // 0: the tile is b's first piece
            const float4 ml = __ldcg(other + K4 * NCT);
            const float mo[2] = {ml.x, ml.y}, lo[2] = {ml.z, ml.w};
            float fa[2], fb[2];
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const float mx = fmaxf(mf[r], mo[r]);
                const float ms = mx == -INFINITY ? 0.f : mx;   // no key in either: both sums 0
                fa[r] = ex2((mf[r] - ms) * prm.scale_log2);
                fb[r] = ex2((mo[r] - ms) * prm.scale_log2);
                lf[r] = lf[r] * fa[r] + lo[r] * fb[r];
                mf[r] = mx;
            }
#pragma unroll
            for (int k = 0; k < K4; ++k) {
                const float4 v = __ldcg(other + k * NCT);
                cs.o[4 * k] = cs.o[4 * k] * fa[0] + v.x * fb[0];
                cs.o[4 * k + 1] = cs.o[4 * k + 1] * fa[0] + v.y * fb[0];
                cs.o[4 * k + 2] = cs.o[4 * k + 2] * fa[1] + v.z * fb[1];
                cs.o[4 * k + 3] = cs.o[4 * k + 3] * fa[1] + v.w * fb[1];
            }
        }
        if (lane == 0) *arrivals = 0;   // for the next launch, which reads it after this grid ends
        store_o(tt, lf);
    };
    // SKIPS: of a work tile starting at query row q0 with nt key tiles, the key tiles up to
    // the last one that a row of this warpgroup sees.
    auto mine = [&](int q0, int nt) {
        const int row = q0 + cs.wg * 64;
        const int end = row >= prm.seq_q ? 0
                        : prm.causal    ? min(prm.seq_kv, min(row + 64, prm.seq_q) + diag)
                                        : prm.seq_kv;
        // Warp-uniform to ptxas (derived from threadIdx, the counts made the ring position
        // non-uniform after the drain).
        return warp_uniform(end > 0 ? min(nt, (end + KN - 1) / KN) : 0);
    };
    // SKIPS: the stages and turns of work tile tt's key tiles after this warpgroup's own, in
    // a step's order (the turn of tile j once its K has landed). Every warpgroup of a block
    // takes nt + 1 turns per work tile (the prologue, a step per later tile, the last P V).
    // The block's tile count is derived again (tt opaque to the compiler): kept live through
    // the main loop beside this warpgroup's, it spilled.
    auto drain = [&](int tt) {
        int q0, bh, nt;
        asm volatile("" : "+r"(tt));
        tile_of(prm, tt, q0, bh, nt);
        const int own = mine(q0, nt);
        int turns = (nt > 0 ? nt + 1 : 0) - (own > 0 ? own + 1 : 0);
        for (int j = own; j < nt; ++j, ++it, --turns) {
            const int st = it % ST;
            const unsigned ph = (it / ST) & 1;
            hopper::mbar_wait(&k_full[st], ph);
            turn_begin();
            turn_end();
            release(&k_empty[st]);
            hopper::mbar_wait(&v_full[st], ph);
            release(&v_empty[st]);
        }
        for (; turns > 0; --turns) {
            turn_begin();
            turn_end();
        }
    };
    for (int count = 0;; ++count) {
        int t = t_first;
        int kb0 = 0, kb1 = 0;   // this item's key tiles (SPLIT; otherwise the whole tile)
        if constexpr (SPLIT) {
            Item w;
            if (!warp_uniform(item_of<true>(prm, pieces_addr(), count, w))) break;
            t = warp_uniform(w.t);
            kb0 = warp_uniform(w.kb0);
            kb1 = warp_uniform(w.kb1);
        } else if constexpr (LOOP && !SLOT) {
            t = t_first + count * (int)gridDim.x;
            if (t >= prm.n_work) break;
        }
        // (CHAIN, primed: waited for at the last work tile's end; waiting again could miss
        // the phase, since a one-key-tile shape lets the next Q land before this point.)
        if (!CHAIN || !primed) hopper::mbar_wait(q_full, count & 1);
        if (tracer) trace_at(count, cs.wg * 4, clock64());
        if constexpr (SLOT) {
            t = warp_uniform(hopper::handout_get(&slot[count & 1]));
            if (t >= prm.n_work) break;
        }
        int q0, bh, n_tiles;
        tile_of(prm, t, q0, bh, n_tiles);
        // SKIPS: from here on n_tiles counts this warpgroup's own tiles, those in which one
        // of its rows sees a key (mine): none when its rows are all past seq_q (the padding
        // of a last query block), fewer than the block's where the causal diagonal leaves
        // the block's last tile above all of them (192-row blocks on 128-key tiles). Their
        // P would be zero: the warpgroup skips their MMAs and softmax, and afterwards only
        // waits for and releases their stages and takes their turns (drain, below).
        if constexpr (SKIPS) n_tiles = mine(q0, n_tiles);
        if constexpr (!SPLIT) kb1 = n_tiles;
        if (!CHAIN || !primed) {
#pragma unroll
            for (int i = 0; i < D / 2; ++i) cs.o[i] = 0.f;
            cs.m[0] = cs.m[1] = -INFINITY;
            cs.l[0] = cs.l[1] = 0.f;
        }
        // Tiles before n_plain need no mask for any row of this warpgroup.
        const int wg_row = q0 + cs.wg * 64;
        const int plain_end = prm.causal ? min(prm.seq_kv, wg_row + diag + 1) : prm.seq_kv;
        // FIRST: the tiles after the first end exactly at seq_kv.
        const int n_plain = FIRST ? n_tiles : plain_end > 0 ? plain_end / KN : 0;

        if (n_tiles == 0) release(q_empty);
        float alpha[2];
        if constexpr (!OVERLAP) {
            for (int j = 0; j < n_tiles; ++j, ++it) {
                const int st = it % ST;
                const unsigned ph = (it / ST) & 1;
                hopper::mbar_wait(&k_full[st], ph);
                hopper::wgmma_fence();
                cs.qk(st);
                hopper::wgmma_wait<0>();
                hopper::reg_fence(cs.s);
                release(&k_empty[st]);
                if (j == n_tiles - 1) release(q_empty);
                const bool grew = j >= n_plain ? cs.template softmax<true>(j, t, prm, alpha, prm.seq_kv)
                                               : cs.template softmax<false>(j, t, prm, alpha, prm.seq_kv);
                if (grew) cs.rescale(alpha);
                cs.convert();
                hopper::mbar_wait(&v_full[st], ph);
                hopper::wgmma_fence();
                cs.pv(st);
                hopper::wgmma_wait<0>();
                hopper::reg_fence(cs.o);
                release(&v_empty[st]);
            }
        } else if (n_tiles > 0) {
            // Prologue: S of tile 0 and its softmax. FIRST: tile 0 holds the r ragged keys;
            // its S is TW wide, and its columns from r on belong to tile 1: masked.
            // (CHAIN: done at the last work tile's end, below.)
            auto first_softmax = [&](int tt) {
                const int r = (prm.seq_kv - 1) % KN + 1;   // the first tile's keys
                if (r < TW) cs.template softmax<true, TW>(0, tt, prm, alpha, r);
                else cs.template softmax<false, TW>(0, tt, prm, alpha, prm.seq_kv);
            };
            if ((!CHAIN || !primed) && SPLIT && kb0 > 0) {
                // A piece that starts inside its tile (a block's first item only): a whole
                // key tile, no mask; O is zero, nothing to rescale.
                const int st = it % ST;
                hopper::mbar_wait(&k_full[st], (it / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.qk(st);
                turn_end();
                hopper::wgmma_wait<0>();
                hopper::reg_fence(cs.s);
                release(&k_empty[st]);
                if (kb1 - kb0 == 1) release(q_empty);
                cs.template softmax<false>(kb0, t, prm, alpha, prm.seq_kv);
                cs.convert();
            } else if (!CHAIN || !primed) {
                const int st = it % ST;
                hopper::mbar_wait(&k_full[st], (it / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.template qk_n<TW, (TW != KN)>(st);
                turn_end();
                hopper::wgmma_wait<0>();
                hopper::reg_fence_first<TW / 2>(cs.s);
                release(&k_empty[st]);
                if (kb1 == 1) release(q_empty);
                if (FIRST) {
                    first_softmax(t);
                } else if (0 >= n_plain) {
                    cs.template softmax<true>(0, t, prm, alpha, prm.seq_kv);
                } else {
                    cs.template softmax<false>(0, t, prm, alpha, prm.seq_kv);   // O is zero: nothing to rescale
                }
                cs.template convert<0, TW>();
            }
            // Tile j: P(j) goes into buffer B, P(j - 1) is read from the other (one buffer:
            // both are buffer 0, and P(j) is converted only once P V(j - 1) is done).
            // WP: the keys of P(j - 1) V(j - 1) (KN; TW after a narrow first tile).
            // MODE: tile j's softmax path, 0 plain, 1 masked (fixed per loop below), 2 chosen
            // at run time (j >= n_plain: masked).
            auto step = [&](int j, auto buf, auto pwidth, auto mode) {
                constexpr int B = decltype(buf)::value;
                constexpr int WP = decltype(pwidth)::value;
                constexpr int MODE = decltype(mode)::value;
                const int ip = it++;   // ring position of tile j - 1; it is now tile j's
                const int st = it % ST, sp = ip % ST;
                hopper::mbar_wait(&k_full[st], (it / ST) & 1);
                hopper::mbar_wait(&v_full[sp], (ip / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.qk(st);                             // S(j)
                cs.template pv_k<B ^ 1, WP / 16>(sp);   // O += P(j - 1) V(j - 1)
                turn_end();
                hopper::wgmma_wait<1>();   // S(j) is in; P V may still run
                hopper::reg_fence(cs.s);
                release(&k_empty[st]);
                if (j == kb1 - 1) release(q_empty);
                const bool grew = MODE == 2 ? (j >= n_plain ? cs.template softmax<true>(j, t, prm, alpha, prm.seq_kv)
                                                            : cs.template softmax<false>(j, t, prm, alpha, prm.seq_kv))
                                            : cs.template softmax<MODE == 1>(j, t, prm, alpha, prm.seq_kv);
                if constexpr (PB == 2) {   // under P V(j - 1), pinned before its wait
                    cs.template convert<B>();
                    hopper::reg_fence(cs.p[B % PB]);
                }
                hopper::wgmma_wait<0>();
                hopper::reg_fence(cs.o);
                hopper::reg_fence(cs.p[(B ^ 1) % PB]);
                release(&v_empty[sp]);
                if (grew) cs.rescale(alpha);
                if constexpr (PB == 1) cs.convert();
            };
            using B0 = std::integral_constant<int, 0>;
            using B1 = std::integral_constant<int, 1>;
            using WKN = std::integral_constant<int, KN>;
            using PLAIN = std::integral_constant<int, 0>;
            using MASKED = std::integral_constant<int, 1>;
            using EITHER = std::integral_constant<int, 2>;
            // Steps j0 .. j1 - 1 with one softmax path: a loop with both paths behind a branch
            // costs far more than its masked steps (README.md, fourteenth and fifteenth rounds).
            // Two P buffers: tile j converts into buffer j & 1.
            auto steps = [&](int j0, int j1, auto mask) {
                if constexpr (PB == 2) {
                    int j = j0;
                    if (j < j1 && (j & 1) == 0) step(j++, B0{}, WKN{}, mask);
                    for (; j < j1; ++j) {
                        step(j, B1{}, WKN{}, mask);
                        if (++j >= j1) break;
                        step(j, B0{}, WKN{}, mask);
                    }
                } else {
                    for (int j = j0; j < j1; ++j) step(j, B0{}, WKN{}, mask);
                }
            };
            if constexpr (FIRST && TW != KN) {
                // After a narrow first tile: the first step's P V is TW keys wide, peeled off
                // the loop (no branch between a wgmma and its wait). No later tile is masked.
                // (SPLIT: a piece that starts inside its tile has no narrow tile.)
                if (kb0 == 0 && kb1 >= 2) step(1, B0{}, std::integral_constant<int, TW>{}, PLAIN{});
                steps(kb0 == 0 ? 2 : kb0 + 1, kb1, PLAIN{});
            } else if constexpr (FIRST) {
                steps(kb0 + 1, kb1, PLAIN{});
            } else if constexpr (NCONS == 1) {
                // One warpgroup (small grids, a few key tiles a block): one loop, the path
                // chosen per tile; the split made the causal headline 1.7% slower (run 20).
                steps(1, n_tiles, EITHER{});
            } else {
                // Tiles before n_plain need no mask; the rest (the diagonal's, the ragged end)
                // take it.
                const int j_mask = max(1, min(n_plain, n_tiles));
                steps(1, j_mask, PLAIN{});
                steps(j_mask, n_tiles, MASKED{});
            }
            const int sl = it % ST;
            Item nx;   // CHAIN: the next work item; it starts at key tile 0 (only a block's
                       // first item starts inside its tile)
            const bool more = CHAIN && warp_uniform(item_of<SPLIT>(prm, pieces_addr(), count + 1, nx));
            if (CHAIN) {
                nx.t = warp_uniform(nx.t);
                nx.kb1 = warp_uniform(nx.kb1);
            }
            if (is_piece(count)) stash(count);   // m and l are final; the last P V changes only O
            if (CHAIN && more) {
                // The next work tile's S(0) beside this one's last P V (one turn), the next
                // tile's softmax(0) while that P V runs, then this tile's stores.
                const int sn = (it + 1) % ST;   // the next work tile's tile 0
                if (tracer) trace_at(count, cs.wg * 4 + 1, clock64());
                hopper::mbar_wait(q_full, (count + 1) & 1);
                hopper::mbar_wait(&k_full[sn], ((it + 1) / ST) & 1);
                hopper::mbar_wait(&v_full[sl], (it / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.template qk_n<TW, (TW != KN)>(sn);
                if (TW != KN && kb1 == 1) cs.template pv_k<0, TW / 16>(sl);
                else cs.template pv<0>(sl);
                turn_end();
                if (tracer) trace_at(count, cs.wg * 4 + 2, clock64());
                hopper::wgmma_wait<1>();   // the next S(0) is in; the last P V may still run
                hopper::reg_fence_first<TW / 2>(cs.s);
                release(&k_empty[sn]);
                if (nx.kb1 == 1) release(q_empty);   // the next tile's last S
                const float l_done[2] = {cs.l[0], cs.l[1]};   // this tile's, before the next softmax resets l
                cs.m[0] = cs.m[1] = -INFINITY;
                cs.l[0] = cs.l[1] = 0.f;
                first_softmax(nx.t);
                hopper::wgmma_wait<0>();
                hopper::reg_fence(cs.o);
                hopper::reg_fence(cs.p[0]);
                release(&v_empty[sl]);
                ++it;
                finish(t, count, l_done);
                if (tracer) trace_at(count, cs.wg * 4 + 3, clock64());
#pragma unroll
                for (int i = 0; i < D / 2; ++i) cs.o[i] = 0.f;
                cs.template convert<0, TW>();   // P(0) of the next tile (P V(last) has read P)
                primed = true;
                continue;
            }
            hopper::mbar_wait(&v_full[sl], (it / ST) & 1);
            turn_begin();
            if (PB == 2 && ((n_tiles - 1) & 1)) {   // P(n_tiles - 1)'s buffer
                hopper::wgmma_fence();
                cs.template pv<1>(sl);
            } else if (TW != KN && kb1 == 1) {   // the only tile is the narrow first one
                hopper::wgmma_fence();
                cs.template pv_k<0, TW / 16>(sl);
            } else {
                hopper::wgmma_fence();
                cs.template pv<0>(sl);
            }
            turn_end();
            hopper::wgmma_wait<0>();
            hopper::reg_fence(cs.o);
            release(&v_empty[sl]);
            ++it;
        }
        if constexpr (SKIPS) drain(t);
        finish(t, count, cs.l);
        if (tracer) trace_at(count, cs.wg * 4 + 3, clock64());
        if (ATTN07_TRACE && threadIdx.x == 128) {
            trace_at(0, 11, globaltimer());
            trace_at(0, 13, clock64());
        }
        if constexpr (!LOOP) break;
    }
    if constexpr (PINGPONG)
        if (cs.wg == 0) hopper::named_sync(1, 256);
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

enum { ERR_CUDA = 1, ERR_SHAPE, ERR_ARCH, ERR_SMEM, ERR_ALLOC, ERR_TMAP, ERR_VARIANT, ERR_ALIGN, ERR_NOT_90A, ERR_GRID,
       ERR_WORKSPACE };

struct Variant {
    const char *name;
    int d, ncons, overlap, pingpong, threads, smem, keys;   // keys: per K/V tile
    const void *fn, *fn_dyn;   // static tile order; dynamic tile scheduler (two consumer warpgroups)
    // Ragged keys first (FIRST, non-causal): the kernels whose first tile's S is 48, 96, 128
    // and `keys` wide (the narrow three: 176-key tiles only); null where not built.
    const void *fn_first[4];
    bool split;   // the fn_first kernels split the tail (split_tail())
};

template <int D, int N, bool OV, bool PP, int KN = BN, int TW = KN>
constexpr const void *first_fn()
{
    if constexpr (OV) return reinterpret_cast<const void *>(&hopper_attention<D, N, OV, PP, false, KN, TW, true>);
    else return nullptr;
}
#define VARIANT(NAME, D, N, OV, PP)                                                                \
    { NAME, D, N, OV, PP, Cfg<D, N>::THREADS, Cfg<D, N>::SMEM, BN,                                 \
      reinterpret_cast<const void *>(&hopper_attention<D, N, OV, PP, false>), nullptr,             \
      { nullptr, nullptr, nullptr, first_fn<D, N, OV, PP>() }, OV && split_tail<D, N, false, BN, true>() }
#define VARIANT2(NAME, D, OV, PP)                                                                  \
    { NAME, D, 2, OV, PP, Cfg<D, 2>::THREADS, Cfg<D, 2>::SMEM, BN,                                 \
      reinterpret_cast<const void *>(&hopper_attention<D, 2, OV, PP, false>),                      \
      reinterpret_cast<const void *>(&hopper_attention<D, 2, OV, PP, true>),                       \
      { nullptr, nullptr, nullptr, first_fn<D, 2, OV, PP>() }, OV && split_tail<D, 2, false, BN, true>() }
// 176-key tiles (README.md, twelfth round): the ping-pong kernel at D = 128 with K/V
// tiles of 176 keys, static tile order only; auto_variant() takes it for non-causal
// shapes whose keys it pads little, ATTN07_VARIANT anywhere at D = 128. Non-causal
// launches run a ragged-keys-first kernel, its first tile as narrow as its keys allow
// (thirteenth round).
#define VARIANT176(NAME)                                                                           \
    { NAME, 128, 2, true, true, Cfg<128, 2, 176>::THREADS, Cfg<128, 2, 176>::SMEM, 176,            \
      reinterpret_cast<const void *>(&hopper_attention<128, 2, true, true, false, 176>), nullptr,  \
      { first_fn<128, 2, true, true, 176, 48>(), first_fn<128, 2, true, true, 176, 96>(),          \
        first_fn<128, 2, true, true, 176, 128>(), first_fn<128, 2, true, true, 176, 176>() },     \
      split_tail<128, 2, false, 176, true>() }
// The steps of the rung, in order (README.md): one consumer warpgroup; two with
// setmaxnreg; S/softmax overlap; ping-pong (the default).
const Variant VARIANTS[] = {
    VARIANT("1wg", 64, 1, false, false),     VARIANT("1wg", 128, 1, false, false),
    VARIANT("1wg-overlap", 64, 1, true, false), VARIANT("1wg-overlap", 128, 1, true, false),
    VARIANT("3wg", 64, 3, true, true),
    VARIANT2("2wg", 64, false, false),       VARIANT2("2wg", 128, false, false),
    VARIANT2("overlap", 64, true, false),    VARIANT2("overlap", 128, true, false),
    VARIANT2("pingpong", 64, true, true),    VARIANT2("pingpong", 128, true, true),
    VARIANT176("pingpong-176"),
};
#undef VARIANT
#undef VARIANT2
#undef VARIANT176

struct Split {
    int n_dp = 0, n_kt = 0;        // whole tiles; key tiles per tile
    int units = 0;                 // the tail's key tiles; 0: no split
    size_t part_bytes = 0;         // workspace: two slots per block of (D / 8 + 1) float4 per consumer thread
    size_t count_bytes = 0;        // arrivals per tail tile and consumer warp
};

struct State {
    attn_shape shape;
    const Variant *var;
    const void *fn;   // var->fn or var->fn_dyn
    int bm, n_qblocks, n_work, grid, group_log2;
    int pdl;   // launch with programmatic stream serialization (ATTN07_PDL=0 turns it off)
    int *sched;   // device {next, done} of the dynamic tile scheduler, or NULL
    Split split;       // the split tail's plan (split.units = 0: none)
    int *part_count;   // its arrival counts (device, zero between launches), or NULL
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    const void *mapped[3];
    CUtensorMap maps[3];
};

cudaError_t g_cuda = cudaSuccess;
CUresult g_cu = CUDA_SUCCESS;
char g_chosen[512] = "not initialised";
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
    if ((long long)((s->seq_q + 63) / 64) * s->batch * s->heads > INT_MAX)
        return "more than INT_MAX blocks of 64 query rows";
    if (!(s->scale > 0.f) || !std::isfinite(s->scale))
        return "scale must be positive and finite (the row max is taken before scaling)";
    return arch_reason();
}

// The rung's choice per shape: when 128-row blocks would leave SMs idle, 64-row blocks
// with one consumer warpgroup; otherwise the two-warpgroup ping-pong (D = 128; 176-key
// tiles where they pad the keys little) or, at D = 64, the three-warpgroup round robin
// where 192-row blocks fit seq_q well.
// ATTN07_VARIANT overrides it (measuring the steps).
const char *auto_variant(const attn_shape *s, int sms)
{
    const long blocks128 = (long)((s->seq_q + 127) / 128) * s->batch * s->heads;
    if (blocks128 < sms) return "1wg-overlap";
    // Non-causal D = 128: 176-key tiles are 2.7% faster per key (README.md, twelfth round),
    // and each 1% of padded key columns costs 1.2-1.4%, so they are taken where they pad at
    // most 1.5% more than 128-key tiles; since the thirteenth round the last tile is only
    // as wide as width176() (48, 96, 128 or 176 keys).
    if (s->head_dim == 128) {
        const long cols176 = (long)(s->seq_kv / 176) * 176 + (s->seq_kv % 176 ? width176(s->seq_kv % 176) : 0);
        const long cols128 = (long)((s->seq_kv + 127) / 128) * 128;
        return !s->causal && cols176 * 1000 <= cols128 * 1015 ? "pingpong-176" : "pingpong";
    }
    // D = 64: three warpgroups (192 rows a block) unless that pads seq_q by more than 4%.
    const long rows192 = (long)((s->seq_q + 191) / 192) * 192;
    return rows192 * 100 <= (long)s->seq_q * 104 ? "3wg" : "pingpong";
}

const Variant *pick(const attn_shape *s, int sms)
{
    const char *env = getenv("ATTN07_VARIANT");
    const char *name = env && *env ? env : auto_variant(s, sms);
    for (const Variant &v : VARIANTS)
        if (v.d == s->head_dim && !strcmp(v.name, name)) return &v;
    return nullptr;
}

// The choices init() makes from the shape and the environment that workspace_bytes() needs
// too: the variant, the dynamic scheduler, ragged keys first, a persistent grid.
struct Choice {
    const Variant *v;
    bool dynamic, first, persistent;
    int ragged, width;   // FIRST: the first tile's keys and its S width
    long n_work;         // work tiles
};

bool choose(const attn_shape *s, int sms, Choice &c)
{
    c.v = pick(s, sms);
    if (!c.v) return false;
    // The dynamic tile scheduler (persistent grid, tiles from a global counter): by default
    // for causal shapes with two consumer warpgroups, whose tiles differ in work (README.md,
    // eighth and ninth rounds); ATTN07_SCHED=dynamic / static forces it on / off there.
    const char *sched = getenv("ATTN07_SCHED");
    c.dynamic = c.v->fn_dyn && (sched && !strcmp(sched, "dynamic") ? true
                                : sched && !strcmp(sched, "static") ? false
                                                                      : s->causal != 0);
    // Non-causal launches on the static tile order: the ragged keys first (fourteenth
    // round), in a first tile as narrow as they allow with 176-key tiles (thirteenth).
    // ATTN07_FIRST=0 keeps the plain kernel (measuring).
    const char *first_env = getenv("ATTN07_FIRST");
    c.ragged = (s->seq_kv - 1) % c.v->keys + 1;
    c.width = c.v->keys == 176 ? width176(c.ragged) : c.v->keys;
    const void *first = c.v->fn_first[c.width == c.v->keys ? 3 : c.width == 48 ? 0 : c.width == 96 ? 1 : 2];
    c.first = !s->causal && !c.dynamic && first && !(first_env && !strcmp(first_env, "0"));
    // Persistent launch for non-causal shapes and with the dynamic scheduler
    // (ATTN07_PERSIST=0/1 forces it off/on otherwise): as many blocks as fit on the device
    // at once, each looping over work tiles, in a static round robin or from the counter;
    // otherwise one block per tile. Causal tiles differ in work: a static round robin
    // balances them badly (a block count that divides the persistent grid sends every
    // heavy tile to one block), so causal shapes take the dynamic scheduler (two consumer
    // warpgroups) or the hardware's block dispatch (one block per tile, three).
    const char *persist = getenv("ATTN07_PERSIST");
    c.persistent = c.dynamic || (persist && *persist ? strcmp(persist, "0") != 0 : !s->causal);
    const long bm = 64L * c.v->ncons;
    c.n_work = (s->seq_q + bm - 1) / bm * s->batch * s->heads;
    return true;
}

// The split tail (README.md, eighteenth round). A persistent launch of G blocks over W work
// tiles of n key tiles each runs ceil(W / G) rounds, the last with only W mod G tiles: the
// critical path is ceil(W / G) n key tiles. Cut into key tiles and dealt evenly, the last
// round's tiles cost ceil((W mod G) n / G) key tiles instead of n. Taken where that saves
// at least two key tiles on the critical path (the pieces pay for a merge and for one more
// work-item boundary; ATTN07_SPLIT=0 turns it off, for measuring).

Split split_plan(const attn_shape *s, const Choice &c, long grid)
{
    Split p;
    p.n_kt = (s->seq_kv + c.v->keys - 1) / c.v->keys;
    p.n_dp = (int)c.n_work;
    const char *env = getenv("ATTN07_SPLIT");
    if (!c.first || !c.v->split || (env && !strcmp(env, "0")) || grid <= 0 || grid >= c.n_work) return p;
    const long rem = c.n_work % grid;
    const long long units = (long long)rem * p.n_kt;
    const long long per_block = (units + grid - 1) / grid;
    // (u + 1) G must fit in an int (the kernel's unit arithmetic; seq_kv up to ~10^7 keys).
    if (rem == 0 || per_block > p.n_kt - 2 || (units + 1) * grid >= INT_MAX) return p;
    p.n_dp = (int)(c.n_work - rem);
    p.units = (int)units;
    const size_t threads = 128u * (size_t)c.v->ncons;
    p.part_bytes = (size_t)grid * 2 * threads * (size_t)(s->head_dim / 8 + 1) * sizeof(float4);
    p.count_bytes = (size_t)rem * c.v->ncons * 4 * sizeof(int);
    return p;
}

// The split kernels use over half of an SM's shared memory: one block per SM, so the
// persistent grid is the SM count (what workspace_bytes() assumes without the occupancy
// call, which needs init()'s function attributes).
static_assert(2 * Cfg<128, 2, 176>::SMEM > 228 * 1024 && 2 * Cfg<64, 3>::SMEM > 228 * 1024,
              "the split kernels run one block per SM");

size_t workspace_bytes(const attn_shape *s)
{
    int dev = 0, sms = 0;
    if (unsupported(s) || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return 0;
    Choice c;
    if (!choose(s, sms, c) || !c.persistent || c.v->ncons < 2) return 0;
    return split_plan(s, c, sms).part_bytes;
}

int check_sm90a(const void *)
{
    int *flag = nullptr, host = 0;
    if ((g_cuda = cudaMalloc(&flag, sizeof(int))) != cudaSuccess) return ERR_CUDA;
    arch_probe<<<1, 1>>>(flag);
    if ((g_cuda = cudaGetLastError()) == cudaSuccess)
        g_cuda = cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(flag);
    if (g_cuda != cudaSuccess) return ERR_CUDA;
    return host == 1 ? 0 : ERR_NOT_90A;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    int dev = 0, optin = 0, sms = 0;
    if ((g_cuda = cudaGetDevice(&dev)) != cudaSuccess) return ERR_CUDA;
    if ((g_cuda = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return ERR_CUDA;
    Choice c;
    if (!choose(s, sms, c)) return ERR_VARIANT;
    const Variant *v = c.v;
    const bool dynamic = c.dynamic;
    const void *fn = dynamic ? v->fn_dyn : v->fn;
    const int width = c.width;
    if (c.first) fn = v->fn_first[width == v->keys ? 3 : width == 48 ? 0 : width == 96 ? 1 : 2];
    char first_note[64] = "";
    if (c.first)
        snprintf(first_note, sizeof first_note, ", ragged keys first (%d keys, S %d wide)", c.ragged, width);
    if ((g_cuda = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
        return ERR_CUDA;
    if (optin < v->smem) return ERR_SMEM;
    if ((g_cuda = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v->smem)) != cudaSuccess)
        return ERR_CUDA;
    int rc = check_sm90a(fn);
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
    st->var = v;
    st->fn = fn;
    st->bm = 64 * v->ncons;
    st->n_qblocks = (s->seq_q + st->bm - 1) / st->bm;
    st->n_work = (int)c.n_work;
    // The tile order's head groups (tile_coords): one head for non-causal shapes (every
    // tile the same work; head-major keeps each head's K and V in L2 while its blocks run);
    // causal shapes up to 8 heads a group (a power of two dividing batch * heads), as many
    // as have K and V in half the L2, so each group runs its heaviest query blocks first
    // and the last tiles of the launch are light (ATTN07_GROUP=N overrides, for measuring).
    int l2 = 0;
    if ((g_cuda = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev)) != cudaSuccess) {
        free(st);
        return ERR_CUDA;
    }
    const long kv_head = 4L * s->seq_kv * s->head_dim;   // K and V bytes of one head
    long want = s->causal ? (l2 / 2) / (kv_head > 0 ? kv_head : 1) : 1;
    const char *genv = getenv("ATTN07_GROUP");
    if (genv && *genv) want = atol(genv);
    const long n_bh = (long)s->batch * s->heads;
    st->group_log2 = 0;
    while (st->group_log2 < 3 && (2L << st->group_log2) <= want && n_bh % (2L << st->group_log2) == 0)
        ++st->group_log2;
    int per_sm = 0;
    if ((g_cuda = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, v->threads, v->smem)) != cudaSuccess) {
        free(st);
        return ERR_CUDA;
    }
    const long resident = (long)sms * (per_sm > 0 ? per_sm : 1);
    st->grid = c.persistent && v->ncons >= 2 && st->n_work > resident ? (int)resident : st->n_work;
    st->split = split_plan(s, c, st->grid);
    // The workspace the harness allocates comes from workspace_bytes(), which assumes one
    // block per SM for the split kernels: a plan that needs more is refused here.
    if (st->split.part_bytes > workspace_bytes(s)) {
        free(st);
        return ERR_WORKSPACE;
    }
    if (st->split.units > 0) {
        if ((g_cuda = cudaMalloc(&st->part_count, st->split.count_bytes)) != cudaSuccess ||
            (g_cuda = cudaMemset(st->part_count, 0, st->split.count_bytes)) != cudaSuccess ||
            (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
            cudaFree(st->part_count);
            free(st);
            return ERR_CUDA;
        }
    }
    if (dynamic) {
        if ((g_cuda = cudaMalloc(&st->sched, 2 * sizeof(int))) != cudaSuccess ||
            (g_cuda = cudaMemset(st->sched, 0, 2 * sizeof(int))) != cudaSuccess ||
            (g_cuda = cudaDeviceSynchronize()) != cudaSuccess) {
            cudaFree(st->sched);
            cudaFree(st->part_count);
            free(st);
            return ERR_CUDA;
        }
    }
    if (v->ncons == 1 && (long)s->batch * s->heads > 65535) {   // its grid is (query blocks, batch * heads)
        cudaFree(st->sched);
        cudaFree(st->part_count);
        free(st);
        return ERR_GRID;
    }
    st->encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc);
    const char *pdl = getenv("ATTN07_PDL");
    st->pdl = !(pdl && !strcmp(pdl, "0"));
    char split_note[96] = "";
    if (st->split.units > 0)
        snprintf(split_note, sizeof split_note, ", split tail: %d tiles as %d key tiles over %d CTAs",
                 st->n_work - st->split.n_dp, st->split.units, st->grid);
    snprintf(g_chosen, sizeof g_chosen,
             "%s: %d consumer warpgroup(s), BM=%d BN=%d%s, %d B shared memory, %d registers at entry "
             "(sm_90a code, wgmma), %d work tiles on %d CTAs of %d threads, %d head(s) per tile group%s%s%s",
             v->name, v->ncons, st->bm, v->keys, first_note, v->smem, fa.numRegs, st->n_work, st->grid, v->threads, 1 << st->group_log2,
             st->sched ? ", dynamic tile scheduler" : "", split_note, st->pdl ? ", programmatic dependent launch" : "");
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
    const int box[3] = {st.bm, st.var->keys, st.var->keys};
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
    p.o16 = reinterpret_cast<uintptr_t>(a->o) % 16 == 0;
    p.seq_q = s.seq_q;
    p.seq_kv = s.seq_kv;
    p.n_qblocks = st.n_qblocks;
    p.n_work = st.n_work;
    p.group_log2 = st.group_log2;
    p.sched = st.sched;
    p.causal = s.causal != 0;
    p.scale_log2 = s.scale * LOG2E;
    p.n_dp = st.split.n_dp;
    p.n_kt = st.split.n_kt;
    p.sk_units = st.split.units;
    p.part = static_cast<float4 *>(a->workspace);
    p.part_count = st.part_count;
    if (st.split.units > 0 && !a->workspace) return ERR_WORKSPACE;
    void *args[] = {&st.maps[0], &st.maps[1], &st.maps[2], &p};
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = st.var->ncons == 1 ? dim3((unsigned)st.n_qblocks, (unsigned)(s.batch * s.heads))
                                     : dim3((unsigned)st.grid);
    cfg.blockDim = dim3((unsigned)st.var->threads);
    cfg.dynamicSmemBytes = (size_t)st.var->smem;
    cfg.stream = a->stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = st.pdl ? 1 : 0;
    g_cuda = cudaLaunchKernelExC(&cfg, st.fn, args);
    if (g_cuda == cudaSuccess) g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_CUDA;
}

void fini(void *state)
{
    State *st = static_cast<State *>(state);
    if (!st) return;
    cudaFree(st->sched);
    cudaFree(st->part_count);
    free(st);
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_chosen;
    case ERR_CUDA: return cudaGetErrorString(g_cuda);
    case ERR_SHAPE: return "shape or device not supported (see unsupported()) or init not called";
    case ERR_ARCH: return "needs compute capability 9.0";
    case ERR_SMEM: return "the device allows less dynamic shared memory per block than the kernel needs";
    case ERR_ALLOC: return "out of host memory for the phase state";
    case ERR_TMAP:
        return g_cu != CUDA_SUCCESS ? "cuTensorMapEncodeTiled failed (tensor maps of Q/K/V)"
                                    : "cuTensorMapEncodeTiled not found in the driver";
    case ERR_VARIANT: return "ATTN07_VARIANT names no variant for this head_dim (1wg, 1wg-overlap, 2wg, overlap, pingpong; 3wg "
                                "for D=64; pingpong-176 for D=128)";
    case ERR_ALIGN: return "q/k/v must be 16-byte aligned and o 4-byte aligned";
    case ERR_GRID: return "the one-warpgroup variants take batch * heads <= 65535 (grid y)";
    case ERR_WORKSPACE:
        return "the split tail needs the workspace of workspace_bytes() (one block per SM), and none or a "
               "smaller one was planned or given";
    case ERR_NOT_90A: return "the driver picked code other than sm_90a for this GPU (no wgmma path)";
    default: return "unknown error code";
    }
}

}  // namespace

#if ATTN07_TRACE
// The trace build's extra export: g_trace (TRACE_BLOCKS x TRACE_ITEMS x TRACE_SLOTS
// 64-bit values) into host memory; clear = 1 zeroes it instead. 0 or a cudaError_t.
extern "C" ATTN_PHASE_EXPORT int attn07_trace_copy(unsigned long long *host, int clear)
{
    void *dev = nullptr;
    cudaError_t e = cudaGetSymbolAddress(&dev, g_trace);
    if (e == cudaSuccess)
        e = clear ? cudaMemset(dev, 0, sizeof g_trace) : cudaMemcpy(host, dev, sizeof g_trace, cudaMemcpyDeviceToHost);
    return (int)e;
}
#endif

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "07_hopper", "wgmma + TMA flash attention: producer warpgroup, overlap, ping-pong",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
