// mainloop.cuh: the kernel. A block's warpgroup 0 is the producer: one thread issues the
// copy engine's loads of each work item's Q and of its K and V tiles into a ring of STAGES
// slots (producer_loop). The other warpgroups consume: per K/V tile, S = Q K^T and O += P V
// as warpgroup MMAs, the online softmax between them (consumer_loop).
//
// Kernel template: D, NCONS consumer warpgroups (1: one tile per block on a 2-D grid for
// small grids; 2: ping-pong; 3: round robin, D = 64), DYN (the dynamic tile scheduler),
// KN keys per K/V tile (128 or 176), and for non-causal launches FIRST (the ragged keys go
// in the first K/V tile, TW columns of S wide, so no later tile needs a mask).
#pragma once

namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Rung 16: a descriptor's address field (bits 0-13) holds a shared address / 16, so the
// descriptor of base + off is the base's plus off / 16, when off is a multiple of 16 (every
// offset below is: 32-byte k slices, 128-byte rows) and the sum stays below 2^14 (shared
// addresses below 2^18: the GPU's 228 KB of shared memory). make_desc for each MMA masked,
// shifted and ORed the full address again: about three uniform-datapath instructions an MMA,
// 16-24 a 128-key step (ncu: evidence/nvidia-h200/studies/q_ahead/ncu_desc9_*.txt).
__device__ __forceinline__ constexpr uint64_t step_desc_offset(uint32_t off_bytes) { return off_bytes >> 4; }
// The consumer warpgroup's registers and its MMA steps. Rows: this thread holds rows r0 and
// r0 + 8 of the block (r0 = 64 wg + 16 warp + lane / 4), columns 8g + 2(lane % 4) + {0, 1}.
// PB: P in one buffer or two (p_buffers()).
template <int D, int NCONS, int PB, int KN = BN> struct Consumer {
    using C = Cfg<D, NCONS, KN>;
    // The row max and sum in four chains; one for three consumer warpgroups, whose 160
    // registers do not hold four without spilling.
    static constexpr int CHAINS = NCONS == 3 ? 1 : 4;
    float o[D / 2];
    float s[KN / 2];
    uint32_t p[PB][KN / 4];
    float m[2], l[2];
    uint32_t tiles;   // shared address of the Q tile; the K and V rings follow it
    int wg;

    // S = Q K^T of the tile in `stage`, N keys wide (KN, or the narrow first tile: TW).
    template <int N, bool FRESH = false> __device__ __forceinline__ void qk_n(int stage)
    {
        // Rung 16: the step's two base descriptors made once; each k slice's is the base with
        // its byte offset / 16 added to the address field (below).
        const uint64_t a0 = hopper::make_desc(tiles + wg * 64 * 128, 16, 1024);
        const uint64_t b0 = hopper::make_desc(tiles + C::Q_BYTES + stage * C::KV_BYTES, 16, 1024);
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            const uint32_t off = (kk % 4) * 32;   // the k slice inside a 128-byte row
            const uint64_t a = a0 + step_desc_offset((kk / 4) * C::BM * 128 + off);
            const uint64_t b = b0 + step_desc_offset((kk / 4) * KN * 128 + off);
            // FRESH (the narrow first tile's S): its first k slice only writes S, so S's old
            // values are dead there; with the accumulating form ptxas keeps them live and
            // serialises the 96- and 128-wide kernels' wgmma for want of registers (C7511).
            // The loop keeps the accumulating form (FRESH there cost 56 register moves per
            // step in the narrow kernels, and 80 bytes of spills in the full-width one).
            if (FRESH && kk == 0) hopper::mma_ss<N, true>(s, a, b, 0);
            else hopper::mma_ss<N>(s, a, b, kk > 0);
        }
        hopper::wgmma_commit();
    }
    __device__ __forceinline__ void qk(int stage) { qk_n<KN>(stage); }

    // O += P V of the tile in `stage`, its first KS * 16 keys (KN, or the narrow first tile).
    template <int B, int KS> __device__ __forceinline__ void pv_k(int stage)
    {
        const uint64_t b0 = hopper::make_desc(tiles + C::Q_BYTES + (C::STAGES + stage) * C::KV_BYTES, KN * 128, 1024);
#pragma unroll
        for (int kk = 0; kk < KS; ++kk) {
            const uint64_t b = b0 + step_desc_offset(kk * 16 * 128);
            const uint32_t(&q)[KN / 4] = p[B % PB];
            const uint32_t a[4] = {q[4 * kk], q[4 * kk + 1], q[4 * kk + 2], q[4 * kk + 3]};
            if constexpr (D == 128) hopper::mma_rs_n128(o, a, b, 1);
            else hopper::mma_rs_n64(o, a, b, 1);
        }
        hopper::wgmma_commit();
    }
    template <int B = 0> __device__ __forceinline__ void pv(int stage) { pv_k<B, KN / 16>(stage); }

    // The softmax of key tile j of work tile t (softmax_mask.cuh).
    template <bool MASK, int NW = KN>
    __device__ __forceinline__ bool softmax(int j, int t, const Params &prm, float (&alpha)[2], int kv_lim)
    {
        return online_softmax<NCONS, KN, CHAINS, MASK, NW>(s, m, l, wg, j, t, prm, alpha, kv_lim);
    }
    __device__ __forceinline__ void rescale(const float (&alpha)[2]) { rescale_o(o, alpha); }

    // P in the A-fragment order of wgmma: p[4kk + r] pairs the same elements the S
    // accumulator holds in s[8kk + 2r], s[8kk + 2r + 1].
    template <int B = 0, int NW = KN> __device__ __forceinline__ void convert()
    {
#pragma unroll
        for (int i = 0; i < NW / 4; ++i) p[B % PB][i] = pack_half2(s[2 * i], s[2 * i + 1]);
    }
};

