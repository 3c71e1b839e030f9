// epilogue.cuh: the end of a work item. A whole work tile normalises its rows by their sums
// and stores them (store_o). A piece of a split tail tile keeps its partial O, m and l in
// the workspace instead; the last piece of a tile to finish merges the others' into its
// own and stores the tile (finish).
//
// Rung 20's copy of rung 19's file (rung 19: rung 09's, but in the two-consumer-warpgroup
// kernels of 128-key tiles without the split tail a warpgroup's 64 rows of O go through a
// shared-memory tile of its own: stmatrix, then 16-byte loads and stores by rows,
// store_staged). Rung 20's one change, in store_staged at D = 128: a thread's loads of the
// tile are unconditional and all issued before its first store, the row check guarding the
// stores only; at D = 64 the loop is rung 19's. Everything else is rung 19's, line for line.
#pragma once

namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint32_t pack_half2(float a, float b)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}

// Four 8x8 matrices of 16-bit values from the warp's registers into shared memory: lanes
// 8j..8j+7 give the addresses of matrix j's eight rows (16 bytes each), and r[j] is this
// lane's pair of matrix j (row lane / 4, columns 2 (lane % 4) and the next), the layout of
// an MMA accumulator's 8x8 pieces.
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 :: "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
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
    // O through shared memory: the two-warpgroup kernels of 128-key tiles, whole tiles only.
    // Every warp of a warpgroup stores each of its tiles (the barriers are the warpgroup's);
    // a split tile's last piece is stored by one warp alone, so the split kernels keep the
    // transpose, and so do the 176-key ones, whose shared memory has no room (214 KB).
    static constexpr bool STAGED = WIDE && NCONS == 2 && KN == 128 && !SPLIT;
    static constexpr int CH = D / 8;           // 16-byte chunks of a row of O
    static constexpr int ROWS_AT = 128 / CH;   // rows a warpgroup's 128 threads store at once

    // Work tile (q0, bh): this warpgroup's 64 rows, normalised, into its own 64 x D tile of
    // shared memory with stmatrix (16 rows x 16 columns an instruction, 8 rows a matrix), then
    // from it to O by rows: thread t takes chunk t % CH of rows t / CH, t / CH + ROWS_AT, ..,
    // so a warp stores 512 (D = 128) or 256 contiguous bytes at once. Chunk c of row r sits at
    // c ^ (r % 8), so the eight rows of a matrix (one chunk each) and the chunks a quarter
    // warp loads fall in eight different 16-byte bank groups. Named barrier 4 + wg (1-3: the
    // turns) orders the warpgroup's stmatrix after its loads of the tile before and before
    // its loads of this one.
    __device__ __forceinline__ static void store_staged(const Params &prm, const float (&acc)[D / 2], int wg,
                                                        int warp, int lane, int q0, int bh, const float (&l)[2])
    {
        __shared__ __align__(128) uint4 stage_all[NCONS][64 * CH];
        uint4 *stage = stage_all[wg];
        float inv[2];
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            float sum = l[i];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            inv[i] = sum > 0.f ? 1.f / sum : 0.f;   // rows that saw no key write zeros
        }
        // This lane's row address for stmatrix: matrix j = lane / 8 is rows 8 (j % 2).. of
        // the warp's 16 and columns 8 (j / 2).. of the 16 an instruction stores.
        const int r = warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        const int half = lane >> 4;
        const uint32_t row_at = hopper::smem_u32(stage + r * CH);
        hopper::named_sync(4 + wg, 128);
#pragma unroll
        for (int k = 0; k < D / 16; ++k) {
            const int g = 2 * k;   // the 8-column groups 2k and 2k + 1 of the accumulator
            const uint32_t a = pack_half2(acc[4 * g] * inv[0], acc[4 * g + 1] * inv[0]);
            const uint32_t b = pack_half2(acc[4 * g + 2] * inv[1], acc[4 * g + 3] * inv[1]);
            const uint32_t c = pack_half2(acc[4 * g + 4] * inv[0], acc[4 * g + 5] * inv[0]);
            const uint32_t d = pack_half2(acc[4 * g + 6] * inv[1], acc[4 * g + 7] * inv[1]);
            stmatrix_x4(row_at + (uint32_t)(((g + half) ^ (r & 7)) * 16), a, b, c, d);
        }
        hopper::named_sync(4 + wg, 128);
        const int t = warp * 32 + lane, ch = t % CH;
        const int row0 = q0 + wg * 64;
        uint4 *o = reinterpret_cast<uint4 *>(prm.o + ((size_t)bh * prm.seq_q + row0) * D) + ch;
        if constexpr (D == 128) {
            // Rung 20: every load unconditional and before the first store. Rung 19's loop
            // let the compiler put each load under its store's row check, computed after the
            // barrier: the loads waited for it (64x16x256x128 1.5-1.9% faster so, paired;
            // at D = 64 no faster, so rung 19's loop stays there).
            uint4 v[64 / ROWS_AT];
#pragma unroll
            for (int it = 0; it < 64 / ROWS_AT; ++it) {
                const int rr = t / CH + it * ROWS_AT;
                v[it] = stage[rr * CH + (ch ^ (rr & 7))];
            }
#pragma unroll
            for (int it = 0; it < 64 / ROWS_AT; ++it) {
                const int rr = t / CH + it * ROWS_AT;
                if (row0 + rr < prm.seq_q) o[(size_t)rr * CH] = v[it];
            }
        } else {
#pragma unroll
            for (int it = 0; it < 64 / ROWS_AT; ++it) {
                const int rr = t / CH + it * ROWS_AT;
                const uint4 v = stage[rr * CH + (ch ^ (rr & 7))];
                if (row0 + rr < prm.seq_q) o[(size_t)rr * CH] = v;
            }
        }
    }

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
        if constexpr (STAGED) {
            if (prm.o16) {   // the same for every thread: the warpgroup's barriers below are safe
                store_staged(prm, acc, wg, warp, lane, q0, bh, l);
                return;
            }
        }
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
