// tile_scheduler.cuh: which work tile a block takes next. A work tile is one query block
// (64 rows per consumer warpgroup) of one head; a work item is a whole work tile or, in the
// split tail, a piece of one (a range of its key tiles). The host picks the order and the
// grid (host_choice.cuh); the producer and the consumers of a block each derive the same
// items from it, or (the dynamic scheduler) the producer hands them out.
#pragma once

namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// v as lane 0 holds it: ptxas then knows the value is the same in every lane of the warp and
// keeps what derives from it (loop counts, the K/V ring position, the descriptors) on the
// uniform datapath. Values loaded from shared memory or derived from threadIdx are not
// known uniform otherwise, and each R2UR that moves one into a uniform register inside the
// main loop cost 1.4-6.6% (paired).
__device__ __forceinline__ int warp_uniform(int v)
{
    return __shfl_sync(0xffffffffu, v, 0);
}

// Work tile t -> query block (0 = the first rows; each head's last, heaviest causal block
// gets the smallest t) and batch * head. A looping block (two or more consumer
// warpgroups) derives them from t; a one-tile block reads them off its 2-D grid, with no
// integer division on the short critical path of the small grids it serves.
// Looping blocks take the tiles in groups of 2^p.group_log2 heads (a power of two that
// divides batch * heads): inside a group the query-block rank runs slowest (every head's
// heaviest causal block first), the groups one after the other. One head per group
// (non-causal) is the plain head-major order; causal shapes use several, so that the last
// tiles handed out are light ones.
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

// Work tile t's first query row q0, its batch * head and its key tiles: all of them, or
// (causal) those up to the diagonal of its last row. Bottom-right causal: row i sees keys
// j <= i + seq_kv - seq_q.
template <bool LOOP, int BM, int KN>
__device__ __forceinline__ void tile_of(const Params &pr, int t, int &q0, int &bh, int &n_tiles)
{
    int qb;
    tile_coords<LOOP>(pr, t, qb, bh);
    q0 = qb * BM;
    int kv_end = pr.seq_kv;
    if (pr.causal) kv_end = min(kv_end, min(q0 + BM, pr.seq_q) + pr.seq_kv - pr.seq_q);
    n_tiles = kv_end > 0 ? (kv_end + KN - 1) / KN : 0;
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
#endif

}  // namespace
