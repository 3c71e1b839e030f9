// split_merge.cuh: a head's pieces weighed together, by the block that finished its head
// last. Each piece s left its unnormalised O_s, row max m_s (log2 units) and row sum l_s;
// with M = max m_s, O = sum 2^(m_s - M) O_s / sum 2^(m_s - M) l_s. A row no piece saw a
// key of (M = -inf) is zeros, the ABI's rule. The whole block merges, every load
// independent of the others: the weights first (m and l of every row and piece into shared
// memory, one warp a row for its max and sum), then each thread one or more (row, 4
// columns) pairs, and while those are fewer than the threads, a share of the pieces; the
// shares are summed by shared-memory atomics. The partials are read through L2 (ld.cg):
// other blocks wrote them.
#pragma once

namespace sk {

template <int D>
__device__ __forceinline__ void merge_head(const SplitParams &p, long bh, unsigned char *smem)
{
    const int R = p.seq_q, S = p.splits, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    constexpr int C = D / 4;   // float4 columns a row
    float2 *ml = reinterpret_cast<float2 *>(smem);   // [R][S]: m (then the weight), l
    float *acc = reinterpret_cast<float *>(ml + R * S);   // [R][D]
    float *lsum = acc + R * D;                              // [R]
    const float2 *gml = p.part_ml + bh * R * S;
    for (int i = tid; i < R * S; i += SPLIT_THREADS) ml[i] = __ldcg(gml + i);
    for (int i = tid; i < R * D; i += SPLIT_THREADS) acc[i] = 0.f;
    __syncthreads();
    for (int r = warp; r < R; r += SPLIT_THREADS / 32) {
        float mx = -INFINITY;
        for (int s = lane; s < S; s += 32) mx = fmaxf(mx, ml[r * S + s].x);
#pragma unroll
        for (int x = 16; x; x >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, x));
        const float mu = mx == -INFINITY ? 0.f : mx;
        float l = 0.f;
        for (int s = lane; s < S; s += 32) {
            const float2 v = ml[r * S + s];
            const float w = ex2(v.x - mu);
            ml[r * S + s].x = w;
            l += w * v.y;
        }
#pragma unroll
        for (int x = 16; x; x >>= 1) l += __shfl_xor_sync(0xffffffffu, l, x);
        if (lane == 0) lsum[r] = l;
    }
    __syncthreads();
    const int pairs = R * C, wide = pairs >= SPLIT_THREADS;
    const int groups = wide ? 1 : SPLIT_THREADS / pairs, gid = wide ? 0 : tid / pairs;
    if (gid < groups)
        for (int pr = wide ? tid : tid % pairs; pr < pairs; pr += wide ? SPLIT_THREADS : pairs) {
            const int r = pr / C, c = pr % C;
            const float4 *src = reinterpret_cast<const float4 *>(p.part_o + (bh * R + r) * S * D) + c;
            float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
            for (int s = gid; s < S; s += groups) {
                const float w = ml[r * S + s].x;
                const float4 x = __ldcg(src + (long)s * C);
                a.x += w * x.x;
                a.y += w * x.y;
                a.z += w * x.z;
                a.w += w * x.w;
            }
            float *dst = acc + r * D + 4 * c;
            atomicAdd(dst, a.x);
            atomicAdd(dst + 1, a.y);
            atomicAdd(dst + 2, a.z);
            atomicAdd(dst + 3, a.w);
        }
    __syncthreads();
    for (int i = tid; i < R * D / 2; i += SPLIT_THREADS) {
        const int r = i / (D / 2), c = (i % (D / 2)) * 2;
        const float inv = lsum[r] > 0.f ? 1.f / lsum[r] : 0.f;
        *reinterpret_cast<__half2 *>(p.o + (bh * R + r) * D + c) =
            __floats2half2_rn(acc[r * D + c] * inv, acc[r * D + c + 1] * inv);
    }
}

}  // namespace sk
