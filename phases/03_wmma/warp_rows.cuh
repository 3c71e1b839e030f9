// warp_rows.cuh: what one warp does for its 16 query rows of a block, given the block's
// Q rows and one K/V tile in shared memory: S = Q K^T on WMMA fragments, the online
// softmax on S staged in the warp's own shared memory (WMMA fragment layouts are
// opaque, so the scores cannot be read row by row in registers), P back to fp16 in
// shared memory, O += P V on WMMA fragments. Nothing here synchronises the block.
#pragma once
#include <cuda_fp16.h>
#include <math_constants.h>
#include <mma.h>

namespace warp_rows {

using namespace nvcuda;

constexpr int ROWS = 16;   // query rows per warp: one WMMA M
constexpr int BN = 64;     // keys per tile
// Staged score rows: 72 floats (72 = 8 mod 32 banks). The softmax's float4 reads at
// column 8c + 4h from rows r = lane / 2 then cover 32 distinct banks per quarter-warp.
constexpr int LDS = BN + 8;
// P rows: 72 halves (36 words = 4 mod 32): its 8-byte stores cover 32 banks per half-warp.
constexpr int LDP = BN + 8;
// Q/K/V rows carry 8 halves of padding, so the 8 rows of 16 bytes that one phase of a
// 16x16 fragment load reads start 4 banks apart.
template <int D> constexpr int ldh() { return D + 8; }

// The warp's private staging area: scores, probabilities, one float per row. A multiple
// of 32 bytes, so every area stays aligned for fragment loads and stores.
constexpr int STAGE_BYTES = ROWS * LDS * 4 + ROWS * LDP * 2 + ROWS * 4;
static_assert(STAGE_BYTES % 32 == 0, "fragment pointers need 32-byte alignment");

using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
using RowA = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;
using ColB = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major>;
using RowB = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>;

template <int D>
struct WarpRows {
    static constexpr int LDH = ldh<D>();
    static constexpr int NE = Acc::num_elements;

    float *s;
    __half *p;
    float *fac;       // per-row factor: the rescale of this tile, or 1/l at the end
    int lane;
    int row_of[NE];   // the row (0..15) of each accumulator element
    Acc o[D / 16];    // unnormalised output rows
    float m;          // running max, log2 units, shared by the lane pair of a row
    float l;          // this lane's share of the running sum

    __device__ __forceinline__ void init(unsigned char *stage, int lane_)
    {
        s = reinterpret_cast<float *>(stage);
        p = reinterpret_cast<__half *>(stage + ROWS * LDS * 4);
        fac = reinterpret_cast<float *>(stage + ROWS * LDS * 4 + ROWS * LDP * 2);
        lane = lane_;
        // Rescaling O row by row needs each accumulator element's row; the layout is
        // the compiler's. Loading a matrix whose entries are their row numbers says it.
        for (int e = lane; e < 256; e += 32) s[(e / 16) * LDS + e % 16] = (float)(e / 16);
        __syncwarp();
        Acc probe;
        wmma::load_matrix_sync(probe, s, LDS, wmma::mem_row_major);
#pragma unroll
        for (int i = 0; i < NE; ++i) row_of[i] = (int)probe.x[i];
        __syncwarp();
#pragma unroll
        for (int f = 0; f < D / 16; ++f) wmma::fill_fragment(o[f], 0.0f);
        m = -CUDART_INF_F;
        l = 0.0f;
    }

    // S = Q K^T for the warp's rows (q: 16 rows, LDH apart) and one tile of BN keys.
    __device__ __forceinline__ void scores(const __half *q, const __half *k_tile)
    {
        Acc acc[BN / 16];
#pragma unroll
        for (int n = 0; n < BN / 16; ++n) wmma::fill_fragment(acc[n], 0.0f);
        // Kept rolled: unrolled, ptxas hoists every K fragment of the tile at once and the
        // D=128 instance spills on sm_90 (255 registers).
#pragma unroll 1
        for (int kk = 0; kk < D / 16; ++kk) {
            RowA a;
            wmma::load_matrix_sync(a, q + kk * 16, LDH);
#pragma unroll
            for (int n = 0; n < BN / 16; ++n) {
                ColB b;   // K is key-major: read column-major, it is K^T
                wmma::load_matrix_sync(b, k_tile + n * 16 * LDH + kk * 16, LDH);
                wmma::mma_sync(acc[n], a, b, acc[n]);
            }
        }
#pragma unroll
        for (int n = 0; n < BN / 16; ++n) wmma::store_matrix_sync(s + n * 16, acc[n], LDS, wmma::mem_row_major);
        __syncwarp();
    }