// The block's shared memory: the Q tile, the K and V rings, then the barriers (Q full and
// empty, per stage K full, V full, K empty, V empty), the dynamic scheduler's two work-tile
// slots and the split tail's pieces.
template <class C> struct Smem {
    static constexpr int ST = C::STAGES;
    unsigned char *q_s, *k_s, *v_s;
    uint64_t *q_full, *q_empty, *k_full, *v_full, *k_empty, *v_empty;
    int *slot;   // the work tile of Q phase c is slot[c & 1]
    // The split pieces sit at a constant offset from q_full (whose address the producer
    // holds anyway: the offset folds into the loads).
    static constexpr uint32_t PIECES_AT = 8 * (2 + 4 * ST) + 8;
    static_assert(PIECES_AT + 4 * PIECE_INTS <= C::BAR_BYTES, "the split pieces fit in the barrier area");
    __device__ __forceinline__ uint32_t pieces() const { return hopper::smem_u32(q_full) + PIECES_AT; }
};

// The producer thread: the work items in order (the static round robin, the split tail's
// pieces first, or the dynamic scheduler's counter, whose tiles it hands to the consumers
// through slot[count & 1] with the Q load's mbarrier; t >= n_work there means stop), and
// for each its Q and its K/V tiles. The K/V ring's slot and phase run on across work items
// (counter `it`), Q's phase with the item count.
template <int D, int NCONS, bool DYN, int KN, bool FIRST, bool SPLIT>
__device__ __forceinline__ void producer_loop(const CUtensorMap &tm_q, const CUtensorMap &tm_k, const CUtensorMap &tm_v,
                                              const Params &prm, const Smem<Cfg<D, NCONS, KN>> &sm, int t_first)
{
    using C = Cfg<D, NCONS, KN>;
    constexpr int ST = C::STAGES;
    constexpr bool LOOP = NCONS >= 2, SLOT = DYN;
    hopper::prefetch_tmap(&tm_q);
    hopper::prefetch_tmap(&tm_k);
    hopper::prefetch_tmap(&tm_v);
    int it = 0, t = t_first;
    for (int count = 0;; ++count) {
        int j0 = 0, j1 = 0;   // SPLIT: the work item's key tiles
        if constexpr (SPLIT) {
            Item w;
            if (!item_of<true>(prm, sm.pieces(), count, w)) break;
            t = w.t;
            j0 = w.kb0;
            j1 = w.kb1;
        } else if constexpr (LOOP && !SLOT) {
            if (t >= prm.n_work) break;
        }
        // SPLIT (the chained kernels): the work item's first K goes out before its Q, whose
        // buffer frees only with the last item's last S; the next item's Q is prefetched
        // into L2 (a Q tile is read once, from DRAM).
        auto load_q = [&](int q0, int bh) {
            if (count > 0) hopper::mbar_wait(sm.q_empty, (count - 1) & 1);
            hopper::mbar_arrive_expect_tx(sm.q_full, C::Q_BYTES);
#pragma unroll
            for (int c = 0; c < C::CHUNKS; ++c)
                hopper::tma_load_3d(sm.q_s + c * C::BM * 128, &tm_q, 64 * c, q0, bh, sm.q_full);
            if constexpr (SPLIT) {
                Item nw;
                if (item_of<true>(prm, sm.pieces(), count + 1, nw)) {
                    int q0n, bhn, ntn;
                    tile_of<LOOP, C::BM, KN>(prm, nw.t, q0n, bhn, ntn);
#pragma unroll
                    for (int c = 0; c < C::CHUNKS; ++c) hopper::tma_prefetch_3d(&tm_q, 64 * c, q0n, bhn);
                }
            }
        };
        if (!SPLIT && count > 0) hopper::mbar_wait(sm.q_empty, (count - 1) & 1);
        if constexpr (SLOT) {
            hopper::handout_put(&sm.slot[count & 1], t);
            if (t >= prm.n_work) {
                hopper::mbar_arrive(sm.q_full);   // no copy: the consumers read the stop
                break;
            }
        }
        int q0, bh, n_tiles;
        tile_of<LOOP, C::BM, KN>(prm, t, q0, bh, n_tiles);
        if constexpr (!SPLIT) {
            hopper::mbar_arrive_expect_tx(sm.q_full, C::Q_BYTES);
#pragma unroll
            for (int c = 0; c < C::CHUNKS; ++c)
                hopper::tma_load_3d(sm.q_s + c * C::BM * 128, &tm_q, 64 * c, q0, bh, sm.q_full);
            j1 = n_tiles;
        }
        for (int j = j0; j < j1; ++j, ++it) {
            const int st = it % ST;
            const unsigned ph = (it / ST) & 1;
            // FIRST: tile 0 holds keys [0, r), tile j >= 1 starts at r + (j - 1) KN.
            // Tile 0 is still loaded KN keys long.
            const int key0 = FIRST && j > 0 ? j * KN + (prm.seq_kv - 1) % KN + 1 - KN : j * KN;
            if (it >= ST) hopper::mbar_wait(&sm.k_empty[st], ph ^ 1);
            hopper::mbar_arrive_expect_tx(&sm.k_full[st], C::KV_BYTES);
#pragma unroll
            for (int c = 0; c < C::CHUNKS; ++c)
                hopper::tma_load_3d(sm.k_s + st * C::KV_BYTES + c * KN * 128, &tm_k, 64 * c, key0, bh, &sm.k_full[st]);
            if (SPLIT && j == j0) load_q(q0, bh);
            if (it >= ST) hopper::mbar_wait(&sm.v_empty[st], ph ^ 1);
            hopper::mbar_arrive_expect_tx(&sm.v_full[st], C::KV_BYTES);
#pragma unroll
            for (int c = 0; c < C::CHUNKS; ++c)
                hopper::tma_load_3d(sm.v_s + st * C::KV_BYTES + c * KN * 128, &tm_v, 64 * c, key0, bh, &sm.v_full[st]);
        }
        if constexpr (!LOOP) break;
        // The next tile (the ring keeps the producer ahead of the consumers, so the
        // atomic's latency is hidden).
        if constexpr (SLOT) t = atomicAdd(prm.sched, 1) + (int)gridDim.x;
        else if constexpr (!SPLIT) t += (int)gridDim.x;
    }
    if constexpr (SLOT) {
        // This block fetches no more: count it; the last one resets the scheduler for the
        // next launch (which reads it only after griddepcontrol.wait).
        __threadfence();
        if (atomicAdd(prm.sched + 1, 1) == (int)gridDim.x - 1) {
            atomicExch(prm.sched, 0);
            atomicExch(prm.sched + 1, 0);
        }
    }
}

