// latency_kernel.cuh: the latency kernel. One warpgroup serves a query block of 64 rows:
// every K/V tile of its key share is loaded at once (at most LAT_MAXT, no ring and no
// producer warp). One tile: S is one batch of wgmma, the softmax is taken once, and
// O += P V is one more batch. Two tiles: S of both is issued at once and the tensor cores
// finish the second while the first's softmax runs, then P0 V runs while the second's
// softmax does (one online rescale of O and the sum, lat_compute2). The share is all the
// keys the block's rows see (csize = 1: the block stores its rows from registers), or half
// of them (csize = 2: two blocks of a thread-block cluster, whose partial results, O
// unnormalised with the row max m and row sum l, are merged through distributed shared
// memory before the store).
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
    int early;   // programmatic dependent launch triggered at entry (1) or after the wait (0)
    float scale_log2;
    int o16;     // o is 16-byte aligned
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Issues S = Q K^T of one key tile (at kt) into s (FRESH first k slice); the caller fences,
// commits and waits.
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
// the caller fences, commits and waits (and keeps pf until the wait).
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
    const uint32_t rbar = cluster::map(bar_at, (uint32_t)(base + f));
#if LAT_H16
    // O normalised by this split's own row sum, in fp16 pairs: half the bytes.
    const float inv[2] = {l[0] > 0.f ? 1.f / l[0] : 0.f, l[1] > 0.f ? 1.f / l[1] : 0.f};
#pragma unroll
    for (int u = 0; u < D / 16; ++u) {
        uint32_t h[4];
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int b = 4 * (2 * u + j);
            h[2 * j] = rung09::pack_half2(o[b] * inv[0], o[b + 1] * inv[0]);
            h[2 * j + 1] = rung09::pack_half2(o[b + 2] * inv[1], o[b + 3] * inv[1]);
        }
        cluster::store4u_async(dst + u * 512, h[0], h[1], h[2], h[3], rbar);
    }
    cluster::store4_async(dst + (D / 16) * 512, m[0], m[1], l[0], l[1], rbar);
#else
#pragma unroll
    for (int u = 0; u < D / 8; ++u) cluster::store4_async(dst + u * 512, o[4 * u], o[4 * u + 1], o[4 * u + 2], o[4 * u + 3], rbar);
    cluster::store4_async(dst + (D / 8) * 512, m[0], m[1], l[0], l[1], rbar);
#endif
}

// The owner's rows: the other splits' partials added to its own (o, m, l), then o holds the
// merged output normalised by the merged row sum (0 for a row that saw no key at all, as
// the ABI says).
#ifndef LAT_H16
#define LAT_H16 0
#endif
// The float4 of a partial past O: D / 8 float4 of fp32 O, or D / 16 of fp16 pairs.
template <int D> __host__ __device__ constexpr int lat_ml_at() { return LAT_H16 ? D / 16 : D / 8; }

