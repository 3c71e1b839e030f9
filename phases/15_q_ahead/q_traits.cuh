// q_traits.cuh: rung 09's Cfg (its kernel_traits.cuh) with room for two Q tiles. The
// second sits after the V ring, so the K and V rings keep their offsets from the first
// (every descriptor of rung 09's kernel but S's A operand is unchanged); the barrier area
// holds a full and an empty barrier for each Q tile. Compiled inside namespace qahead
// (q_ahead.cu): the kernel of q_mainloop.cuh finds this Cfg first; rung 09's constants
// (BN, width176), Params and the p_buffers / chained / split_tail rules are rung 09's.
// Everything but QB, Q1_AT, TILE_BYTES and BAR_BYTES is rung 09's, line for line.
#pragma once

namespace {

template <int D, int NCONS, int KN = BN> struct Cfg {
    static constexpr int BM = 64 * NCONS;
    static_assert(KN == 128, "two Q buffers in the 128-key kernels only (the 176-key kernel is not taken)");
    static constexpr int THREADS = 128 * (NCONS + 1);
    static constexpr int STAGES = D == 64 ? 3 : 2;        // K/V ring depth
    static constexpr int CHUNKS = D / 64;                 // 64-column chunks of 128 bytes
    static_assert(CHUNKS * 64 == D, "D is a multiple of 64");
    static constexpr int Q_BYTES = BM * D * 2;
    static constexpr int KV_BYTES = KN * D * 2;
    static constexpr int QB = 2;                                        // Q tiles
    static constexpr int Q1_AT = Q_BYTES + 2 * STAGES * KV_BYTES;       // the second, after the V ring
    static constexpr int TILE_BYTES = QB * Q_BYTES + 2 * STAGES * KV_BYTES;
    static constexpr int BAR_BYTES = 8 * (2 * QB + 4 * STAGES) + 8 + 32;   // + two work-tile slots, split pieces
    static constexpr int SMEM = 1024 + TILE_BYTES + BAR_BYTES;   // 1024: alignment slack
    static_assert(SMEM <= 227 * 1024, "fits the sm_90 per-block limit");
    // setmaxnreg as rung 09's: the producer keeps 24 (two consumer warpgroups) or 32 (three),
    // the consumers share the rest. The second Q buffer is shared memory only: the
    // producer's one extra index and phase fit its 24 registers (ptxas reports no spill in
    // the two-warpgroup kernels; README for the three-warpgroup kernel's).
    template <bool DYN> static constexpr int REG_PRODUCER = NCONS == 2 ? (DYN || KN == 176 ? 40 : 24) : 32;
    template <bool DYN> static constexpr int REG_CONSUMER = NCONS == 2 ? (DYN || KN == 176 ? 232 : 240) : 160;
    static_assert(NCONS == 1 || (REG_PRODUCER<true> + NCONS * REG_CONSUMER<true>) * 128 <= 65536, "register file");
    static_assert(NCONS == 1 || (REG_PRODUCER<false> + NCONS * REG_CONSUMER<false>) * 128 <= 65536, "register file");
};

}  // namespace
