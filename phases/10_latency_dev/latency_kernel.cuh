// latency_kernel.cuh: the latency kernel. A block serves a query block of 64 rows with NW
// warpgroups (1 or 2) that split its keys: every K/V tile of the block's key share is loaded
// at once (at most two a warpgroup, no ring and no producer warp), S of a warpgroup's tiles
// is one batch of wgmma, the softmax is taken once over them (no online rescale), and
// O += P V is one more batch. The query block's keys are split over cs blocks (a
// thread-block cluster of 2, or one block) times NW warpgroups: cs * NW splits, each with a
// partial result (O unnormalised, the row max m and row sum l), merged into the owner of
// each row (shared memory inside a block, distributed shared memory across the cluster)
// before the store. One split (cs = NW = 1) stores its rows from registers.
//
// Register layout: rung 09's (hopper_ptx.cuh): a thread holds rows r0 and r0 + 8 of the 64
// (r0 = 16 w + lane / 4, w the warp inside its warpgroup), S column 8g + 2(lane % 4) + c of
// row r0 + 8i in s[4g + 2i + c].
#pragma once

namespace {

constexpr int LAT_KT = 128;   // keys per K/V tile: one S wgmma of N = 128
constexpr int LAT_MAXT = 2;   // K/V tiles a warpgroup holds, all loaded at once

template <int D> struct LatCfg {
    static constexpr int CHUNKS = D / 64;                 // 64-column chunks of 128 bytes (the layout rule)
    static constexpr int Q_BYTES = 64 * D * 2;
    static constexpr int KV_BYTES = LAT_KT * D * 2;
};

#ifdef LAT_TRACE   // measuring build only
__device__ unsigned long long g_lat_trace[8192][11];
#define LAT_STAMP(k)                                                                                   \
    do {                                                                                               \
        if (threadIdx.x == 0) {                                                                        \
            unsigned long long t_;                                                                     \
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_));                                   \
            if (blockIdx.y * gridDim.x + blockIdx.x < 8192) g_lat_trace[blockIdx.y * gridDim.x + blockIdx.x][k] = t_; \
        }                                                                                              \
    } while (0)
#else
#define LAT_STAMP(k) do { } while (0)
#endif

struct LatParams {
    __half *o;
    int seq_q, seq_kv, causal;
    int cs;      // blocks (a cluster) that split a query block's keys: 1 or 2
    int early;   // programmatic dependent launch triggered at entry (1) or after the wait (0)
    float scale_log2;
    int o16;     // o is 16-byte aligned
    int tb;      // K/V tiles a block's shared memory holds (LatLayout)
    int merge_off, bar_off;   // byte offsets from Q's tile (LatLayout)
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// S = Q K^T of the block's NT tiles, one batch of wgmma (FRESH first k slice).
template <int D, int NT>
__device__ __forceinline__ void lat_qk(float (&s)[NT][LAT_KT / 2], uint32_t qa, uint32_t ka)
{
    namespace hp = rung09::hopper;
    hp::wgmma_fence();
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            const uint32_t off = (kk % 4) * 32;   // the k slice inside a 128-byte row
            const uint64_t a = hp::make_desc(qa + (kk / 4) * 64 * 128 + off, 16, 1024);
            const uint64_t b = hp::make_desc(ka + t * LatCfg<D>::KV_BYTES + (kk / 4) * LAT_KT * 128 + off, 16, 1024);
            if (kk == 0) hp::mma_ss_n128<true>(s[t], a, b, 0);
            else hp::mma_ss_n128(s[t], a, b, 1);
        }
    hp::wgmma_commit();
    hp::wgmma_wait<0>();
#pragma unroll
    for (int t = 0; t < NT; ++t) hp::reg_fence(s[t]);
}