template <int D>
__device__ __forceinline__ void lat_receive(float (&o)[D / 2], const float (&m)[2], const float (&l)[2],
                                            uint32_t merge, int split, int cs, float scale_log2)
{
    using M = LatMerge<D>;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float mx[2] = {m[0], m[1]};
    for (int s = 0; s < cs; ++s) {
        if (s == split) continue;
        const float4 ml = cluster::lds4(merge + M::slot(warp, s, cs) * M::SLOT_BYTES + lat_ml_at<D>() * 512 + lane * 16);
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
        const float4 ml = cluster::lds4(src + lat_ml_at<D>() * 512);
        float ws[2] = {weight(ml.x, 0), weight(ml.y, 1)};
        lsum[0] += ws[0] * ml.z;
        lsum[1] += ws[1] * ml.w;
#if LAT_H16
        ws[0] *= ml.z, ws[1] *= ml.w;   // the partial arrives normalised by its own sum
#pragma unroll
        for (int u = 0; u < D / 16; ++u) {
            const uint4 v = cluster::lds4u(src + u * 512);
            const uint32_t h[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const int b = 4 * (2 * u + j);
                const float2 r0 = __half22float2(*reinterpret_cast<const __half2 *>(&h[2 * j]));
                const float2 r1 = __half22float2(*reinterpret_cast<const __half2 *>(&h[2 * j + 1]));
                o[b] = fmaf(ws[0], r0.x, o[b]);
                o[b + 1] = fmaf(ws[0], r0.y, o[b + 1]);
                o[b + 2] = fmaf(ws[1], r1.x, o[b + 2]);
                o[b + 3] = fmaf(ws[1], r1.y, o[b + 3]);
            }
        }
#else
#pragma unroll
        for (int u = 0; u < D / 8; ++u) {
            const float4 v = cluster::lds4(src + u * 512);
            o[4 * u] = fmaf(ws[0], v.x, o[4 * u]);
            o[4 * u + 1] = fmaf(ws[0], v.y, o[4 * u + 1]);
            o[4 * u + 2] = fmaf(ws[1], v.z, o[4 * u + 2]);
            o[4 * u + 3] = fmaf(ws[1], v.w, o[4 * u + 3]);
        }
#endif
    }
#if LAT_FASTRCP
    const float inv[2] = {lsum[0] > 0.f ? __fdividef(1.f, lsum[0]) : 0.f, lsum[1] > 0.f ? __fdividef(1.f, lsum[1]) : 0.f};
#else
    const float inv[2] = {lsum[0] > 0.f ? __frcp_rn(lsum[0]) : 0.f, lsum[1] > 0.f ? __frcp_rn(lsum[1]) : 0.f};
#endif
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

#ifndef LAT_TB
#define LAT_TB 0
#endif
// The barrier of K tile t (tile 0's also holds Q) and of V tile t: one for all K and one for
// all V (LAT_TB 0), or one a tile.
__device__ __forceinline__ uint64_t *lat_kbar(uint64_t *bar, int t) { return LAT_TB ? &bar[t] : &bar[0]; }
__device__ __forceinline__ uint64_t *lat_vbar(uint64_t *bar, int t) { return LAT_TB ? &bar[2 + t] : &bar[2]; }

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
    hp::mbar_wait(lat_kbar(bar, 0), 0);
    hp::wgmma_fence();
    lat_qk_issue<D>(s, qa, ka);
    hp::wgmma_commit();
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
    hp::mbar_wait(lat_vbar(bar, 0), 0);
    hp::wgmma_fence();
    lat_pv_issue<D>(o, pf, va);
    hp::wgmma_commit();
    hp::wgmma_wait<0>();
    hp::reg_fence(o);
}

