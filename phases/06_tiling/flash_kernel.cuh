// flash_kernel.cuh: the phase 06 kernel, one template over the tile shape.
//
// Each warp owns 16 * WM query rows and runs the whole FlashAttention-2 inner loop on
// mma.sync fragments: S = Q K^T lands in the m16n8 accumulator layout, which is, pair by
// pair, the A-operand layout of the next product, so P goes from the softmax to P V
// without leaving registers. K and V tiles come in by cp.async into a ring of STAGES
// slots, XOR-swizzled so that every ldmatrix phase reads 8 distinct bank groups.
//
// In-CTA split-KV (WN > 1): WN warps share each 16 * WM rows, each taking BN / WN keys of
// every tile with its own max, sum and O; they merge through shared memory at the end.
//
// Cross-CTA split-KV: blockIdx.z picks a contiguous share of the query tile's key tiles. Every
// split writes its unnormalised O (fp32) and (row max, row sum) to the workspace and bumps
// a per-tile counter; the split that brings the counter to `split` merges the others into
// its own registers, writes O, and puts the counter back to 0 for the next launch (so a
// replayed graph needs no memset node).
#ifndef TILING_FLASH_KERNEL_CUH
#define TILING_FLASH_KERNEL_CUH

#include <cstdint>
#include <cuda_fp16.h>
#include "mma_ptx.cuh"