// The softmax of one row (i: this thread's r0 or r0 + 8) over the block's whole share of
// keys: masked past `lim` (the causal diagonal, seq_kv, the end of the share), the max over
// the quad, the exponentials against it (the scale folded into one FMA), this thread's
// partial sum. Returns the row max (raw score units; -inf when the row sees no key here).
template <int NT>
__device__ __forceinline__ float lat_softmax_row(float (&s)[NT][LAT_KT / 2], int i, int key0, int lim,
                                                 float scale_log2, float &sum)
{
    const int lane = threadIdx.x % 32;
    if (key0 + NT * LAT_KT > lim) {
#pragma unroll
        for (int t = 0; t < NT; ++t)
#pragma unroll
            for (int g = 0; g < LAT_KT / 8; ++g)
#pragma unroll
                for (int c = 0; c < 2; ++c)
                    if (key0 + t * LAT_KT + 8 * g + 2 * (lane % 4) + c >= lim) s[t][4 * g + 2 * i + c] = -INFINITY;
    }
    float mx4[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};   // four chains: the max is the softmax's latency
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int g = 0; g < LAT_KT / 8; ++g)
            mx4[g % 4] = fmaxf(mx4[g % 4], fmaxf(s[t][4 * g + 2 * i], s[t][4 * g + 2 * i + 1]));
    float mx = fmaxf(fmaxf(mx4[0], mx4[1]), fmaxf(mx4[2], mx4[3]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    // A row that sees no key of this share keeps max -inf: its exponentials are 0, not NaN.
    const float ms = mx == -INFINITY ? 0.f : mx * scale_log2;
    float sm4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int g = 0; g < LAT_KT / 8; ++g)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                float &x = s[t][4 * g + 2 * i + c];
                x = rung09::ex2(fmaf(x, scale_log2, -ms));
                sm4[g % 4] += x;
            }
    sum = (sm4[0] + sm4[1]) + (sm4[2] + sm4[3]);
    return mx;
}

// O += P V of the NT tiles, P from registers (the A-fragment order of wgmma).
template <int D, int NT>
__device__ __forceinline__ void lat_pv(float (&o)[D / 2], const uint32_t (&pf)[NT][LAT_KT / 4], uint32_t va)
{
    namespace hp = rung09::hopper;
    hp::wgmma_fence();
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int kk = 0; kk < LAT_KT / 16; ++kk) {
            const uint64_t b = hp::make_desc(va + t * LatCfg<D>::KV_BYTES + kk * 16 * 128, LAT_KT * 128, 1024);
            const uint32_t a[4] = {pf[t][4 * kk], pf[t][4 * kk + 1], pf[t][4 * kk + 2], pf[t][4 * kk + 3]};
            if constexpr (D == 128) hp::mma_rs_n128(o, a, b, 1);
            else hp::mma_rs_n64(o, a, b, 1);
        }
    hp::wgmma_commit();
    hp::wgmma_wait<0>();
    hp::reg_fence(o);
}

#endif

// The merge of a query block's S = cs * NW partial results (S = 1, 2 or 4), one per
// warpgroup of its blocks (split sp = rank * NW + warpgroup). Warp w's 16 rows (w inside
// its warpgroup) are finished by split w * S / 4 (the owner): every other split stores its
// partial of those rows (O unnormalised, m, l) into the owner block's shared memory in its
// own register layout, so the owner's thread reads exactly the elements it holds: per slot,
// U float4 per lane, lane-major (512 contiguous bytes per float4 of a warp: no bank
// conflicts). The owner weighs each partial by 2^(m - max) and stores.
// Slots a block receives: its nw owner splits finish 4 / S warps' rows each, from the S - 1
// other splits.
constexpr int lat_slots(int S, int nw) { return S > 1 ? nw * (4 / S) * (S - 1) : 0; }

template <int D> struct LatMerge {
    static constexpr int U = D / 8 + 1;   // float4 per thread: O (D / 2 floats), then m[2], l[2]
    static constexpr int SLOT_BYTES = U * 32 * 16;
    __device__ __forceinline__ static int owner(int w, int S) { return w * S / 4; }
    // The slot in the owner's block of warp w's rows from split s (not the owner).
    __device__ __forceinline__ static int slot(int w, int s, int S, int nw)
    {
        const int f = owner(w, S), per = 4 / S;
        return ((f % nw) * per + (w - f * per)) * (S - 1) + (s < f ? s : s - 1);
    }
};

