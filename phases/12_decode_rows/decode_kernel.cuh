// decode_kernel.cuh: one block a (batch x head) that is not split: rung 11's piece kernel
// (../11_split_keys/split_kernel.cuh: the same ring of cp.async stages, mma.sync fragments
// and online softmax, on its device helpers and swizzle) over all of the head's key tiles,
// with the epilogue a whole head needs: the four warps' partials weighed in shared memory,
// divided by the row sum and stored as fp16 O. No workspace, no arrival count and no
// merge: rung 11's kernel with one piece would write its partial in fp32, count its
// arrival and read the partial back through L2 before storing O, a round trip a head on
// the critical path of the launch's last blocks.
#pragma once

namespace dr {

struct DecodeParams {
    const __half *q, *k, *v;
    __half *o;
    int seq_q, seq_kv;
    int causal;
    float scale_log2;
};

// The four warps' partials of a block (in shared memory: mw, lw, ow) weighed into row
// tid / 8's output, columns (tid % 8) x D / 8 on: O / l in fp16; zeros for a row that saw
// no key (l = 0, the ABI's rule).
template <int D>
__device__ __forceinline__ void store_rows(const DecodeParams &p, long bh, const float *mw, const float *lw,
                                           const float *ow, int tid)
{
    using C = sk::SplitCfg<D>;
    constexpr int E = D / 8;
    const int row = tid >> 3, c0 = (tid & 7) * E;
    if (row >= p.seq_q) return;
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < 4; ++w) mx = fmaxf(mx, mw[w * sk::SPLIT_Q + row]);
    const float mu = mx == -INFINITY ? 0.f : mx;
    float l = 0.f, acc[E];
#pragma unroll
    for (int e = 0; e < E; ++e) acc[e] = 0.f;
#pragma unroll
    for (int w = 0; w < 4; ++w) {
        const float wt = sk::ex2(mw[w * sk::SPLIT_Q + row] - mu);
        l += wt * lw[w * sk::SPLIT_Q + row];
#pragma unroll
        for (int e = 0; e < E; e += 4) {
            const float4 v = *reinterpret_cast<const float4 *>(ow + (w * sk::SPLIT_Q + row) * C::OS + c0 + e);
            acc[e] += wt * v.x;
            acc[e + 1] += wt * v.y;
            acc[e + 2] += wt * v.z;
            acc[e + 3] += wt * v.w;
        }
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;
    __half2 *dst = reinterpret_cast<__half2 *>(p.o + (bh * p.seq_q + row) * D + c0);
#pragma unroll
    for (int e = 0; e < E; e += 2) dst[e / 2] = __floats2half2_rn(acc[e] * inv, acc[e + 1] * inv);
}

template <int D>
__global__ void __launch_bounds__(sk::SPLIT_THREADS) decode_attention(const DecodeParams p)
{
    using C = sk::SplitCfg<D>;
    constexpr int KT = sk::SPLIT_KT, THREADS = sk::SPLIT_THREADS;
    extern __shared__ __align__(128) unsigned char smem[];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const long bh = blockIdx.x;
    const int seq_q = p.seq_q, seq_kv = p.seq_kv;
    const int n = (seq_kv + KT - 1) / KT;
    const __half *kg = p.k + bh * seq_kv * D, *vg = p.v + bh * seq_kv * D, *qg = p.q + bh * seq_q * D;
    const uint32_t sbase = sk::smem_addr(smem);

    // Keys row r sees: all, or (causal, bottom-right aligned) those up to r + seq_kv - seq_q.
    const int off = seq_kv - seq_q;
    const int lim0 = p.causal ? min(seq_kv, g + off + 1) : seq_kv;
    const int lim8 = p.causal ? min(seq_kv, g + 8 + off + 1) : seq_kv;
    const int full = p.causal ? min(seq_kv, max(0, off + 1)) : seq_kv;   // keys every row sees

    sk::grid_dependency_wait();
    sk::launch_dependents();

    auto load = [&](int tile, int stage) {
        const int key0 = tile * KT;
        const uint32_t sk_ = sbase + stage * C::STAGE_BYTES, sv_ = sk_ + KT * D * 2;
#pragma unroll
        for (int j = 0; j < KT * C::CH / THREADS; ++j) {
            const int li = tid + THREADS * j, r = li / C::CH, c = li % C::CH;
            const bool ok = key0 + r < seq_kv;
            const long go = ok ? (long)(key0 + r) * D + c * 8 : 0;
            sk::cp_async16(sk_ + sk::tile_off<D>(r, c), kg + go, ok ? 16 : 0);
            sk::cp_async16(sv_ + sk::tile_off<D>(r, c), vg + go, ok ? 16 : 0);
        }
    };
#pragma unroll
    for (int i = 0; i < C::STAGES - 1; ++i) {
        if (i < n) load(i, i);
        sk::cp_async_commit();
    }

    // Q as mma A fragments (rows past seq_q are zeros, never stored).
    uint32_t qf[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int row = g + (r & 1) * 8, col = kk * 16 + 2 * t + (r >> 1) * 8;
            qf[kk][r] = row < seq_q ? *reinterpret_cast<const uint32_t *>(qg + (long)row * D + col) : 0u;
        }

    float m0 = -INFINITY, m8 = -INFINITY, l0 = 0.f, l8 = 0.f;
    float o[D / 8][4];
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) o[nb][0] = o[nb][1] = o[nb][2] = o[nb][3] = 0.f;