namespace tiling {

struct fwd_params {
    const __half *q, *k, *v;
    __half *o;
    float *ws_o;      // [split][bh][seq_q][D] unnormalised partial O
    float2 *ws_ml;    // [split][bh][seq_q] (row max in log2 units, row sum)
    int *counters;    // [bh][m_tiles] splits finished
    int bh_total, seq_q, seq_kv, causal, m_tiles, split;
    float scale_log2; // scale * log2(e): the softmax runs on exp2
};

// Byte offset of 16-byte chunk c of row r of a row-major [rows][D] fp16 tile. The chunk
// index is XORed with r % 8: the 8 rows one ldmatrix phase reads share a logical chunk,
// so without it they would all hit the same 4 banks (rows are 128 or 256 bytes long).
template <int D>
__device__ __forceinline__ uint32_t swz(int r, int c)
{
    return static_cast<uint32_t>((r * D + ((c ^ (r & 7)) << 3)) * 2);
}

// Rows [row0, row0 + ROWS) of a [n_rows][D] matrix into a swizzled tile; rows past n_rows
// are zero-filled. Thread tid always copies chunk tid % CH of rows tid / CH + i * RSTEP, so
// that the addresses of its copies differ by compile-time constants.
template <int D, int ROWS, int THREADS>
__device__ __forceinline__ void load_tile(uint32_t dst, const __half *src, int row0, int n_rows,
                                          int tid)
{
    constexpr int CH = D / 8;
    constexpr int RSTEP = THREADS / CH;
    constexpr int ITER = (ROWS + RSTEP - 1) / RSTEP;
    static_assert(THREADS % CH == 0, "whole rows per step");
    const int r0 = tid / CH, c = tid % CH;
    const __half *g = src + (size_t)(row0 + r0) * D + c * 8;
#pragma unroll
    for (int i = 0; i < ITER; ++i) {
        const int r = r0 + i * RSTEP;
        if (ROWS % RSTEP == 0 || r < ROWS) {
            const bool ok = row0 + r < n_rows;
            ptx::cp_async16(dst + swz<D>(r, c), ok ? g + (size_t)i * RSTEP * D : src, ok ? 16 : 0);
        }
    }
}

// Splits one launch may have per query tile (the combine unrolls over this many).
constexpr int MAX_SPLIT = 8;

// How far (log2 units) a row's running max may lag the true max before O is rescaled.
constexpr float RESCALE_SLACK = 8.f;

// Row pitch (floats) of the fp32 partials that warps sharing rows exchange in shared memory:
// 8 floats of padding put the 8 rows a quad group writes in distinct banks, when it fits.
template <int D, int BM, int BN, int STAGES, int WN>
__host__ __device__ constexpr int partial_pitch()
{
    return (size_t)WN * BM * (D + 8) * 4 + (size_t)WN * BM * 8 <= (size_t)(BM + 2 * STAGES * BN) * D * 2
               ? D + 8 : D;
}

template <int D, int BM, int BN, int WARPS, int STAGES, int WN>
__global__ void __launch_bounds__(WARPS * 32) flash_fwd(const fwd_params p)
{
    constexpr int THREADS = WARPS * 32;
    constexpr int WMG = WARPS / WN;         // warp groups along the query rows
    constexpr int WM = BM / (16 * WMG);     // 16-row m-tiles per warp
    constexpr int BNW = BN / WN;            // keys of each tile that one warp takes
    constexpr int NT = BNW / 8;             // n8 tiles of S per m-tile
    constexpr int DT = D / 8;               // n8 tiles of O per m-tile
    constexpr int KS = D / 16;              // k16 steps of Q K^T
    constexpr int PS = BNW / 16;            // k16 steps of P V
    constexpr uint32_t TILE_BYTES = BN * D * 2;
    // Q stays in registers when that costs at most 32 of them and S + O leave room.
    constexpr bool QREG = WM * KS * 4 <= 32 && WM * (NT + DT) * 4 <= 128;
    static_assert(WARPS % WN == 0 && BM % (16 * WMG) == 0, "whole warps");
    static_assert(WM == 1 || WM == 2, "16 or 32 rows per warp");
    static_assert(BNW % 16 == 0 && D % 16 == 0, "whole k16 steps");

    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ int is_last;
    const uint32_t sQ = ptx::smem_addr(smem);
    const uint32_t sK = sQ + BM * D * 2;
    const uint32_t sV = sK + STAGES * TILE_BYTES;

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int warp_m = warp / WN, warp_n = warp % WN;
    const int g = lane >> 2, t4 = lane & 3;
    const int bh = blockIdx.x;
    // Highest query tiles first: under a causal mask they carry the most key tiles.
    const int mt = p.m_tiles - 1 - (int)blockIdx.y;
    const int sp = blockIdx.z;
    const int m0 = mt * BM;
    const int wrow0 = m0 + warp_m * 16 * WM;
    // Bottom-right causal: row i sees key j iff j <= i + diag.
    const int diag = p.seq_kv - p.seq_q;

    int kv_end = p.seq_kv;
    if (p.causal) kv_end = min(kv_end, min(m0 + BM, p.seq_q) + diag);
    const int n_tiles = kv_end > 0 ? (kv_end + BN - 1) / BN : 0;
    const int t_begin = sp * n_tiles / p.split;
    const int t_end = (sp + 1) * n_tiles / p.split;

    const __half *qg = p.q + (size_t)bh * p.seq_q * D;
    const __half *kg = p.k + (size_t)bh * p.seq_kv * D;
    const __half *vg = p.v + (size_t)bh * p.seq_kv * D;

    float o[WM][DT][4];
    float row_m[WM][2], row_l[WM][2];
#pragma unroll
    for (int mi = 0; mi < WM; ++mi) {
#pragma unroll
        for (int dt = 0; dt < DT; ++dt)
#pragma unroll
            for (int e = 0; e < 4; ++e) o[mi][dt][e] = 0.f;
#pragma unroll
        for (int h = 0; h < 2; ++h) { row_m[mi][h] = -INFINITY; row_l[mi][h] = 0.f; }
    }

    if (t_begin < t_end) {
        // Per-lane ldmatrix coordinates. A operand (Q) and V under .trans: matrices are
        // (rows 0-7, k lo), (rows 8-15, k lo), (rows 0-7, k hi), (rows 8-15, k hi).
        // B operand (K): (keys 0-7, k lo), (keys 0-7, k hi), (keys 8-15, k lo), (keys 8-15, k hi).
        const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_ch = lane >> 4;
        const int b_row = (lane & 7) + (lane >> 4) * 8, b_ch = (lane >> 3) & 1;
        const int qrow = warp_m * 16 * WM + a_row;
        const int krow = warp_n * BNW + b_row;
        const int vrow = warp_n * BNW + a_row;

        load_tile<D, BM, THREADS>(sQ, qg, m0, p.seq_q, tid);
        load_tile<D, BN, THREADS>(sK, kg, t_begin * BN, p.seq_kv, tid);
        load_tile<D, BN, THREADS>(sV, vg, t_begin * BN, p.seq_kv, tid);
        ptx::cp_async_commit();
#pragma unroll
        for (int s = 1; s < STAGES - 1; ++s) {
            if (t_begin + s < t_end) {
                load_tile<D, BN, THREADS>(sK + s * TILE_BYTES, kg, (t_begin + s) * BN, p.seq_kv, tid);
                load_tile<D, BN, THREADS>(sV + s * TILE_BYTES, vg, (t_begin + s) * BN, p.seq_kv, tid);
            }
            ptx::cp_async_commit();
        }

        [[maybe_unused]] uint32_t qf[QREG ? WM : 1][QREG ? KS : 1][4];
        if constexpr (QREG) {
            ptx::cp_async_wait<STAGES - 2>();
            __syncthreads();
#pragma unroll
            for (int mi = 0; mi < WM; ++mi)
#pragma unroll
                for (int kk = 0; kk < KS; ++kk)
                    ptx::ldmatrix_x4(qf[mi][kk], sQ + swz<D>(qrow + mi * 16, kk * 2 + a_ch));
        }

        int slot = 0;
        for (int t = t_begin; t < t_end; ++t) {
            // Tile t has landed (at most STAGES - 2 younger groups pending) and every warp
            // is done with the slot the next copy overwrites.
            ptx::cp_async_wait<STAGES - 2>();
            __syncthreads();
            {
                const int tn = t + STAGES - 1;
                const int ls = slot + STAGES - 1 >= STAGES ? slot - 1 : slot + STAGES - 1;
                if (tn < t_end) {
                    load_tile<D, BN, THREADS>(sK + ls * TILE_BYTES, kg, tn * BN, p.seq_kv, tid);
                    load_tile<D, BN, THREADS>(sV + ls * TILE_BYTES, vg, tn * BN, p.seq_kv, tid);
                }
                ptx::cp_async_commit();
            }
            const uint32_t kt = sK + slot * TILE_BYTES, vt = sV + slot * TILE_BYTES;

            float s[WM][NT][4];
#pragma unroll
            for (int mi = 0; mi < WM; ++mi)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) s[mi][nt][e] = 0.f;

#pragma unroll
            for (int kk = 0; kk < KS; ++kk) {
                uint32_t a[WM][4];
#pragma unroll
                for (int mi = 0; mi < WM; ++mi) {
                    if constexpr (QREG) {
#pragma unroll
                        for (int e = 0; e < 4; ++e) a[mi][e] = qf[mi][kk][e];
                    } else {
                        ptx::ldmatrix_x4(a[mi], sQ + swz<D>(qrow + mi * 16, kk * 2 + a_ch));
                    }
                }
#pragma unroll
                for (int nn = 0; nn < BNW / 16; ++nn) {
                    uint32_t b[4];
                    ptx::ldmatrix_x4(b, kt + swz<D>(krow + nn * 16, kk * 2 + b_ch));
#pragma unroll
                    for (int mi = 0; mi < WM; ++mi) {
                        ptx::mma16816(s[mi][2 * nn], a[mi], b[0], b[1]);
                        ptx::mma16816(s[mi][2 * nn + 1], a[mi], b[2], b[3]);
                    }
                }
            }

            // Only tiles that cross the key tail or this warp's diagonal pay for the mask.
            const int n0 = t * BN + warp_n * BNW;
            if (n0 + BNW > p.seq_kv || (p.causal && n0 + BNW - 1 > wrow0 + diag)) {
#pragma unroll
                for (int mi = 0; mi < WM; ++mi)
#pragma unroll
                    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                        for (int e = 0; e < 4; ++e) {
                            const int row = wrow0 + mi * 16 + g + (e >> 1) * 8;
                            const int col = n0 + nt * 8 + 2 * t4 + (e & 1);
                            if (col >= p.seq_kv || (p.causal && col > row + diag))
                                s[mi][nt][e] = -INFINITY;
                        }
            }

            // Online softmax in log2 units. A row's running max moves only when the tile's max
            // exceeds it by more than RESCALE_SLACK: until then P may reach 2^RESCALE_SLACK
            // (exact in fp16, far from its range) and O and the row sum need no rescaling, so
            // after the first tiles the warp skips the D/2 multiplies per row most of the time.
            // A row with no admissible key so far keeps max -inf and subtracts 0 instead, so
            // that 2^(-inf) = 0 stands in for -inf - -inf.
#pragma unroll
            for (int mi = 0; mi < WM; ++mi) {
                float alpha[2];
                bool rescale = false;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    float mx = -INFINITY;
#pragma unroll
                    for (int nt = 0; nt < NT; ++nt)
                        mx = fmaxf(mx, fmaxf(s[mi][nt][2 * h], s[mi][nt][2 * h + 1]));
                    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                    const float m_tile = mx * p.scale_log2;
                    alpha[h] = 1.f;
                    if (m_tile > row_m[mi][h] + RESCALE_SLACK) {
                        alpha[h] = ptx::ex2(row_m[mi][h] - m_tile);
                        row_m[mi][h] = m_tile;
                        rescale = true;
                    }
                    const float m_use = row_m[mi][h] == -INFINITY ? 0.f : row_m[mi][h];
                    float sum = 0.f;
#pragma unroll
                    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            const float x = ptx::ex2(fmaf(s[mi][nt][2 * h + e], p.scale_log2, -m_use));
                            s[mi][nt][2 * h + e] = x;
                            sum += x;
                        }
                    row_l[mi][h] = row_l[mi][h] * alpha[h] + sum;
                }
                if (__any_sync(0xffffffffu, rescale)) {
#pragma unroll
                    for (int dt = 0; dt < DT; ++dt) {
                        o[mi][dt][0] *= alpha[0];
                        o[mi][dt][1] *= alpha[0];
                        o[mi][dt][2] *= alpha[1];
                        o[mi][dt][3] *= alpha[1];
                    }
                }
            }

