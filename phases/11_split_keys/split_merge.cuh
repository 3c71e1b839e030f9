// split_merge.cuh: a head's pieces weighed together, by the block that finished its head
// last. Each piece s left its unnormalised O_s, row max m_s (log2 units) and row sum l_s;
// with M = max m_s, O = sum 2^(m_s - M) O_s / sum 2^(m_s - M) l_s. A row no piece saw a
// key of (M = -inf) is zeros, the ABI's rule.
//
// The merge is a chain of L2 round trips (the partials were just written by other blocks
// and are read through L2, ld.cg): its length, not its bytes, is its cost.
// - A warp issues MERGE_BATCH pieces' loads (m, l and its lane's D / 32 columns of O)
//   before it uses the first, with no branch between them, and folds a batch in by its
//   own running max (online, as the piece kernel does over keys): one round trip a batch.
// - Past one batch of pieces, a row of a one- or two-row step has G = 4 / rows warps,
//   each taking every G-th piece (64 pieces: 16 a warp, one batch instead of four), and
//   the row's G partials meet in shared memory, where its first warp weighs them
//   together. Otherwise one warp takes a row: sharing it costs more there than the round
//   trip it saves (README, "The merge and the ring, measured").

#pragma once

namespace sk {

constexpr int MERGE_BATCH = 16;

template <int D>
struct MergePart {
    static constexpr int E = D / 32;   // columns a lane: 4 (one float4) or 2 (one float2)
    float m, l, acc[E];
};

// Pieces first, first + step, ... of one row, folded into p (m in log2 units).
template <int D>
__device__ __forceinline__ void merge_pieces(const SplitParams &sp, long pr, int first, int step, int lane,
                                             MergePart<D> &p)
{
    constexpr int E = MergePart<D>::E;
    using Vec = typename std::conditional<E == 4, float4, float2>::type;
    const int S = sp.splits;
    const float2 *ml = sp.part_ml + pr;
    const Vec *po = reinterpret_cast<const Vec *>(sp.part_o + pr * D) + lane;
    p.m = -INFINITY;
    p.l = 0.f;
#pragma unroll
    for (int e = 0; e < E; ++e) p.acc[e] = 0.f;
    for (int s0 = first; s0 < S; s0 += MERGE_BATCH * step) {
        float2 v[MERGE_BATCH];
        Vec x[MERGE_BATCH];
#pragma unroll
        for (int j = 0; j < MERGE_BATCH; ++j) {   // past the last piece: the last again, weight 0
            const int s = min(s0 + j * step, S - 1);
            v[j] = __ldcg(ml + s);
            x[j] = __ldcg(po + (long)s * (D / E));
        }
        float bm = p.m;
#pragma unroll
        for (int j = 0; j < MERGE_BATCH; ++j)
            if (s0 + j * step < S) bm = fmaxf(bm, v[j].x);
        const float mu = bm == -INFINITY ? 0.f : bm;   // nothing seen yet: every weight is 0
        const float a = ex2(p.m - mu);
        p.m = bm;
        p.l *= a;
#pragma unroll
        for (int e = 0; e < E; ++e) p.acc[e] *= a;
#pragma unroll
        for (int j = 0; j < MERGE_BATCH; ++j) {
            const float w = s0 + j * step < S ? ex2(v[j].x - mu) : 0.f;
            p.l += w * v[j].y;
            const float *xs = reinterpret_cast<const float *>(&x[j]);
#pragma unroll
            for (int e = 0; e < E; ++e) p.acc[e] += w * xs[e];
        }
    }
}

// Row `row`'s output from its normalised sum.
template <int D>
__device__ __forceinline__ void merge_store(const SplitParams &sp, long bh, int row, int lane, const MergePart<D> &p)
{
    constexpr int E = MergePart<D>::E;
    const float inv = p.l > 0.f ? 1.f / p.l : 0.f;
    __half2 *dst = reinterpret_cast<__half2 *>(sp.o + (bh * sp.seq_q + row) * D + lane * E);
#pragma unroll
    for (int e = 0; e < E; e += 2) dst[e / 2] = __floats2half2_rn(p.acc[e] * inv, p.acc[e + 1] * inv);
}

// The whole block merges head bh's rows; smem: 4 x (D + 2) floats, free by now. Every
// thread of the block calls it (it has block barriers when a row has several warps).
template <int D>
__device__ __forceinline__ void merge_head(const SplitParams &sp, long bh, float *smem, int warp, int lane)
{
    constexpr int W = SPLIT_THREADS / 32, E = MergePart<D>::E;
    const int G = sp.splits <= MERGE_BATCH ? 1 : sp.seq_q == 1 ? 4 : sp.seq_q == 2 ? 2 : 1;   // warps a row
    const int part = warp % G;
    float *ms = smem, *ls = ms + W, *os = ls + W;   // os: [W][D]
    for (int r0 = 0; r0 < sp.seq_q; r0 += W / G) {   // the same trip count in every warp
        const int row = r0 + warp / G;
        MergePart<D> p;
        if (row < sp.seq_q) merge_pieces<D>(sp, (bh * sp.seq_q + row) * sp.splits, part, G, lane, p);
        if (G == 1) {
            if (row < sp.seq_q) merge_store<D>(sp, bh, row, lane, p);
            continue;
        }
        if (row < sp.seq_q) {
#pragma unroll
            for (int e = 0; e < E; ++e) os[warp * D + lane * E + e] = p.acc[e];
            if (lane == 0) {
                ms[warp] = p.m;
                ls[warp] = p.l;
            }
        }
        __syncthreads();
        if (row < sp.seq_q && part == 0) {
            float mx = -INFINITY;
            for (int w = warp; w < warp + G; ++w) mx = fmaxf(mx, ms[w]);
            const float mu = mx == -INFINITY ? 0.f : mx;
            MergePart<D> q;
            q.l = 0.f;
#pragma unroll
            for (int e = 0; e < E; ++e) q.acc[e] = 0.f;
            for (int w = warp; w < warp + G; ++w) {
                const float wt = ex2(ms[w] - mu);
                q.l += wt * ls[w];
#pragma unroll
                for (int e = 0; e < E; ++e) q.acc[e] += wt * os[w * D + lane * E + e];
            }
            merge_store<D>(sp, bh, row, lane, q);
        }
        __syncthreads();
    }
}

}  // namespace sk