// A consumer warpgroup: its work items, and for each the K/V tiles in steps. Step j issues
// S(j) together with O += P(j - 1) V(j - 1) in this warpgroup's turn, then runs the softmax
// of tile j while P V(j - 1) is still on the tensor cores.
template <int D, int NCONS, bool DYN, int KN, int TW, bool FIRST>
__device__ __forceinline__ void consumer_loop(const Params &prm, const Smem<Cfg<D, NCONS, KN>> &sm, int t_first)
{
    using C = Cfg<D, NCONS, KN>;
    constexpr int ST = C::STAGES;
    constexpr bool LOOP = NCONS >= 2, SLOT = DYN;
    constexpr int PB = p_buffers<D, NCONS, DYN, KN>();
    constexpr bool CHAIN = chained<D, NCONS, DYN, KN, FIRST>();
    constexpr bool SPLIT = split_tail<D, NCONS, DYN, KN, FIRST>();
    // Tiles no row of a warpgroup sees are skipped in the three-warpgroup kernel that takes
    // its work tiles whole from key 0 (causal), whose 192-row blocks leave such tiles. (The
    // two-warpgroup kernels have none but the padding of a ragged last query block; with
    // the skip built in, the dynamic scheduler's D=64 kernel ran 5% slower.)
    constexpr bool SKIPS = NCONS == 3 && !FIRST && !CHAIN;
    // The looping kernels store O in 16-byte chunks after a transpose inside each quad;
    // one-warpgroup kernels store 4 bytes a time.
    constexpr bool WIDE = LOOP;
    using E = Epilogue<D, NCONS, KN, SPLIT, WIDE>;
    using T = Turns<NCONS>;
    const int diag = prm.seq_kv - prm.seq_q;   // bottom-right causal: row i sees keys j <= i + diag

    Consumer<D, NCONS, PB, KN> cs;
    // The warpgroup index warp-uniform (warp_uniform()): it picks the Q rows' descriptor and
    // the turn's named barriers. (One consumer warpgroup: no loop to keep it uniform in.)
    cs.wg = NCONS == 1 ? (int)(threadIdx.x / 128 - 1) : warp_uniform((int)(threadIdx.x / 128 - 1));
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    cs.tiles = hopper::smem_u32(sm.q_s);

    auto turn_begin = [&]() { T::begin(cs.wg); };
    auto turn_end = [&]() { T::end(cs.wg); };
    // Each warp frees a stage once its MMAs have read it.
    auto release = [&](uint64_t *bar) {
        __syncwarp();
        if (lane == 0) hopper::mbar_arrive(bar);
    };
    T::open(cs.wg);

    int it = 0;            // ring position, across work items
    bool primed = false;   // CHAIN: this work tile's first S and softmax are done already
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
        tile_of<LOOP, C::BM, KN>(prm, tt, q0, bh, nt);
        const int own = mine(q0, nt);
        int turns = (nt > 0 ? nt + 1 : 0) - (own > 0 ? own + 1 : 0);
        for (int j = own; j < nt; ++j, ++it, --turns) {
            const int st = it % ST;
            const unsigned ph = (it / ST) & 1;
            hopper::mbar_wait(&sm.k_full[st], ph);
            turn_begin();
            turn_end();
            release(&sm.k_empty[st]);
            hopper::mbar_wait(&sm.v_full[st], ph);
            release(&sm.v_empty[st]);
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
            if (!warp_uniform(item_of<true>(prm, sm.pieces(), count, w))) break;
            t = warp_uniform(w.t);
            kb0 = warp_uniform(w.kb0);
            kb1 = warp_uniform(w.kb1);
        } else if constexpr (LOOP && !SLOT) {
            t = t_first + count * (int)gridDim.x;
            if (t >= prm.n_work) break;
        }
        // (CHAIN, primed: waited for at the last work tile's end; waiting again could miss
        // the phase, since a one-key-tile shape lets the next Q land before this point.)
        if (!CHAIN || !primed) hopper::mbar_wait(sm.q_full, count & 1);
        if constexpr (SLOT) {
            t = warp_uniform(hopper::handout_get(&sm.slot[count & 1]));
            if (t >= prm.n_work) break;
        }
        int q0, bh, n_tiles;
        tile_of<LOOP, C::BM, KN>(prm, t, q0, bh, n_tiles);
        // SKIPS: from here on n_tiles counts this warpgroup's own tiles, those in which one
        // of its rows sees a key (mine): none when its rows are all past seq_q (the padding
        // of a last query block), fewer than the block's where the causal diagonal leaves
        // the block's last tile above all of them (192-row blocks on 128-key tiles). Their
        // P would be zero: the warpgroup skips their MMAs and softmax, and afterwards only
        // waits for and releases their stages and takes their turns (drain).
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

        if (n_tiles == 0) release(sm.q_empty);
        float alpha[2];
        if (n_tiles > 0) {
            // Prologue: S of tile 0 and its softmax. FIRST: tile 0 holds the r ragged keys;
            // its S is TW wide, and its columns from r on belong to tile 1: masked.
            // (CHAIN: done at the last work tile's end, below.)
            auto first_softmax = [&](int tt) {
                const int r = (prm.seq_kv - 1) % KN + 1;   // the first tile's keys
                if (r < TW) cs.template softmax<true, TW>(0, tt, prm, alpha, r);
                else cs.template softmax<false, TW>(0, tt, prm, alpha, prm.seq_kv);
            };
            // Rung 22 (chained on the dynamic scheduler): the next work tile's first
            // softmax, masked as the prologue masks it (its first tile is masked when no key
            // of it is before this warpgroup's diagonal or the end of the keys).
            auto next_softmax = [&](int tt, int q0n) {
                if constexpr (FIRST) {
                    first_softmax(tt);
                } else {
                    const int row = q0n + cs.wg * 64;
                    const int pe = prm.causal ? min(prm.seq_kv, row + diag + 1) : prm.seq_kv;
                    if (pe < KN) cs.template softmax<true>(0, tt, prm, alpha, prm.seq_kv);
                    else cs.template softmax<false>(0, tt, prm, alpha, prm.seq_kv);
                }
            };
            if ((!CHAIN || !primed) && SPLIT && kb0 > 0) {
                // A piece that starts inside its tile (a block's first item only): a whole
                // key tile, no mask; O is zero, nothing to rescale.
                const int st = it % ST;
                hopper::mbar_wait(&sm.k_full[st], (it / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.qk(st);
                turn_end();
                hopper::wgmma_wait<0>();
                hopper::reg_fence(cs.s);
                release(&sm.k_empty[st]);
                if (kb1 - kb0 == 1) release(sm.q_empty);
                cs.template softmax<false>(kb0, t, prm, alpha, prm.seq_kv);
                cs.convert();
            } else if (!CHAIN || !primed) {
                const int st = it % ST;
                hopper::mbar_wait(&sm.k_full[st], (it / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.template qk_n<TW, (TW != KN)>(st);
                turn_end();
                hopper::wgmma_wait<0>();
                hopper::reg_fence_first<TW / 2>(cs.s);
                release(&sm.k_empty[st]);
                if (kb1 == 1) release(sm.q_empty);
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
                hopper::mbar_wait(&sm.k_full[st], (it / ST) & 1);
                hopper::mbar_wait(&sm.v_full[sp], (ip / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.qk(st);                             // S(j)
                cs.template pv_k<B ^ 1, WP / 16>(sp);   // O += P(j - 1) V(j - 1)
                turn_end();
                hopper::wgmma_wait<1>();   // S(j) is in; P V may still run
                hopper::reg_fence(cs.s);
                release(&sm.k_empty[st]);
                if (j == kb1 - 1) release(sm.q_empty);
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
                release(&sm.v_empty[sp]);
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
            // costs far more than its masked steps (4-7% at causal D=128 and 2x32x8192x64).
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
                // chosen per tile; two loops made the causal headline 1.7% slower.
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
            bool more = false;
            int q0n = 0;   // the next work tile's first row (chained on the dynamic scheduler)
            if constexpr (CHAIN && SLOT) {
                // The next work tile from the hand-out slot, once its Q barrier has completed
                // (the producer writes the slot before the Q load; a stop arrives without
                // one). A next tile without keys (rows that see none) is not chained.
                hopper::mbar_wait(sm.q_full, (count + 1) & 1);
                nx.t = warp_uniform(hopper::handout_get(&sm.slot[(count + 1) & 1]));
                nx.kb1 = 0;
                if (nx.t < prm.n_work) {
                    int bhn, ntn;
                    tile_of<LOOP, C::BM, KN>(prm, nx.t, q0n, bhn, ntn);
                    nx.kb1 = warp_uniform(ntn);
                    q0n = warp_uniform(q0n);
                }
                more = nx.kb1 > 0;
                // Not chained: the next tile starts with its own wait and prologue (primed
                // describes the next tile from here on).
                if (!more) primed = false;
            } else {
                more = CHAIN && warp_uniform(item_of<SPLIT>(prm, sm.pieces(), count + 1, nx));
                if (CHAIN) {
                    nx.t = warp_uniform(nx.t);
                    nx.kb1 = warp_uniform(nx.kb1);
                }
            }
            if (E::is_piece(prm, sm.pieces(), count)) E::stash(prm, count, cs.m, cs.l);   // m and l are final; the last P V changes only O
            if (CHAIN && more) {
                // The next work tile's S(0) beside this one's last P V (one turn), the next
                // tile's softmax(0) while that P V runs, then this tile's stores.
                const int sn = (it + 1) % ST;   // the next work tile's tile 0
                if constexpr (!SLOT) hopper::mbar_wait(sm.q_full, (count + 1) & 1);
                hopper::mbar_wait(&sm.k_full[sn], ((it + 1) / ST) & 1);
                hopper::mbar_wait(&sm.v_full[sl], (it / ST) & 1);
                turn_begin();
                hopper::wgmma_fence();
                cs.template qk_n<TW, (TW != KN)>(sn);
                if (TW != KN && kb1 == 1) cs.template pv_k<0, TW / 16>(sl);
                else cs.template pv<0>(sl);
                turn_end();
                hopper::wgmma_wait<1>();   // the next S(0) is in; the last P V may still run
                hopper::reg_fence_first<TW / 2>(cs.s);
                release(&sm.k_empty[sn]);
                if (nx.kb1 == 1) release(sm.q_empty);   // the next tile's last S
                const float l_done[2] = {cs.l[0], cs.l[1]};   // this tile's, before the next softmax resets l
                cs.m[0] = cs.m[1] = -INFINITY;
                cs.l[0] = cs.l[1] = 0.f;
                next_softmax(nx.t, q0n);
                hopper::wgmma_wait<0>();
                hopper::reg_fence(cs.o);
                hopper::reg_fence(cs.p[0]);
                release(&sm.v_empty[sl]);
                ++it;
                E::finish(prm, sm.pieces(), cs.o, cs.wg, warp, lane, t, count, l_done);
#pragma unroll
                for (int i = 0; i < D / 2; ++i) cs.o[i] = 0.f;
                cs.template convert<0, TW>();   // P(0) of the next tile (P V(last) has read P)
                primed = true;
                continue;
            }
            hopper::mbar_wait(&sm.v_full[sl], (it / ST) & 1);
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
            release(&sm.v_empty[sl]);
            ++it;
        }
        if constexpr (SKIPS) drain(t);
        E::finish(prm, sm.pieces(), cs.o, cs.wg, warp, lane, t, count, cs.l);
        if constexpr (!LOOP) break;
    }
    T::close(cs.wg);
}
#endif

template <int D, int NCONS, bool DYN, int KN = BN, int TW = KN, bool FIRST = false>
__global__ void __launch_bounds__(Cfg<D, NCONS, KN>::THREADS, 1)
hopper_attention(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                 const __grid_constant__ CUtensorMap tm_v, const Params prm)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using C = Cfg<D, NCONS, KN>;
    constexpr int ST = C::STAGES;
    static_assert(!FIRST || !DYN, "ragged keys first: static tile order");
    static_assert(TW == KN || (FIRST && KN == 176 && (TW == 48 || TW == 96 || TW == 128)),
                  "a narrow first tile: 176-key tiles, ragged keys first");
    // Rung 21: the dynamic scheduler serves the three-warpgroup kernel too (rung 09: two only);
    // nothing of the hand-out depends on the count of consumer warpgroups.
    static_assert(!DYN || NCONS >= 2, "the dynamic scheduler serves the looping kernels");
    constexpr bool LOOP = NCONS >= 2;
    constexpr bool SPLIT = split_tail<D, NCONS, DYN, KN, FIRST>();
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));   // swizzle atoms: 1024-aligned
    Smem<C> sm;
    sm.q_s = smem;
    sm.k_s = sm.q_s + C::Q_BYTES;
    sm.v_s = sm.k_s + ST * C::KV_BYTES;
    sm.q_full = reinterpret_cast<uint64_t *>(sm.v_s + ST * C::KV_BYTES);
    sm.q_empty = sm.q_full + 1;
    sm.k_full = sm.q_full + 2;
    sm.v_full = sm.k_full + ST;
    sm.k_empty = sm.v_full + ST;
    sm.v_empty = sm.k_empty + ST;
    sm.slot = reinterpret_cast<int *>(sm.v_empty + ST);

    // A looping block starts at work tile t = blockIdx.x (a persistent grid of one block
    // per SM, or one per tile); a one-tile block takes its one tile off its 2-D grid.
    const int t_first = LOOP ? (int)blockIdx.x : (int)(blockIdx.y * gridDim.x + blockIdx.x);

    if (threadIdx.x == 0) {
        hopper::mbar_init(sm.q_full, 1);
        hopper::mbar_init(sm.q_empty, 4 * NCONS);
        for (int i = 0; i < ST; ++i) {
            hopper::mbar_init(&sm.k_full[i], 1);
            hopper::mbar_init(&sm.v_full[i], 1);
            hopper::mbar_init(&sm.k_empty[i], 4 * NCONS);   // one arrival per consumer warp
            hopper::mbar_init(&sm.v_empty[i], 4 * NCONS);
        }
        hopper::fence_barrier_init();
        if constexpr (SPLIT)
            split_pieces(prm, reinterpret_cast<int *>(reinterpret_cast<unsigned char *>(sm.q_full) + Smem<C>::PIECES_AT));
    }
    // Programmatic dependent launch: the next launch in the stream may start its blocks
    // (barrier set-up) now; nothing here reads Q/K/V or writes O before the previous
    // launch has completed (griddepcontrol.wait; a no-op without the launch attribute).
    hopper::launch_dependents();
    hopper::wait_prior_grid();
    __syncthreads();

    if (threadIdx.x < 128) {
        if constexpr (NCONS >= 2) hopper::regs_dec<C::template REG_PRODUCER<DYN>>();
        if (threadIdx.x == 0) producer_loop<D, NCONS, DYN, KN, FIRST, SPLIT>(tm_q, tm_k, tm_v, prm, sm, t_first);
        return;
    }
    if constexpr (NCONS >= 2) hopper::regs_inc<C::template REG_CONSUMER<DYN>>();
    consumer_loop<D, NCONS, DYN, KN, TW, FIRST>(prm, sm, t_first);
#else
    (void)tm_q, (void)tm_k, (void)tm_v, (void)prm;
#endif
}

}  // namespace
