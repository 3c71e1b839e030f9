// latency_kernel.cuh: the latency kernel. One warpgroup serves a query block of 64 rows:
// every K/V tile of its key share is loaded at once (at most LAT_MAXT, no ring and no
// producer warp). One tile: S is one batch of wgmma, the softmax is taken once, and
// O += P V is one more batch. Two tiles: S of each is issued as its tile lands and the
// tensor cores finish the second while the first's softmax runs, then P0 V runs while the
// second's softmax does (one online rescale of O and the sum, lat_compute2). The share is
// all the keys the block's rows see (csize = 1: the block stores its rows from registers),
// or half of them (csize = 2: two blocks of a thread-block cluster, whose partial results,
// O unnormalised with the row max m and row sum l, are sent by asynchronous stores into the
// owner's shared memory that complete the owner's mbarrier, then merged and stored).
//
// Register layout: rung 09's (hopper_ptx.cuh): a thread holds rows r0 and r0 + 8 of the 64
// (r0 = 16 warp + lane / 4), S column 8g + 2(lane % 4) + c of row r0 + 8i in s[4g + 2i + c].
#pragma once

namespace {

constexpr int LAT_KT = 128;   // keys per K/V tile: one S wgmma of N = 128
constexpr int LAT_MAXT = 2;   // K/V tiles a block holds, all loaded at once

template <int D> struct LatCfg {
    static constexpr int CHUNKS = D / 64;                 // 64-column chunks of 128 bytes (the layout rule)
    static constexpr int Q_BYTES = 64 * D * 2;
    static constexpr int KV_BYTES = LAT_KT * D * 2;
    static constexpr int MERGE_BYTES = 4 * (D / 8 + 1) * 32 * 16;   // LatMerge<D>::BYTES
    static constexpr int SMEM = 1024 + Q_BYTES + 2 * LAT_MAXT * KV_BYTES + MERGE_BYTES + 40;   // + five mbarriers
    static_assert(SMEM <= 227 * 1024, "fits the sm_90 per-block limit");
};

struct LatParams {
    __half *o;
    int seq_q, seq_kv, causal;
    int cs;      // blocks (a cluster) that split a query block's keys: 1 or 2
    float scale_log2;
    int o16;     // o is 16-byte aligned
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Issues S = Q K^T of one key tile (at kt) into s (FRESH first k slice); lat_qk_start
// fences and commits, the caller waits.
template <int D>
__device__ __forceinline__ void lat_qk_issue(float (&s)[LAT_KT / 2], uint32_t qa, uint32_t kt)
{
    namespace hp = rung09::hopper;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const uint32_t off = (kk % 4) * 32;   // the k slice inside a 128-byte row
        const uint64_t a = hp::make_desc(qa + (kk / 4) * 64 * 128 + off, 16, 1024);
        const uint64_t b = hp::make_desc(kt + (kk / 4) * LAT_KT * 128 + off, 16, 1024);
        if (kk == 0) hp::mma_ss_n128<true>(s, a, b, 0);
        else hp::mma_ss_n128(s, a, b, 1);
    }
}

// The softmax of one row (i: this thread's r0 or r0 + 8) over one key tile (from key0):
// masked past `lim` (the causal diagonal, seq_kv, the end of the share), the max over the
// quad and over m_prev (the tiles before this one), the exponentials against it (the scale
// folded into one FMA), this thread's partial sum. Returns the row max (raw score units;
// -inf when the row sees no key yet).
__device__ __forceinline__ float lat_softmax_row(float (&s)[LAT_KT / 2], int i, int key0, int lim, float scale_log2,
                                                 float &sum, float m_prev = -INFINITY)
{
    const int lane = threadIdx.x % 32;
    if (key0 + LAT_KT > lim) {
#pragma unroll
        for (int g = 0; g < LAT_KT / 8; ++g)
#pragma unroll
            for (int c = 0; c < 2; ++c)
                if (key0 + 8 * g + 2 * (lane % 4) + c >= lim) s[4 * g + 2 * i + c] = -INFINITY;
    }
    float mx4[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};   // four chains: the max is the softmax's latency
#pragma unroll
    for (int g = 0; g < LAT_KT / 8; ++g) mx4[g % 4] = fmaxf(mx4[g % 4], fmaxf(s[4 * g + 2 * i], s[4 * g + 2 * i + 1]));
    float mx = fmaxf(fmaxf(mx4[0], mx4[1]), fmaxf(mx4[2], mx4[3]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    mx = fmaxf(mx, m_prev);   // the same across the quad
    // A row that sees no key yet keeps max -inf: its exponentials are 0, not NaN.
    const float ms = mx == -INFINITY ? 0.f : mx * scale_log2;
    float sm4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int g = 0; g < LAT_KT / 8; ++g)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            float &x = s[4 * g + 2 * i + c];
            x = rung09::ex2(fmaf(x, scale_log2, -ms));
            sm4[g % 4] += x;
        }
    sum = (sm4[0] + sm4[1]) + (sm4[2] + sm4[3]);
    return mx;
}

// Issues O += P V of one key tile (V at vt), P from registers in wgmma's A-fragment order;
// lat_pv_start fences and commits, the caller waits (and keeps pf until the wait).
template <int D>
__device__ __forceinline__ void lat_pv_issue(float (&o)[D / 2], const uint32_t (&pf)[LAT_KT / 4], uint32_t vt)
{
    namespace hp = rung09::hopper;
#pragma unroll
    for (int kk = 0; kk < LAT_KT / 16; ++kk) {
        const uint64_t b = hp::make_desc(vt + kk * 16 * 128, LAT_KT * 128, 1024);
        const uint32_t a[4] = {pf[4 * kk], pf[4 * kk + 1], pf[4 * kk + 2], pf[4 * kk + 3]};
        if constexpr (D == 128) hp::mma_rs_n128(o, a, b, 1);
        else hp::mma_rs_n64(o, a, b, 1);
    }
}

// P of one tile to fp16 pairs in registers (wgmma's A-fragment order).
__device__ __forceinline__ void lat_pack(const float (&s)[LAT_KT / 2], uint32_t (&pf)[LAT_KT / 4])
{
#pragma unroll
    for (int j = 0; j < LAT_KT / 4; ++j) pf[j] = rung09::pack_half2(s[2 * j], s[2 * j + 1]);
}

// The merge of a query block's cs partial results (cs = 1, 2 or 4). Warp w's 16 rows are
// finished by the block of split w * cs / 4 (the owner): every other block of the query
// block stores its partial of those rows (O unnormalised, m, l) into the owner's shared
// memory in its own register layout, so the owner's thread reads exactly the elements it
// holds: per warp slot, U float4 per lane, lane-major (512 contiguous bytes per float4 of a
// warp: no bank conflicts). The owner weighs each partial by 2^(m - max) and stores.
template <int D> struct LatMerge {
    static constexpr int U = D / 8 + 1;   // float4 per thread: O (D / 2 floats), then m[2], l[2]
    static constexpr int SLOT_BYTES = U * 32 * 16;
    static constexpr int BYTES = 4 * SLOT_BYTES;   // slots: (sender split, warp) pairs an owner receives, at most 4
    __device__ __forceinline__ static int owner(int warp, int cs) { return warp * cs / 4; }
    // The slot in the owner of warp w's rows for the partial of split s: the owner takes
    // 4 / cs warps, each from cs splits.
    __device__ __forceinline__ static int slot(int warp, int s, int cs) { return s * (4 / cs) + warp % (4 / cs); }
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
template <int D>
__device__ __forceinline__ void lat_send(const float (&o)[D / 2], const float (&m)[2], const float (&l)[2],
                                         uint32_t merge_at, uint32_t bar_at, int base, int split, int cs)
{
    using M = LatMerge<D>;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int f = M::owner(warp, cs);
    if (f == split) return;
    const uint32_t dst = cluster::map(merge_at + (uint32_t)(M::slot(warp, split, cs) * M::SLOT_BYTES + lane * 16),
                                      (uint32_t)(base + f));
    const uint32_t rbar = cluster::map(bar_at, (uint32_t)(base + f));   // the owner's barrier
#pragma unroll
    for (int u = 0; u < D / 8; ++u) cluster::store4_async(dst + u * 512, o[4 * u], o[4 * u + 1], o[4 * u + 2], o[4 * u + 3], rbar);
    cluster::store4_async(dst + (D / 8) * 512, m[0], m[1], l[0], l[1], rbar);
}

// The owner's rows: the other splits' partials added to its own (o, m, l), then o holds the
// merged output normalised by the merged row sum (0 for a row that saw no key at all, as
// the ABI says).
template <int D>
__device__ __forceinline__ void lat_receive(float (&o)[D / 2], const float (&m)[2], const float (&l)[2],
                                            uint32_t merge, int split, int cs, float scale_log2)
{
    using M = LatMerge<D>;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float mx[2] = {m[0], m[1]};
    for (int s = 0; s < cs; ++s) {
        if (s == split) continue;
        const float4 ml = cluster::lds4(merge + M::slot(warp, s, cs) * M::SLOT_BYTES + (D / 8) * 512 + lane * 16);
        mx[0] = fmaxf(mx[0], ml.x);
        mx[1] = fmaxf(mx[1], ml.y);
    }
    auto weight = [&](float mi, int i) { return mi == -INFINITY ? 0.f : rung09::ex2((mi - mx[i]) * scale_log2); };
    float w[2] = {weight(m[0], 0), weight(m[1], 1)};
    float lsum[2] = {w[0] * l[0], w[1] * l[1]};
#pragma unroll
    for (int u = 0; u < D / 8; ++u) {
        o[4 * u] *= w[0], o[4 * u + 1] *= w[0], o[4 * u + 2] *= w[1], o[4 * u + 3] *= w[1];
    }
    for (int s = 0; s < cs; ++s) {
        if (s == split) continue;
        const uint32_t src = merge + M::slot(warp, s, cs) * M::SLOT_BYTES + lane * 16;
        const float4 ml = cluster::lds4(src + (D / 8) * 512);
        const float ws[2] = {weight(ml.x, 0), weight(ml.y, 1)};
        lsum[0] += ws[0] * ml.z;
        lsum[1] += ws[1] * ml.w;
#pragma unroll
        for (int u = 0; u < D / 8; ++u) {
            const float4 v = cluster::lds4(src + u * 512);
            o[4 * u] = fmaf(ws[0], v.x, o[4 * u]);
            o[4 * u + 1] = fmaf(ws[0], v.y, o[4 * u + 1]);
            o[4 * u + 2] = fmaf(ws[1], v.z, o[4 * u + 2]);
            o[4 * u + 3] = fmaf(ws[1], v.w, o[4 * u + 3]);
        }
    }
    // The approximate reciprocal (one MUFU.RCP): __frcp_rn's exact rounding is a
    // subroutine with a slow path, on the path to the store.
    const float inv[2] = {lsum[0] > 0.f ? __fdividef(1.f, lsum[0]) : 0.f, lsum[1] > 0.f ? __fdividef(1.f, lsum[1]) : 0.f};
#pragma unroll
    for (int u = 0; u < D / 8; ++u) {
        o[4 * u] *= inv[0], o[4 * u + 1] *= inv[0], o[4 * u + 2] *= inv[1], o[4 * u + 3] *= inv[1];
    }
}

// This thread's two rows of the normalised output (rows r0 and r0 + 8 of the query block at
// q0): 16-byte chunks after a transpose inside each quad (rung 09's), 4-byte stores where o
// is only 4-byte aligned. Rows past seq_q are not stored.
template <int D>
__device__ __forceinline__ void lat_store(const float (&o)[D / 2], const LatParams &p, int q0, int bh)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __half *out = p.o + (size_t)bh * p.seq_q * D;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int row = q0 + warp * 16 + lane / 4 + 8 * i;
        if (p.o16) {
            uint4 *dst = reinterpret_cast<uint4 *>(out + (size_t)row * D) + lane % 4;
#pragma unroll
            for (int k = 0; k < D / 32; ++k) {
                uint32_t mm[4], t[4];
#pragma unroll
                for (int j = 0; j < 4; ++j) mm[j] = rung09::pack_half2(o[4 * (4 * k + j) + 2 * i], o[4 * (4 * k + j) + 2 * i + 1]);
                rung09::quad_transpose(mm, lane % 4, t);   // every lane, before the row test
                if (row < p.seq_q) dst[4 * k] = make_uint4(t[0], t[1], t[2], t[3]);
            }
        } else if (row < p.seq_q) {
            __half2 *dst = reinterpret_cast<__half2 *>(out + (size_t)row * D + 2 * (lane % 4));
#pragma unroll
            for (int g = 0; g < D / 8; ++g) dst[4 * g] = __floats2half2_rn(o[4 * g + 2 * i], o[4 * g + 2 * i + 1]);
        }
    }
}
#endif

