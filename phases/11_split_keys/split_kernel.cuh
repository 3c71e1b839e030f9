// split_kernel.cuh: one block per (batch x head, piece of the keys). The block's 16 query
// rows (every query of a decode step, seq_q <= 16) against its piece's key tiles of 64,
// streamed through a ring of cp.async stages; each of the 4 warps takes 16 keys of a tile
// (S = Q K^T and O += P V on mma.sync, an online softmax per warp), the warps' partials are
// merged in shared memory, and the block writes its piece's unnormalised O, row max m and
// row sum l (fp32) to the workspace; the last block of a head to finish weighs the
// pieces together (split_merge.cuh).
#pragma once

namespace sk {

constexpr int SPLIT_Q = 16;        // query rows a block (one m16 tile)
constexpr int SPLIT_KT = 64;       // keys a tile (16 a warp)
constexpr int SPLIT_THREADS = 128;

template <int D>
struct SplitCfg {
    static constexpr int CH = D / 8;                         // 16-byte chunks a row
    static constexpr int STAGES = 3;                          // of 32 KB / 16 KB of K and V
    static constexpr int STAGE_BYTES = 2 * SPLIT_KT * D * 2;
    static constexpr int OS = D + 8;                          // merge area row stride (floats)
    static constexpr int MERGE_BYTES = (2 * 4 * SPLIT_Q + 4 * SPLIT_Q * OS) * 4;
    static constexpr int SMEM = STAGES * STAGE_BYTES > MERGE_BYTES ? STAGES * STAGE_BYTES : MERGE_BYTES;
};

constexpr int SPLIT_MAX = 256;   // pieces a head at most: the merge's chain of loads stays short

struct SplitParams {
    const __half *q, *k, *v;
    __half *o;
    float *part_o;        // [bh][seq_q][splits][D]: each piece's unnormalised O
    float2 *part_ml;      // [bh][seq_q][splits]: its row max (log2 units) and row sum
    unsigned *arrivals;   // [bh]: pieces of the head done in this launch (zero between launches)
    int seq_q, seq_kv;
    int splits, chunk;    // pieces, key tiles a piece
    int causal;
    float scale_log2;
};

}  // namespace sk

#include "split_merge.cuh"

namespace sk {

// Shared-memory byte offset of 16-byte chunk c of row r in a [64][D] tile: the chunk index
// XOR the row's low 3 bits, so the 8 rows one ldmatrix reads fall in distinct banks.
template <int D>
__device__ __forceinline__ uint32_t tile_off(int r, int c)
{
    return (uint32_t)(r * D + ((c ^ (r & 7)) << 3)) * 2u;
}

template <int D>
__global__ void __launch_bounds__(SPLIT_THREADS) split_attention(const SplitParams p)
{
    using C = SplitCfg<D>;
    extern __shared__ __align__(128) unsigned char smem[];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const int split = blockIdx.x;
    const long bh = blockIdx.y;
    const int seq_q = p.seq_q, seq_kv = p.seq_kv;
    const int n_tiles = (seq_kv + SPLIT_KT - 1) / SPLIT_KT;
    const int t0 = split * p.chunk;
    const int n = min(t0 + p.chunk, n_tiles) - t0;
    const __half *kg = p.k + bh * seq_kv * D, *vg = p.v + bh * seq_kv * D, *qg = p.q + bh * seq_q * D;
    const uint32_t sbase = smem_addr(smem);

    // Keys row r sees: all, or (causal, bottom-right aligned) those up to r + seq_kv - seq_q.
    const int off = seq_kv - seq_q;
    const int lim0 = p.causal ? min(seq_kv, g + off + 1) : seq_kv;
    const int lim8 = p.causal ? min(seq_kv, g + 8 + off + 1) : seq_kv;
    const int full = p.causal ? min(seq_kv, max(0, off + 1)) : seq_kv;   // keys every row sees

    grid_dependency_wait();
    launch_dependents();

    auto load = [&](int tile, int stage) {
        const int key0 = tile * SPLIT_KT;
        const uint32_t sk_ = sbase + stage * C::STAGE_BYTES, sv_ = sk_ + SPLIT_KT * D * 2;
#pragma unroll
        for (int j = 0; j < SPLIT_KT * C::CH / SPLIT_THREADS; ++j) {
            const int li = tid + SPLIT_THREADS * j, r = li / C::CH, c = li % C::CH;
            const bool ok = key0 + r < seq_kv;
            const long go = ok ? (long)(key0 + r) * D + c * 8 : 0;
            cp_async16(sk_ + tile_off<D>(r, c), kg + go, ok ? 16 : 0);
            cp_async16(sv_ + tile_off<D>(r, c), vg + go, ok ? 16 : 0);
        }
    };
#pragma unroll
    for (int i = 0; i < C::STAGES - 1; ++i) {
        if (i < n) load(t0 + i, i);
        cp_async_commit();
    }

    // Q as mma A fragments (rows past seq_q are zeros, never stored).
    uint32_t qf[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int row = g + (r & 1) * 8, col = kk * 16 + 2 * t + (r >> 1) * 8;
            qf[kk][r] = row < seq_q ? *reinterpret_cast<const uint32_t *>(qg + (long)row * D + col) : 0u;
        }

    float m0 = -INFINITY, m8 = -INFINITY, l0 = 0.f, l8 = 0.f;
    float o[D / 8][4];
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) o[nb][0] = o[nb][1] = o[nb][2] = o[nb][3] = 0.f;