            // O += P V; n8 tiles 2j and 2j+1 of S are the k16 step j of P.
#pragma unroll
            for (int j = 0; j < PS; ++j) {
                uint32_t pa[WM][4];
#pragma unroll
                for (int mi = 0; mi < WM; ++mi) {
                    pa[mi][0] = ptx::pack_half2(s[mi][2 * j][0], s[mi][2 * j][1]);
                    pa[mi][1] = ptx::pack_half2(s[mi][2 * j][2], s[mi][2 * j][3]);
                    pa[mi][2] = ptx::pack_half2(s[mi][2 * j + 1][0], s[mi][2 * j + 1][1]);
                    pa[mi][3] = ptx::pack_half2(s[mi][2 * j + 1][2], s[mi][2 * j + 1][3]);
                }
#pragma unroll
                for (int dn = 0; dn < D / 16; ++dn) {
                    uint32_t b[4];
                    ptx::ldmatrix_x4_trans(b, vt + swz<D>(vrow + j * 16, dn * 2 + a_ch));
#pragma unroll
                    for (int mi = 0; mi < WM; ++mi) {
                        ptx::mma16816(o[mi][2 * dn], pa[mi], b[0], b[1]);
                        ptx::mma16816(o[mi][2 * dn + 1], pa[mi], b[2], b[3]);
                    }
                }
            }
            slot = slot + 1 == STAGES ? 0 : slot + 1;
        }
    }

    // Each thread summed a quarter of its rows' columns; the quad holds the whole row.