// The barriers (LatBar): Q with K tile 0, K tile 1, V tile 0, V tile 1 (each completes when
// its bytes land, so S of the first tile starts before the second has landed), and the
// partials a cluster pair's owner receives (cs = 2).
enum LatBar { LB_K0 = 0, LB_K1 = 1, LB_V0 = 2, LB_V1 = 3, LB_MERGE = 4 };

// S of one key tile (at kt) issued as one wgmma group once the tile's barrier says it landed.
template <int D>
__device__ __forceinline__ void lat_qk_start(float (&s)[LAT_KT / 2], uint32_t qa, uint32_t kt, uint64_t *tile_bar)
{
    namespace hp = rung09::hopper;
    hp::mbar_wait(tile_bar, 0);
    hp::wgmma_fence();
    lat_qk_issue<D>(s, qa, kt);
    hp::wgmma_commit();
}

// O += P V of one key tile (V at vt) issued as one wgmma group once V has landed; pf is kept
// until the group is waited for.
template <int D>
__device__ __forceinline__ void lat_pv_start(float (&o)[D / 2], const uint32_t (&pf)[LAT_KT / 4], uint32_t vt,
                                             uint64_t *tile_bar)
{
    namespace hp = rung09::hopper;
    hp::mbar_wait(tile_bar, 0);
    hp::wgmma_fence();
    lat_pv_issue<D>(o, pf, vt);
    hp::wgmma_commit();
}

