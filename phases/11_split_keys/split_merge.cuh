// split_merge.cuh: a head's pieces weighed together, by the block that finished its head
// last. Each piece s left its unnormalised O_s, row max m_s (log2 units) and row sum l_s;
// with M = max m_s, O = sum 2^(m_s - M) O_s / sum 2^(m_s - M) l_s. A row no piece saw a
// key of (M = -inf) is zeros, the ABI's rule. One warp a row, a lane D / 32 columns; the
// pieces' partials are loaded MERGE_BATCH at a time, every load of a batch issued before
// the first is used, with no branch between them (the merge is a chain of L2 round trips: its length, not its bytes, is
// its cost). The partials are read through L2 (ld.cg): other blocks wrote them.
#pragma once

namespace sk {

constexpr int MERGE_BATCH = 16;

template <int D>
__device__ __forceinline__ void merge_row(const SplitParams &p, long bh, int row, int lane)
{
    constexpr int E = D / 32;   // columns a lane: 4 (one float4) or 2 (one float2)
    using Vec = typename std::conditional<E == 4, float4, float2>::type;
    const int S = p.splits;
    const long pr = (bh * p.seq_q + row) * S;
    const float2 *ml = p.part_ml + pr;
    const Vec *po = reinterpret_cast<const Vec *>(p.part_o + pr * D) + lane;
    float mx = -INFINITY;
#pragma unroll 8
    for (int s = lane; s < S; s += 32) mx = fmaxf(mx, __ldcg(ml + s).x);
#pragma unroll
    for (int x = 16; x; x >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, x));
    const float mu = mx == -INFINITY ? 0.f : mx;
    float acc[E], l = 0.f;
#pragma unroll
    for (int e = 0; e < E; ++e) acc[e] = 0.f;
    for (int s0 = 0; s0 < S; s0 += MERGE_BATCH) {
        float2 v[MERGE_BATCH];
        Vec x[MERGE_BATCH];
#pragma unroll
        for (int j = 0; j < MERGE_BATCH; ++j) {   // past the last piece: the last again, weight 0
            const int s = min(s0 + j, S - 1);
            v[j] = __ldcg(ml + s);
            x[j] = __ldcg(po + (long)s * (D / E));
        }
#pragma unroll
        for (int j = 0; j < MERGE_BATCH; ++j) {
            const float w = s0 + j < S ? ex2(v[j].x - mu) : 0.f;
            l += w * v[j].y;
            const float *xs = reinterpret_cast<const float *>(&x[j]);
#pragma unroll
            for (int e = 0; e < E; ++e) acc[e] += w * xs[e];
        }
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;
    __half2 *dst = reinterpret_cast<__half2 *>(p.o + (bh * p.seq_q + row) * D + lane * E);
#pragma unroll
    for (int e = 0; e < E; e += 2) dst[e / 2] = __floats2half2_rn(acc[e] * inv, acc[e + 1] * inv);
}

}  // namespace sk