// The shared-memory layout of a block: Q's tile, tb K tiles, tb V tiles, the merge slots,
// the mbarriers (Q; K and V of each warpgroup). One block alone (cs = 1) merges into its K
// tiles, dead once every warpgroup's S is done, where they are large enough.
struct LatLayout {
    int smem = 0, merge_off = 0, bar_off = 0;
};
inline LatLayout lat_layout(int d, int nw, int cs, int tb)
{
    LatLayout l;
    const int q = 64 * d * 2, kv = LAT_KT * d * 2;
    const int slot = (d / 8 + 1) * 32 * 16, merge = lat_slots(cs * nw, nw) * slot;
    int off = q + 2 * tb * kv;
    if (cs == 1 && merge <= tb * kv) {
        l.merge_off = q;
    } else {
        l.merge_off = off;
        off += merge;
    }
    l.bar_off = off;
    off += 8 * (1 + 2 * nw);
    l.smem = 1024 + off;   // 1024: the swizzle atoms' alignment
    return l;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// This split's partial of the rows it does not own, into the owners' slots: the owner's
// block is this one (shared memory) or the other of the cluster pair (distributed).
template <int D>
__device__ __forceinline__ void lat_send(const float (&o)[D / 2], const float (&m)[2], const float (&l)[2],
                                         unsigned char *merge, int sp, int S, int nw, int rank)
{
    using M = LatMerge<D>;
    const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int f = M::owner(w, S);
    if (f == sp) return;
    unsigned char *at = merge + M::slot(w, sp, S, nw) * M::SLOT_BYTES + lane * 16;
    if (f / nw == rank) {
        float4 *dst = reinterpret_cast<float4 *>(at);
#pragma unroll
        for (int u = 0; u < D / 8; ++u) dst[u * 32] = make_float4(o[4 * u], o[4 * u + 1], o[4 * u + 2], o[4 * u + 3]);
        dst[(D / 8) * 32] = make_float4(m[0], m[1], l[0], l[1]);
        return;
    }
    const uint32_t dst = cluster::map(rung09::hopper::smem_u32(at), (uint32_t)(f / nw));
#pragma unroll
    for (int u = 0; u < D / 8; ++u) cluster::store4(dst + u * 512, o[4 * u], o[4 * u + 1], o[4 * u + 2], o[4 * u + 3]);
    cluster::store4(dst + (D / 8) * 512, m[0], m[1], l[0], l[1]);
}

// The owner's rows: the other splits' partials added to its own (o, m, l), then o holds the
// merged output normalised by the merged row sum (0 for a row that saw no key at all, as
// the ABI says). S = 1: only the normalisation.
template <int D>
__device__ __forceinline__ void lat_receive(float (&o)[D / 2], const float (&m)[2], const float (&l)[2],
                                            const unsigned char *merge, int sp, int S, int nw, float scale_log2)
{
    using M = LatMerge<D>;
    const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    float mx[2] = {m[0], m[1]};
    for (int s = 0; s < S; ++s) {
        if (s == sp) continue;
        const float4 ml = *reinterpret_cast<const float4 *>(merge + M::slot(w, s, S, nw) * M::SLOT_BYTES + (D / 8) * 512 + lane * 16);
        mx[0] = fmaxf(mx[0], ml.x);
        mx[1] = fmaxf(mx[1], ml.y);
    }
    auto weight = [&](float mi, int i) { return mi == -INFINITY ? 0.f : rung09::ex2((mi - mx[i]) * scale_log2); };
    float w2[2] = {weight(m[0], 0), weight(m[1], 1)};
    float lsum[2] = {w2[0] * l[0], w2[1] * l[1]};
#pragma unroll
    for (int u = 0; u < D / 8; ++u) {
        o[4 * u] *= w2[0], o[4 * u + 1] *= w2[0], o[4 * u + 2] *= w2[1], o[4 * u + 3] *= w2[1];
    }
    for (int s = 0; s < S; ++s) {
        if (s == sp) continue;
        const unsigned char *src = merge + M::slot(w, s, S, nw) * M::SLOT_BYTES + lane * 16;
        const float4 ml = *reinterpret_cast<const float4 *>(src + (D / 8) * 512);
        const float ws[2] = {weight(ml.x, 0), weight(ml.y, 1)};
        lsum[0] += ws[0] * ml.z;
        lsum[1] += ws[1] * ml.w;
#pragma unroll
        for (int u = 0; u < D / 8; ++u) {
            const float4 v = *reinterpret_cast<const float4 *>(src + u * 512);
            o[4 * u] = fmaf(ws[0], v.x, o[4 * u]);
            o[4 * u + 1] = fmaf(ws[0], v.y, o[4 * u + 1]);
            o[4 * u + 2] = fmaf(ws[1], v.z, o[4 * u + 2]);
            o[4 * u + 3] = fmaf(ws[1], v.w, o[4 * u + 3]);
        }
    }
    const float inv[2] = {lsum[0] > 0.f ? __frcp_rn(lsum[0]) : 0.f, lsum[1] > 0.f ? __frcp_rn(lsum[1]) : 0.f};
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
    const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    __half *out = p.o + (size_t)bh * p.seq_q * D;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int row = q0 + w * 16 + lane / 4 + 8 * i;
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

// S, the softmax and O += P V of the warpgroup's NT key tiles (from key0), this thread's
// rows r0 and r0 + 8 of the query block at q0: o, m and l. bar: Q, then this warpgroup's K
// and V.
template <int D, int NT>
__device__ __forceinline__ void lat_compute(float (&o)[D / 2], float (&m)[2], float (&l)[2], uint32_t qa, uint32_t ka,
                                            uint32_t va, uint64_t *bar_q, uint64_t *bar_k, uint64_t *bar_v,
                                            const LatParams &p, int q0, int key0)
{
    namespace hp = rung09::hopper;
    const int w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int diag = p.seq_kv - p.seq_q, key_end = key0 + NT * LAT_KT;
    float s[NT][LAT_KT / 2];
    hp::mbar_wait(bar_q, 0);
    hp::mbar_wait(bar_k, 0);
    LAT_STAMP(3);
    lat_qk<D, NT>(s, qa, ka);
    LAT_STAMP(4);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int row = q0 + w * 16 + lane / 4 + 8 * i;
        const int lim = min(key_end, p.causal ? min(p.seq_kv, row + diag + 1) : p.seq_kv);
        m[i] = lat_softmax_row<NT>(s, i, key0, lim, p.scale_log2, l[i]);
    }
    uint32_t pf[NT][LAT_KT / 4];
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int j = 0; j < LAT_KT / 4; ++j) pf[t][j] = rung09::pack_half2(s[t][2 * j], s[t][2 * j + 1]);
    hp::mbar_wait(bar_v, 0);
    LAT_STAMP(5);
    lat_pv<D, NT>(o, pf, va);
    LAT_STAMP(6);
}
#endif