    int stage = 0;
    for (int i = 0; i < n; ++i) {
        sk::cp_async_wait<C::STAGES - 2>();
        __syncthreads();   // tile i landed for every thread; the stage read at i - 1 is free
        if (i + C::STAGES - 1 < n) load(i + C::STAGES - 1, (stage + C::STAGES - 1) % C::STAGES);
        sk::cp_async_commit();
        const uint32_t kb = sbase + stage * C::STAGE_BYTES, vb = kb + KT * D * 2;
        const int mi = lane >> 3;

        // S = Q K^T for this warp's 16 keys: two n8 tiles.
        float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            uint32_t b[4];
            sk::ldmatrix_x4(b, kb + sk::tile_off<D>(warp * 16 + (mi >> 1) * 8 + (lane & 7), kk * 2 + (mi & 1)));
            sk::mma16816(s[0], qf[kk], b[0], b[1]);
            sk::mma16816(s[1], qf[kk], b[2], b[3]);
        }
        // Scale to log2 units; mask keys past a row's last (the tail, or causal).
        const int key0 = i * KT + warp * 16;
        const bool edge = (i + 1) * KT > full;
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float x = s[j][e] * p.scale_log2;
                if (edge && key0 + 8 * j + 2 * t + (e & 1) >= (e < 2 ? lim0 : lim8)) x = -INFINITY;
                s[j][e] = x;
            }
        // Online softmax: rows g (e 0-1) and g + 8 (e 2-3), reduced over the quad.
        float x0 = fmaxf(fmaxf(s[0][0], s[0][1]), fmaxf(s[1][0], s[1][1]));
        float x8 = fmaxf(fmaxf(s[0][2], s[0][3]), fmaxf(s[1][2], s[1][3]));
        x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 1));
        x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 2));
        x8 = fmaxf(x8, __shfl_xor_sync(0xffffffffu, x8, 1));
        x8 = fmaxf(x8, __shfl_xor_sync(0xffffffffu, x8, 2));
        const float n0 = fmaxf(m0, x0), n8 = fmaxf(m8, x8);
        const float u0 = n0 == -INFINITY ? 0.f : n0, u8 = n8 == -INFINITY ? 0.f : n8;   // no key yet
        const float a0 = sk::ex2(m0 - u0), a8 = sk::ex2(m8 - u8);
        m0 = n0;
        m8 = n8;
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            s[j][0] = sk::ex2(s[j][0] - u0);
            s[j][1] = sk::ex2(s[j][1] - u0);
            s[j][2] = sk::ex2(s[j][2] - u8);
            s[j][3] = sk::ex2(s[j][3] - u8);
        }
        l0 = l0 * a0 + (s[0][0] + s[0][1]) + (s[1][0] + s[1][1]);
        l8 = l8 * a8 + (s[0][2] + s[0][3]) + (s[1][2] + s[1][3]);
#pragma unroll
        for (int nb = 0; nb < D / 8; ++nb) {
            o[nb][0] *= a0;
            o[nb][1] *= a0;
            o[nb][2] *= a8;
            o[nb][3] *= a8;
        }
        // O += P V: P (16 x 16 keys) straight from the S fragments as the A operand.
        const uint32_t a[4] = {sk::pack_half2(s[0][0], s[0][1]), sk::pack_half2(s[0][2], s[0][3]),
                               sk::pack_half2(s[1][0], s[1][1]), sk::pack_half2(s[1][2], s[1][3])};
#pragma unroll
        for (int cp = 0; cp < D / 16; ++cp) {
            uint32_t b[4];
            sk::ldmatrix_x4_trans(b, vb + sk::tile_off<D>(warp * 16 + (mi & 1) * 8 + (lane & 7), cp * 2 + (mi >> 1)));
            sk::mma16816(o[2 * cp], a, b[0], b[1]);
            sk::mma16816(o[2 * cp + 1], a, b[2], b[3]);
        }
        stage = stage + 1 == C::STAGES ? 0 : stage + 1;
    }
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l8 += __shfl_xor_sync(0xffffffffu, l8, 1);
    l8 += __shfl_xor_sync(0xffffffffu, l8, 2);

    // The four warps' partials through shared memory (the ring is free once every copy landed).
    sk::cp_async_wait<0>();
    __syncthreads();
    float *mw = reinterpret_cast<float *>(smem), *lw = mw + 4 * sk::SPLIT_Q, *ow = lw + 4 * sk::SPLIT_Q;
    const int r0 = warp * sk::SPLIT_Q + g;
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) {
        *reinterpret_cast<float2 *>(ow + r0 * C::OS + nb * 8 + 2 * t) = make_float2(o[nb][0], o[nb][1]);
        *reinterpret_cast<float2 *>(ow + (r0 + 8) * C::OS + nb * 8 + 2 * t) = make_float2(o[nb][2], o[nb][3]);
    }
    if (t == 0) {
        mw[r0] = m0;
        mw[r0 + 8] = m8;
        lw[r0] = l0;
        lw[r0 + 8] = l8;
    }
    __syncthreads();
    store_rows<D>(p, bh, mw, lw, ow, tid);
}

inline const void *decode_fn(int d)
{
    return d == 64 ? reinterpret_cast<const void *>(&decode_attention<64>)
                   : reinterpret_cast<const void *>(&decode_attention<128>);
}

}  // namespace dr