// S, the softmax and O += P V of the warpgroup's one key tile (from key0), this thread's
// rows r0 and r0 + 8 of the query block at q0: o, m and l.
template <int D>
__device__ __forceinline__ void lat_compute1(float (&o)[D / 2], float (&m)[2], float (&l)[2], uint32_t qa, uint32_t ka,
                                             uint32_t va, uint64_t *bar, const LatParams &p, int q0, int key0)
{
    namespace hp = rung09::hopper;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int diag = p.seq_kv - p.seq_q;
    float s[LAT_KT / 2];
    lat_qk_start<D>(s, qa, ka, &bar[LB_K0]);
    hp::wgmma_wait<0>();
    hp::reg_fence(s);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int row = q0 + warp * 16 + lane / 4 + 8 * i;
        const int lim = min(key0 + LAT_KT, p.causal ? min(p.seq_kv, row + diag + 1) : p.seq_kv);
        m[i] = lat_softmax_row(s, i, key0, lim, p.scale_log2, l[i]);
    }
    uint32_t pf[LAT_KT / 4];
    lat_pack(s, pf);
    lat_pv_start<D>(o, pf, va, &bar[LB_V0]);
    hp::wgmma_wait<0>();
    hp::reg_fence(o);
}

// S, the softmax and O += P V of two tiles, with the tensor cores overlapping the softmax: S
// of each tile is issued as its own group when the tile lands, and the softmax of the first
// runs while the second's S finishes; P0 V is issued before the second tile's softmax,
// which runs while it finishes. The first
// tile's exponentials are against its own row max, so O and the sum are rescaled by
// 2^(m0 - m) once the second tile's max is known (the online softmax, for one step).
template <int D>
__device__ __forceinline__ void lat_compute2(float (&o)[D / 2], float (&m)[2], float (&l)[2], uint32_t qa, uint32_t ka,
                                             uint32_t va, uint64_t *bar, const LatParams &p, int q0, int key0)
{
    namespace hp = rung09::hopper;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int diag = p.seq_kv - p.seq_q;
    float s[2][LAT_KT / 2];
    lat_qk_start<D>(s[0], qa, ka, &bar[LB_K0]);
    lat_qk_start<D>(s[1], qa, ka + LatCfg<D>::KV_BYTES, &bar[LB_K1]);
    hp::wgmma_wait<1>();   // the first tile's S; the second's still in flight
    hp::reg_fence(s[0]);
    int lim[2];
    float m0[2], l0[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int row = q0 + warp * 16 + lane / 4 + 8 * i;
        lim[i] = min(key0 + 2 * LAT_KT, p.causal ? min(p.seq_kv, row + diag + 1) : p.seq_kv);
        m0[i] = lat_softmax_row(s[0], i, key0, lim[i], p.scale_log2, l0[i]);
    }
    uint32_t pf0[LAT_KT / 4], pf1[LAT_KT / 4];
    lat_pack(s[0], pf0);
    lat_pv_start<D>(o, pf0, va, &bar[LB_V0]);
    hp::wgmma_wait<1>();   // the second tile's S (committed before P0 V); P0 V still in flight
    hp::reg_fence(s[1]);
    float alpha[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        float l1;
        m[i] = lat_softmax_row(s[1], i, key0 + LAT_KT, lim[i], p.scale_log2, l1, m0[i]);
        alpha[i] = m0[i] == -INFINITY ? 0.f : rung09::ex2((m0[i] - m[i]) * p.scale_log2);
        l[i] = fmaf(l0[i], alpha[i], l1);
    }
    lat_pack(s[1], pf1);
    hp::wgmma_wait<0>();   // P0 V
    hp::reg_fence(o);
    hp::reg_fence(pf0);
#pragma unroll
    for (int u = 0; u < D / 8; ++u) {
        o[4 * u] *= alpha[0], o[4 * u + 1] *= alpha[0], o[4 * u + 2] *= alpha[1], o[4 * u + 3] *= alpha[1];
    }
    lat_pv_start<D>(o, pf1, va + LatCfg<D>::KV_BYTES, &bar[LB_V1]);
    hp::wgmma_wait<0>();
    hp::reg_fence(o);
}
#endif