// Two blocks to an SM where one warpgroup's tile at D = 64 fits 128 registers a thread:
// the next launch's blocks are placed beside this one's (programmatic dependent launch).
template <int D, int NW, int NTMAX> constexpr int lat_min_blocks() { return NW == 2 && NTMAX == 1 && D == 64 ? 2 : 1; }

// NW warpgroups a block, each with at most NTMAX key tiles.
template <int D, int NW, int NTMAX>
__global__ void __launch_bounds__(128 * NW, (lat_min_blocks<D, NW, NTMAX>()))
latency_attention(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                  const __grid_constant__ CUtensorMap tm_v, const LatParams p)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    namespace hp = rung09::hopper;
    using L = LatCfg<D>;
    static_assert(NTMAX >= 1 && NTMAX <= LAT_MAXT && (NW == 1 || NW == 2), "the instantiations the choice takes");
    extern __shared__ unsigned char smem_raw[];
    unsigned char *q_s = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));   // swizzle atoms: 1024-aligned
    unsigned char *k_s = q_s + L::Q_BYTES;
    unsigned char *v_s = k_s + p.tb * L::KV_BYTES;
    unsigned char *merge = q_s + p.merge_off;
    uint64_t *bar = reinterpret_cast<uint64_t *>(q_s + p.bar_off);   // [0] Q, [1 + w] K of warpgroup w, [1 + NW + w] its V

    // The query block's keys: [0, kend) (bottom-right causal: row i sees keys <= i +
    // seq_kv - seq_q; the block's last row sees the most), `need` tiles, split evenly over
    // S = cs * NW splits (split s takes tiles [s need / S, (s + 1) need / S)); this block
    // holds its splits' tiles, from bt0.
    const int cs = p.cs, rank = cs > 1 ? (int)cluster::rank() : 0, wg = NW > 1 ? (int)(threadIdx.x / 128) : 0;
    const int S = cs * NW, sp = rank * NW + wg;
    const int q0 = (int)(blockIdx.x / cs) * 64, bh = (int)blockIdx.y;
    const int diag = p.seq_kv - p.seq_q;
    const int kend = p.causal ? min(p.seq_kv, min(q0 + 64, p.seq_q) + diag) : p.seq_kv;
    const int need = kend > 0 ? (kend + LAT_KT - 1) / LAT_KT : 0;
    auto first = [&](int s) { return s * need / S; };
    const int bt0 = first(rank * NW), t0 = first(sp), nt = first(sp + 1) - t0;

    if (threadIdx.x == 0) {
        // The tensor maps are kernel parameters: fetched now, not on the first load's path.
        hp::prefetch_tmap(&tm_q);
        hp::prefetch_tmap(&tm_k);
        hp::prefetch_tmap(&tm_v);
        for (int b = 0; b < 1 + 2 * NW; ++b) hp::mbar_init(&bar[b], 1);
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
    LAT_STAMP(0);
    hp::wait_prior_grid();
    LAT_STAMP(1);
#ifdef LAT_TRACE
    if (threadIdx.x == 0) {
        unsigned smid_;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid_));
        if (blockIdx.y * gridDim.x + blockIdx.x < 8192) g_lat_trace[blockIdx.y * gridDim.x + blockIdx.x][10] = smid_ + 1;
    }