    // Online softmax over the staged tile. Lanes 2r and 2r+1 share row r, taking columns
    // 8c + 4h .. 8c + 4h + 3; columns at or past `limit` (ragged tail, causal) are -inf.
    __device__ __forceinline__ void softmax(int limit, float scale_log2)
    {
        const int r = lane >> 1, h = lane & 1;
        float x[BN / 2];
        float mt = m;
#pragma unroll
        for (int c = 0; c < BN / 8; ++c) {
            const float4 t = *reinterpret_cast<const float4 *>(s + r * LDS + 8 * c + 4 * h);
            const float v[4] = {t.x, t.y, t.z, t.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                x[4 * c + e] = 8 * c + 4 * h + e < limit ? v[e] * scale_log2 : -CUDART_INF_F;
                mt = fmaxf(mt, x[4 * c + e]);
            }
        }
        mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, 1));
        // Until a row has seen a key its max is -inf; measuring against 0 instead keeps
        // p = 0 and the factor 0 rather than inf - inf.
        const float base = mt == -CUDART_INF_F ? 0.0f : mt;
        const float alpha = exp2f(m - base);
        m = mt;
        float sum = 0.0f;
#pragma unroll
        for (int c = 0; c < BN / 8; ++c) {
            float e4[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                e4[e] = exp2f(x[4 * c + e] - base);
                sum += e4[e];
            }
            __half2 hv[2] = {__floats2half2_rn(e4[0], e4[1]), __floats2half2_rn(e4[2], e4[3])};
            *reinterpret_cast<uint2 *>(p + r * LDP + 8 * c + 4 * h) = *reinterpret_cast<uint2 *>(hv);
        }
        l = l * alpha + sum;
        if (h == 0) fac[r] = alpha;
        __syncwarp();
        scale_o();
    }

    // O += P V for one tile of V (key-major, LDH halves per key).
    __device__ __forceinline__ void accumulate(const __half *v_tile)
    {
#pragma unroll
        for (int n = 0; n < BN / 16; ++n) {
            RowA a;
            wmma::load_matrix_sync(a, p + n * 16, LDP);
#pragma unroll
            for (int f = 0; f < D / 16; ++f) {
                RowB b;
                wmma::load_matrix_sync(b, v_tile + n * 16 * LDH + f * 16, LDH);
                wmma::mma_sync(o[f], a, b, o[f]);
            }
        }
    }

    // Divide by the row sums (rows that saw no key: 0) and write rows row0 + r that are
    // below n_rows into out (D halves per row), 64 columns at a time through s.
    __device__ __forceinline__ void store(__half *out, int row0, int n_rows)
    {
        const int r = lane >> 1, h = lane & 1;
        __syncwarp();   // the last tile's reads of fac are done
        const float lr = l + __shfl_xor_sync(0xffffffffu, l, 1);
        if (h == 0) fac[r] = lr > 0.0f ? 1.0f / lr : 0.0f;
        __syncwarp();
        scale_o();
#pragma unroll
        for (int c0 = 0; c0 < D / 64; ++c0) {
            __syncwarp();   // the previous chunk's reads are done
#pragma unroll
            for (int f = 0; f < 4; ++f)
                wmma::store_matrix_sync(s + f * 16, o[4 * c0 + f], LDS, wmma::mem_row_major);
            __syncwarp();
            if (row0 + r < n_rows) {
                __half *dst = out + (size_t)(row0 + r) * D + c0 * 64 + h * 32;
#pragma unroll
                for (int t = 0; t < 4; ++t) {
                    const float4 a = *reinterpret_cast<const float4 *>(s + r * LDS + h * 32 + 8 * t);
                    const float4 b = *reinterpret_cast<const float4 *>(s + r * LDS + h * 32 + 8 * t + 4);
                    __half2 hv[4] = {__floats2half2_rn(a.x, a.y), __floats2half2_rn(a.z, a.w),
                                     __floats2half2_rn(b.x, b.y), __floats2half2_rn(b.z, b.w)};
                    *reinterpret_cast<uint4 *>(dst + 8 * t) = *reinterpret_cast<uint4 *>(hv);
                }
            }
        }
    }

  private:
    __device__ __forceinline__ void scale_o()
    {
#pragma unroll
        for (int i = 0; i < NE; ++i) {
            const float a = fac[row_of[i]];
#pragma unroll
            for (int f = 0; f < D / 16; ++f) o[f].x[i] *= a;
        }
    }
};

}  // namespace warp_rows