template <int D>
__global__ void __launch_bounds__(128, 1)
latency_attention(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                  const __grid_constant__ CUtensorMap tm_v, const LatParams p)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    namespace hp = rung09::hopper;
    using L = LatCfg<D>;
    extern __shared__ unsigned char smem_raw[];
    unsigned char *q_s = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));   // swizzle atoms: 1024-aligned
    unsigned char *k_s = q_s + L::Q_BYTES;
    unsigned char *v_s = k_s + LAT_MAXT * L::KV_BYTES;
    unsigned char *merge = v_s + LAT_MAXT * L::KV_BYTES;
    uint64_t *bar = reinterpret_cast<uint64_t *>(merge + L::MERGE_BYTES);   // LatBar

    // csize = 2: the two blocks of a cluster (rank = split) share the query block's keys.
    const int cs = p.cs, split = cs > 1 ? (int)cluster::rank() : 0;
    // cs is 1 or 2: halves by shifts, never a division by a runtime value (~25 dependent
    // instructions each, on the path to the loads and to the merge).
    const int q0 = (int)(cs == 2 ? blockIdx.x >> 1 : blockIdx.x) * 64, bh = (int)blockIdx.y;
    // The keys the query block's rows see: [0, kend) (bottom-right causal: row i sees keys
    // <= i + seq_kv - seq_q; the block's last row sees the most), in `need` tiles; this
    // block takes tiles [t0, t0 + nt).
    const int diag = p.seq_kv - p.seq_q;
    const int kend = p.causal ? min(p.seq_kv, min(q0 + 64, p.seq_q) + diag) : p.seq_kv;
    const int need = kend > 0 ? (kend + LAT_KT - 1) / LAT_KT : 0;
    const int t0 = cs == 2 ? (split * need) >> 1 : 0, nt = cs == 2 ? (((split + 1) * need) >> 1) - t0 : need;

    if (threadIdx.x == 0) {
        // The tensor maps are kernel parameters: fetched now, not on the first load's path.
        hp::prefetch_tmap(&tm_q);
        hp::prefetch_tmap(&tm_k);
        hp::prefetch_tmap(&tm_v);
        for (int b = LB_K0; b <= LB_V1; ++b) hp::mbar_init(&bar[b], 1);
        if (cs == 2) {
            // The partials of the owner rows here: the other block's 2 warps x 32 threads x U
            // float4, expected before the cluster barrier's first phase lets it send (and
            // the transaction count may go below zero first: it completes at zero either way).
            hp::mbar_init(&bar[LB_MERGE], 1);
            hp::mbar_arrive_expect_tx(&bar[LB_MERGE], (uint32_t)(2 * LatMerge<D>::SLOT_BYTES));
        }
        hp::fence_barrier_init();   // the inits, visible to the other block after the first phase
    }
    // The cluster barrier's first phase says that every block has started (its shared
    // memory exists for the merge): arrived at now, waited for just before the merge, when
    // the other block arrived long ago.
    if (cs > 1) cluster::arrive_relaxed();
    // Programmatic dependent launch: the next launch may place its blocks once every block
    // here has triggered; nothing here reads Q/K/V or writes O before the previous launch
    // has completed. Triggered after the wait, at most two launches are resident and none
    // of the next one's blocks shared an SM (README, the trace); triggered at entry, three
    // launches share the SMs and the next one's blocks fill the slots as they free, two to
    // an SM on some (16-24 of 128 blocks at the headline, ending 0.3-1.2 us after the rest).
    hp::wait_prior_grid();
    hp::launch_dependents();
    if (threadIdx.x == 0 && nt > 0) {
        hp::mbar_arrive_expect_tx(&bar[LB_K0], L::Q_BYTES + L::KV_BYTES);
        hp::mbar_arrive_expect_tx(&bar[LB_V0], L::KV_BYTES);
        if (nt > 1) {
            hp::mbar_arrive_expect_tx(&bar[LB_K1], L::KV_BYTES);
            hp::mbar_arrive_expect_tx(&bar[LB_V1], L::KV_BYTES);
        }
#pragma unroll
        for (int c = 0; c < L::CHUNKS; ++c) hp::tma_load_3d(q_s + c * 64 * 128, &tm_q, 64 * c, q0, bh, &bar[LB_K0]);
        for (int t = 0; t < nt; ++t)
#pragma unroll
            for (int c = 0; c < L::CHUNKS; ++c)
                hp::tma_load_3d(k_s + t * L::KV_BYTES + c * LAT_KT * 128, &tm_k, 64 * c, (t0 + t) * LAT_KT, bh, &bar[LB_K0 + t]);
        for (int t = 0; t < nt; ++t)
#pragma unroll
            for (int c = 0; c < L::CHUNKS; ++c)
                hp::tma_load_3d(v_s + t * L::KV_BYTES + c * LAT_KT * 128, &tm_v, 64 * c, (t0 + t) * LAT_KT, bh, &bar[LB_V0 + t]);
    }
    __syncthreads();   // the barriers are initialised before anyone here waits on them

    float o[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o[i] = 0.f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    const uint32_t qa = hp::smem_u32(q_s), ka = hp::smem_u32(k_s), va = hp::smem_u32(v_s);
    if (nt == 2) lat_compute2<D>(o, m, l, qa, ka, va, bar, p, q0, t0 * LAT_KT);
    else if (nt == 1) lat_compute1<D>(o, m, l, qa, ka, va, bar, p, q0, t0 * LAT_KT);
    static_assert(LAT_MAXT == 2, "the branches above cover every share");
    auto warp_id = [] { return (int)(threadIdx.x / 32); };
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        l[i] += __shfl_xor_sync(0xffffffffu, l[i], 1);
        l[i] += __shfl_xor_sync(0xffffffffu, l[i], 2);
    }
    // The blocks of this query block merge (LatMerge); one block alone stores at once. The
    // literal cs of each branch keeps LatMerge's divisions out of the machine code.
    if (cs == 1) {
        lat_receive<D>(o, m, l, hp::smem_u32(merge), 0, 1, p.scale_log2);
        lat_store<D>(o, p, q0, bh);
    } else {
        cluster::wait_acquire();   // the other block has started, its barriers initialised (the first phase's other half)
        lat_send<D>(o, m, l, hp::smem_u32(merge), hp::smem_u32(&bar[LB_MERGE]), 0, split, 2);
        // The warps that sent are done: this block stays resident while its owner warps
        // wait below, so the other block's stores land in live shared memory.
        if (LatMerge<D>::owner(warp_id(), 2) == split) {
            hp::mbar_wait(&bar[LB_MERGE], 0);   // every partial of these rows is in
            lat_receive<D>(o, m, l, hp::smem_u32(merge), split, 2, p.scale_log2);
            lat_store<D>(o, p, q0, bh);
        }
    }
#else
    (void)tm_q, (void)tm_k, (void)tm_v, (void)p;
#endif
}

}  // namespace