// S, the softmax and O += P V of two tiles, with the tensor cores overlapping the softmax: S of both tiles is
// issued as two groups and the softmax of the first runs while the second's S finishes;
// P0 V is issued before the second tile's softmax, which runs while it finishes. The first
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
    hp::mbar_wait(lat_kbar(bar, 0), 0);
    hp::wgmma_fence();
    lat_qk_issue<D>(s[0], qa, ka);
    hp::wgmma_commit();
    hp::mbar_wait(lat_kbar(bar, 1), 0);
    hp::wgmma_fence();
    lat_qk_issue<D>(s[1], qa, ka + LatCfg<D>::KV_BYTES);
    hp::wgmma_commit();
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
    hp::mbar_wait(lat_vbar(bar, 0), 0);
    hp::wgmma_fence();
    lat_pv_issue<D>(o, pf0, va);
    hp::wgmma_commit();
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
    hp::mbar_wait(lat_vbar(bar, 1), 0);
    hp::wgmma_fence();
    lat_pv_issue<D>(o, pf1, va + LatCfg<D>::KV_BYTES);
    hp::wgmma_commit();
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
    uint64_t *bar = reinterpret_cast<uint64_t *>(merge + L::MERGE_BYTES);   // [0]: Q and K landed, [1]: V landed, [2]: the partials in

    // csize = 2: the two blocks of a cluster (rank = split) share the query block's keys.
    const int cs = p.cs, split = cs > 1 ? (int)cluster::rank() : 0;
    // cs is 1 or 2: halves by shifts, not a division by a runtime value (~25 dependent
    // instructions each, on the path to the loads).
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
        for (int b = 0; b < 4; ++b) hp::mbar_init(&bar[b], 1);
        if (cs > 1) {
            // The partials this block's owner rows receive: (cs - 1) splits x (4 / cs) warps x
            // 32 threads x U float4. Expected now, before the cluster barrier's first phase
            // lets any sender start.
            hp::mbar_init(&bar[4], 1);
            hp::mbar_arrive_expect_tx(&bar[4], (uint32_t)((4 / 2) * 32 * 16 * (lat_ml_at<D>() + 1)));   // cs = 2: one other split
        }
        hp::fence_barrier_init();
    }
    // The cluster barrier's first phase says that every block has started (its shared
    // memory exists for the merge): arrived at now, waited for just before the merge, when
    // the other block arrived long ago.
    if (cs > 1) cluster::arrive_relaxed();
    // Programmatic dependent launch: the next launch may place its blocks once every block
    // here has triggered; nothing here reads Q/K/V or writes O before the previous launch
    // has completed. Triggered at entry, the next launch can be placed while the one before
    // this is still running: three launches share the SMs, and the next one's blocks fill
    // the slots as they free, two to an SM on some (16-24 of 128 blocks at the headline,
    // ending 0.3-1.2 us after the others). Triggered after the wait, at most two launches
    // are resident and none of the next one's blocks shared an SM (README, the trace).
    if (p.early) hp::launch_dependents();
    hp::wait_prior_grid();
    if (!p.early) hp::launch_dependents();
    if (threadIdx.x == 0 && nt > 0) {
        if (LAT_TB) {
            hp::mbar_arrive_expect_tx(&bar[0], L::Q_BYTES + L::KV_BYTES);
            if (nt > 1) hp::mbar_arrive_expect_tx(&bar[1], L::KV_BYTES);
            hp::mbar_arrive_expect_tx(&bar[2], L::KV_BYTES);
            if (nt > 1) hp::mbar_arrive_expect_tx(&bar[3], L::KV_BYTES);
        } else {
            hp::mbar_arrive_expect_tx(&bar[0], L::Q_BYTES + nt * L::KV_BYTES);
            hp::mbar_arrive_expect_tx(&bar[2], nt * L::KV_BYTES);
        }
#pragma unroll
        for (int c = 0; c < L::CHUNKS; ++c) hp::tma_load_3d(q_s + c * 64 * 128, &tm_q, 64 * c, q0, bh, &bar[0]);
        for (int t = 0; t < nt; ++t)
#pragma unroll
            for (int c = 0; c < L::CHUNKS; ++c)
                hp::tma_load_3d(k_s + t * L::KV_BYTES + c * LAT_KT * 128, &tm_k, 64 * c, (t0 + t) * LAT_KT, bh, lat_kbar(bar, t));
        for (int t = 0; t < nt; ++t)
#pragma unroll
            for (int c = 0; c < L::CHUNKS; ++c)
                hp::tma_load_3d(v_s + t * L::KV_BYTES + c * LAT_KT * 128, &tm_v, 64 * c, (t0 + t) * LAT_KT, bh, lat_vbar(bar, t));
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
    // The blocks of this query block merge (LatMerge); one block alone stores at once.
    if (cs == 1) {
        lat_receive<D>(o, m, l, hp::smem_u32(merge), 0, 1, p.scale_log2);
        lat_store<D>(o, p, q0, bh);
    } else {
        cluster::wait_acquire();   // the other block has started (the first phase's other half)
        lat_send<D>(o, m, l, hp::smem_u32(merge), hp::smem_u32(&bar[4]), 0, split, 2);
        if (LatMerge<D>::owner(warp_id(), 2) == split) {
            hp::mbar_wait(&bar[4], 0);   // every partial of these rows is in
            lat_receive<D>(o, m, l, hp::smem_u32(merge), split, 2, p.scale_log2);
            lat_store<D>(o, p, q0, bh);
        }
    }
#else
    (void)tm_q, (void)tm_k, (void)tm_v, (void)p;
#endif
}

}  // namespace