#pragma unroll
    for (int mi = 0; mi < WM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            row_l[mi][h] += __shfl_xor_sync(0xffffffffu, row_l[mi][h], 1);
            row_l[mi][h] += __shfl_xor_sync(0xffffffffu, row_l[mi][h], 2);
        }

    if constexpr (WN > 1) {
        // Warps that shared rows over different keys merge through shared memory (the K/V
        // ring is free now): each scales its partial to the rows' common max and total sum,
        // then the block adds the WN partials and writes O in 16-byte rows.
        constexpr int PITCH = partial_pitch<D, BM, BN, STAGES, WN>();
        constexpr int WROWS = 16 * WM;
        static_assert((size_t)WN * BM * PITCH * 4 + (size_t)WN * BM * 8 <= (size_t)(BM + 2 * STAGES * BN) * D * 2,
                      "partials fit in the tile buffers");
        float *s_o = reinterpret_cast<float *>(smem);
        float2 *s_ml = reinterpret_cast<float2 *>(s_o + WN * BM * PITCH);
        __syncthreads();
#pragma unroll
        for (int mi = 0; mi < WM; ++mi)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                if (t4 == 0)
                    s_ml[warp * WROWS + mi * 16 + g + h * 8] = make_float2(row_m[mi][h], row_l[mi][h]);
        __syncthreads();
#pragma unroll
        for (int mi = 0; mi < WM; ++mi)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int lr = mi * 16 + g + h * 8;
                float mx = -INFINITY;
#pragma unroll
                for (int n = 0; n < WN; ++n) mx = fmaxf(mx, s_ml[(warp_m * WN + n) * WROWS + lr].x);
                const float m_use = mx == -INFINITY ? 0.f : mx;
                float l = 0.f;
#pragma unroll
                for (int n = 0; n < WN; ++n) {
                    const float2 ml = s_ml[(warp_m * WN + n) * WROWS + lr];
                    l += ml.y * ptx::ex2(ml.x - m_use);
                }
                const float w = l > 0.f ? ptx::ex2(row_m[mi][h] - m_use) / l : 0.f;
                float2 *dst = reinterpret_cast<float2 *>(s_o + (warp * WROWS + lr) * PITCH) + t4;
#pragma unroll
                for (int dt = 0; dt < DT; ++dt)
                    dst[dt * 4] = make_float2(o[mi][dt][2 * h] * w, o[mi][dt][2 * h + 1] * w);
            }
        __syncthreads();
        constexpr int CH = D / 8;
        for (int idx = tid; idx < BM * CH; idx += THREADS) {
            const int r = idx / CH, c = idx % CH;
            const int row = m0 + r;
            if (row >= p.seq_q) continue;
            const int wm_ = r / WROWS, lr = r % WROWS;
            float acc[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[e] = 0.f;
#pragma unroll
            for (int n = 0; n < WN; ++n) {
                const float4 *src = reinterpret_cast<const float4 *>(s_o + ((wm_ * WN + n) * WROWS + lr) * PITCH + c * 8);
                const float4 x = src[0], y = src[1];
                acc[0] += x.x; acc[1] += x.y; acc[2] += x.z; acc[3] += x.w;
                acc[4] += y.x; acc[5] += y.y; acc[6] += y.z; acc[7] += y.w;
            }
            uint4 out;
            out.x = ptx::pack_half2(acc[0], acc[1]);
            out.y = ptx::pack_half2(acc[2], acc[3]);
            out.z = ptx::pack_half2(acc[4], acc[5]);
            out.w = ptx::pack_half2(acc[6], acc[7]);
            *reinterpret_cast<uint4 *>(p.o + ((size_t)bh * p.seq_q + row) * D + c * 8) = out;
        }
        return;
    }

    if (p.split == 1) {
#pragma unroll
        for (int mi = 0; mi < WM; ++mi)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = wrow0 + mi * 16 + g + h * 8;
                if (row >= p.seq_q) continue;
                const float inv = row_l[mi][h] > 0.f ? 1.f / row_l[mi][h] : 0.f;
                __half2 *dst = reinterpret_cast<__half2 *>(p.o + ((size_t)bh * p.seq_q + row) * D) + t4;
#pragma unroll
                for (int dt = 0; dt < DT; ++dt)
                    dst[dt * 4] = __floats2half2_rn(o[mi][dt][2 * h] * inv, o[mi][dt][2 * h + 1] * inv);
            }
        return;
    }

    // Split-KV: publish this split's partial, then the last split of the tile merges.
    const size_t split_rows = (size_t)p.bh_total * p.seq_q;
    const size_t head_row0 = (size_t)bh * p.seq_q;
