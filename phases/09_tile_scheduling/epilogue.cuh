// epilogue.cuh: the end of a work item. A whole work tile normalises its rows by their sums
// and stores them (store_o). A piece of a split tail tile keeps its partial O, m and l in
// the workspace instead; the last piece of a tile to finish merges the others' into its
// own and stores the tile (finish).
#pragma once

namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint32_t pack_half2(float a, float b)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}

// The 4x4 transpose inside a quad of lanes (c = lane % 4): m[j] is this lane's half2 of
// 16-byte chunk j (columns 2c, 2c + 1 of it); afterwards out[j] is chunk c's half2 from
// lane j, so each lane holds one whole chunk and stores it in one 16-byte store (1.4-4.9%
// faster than four 4-byte stores, paired). Two butterfly stages (lanes c ^ 2, then c ^ 1),
// two shuffles each; every lane of the warp takes part.
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

// The epilogue of a kernel with NCONS consumer warpgroups (LOOP: two or more, looping over
// work tiles), BM = 64 NCONS rows a tile, KN keys a K/V tile; SPLIT: it takes pieces of
// the split tail; WIDE: it stores 16-byte chunks where o is 16-byte aligned.
template <int D, int NCONS, int KN, bool SPLIT, bool WIDE> struct Epilogue {
    static constexpr bool LOOP = NCONS >= 2;
    static constexpr int BM = 64 * NCONS;
    static constexpr int NCT = NCONS * 128, K4 = D / 8;   // consumer threads; O's float4 per thread

    // Work tile tt: normalises this thread's two rows by their row sums (this thread's
    // partial sums l, reduced over the quad here, row by row between the stores) and stores
    // them; rows that saw no key write zeros. The tile's coordinates are derived again from
    // tt (opaque to the compiler) rather than kept live through the main loop.
    __device__ __forceinline__ static void store_o(const Params &prm, const float (&acc)[D / 2], int wg, int warp,
                                                   int lane, int tt, const float (&l)[2])
    {
        int q0, bh, n_tiles;
        asm volatile("" : "+r"(tt));
        tile_of<LOOP, BM, KN>(prm, tt, q0, bh, n_tiles);
        const int row0e = q0 + wg * 64 + warp * 16 + lane / 4;
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
                        m[j] = pack_half2(acc[4 * (4 * k + j) + 2 * i] * inv, acc[4 * (4 * k + j) + 2 * i + 1] * inv);
                    quad_transpose(m, lane % 4, out);
                    if (row < prm.seq_q) dst[4 * k] = make_uint4(out[0], out[1], out[2], out[3]);
                }
            } else if (row < prm.seq_q) {
                __half2 *dst = reinterpret_cast<__half2 *>(o + (size_t)row * D + 2 * (lane % 4));
#pragma unroll
                for (int g = 0; g < D / 8; ++g)
                    dst[4 * g] = __floats2half2_rn(acc[4 * g + 2 * i] * inv, acc[4 * g + 2 * i + 1] * inv);
            }
        }
    }

    // The split tail's pieces. Each consumer warp (16 rows) writes its partial O
    // (unnormalised, against its running max m), m and its threads' partial row sums l
    // into this block's slot for the piece (its item number: only items 0 and 1 can be
    // pieces) in the workspace, then counts itself in for the tile; the warp that arrives
    // last merges the other pieces' partials into its own and stores the tile. No warp
    // waits for another, so the blocks need not run at once. m and l are put in the slot
    // first (stash), before the next item's softmax resets them, so they are not held in
    // registers through the chained boundary.
    __device__ __forceinline__ static float4 *part_slot(const Params &prm, int b, int seg)
    {
        return prm.part + (size_t)(b * 2 + seg) * (K4 + 1) * NCT + ((int)threadIdx.x - 128);
    }
    // Whether item cnt is a piece: derived again where needed (cnt opaque to the compiler)
    // rather than kept in a register through the main loop.
    __device__ __forceinline__ static bool is_piece(const Params &prm, uint32_t pieces, int cnt)
    {
        if constexpr (!SPLIT) return false;
        asm volatile("" : "+r"(cnt));
        Item x;
        return cnt < 2 && item_of<true>(prm, pieces, cnt, x) && x.seg >= 0;
    }
    __device__ __forceinline__ static void stash(const Params &prm, int cnt, const float (&m)[2], const float (&l)[2])
    {
        *(part_slot(prm, (int)blockIdx.x, cnt) + K4 * NCT) = make_float4(m[0], m[1], l[0], l[1]);
    }
    // The end of work item cnt (work tile tt): stores a whole tile; a piece writes its
    // partial, and the last piece of its tile merges and stores.
    __device__ __forceinline__ static void finish(const Params &prm, uint32_t pieces, float (&acc)[D / 2], int wg,
                                                  int warp, int lane, int tt, int cnt, const float (&l)[2])
    {
        if (!is_piece(prm, pieces, cnt)) {
            store_o(prm, acc, wg, warp, lane, tt, l);
            return;
        }
        const int G = (int)gridDim.x;
        float4 *mine = part_slot(prm, (int)blockIdx.x, cnt);
#pragma unroll
        for (int k = 0; k < K4; ++k)
            mine[k * NCT] = make_float4(acc[4 * k], acc[4 * k + 1], acc[4 * k + 2], acc[4 * k + 3]);
        // The pieces of tail tile i: the blocks from the one holding its first unit to the
        // one holding its last (the owner of unit x: the last b with b U / G <= x), less
        // those with empty ranges.
        const int i = tt - prm.n_dp;
        const int u0 = i * prm.n_kt, u1 = u0 + prm.n_kt;
        const int b0 = ((u0 + 1) * G - 1) / prm.sk_units, b1 = (u1 * G - 1) / prm.sk_units;
        int pieces_of_tile = 0;
        for (int b = b0; b <= b1; ++b) pieces_of_tile += split_start(prm, b) < split_start(prm, b + 1);
        int *arrivals = prm.part_count + (i * NCONS + wg) * 4 + warp;
        __threadfence();   // the partial is visible before the count says so
        __syncwarp();
        int before = 0;
        if (lane == 0) before = atomicAdd(arrivals, 1);
        if (__shfl_sync(0xffffffffu, before, 0) != pieces_of_tile - 1) return;
        __threadfence();   // the others' partials are read after their counts
        const float4 own = mine[K4 * NCT];   // this thread's own stash
        float mf[2] = {own.x, own.y}, lf[2] = {own.z, own.w};
        for (int b = b0; b <= b1; ++b) {
            const int st0 = split_start(prm, b);
            if (b == (int)blockIdx.x || st0 >= split_start(prm, b + 1)) continue;
            const float4 *other = part_slot(prm, b, i - st0 / prm.n_kt);   // 0: the tile is b's first piece
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
                acc[4 * k] = acc[4 * k] * fa[0] + v.x * fb[0];
                acc[4 * k + 1] = acc[4 * k + 1] * fa[0] + v.y * fb[0];
                acc[4 * k + 2] = acc[4 * k + 2] * fa[1] + v.z * fb[1];
                acc[4 * k + 3] = acc[4 * k + 3] * fa[1] + v.w * fb[1];
            }
        }
        if (lane == 0) *arrivals = 0;   // for the next launch, which reads it after this grid ends
        store_o(prm, acc, wg, warp, lane, tt, lf);
    }
};
#endif

}  // namespace