    int stage = 0;
    for (int i = 0; i < n; ++i) {
        cp_async_wait<C::STAGES - 2>();
        __syncthreads();   // tile i landed for every thread; the stage read at i - 1 is free
        if (i + C::STAGES - 1 < n) load(t0 + i + C::STAGES - 1, (stage + C::STAGES - 1) % C::STAGES);
        cp_async_commit();
        const uint32_t kb = sbase + stage * C::STAGE_BYTES, vb = kb + SPLIT_KT * D * 2;
        const int mi = lane >> 3;

        // S = Q K^T for this warp's 16 keys: two n8 tiles.
        float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            uint32_t b[4];
            ldmatrix_x4(b, kb + tile_off<D>(warp * 16 + (mi >> 1) * 8 + (lane & 7), kk * 2 + (mi & 1)));
            mma16816(s[0], qf[kk], b[0], b[1]);
            mma16816(s[1], qf[kk], b[2], b[3]);
        }
        // Scale to log2 units; mask keys past a row's last (the tail, or causal).
        const int key0 = (t0 + i) * SPLIT_KT + warp * 16;
        const bool edge = (t0 + i + 1) * SPLIT_KT > full;
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float x = s[j][e] * p.scale_log2;
                if (edge && key0 + 8 * j + 2 * t + (e & 1) >= (e < 2 ? lim0 : lim8)) x = -INFINITY;
                s[j][e] = x;
            }
        // Online softmax: rows g (e 0-1) and g + 8 (e 2-3), reduced over the quad.
        float x0 = fmaxf(fmaxf(s[0][0], s[0][1]), fmaxf(s[1][0], s[1][1]));
        float x8 = fmaxf(fmaxf(s[0][2], s[0][3]), fmaxf(s[1][2], s[1][3]));
        x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 1));
        x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 2));
        x8 = fmaxf(x8, __shfl_xor_sync(0xffffffffu, x8, 1));
        x8 = fmaxf(x8, __shfl_xor_sync(0xffffffffu, x8, 2));
        const float n0 = fmaxf(m0, x0), n8 = fmaxf(m8, x8);
        const float u0 = n0 == -INFINITY ? 0.f : n0, u8 = n8 == -INFINITY ? 0.f : n8;   // no key yet
        const float a0 = ex2(m0 - u0), a8 = ex2(m8 - u8);
        m0 = n0;
        m8 = n8;
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            s[j][0] = ex2(s[j][0] - u0);
            s[j][1] = ex2(s[j][1] - u0);
            s[j][2] = ex2(s[j][2] - u8);
            s[j][3] = ex2(s[j][3] - u8);
        }
        l0 = l0 * a0 + (s[0][0] + s[0][1]) + (s[1][0] + s[1][1]);
        l8 = l8 * a8 + (s[0][2] + s[0][3]) + (s[1][2] + s[1][3]);