#pragma unroll
    for (int mi = 0; mi < WM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = wrow0 + mi * 16 + g + h * 8;
            if (row >= p.seq_q) continue;
            const size_t r = sp * split_rows + head_row0 + row;
            float2 *dst = reinterpret_cast<float2 *>(p.ws_o + r * D) + t4;
#pragma unroll
            for (int dt = 0; dt < DT; ++dt)
                dst[dt * 4] = make_float2(o[mi][dt][2 * h], o[mi][dt][2 * h + 1]);
            if (t4 == 0) p.ws_ml[r] = make_float2(row_m[mi][h], row_l[mi][h]);
        }
    __threadfence();
    __syncthreads();
    int *counter = p.counters + (size_t)bh * p.m_tiles + mt;
    if (tid == 0) is_last = atomicAdd(counter, 1) == p.split - 1;
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    if (tid == 0) *counter = 0;

    // The other splits' (max, sum) all in one round of loads, then their O; the own
    // split's slot stands in (with weight 0) for absent ones so that no load is predicated.
#pragma unroll
    for (int mi = 0; mi < WM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = wrow0 + mi * 16 + g + h * 8;
            if (row >= p.seq_q) continue;
            float2 ml[MAX_SPLIT];
#pragma unroll
            for (int j = 0; j < MAX_SPLIT; ++j)
                ml[j] = j < p.split && j != sp ? __ldcg(p.ws_ml + j * split_rows + head_row0 + row)
                                               : make_float2(-INFINITY, 0.f);
            float mx = row_m[mi][h];
#pragma unroll
            for (int j = 0; j < MAX_SPLIT; ++j) mx = fmaxf(mx, ml[j].x);
            const float m_use = mx == -INFINITY ? 0.f : mx;
            const float w = ptx::ex2(row_m[mi][h] - m_use);
            float l = row_l[mi][h] * w;
#pragma unroll
            for (int dt = 0; dt < DT; ++dt) {
                o[mi][dt][2 * h] *= w;
                o[mi][dt][2 * h + 1] *= w;
            }
#pragma unroll 4
            for (int j = 0; j < p.split; ++j) {
                const float2 mlj = __ldcg(p.ws_ml + j * split_rows + head_row0 + row);
                const float wj = j == sp ? 0.f : ptx::ex2(mlj.x - m_use);
                l += mlj.y * wj;
                const float2 *src = reinterpret_cast<const float2 *>(p.ws_o + (j * split_rows + head_row0 + row) * D) + t4;
#pragma unroll
                for (int dt = 0; dt < DT; ++dt) {
                    const float2 v = __ldcg(src + dt * 4);
                    o[mi][dt][2 * h] += v.x * wj;
                    o[mi][dt][2 * h + 1] += v.y * wj;
                }
            }
            const float inv = l > 0.f ? 1.f / l : 0.f;
            __half2 *dst = reinterpret_cast<__half2 *>(p.o + (head_row0 + row) * D) + t4;
#pragma unroll
            for (int dt = 0; dt < DT; ++dt)
                dst[dt * 4] = __floats2half2_rn(o[mi][dt][2 * h] * inv, o[mi][dt][2 * h + 1] * inv);
        }
}

}  // namespace tiling

#endif  // TILING_FLASH_KERNEL_CUH