#endif
    if (!p.early) hp::launch_dependents();
    if (threadIdx.x == 0 && first(rank * NW + NW) > bt0) {
        // Q, then each warpgroup's K (the first warpgroup's first), then their V.
        hp::mbar_arrive_expect_tx(&bar[0], L::Q_BYTES);
#pragma unroll
        for (int c = 0; c < L::CHUNKS; ++c) hp::tma_load_3d(q_s + c * 64 * 128, &tm_q, 64 * c, q0, bh, &bar[0]);
        for (int kv = 0; kv < 2; ++kv)
            for (int w = 0; w < NW; ++w) {
                const int a = first(rank * NW + w), n = first(rank * NW + w + 1) - a;
                if (n == 0) continue;
                uint64_t *b = &bar[1 + kv * NW + w];
                hp::mbar_arrive_expect_tx(b, n * L::KV_BYTES);
                for (int t = a; t < a + n; ++t)
#pragma unroll
                    for (int c = 0; c < L::CHUNKS; ++c)
                        hp::tma_load_3d((kv ? v_s : k_s) + (t - bt0) * L::KV_BYTES + c * LAT_KT * 128, kv ? &tm_v : &tm_k,
                                        64 * c, t * LAT_KT, bh, b);
            }
    }
    __syncthreads();   // the barriers are initialised before anyone here waits on them
    LAT_STAMP(2);

    float o[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o[i] = 0.f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    const uint32_t qa = hp::smem_u32(q_s), ka = hp::smem_u32(k_s) + (t0 - bt0) * L::KV_BYTES,
                   va = hp::smem_u32(v_s) + (t0 - bt0) * L::KV_BYTES;
    if constexpr (NTMAX >= 2) {
        if (nt == 2) lat_compute<D, 2>(o, m, l, qa, ka, va, &bar[0], &bar[1 + wg], &bar[1 + NW + wg], p, q0, t0 * LAT_KT);
    }
    if (nt == 1) lat_compute<D, 1>(o, m, l, qa, ka, va, &bar[0], &bar[1 + wg], &bar[1 + NW + wg], p, q0, t0 * LAT_KT);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        l[i] += __shfl_xor_sync(0xffffffffu, l[i], 1);
        l[i] += __shfl_xor_sync(0xffffffffu, l[i], 2);
    }
    // The splits of this query block merge (LatMerge); one split alone stores at once.
    if (S == 1) {
        lat_receive<D>(o, m, l, merge, 0, 1, 1, p.scale_log2);
        lat_store<D>(o, p, q0, bh);
        LAT_STAMP(9);
        return;
    }
    if (cs > 1) {
        cluster::wait_acquire();   // the other block has started (the first phase's other half)
        lat_send<D>(o, m, l, merge, sp, S, NW, rank);
        cluster::arrive_release();
        LAT_STAMP(7);
        cluster::wait_acquire();   // every partial is in; nothing remote after this
    } else {
        hp::named_sync(1, 128 * NW);   // every warpgroup's S is done: the K tiles (the slots) are free
        lat_send<D>(o, m, l, merge, sp, S, NW, rank);
        LAT_STAMP(7);
        hp::named_sync(1, 128 * NW);   // every partial is in
    }
    LAT_STAMP(8);
    if (LatMerge<D>::owner((int)(threadIdx.x / 32) % 4, S) == sp) {
        lat_receive<D>(o, m, l, merge, sp, S, NW, p.scale_log2);
        lat_store<D>(o, p, q0, bh);
    }
    LAT_STAMP(9);
#else
    (void)tm_q, (void)tm_k, (void)tm_v, (void)p;
#endif
}

}  // namespace