#pragma unroll
        for (int nb = 0; nb < D / 8; ++nb) {
            o[nb][0] *= a0;
            o[nb][1] *= a0;
            o[nb][2] *= a8;
            o[nb][3] *= a8;
        }
        // O += P V: P (16 x 16 keys) straight from the S fragments as the A operand.
        const uint32_t a[4] = {pack_half2(s[0][0], s[0][1]), pack_half2(s[0][2], s[0][3]),
                               pack_half2(s[1][0], s[1][1]), pack_half2(s[1][2], s[1][3])};
#pragma unroll
        for (int cp = 0; cp < D / 16; ++cp) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, vb + tile_off<D>(warp * 16 + (mi & 1) * 8 + (lane & 7), cp * 2 + (mi >> 1)));
            mma16816(o[2 * cp], a, b[0], b[1]);
            mma16816(o[2 * cp + 1], a, b[2], b[3]);
        }
        stage = stage + 1 == C::STAGES ? 0 : stage + 1;
    }
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l8 += __shfl_xor_sync(0xffffffffu, l8, 1);
    l8 += __shfl_xor_sync(0xffffffffu, l8, 2);

    // The four warps' partials through shared memory (the ring is free once every copy landed).
    cp_async_wait<0>();
    __syncthreads();
    float *mw = reinterpret_cast<float *>(smem), *lw = mw + 4 * SPLIT_Q, *ow = lw + 4 * SPLIT_Q;
    const int r0 = warp * SPLIT_Q + g;
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) {
        *reinterpret_cast<float2 *>(ow + r0 * C::OS + nb * 8 + 2 * t) = make_float2(o[nb][0], o[nb][1]);
        *reinterpret_cast<float2 *>(ow + (r0 + 8) * C::OS + nb * 8 + 2 * t) = make_float2(o[nb][2], o[nb][3]);
    }
    if (t == 0) {
        mw[r0] = m0;
        mw[r0 + 8] = m8;
        lw[r0] = l0;
        lw[r0 + 8] = l8;
    }
    __syncthreads();
    {
        constexpr int E = D / 8;   // columns a thread: 8 threads a row
        const int row = tid >> 3, c0 = (tid & 7) * E;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < 4; ++w) mx = fmaxf(mx, mw[w * SPLIT_Q + row]);
        const float mu = mx == -INFINITY ? 0.f : mx;
        float l = 0.f, acc[E];
#pragma unroll
        for (int e = 0; e < E; ++e) acc[e] = 0.f;
#pragma unroll
        for (int w = 0; w < 4; ++w) {
            const float wt = ex2(mw[w * SPLIT_Q + row] - mu);
            l += wt * lw[w * SPLIT_Q + row];
#pragma unroll
            for (int e = 0; e < E; e += 4) {
                const float4 v = *reinterpret_cast<const float4 *>(ow + (w * SPLIT_Q + row) * C::OS + c0 + e);
                acc[e] += wt * v.x;
                acc[e + 1] += wt * v.y;
                acc[e + 2] += wt * v.z;
                acc[e + 3] += wt * v.w;
            }
        }
        if (row < seq_q) {
            const long pr = (bh * seq_q + row) * p.splits + split;
            float *dst = p.part_o + pr * D + c0;
#pragma unroll
            for (int e = 0; e < E; e += 4)
                *reinterpret_cast<float4 *>(dst + e) = make_float4(acc[e], acc[e + 1], acc[e + 2], acc[e + 3]);
            if ((tid & 7) == 0) p.part_ml[pr] = make_float2(mx, l);
        }
    }
    // The block that completes a head's pieces merges them (its partial is out first).
    __shared__ int last;
    __threadfence();
    __syncthreads();
    if (tid == 0) last = atomicAdd(p.arrivals + bh, 1u) == (unsigned)(p.splits - 1);
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (tid == 0) p.arrivals[bh] = 0u;   // ready for the next launch
    merge_head<D>(p, bh, reinterpret_cast<float *>(smem), warp, lane);
}

}  // namespace sk
