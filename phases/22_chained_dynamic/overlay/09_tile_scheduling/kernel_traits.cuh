// kernel_traits.cuh: what one kernel of the rung is. Its tile sizes, shared memory and
// register split (Cfg), the launch's parameters (Params), and which of the scheduling
// features a kernel has: two P buffers, chained work tiles, the split tail.
#pragma once

namespace {

constexpr float LOG2E = 1.4426950408889634f;
constexpr int BN = 128;   // keys per K/V tile (every kernel but the 176-key ones: Cfg's KN)

// With 176-key tiles, the S width of a K/V tile holding rem (1..176) keys: the narrowest
// wgmma N of 48, 96, 128 and 176 that covers them, so a ragged tile multiplies only the
// columns it has.
__host__ __device__ constexpr int width176(int rem) { return rem <= 48 ? 48 : rem <= 96 ? 96 : rem <= 128 ? 128 : 176; }

template <int D, int NCONS, int KN = BN> struct Cfg {
    static constexpr int BM = 64 * NCONS;
    static_assert(KN == 128 || KN == 176, "K/V tiles of 128 or 176 keys (the S wgmma wrappers that exist)");
    static constexpr int THREADS = 128 * (NCONS + 1);
    static constexpr int STAGES = D == 64 ? 3 : 2;        // K/V ring depth
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
    // and next-Q prefetch spill in 24) or 32 (three) registers, the consumers share the
    // rest of the 64K-register file (multiples of 8). One consumer warpgroup needs no move.
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
    // The split tail (chained kernels; tile_scheduler.cuh): the work tiles from n_dp on are
    // not taken whole but cut into sk_units = (n_work - n_dp) * n_kt key tiles, dealt to the
    // blocks in equal contiguous ranges before their whole tiles. sk_units = 0: every tile
    // whole (n_dp = n_work).
    int n_dp, n_kt;     // n_kt: key tiles per work tile (non-causal: the same for all)
    int sk_units;       // G * sk_units < 2^31 (split_plan), so b * sk_units / G is 32-bit
    float4 *part;       // workspace: a split piece's O, m and l per (block, piece, consumer thread)
    int *part_count;    // arrivals per (tail tile, consumer warp); zero between launches
    int o16;            // o is 16-byte aligned: the looping kernels store 16-byte chunks
};

// P in two register buffers at two consumer warpgroups: P(j) is converted into one while
// P V(j - 1) still reads the other, before the wait for that MMA instead of after it (0.3-0.8%
// faster, paired). Three consumer warpgroups (160 registers), the one-warpgroup path and the
// dynamic scheduler at D = 128 (232 registers) keep one, since a second buffer spills there;
// so do 176-key tiles, whose S takes 88 registers.
template <int D, int NCONS, bool DYN, int KN> __host__ __device__ constexpr int p_buffers()
{
    return NCONS == 2 && !(DYN && D == 128) && KN == BN ? 2 : 1;
}
// Work tiles chained, in the looping ragged-first kernels with one P buffer: the next work
// tile's first S is issued beside this one's last P V and its softmax runs before this one's
// stores, so the tensor cores do not wait out the epilogue and the prologue at every work
// tile.
// Rung 22: the dynamic scheduler's two-warpgroup kernel with one P buffer (D = 128) is
// chained too: the next work tile comes from the hand-out slot (the three-warpgroup kernel
// keeps its causal skip, which a chained loop does not have).
template <int D, int NCONS, bool DYN, int KN, bool FIRST> __host__ __device__ constexpr bool chained()
{
    return (FIRST ? NCONS >= 2 && !DYN : DYN && NCONS == 2) && p_buffers<D, NCONS, DYN, KN>() == 1;
}
// The split tail, in the chained kernels: the work tiles of the last, partly filled round
// are cut into key-tile pieces spread over every block (tile_scheduler.cuh), and the last
// piece of a tile to finish merges the others' partial O from the workspace (epilogue.cuh).
// The host turns it on per launch (split_plan).
template <int D, int NCONS, bool DYN, int KN, bool FIRST> __host__ __device__ constexpr bool split_tail()
{
    return FIRST && chained<D, NCONS, DYN, KN, FIRST>();
}

}  // namespace
