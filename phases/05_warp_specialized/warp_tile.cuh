// warp_tile.cuh: one warp's share of a flash-attention block. The warp owns 16 query
// rows; per key tile it computes S = Q K^T on WMMA fragments, stages S through its own
// slice of shared memory (fragment layouts are opaque), runs the online softmax there in
// fp32 and feeds P (fp16) back to WMMA for O += P V. Nothing here is block-wide: the
// caller decides how K and V reach shared memory and when they may be read.
#pragma once
#include <cstdint>
#include <cuda_fp16.h>
#include <math_constants.h>
#include <mma.h>

namespace warp_tile {

using namespace nvcuda;

constexpr int ROWS = 16;      // query rows per warp: one WMMA M
constexpr int BN = 64;        // keys per tile
// Staged score rows are 72 floats apart (72 = 8 mod 32 words): the accumulator store's
// 8-byte pairs and the softmax's float4 reads each hit 32 distinct banks per phase.
constexpr int LDS = BN + 8;
// P rows and K/V/Q rows carry 8 extra halves (16 bytes), so the 8 rows that one
// fragment load or one ldmatrix phase touches start 4 banks apart.
constexpr int LDP = BN + 8;
template <int D> constexpr int ld_kv() { return D + 8; }

// Shared-memory bytes the warp stages through (scores, probabilities, one float per row).
constexpr int STAGE_BYTES = ROWS * LDS * 4 + ROWS * LDP * 2 + ROWS * 4;

using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;
using FragKt = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major>;
using FragV = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>;

__device__ __forceinline__ uint32_t pack_half2(float a, float b)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}

template <int D>
struct WarpTile {
    static constexpr int LDK = ld_kv<D>();
    static constexpr int NE = Acc::num_elements;

    float *s;       // ROWS x LDS scores, private to this warp
    __half *p;      // ROWS x LDP probabilities
    float *rowv;    // ROWS per-row factors (rescale, then 1/l)
    int lane;
    int frow[NE];   // which of the 16 rows each accumulator element belongs to
    Acc o[D / 16];  // the output rows, unnormalised
    float m, l;     // running max (log2 units) and this lane's partial row sum

    // Accumulator layouts are opaque, but rescaling O row by row needs each element's
    // row. Load a fragment from a matrix whose entries are their own row numbers once.
    __device__ __forceinline__ void init(unsigned char *stage, int lane_)
    {
        s = reinterpret_cast<float *>(stage);
        p = reinterpret_cast<__half *>(stage + ROWS * LDS * 4);
        rowv = reinterpret_cast<float *>(stage + ROWS * LDS * 4 + ROWS * LDP * 2);
        lane = lane_;
        for (int e = lane; e < 16 * 16; e += 32) s[(e / 16) * LDS + e % 16] = (float)(e / 16);
        __syncwarp();
        Acc probe;
        wmma::load_matrix_sync(probe, s, LDS, wmma::mem_row_major);
#pragma unroll
        for (int i = 0; i < NE; ++i) frow[i] = (int)probe.x[i];
        __syncwarp();
#pragma unroll
        for (int f = 0; f < D / 16; ++f) wmma::fill_fragment(o[f], 0.0f);
        m = -CUDART_INF_F;
        l = 0.0f;
    }

    // S = Q K^T for this warp's rows against one BN-key tile, staged into s.
    __device__ __forceinline__ void scores(const __half *q_rows, const __half *k_tile)
    {
        Acc acc[BN / 16];
#pragma unroll
        for (int n = 0; n < BN / 16; ++n) wmma::fill_fragment(acc[n], 0.0f);
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            FragA a;
            wmma::load_matrix_sync(a, q_rows + kk * 16, LDK);
#pragma unroll
            for (int n = 0; n < BN / 16; ++n) {
                FragKt b;   // K is stored key-major: read as K^T in column-major order
                wmma::load_matrix_sync(b, k_tile + n * 16 * LDK + kk * 16, LDK);
                wmma::mma_sync(acc[n], a, b, acc[n]);
            }
        }
#pragma unroll
        for (int n = 0; n < BN / 16; ++n)
            wmma::store_matrix_sync(s + n * 16, acc[n], LDS, wmma::mem_row_major);
        __syncwarp();
    }

    // Online softmax on the staged tile. Two lanes share a row, each taking the columns
    // 8c + 4h .. 8c + 4h + 3; columns at or past `limit` (ragged tail, causal mask) are
    // -inf. Writes P and rescales O by exp2(m_old - m_new).
    __device__ __forceinline__ void softmax(int limit, float scale_log2)
    {
        const int r = lane >> 1, h = lane & 1;
        float x[BN / 2];
        float mt = -CUDART_INF_F;
#pragma unroll
        for (int c = 0; c < BN / 8; ++c) {
            const float4 t = *reinterpret_cast<const float4 *>(s + r * LDS + 8 * c + 4 * h);
            const float v[4] = {t.x, t.y, t.z, t.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int col = 8 * c + 4 * h + e;
                const float y = col < limit ? v[e] * scale_log2 : -CUDART_INF_F;
                x[4 * c + e] = y;
                mt = fmaxf(mt, y);
            }
        }
        mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, 1));
        const float mn = fmaxf(m, mt);
        // A row that has seen no key yet keeps m = -inf; subtracting 0 then gives p = 0
        // and alpha = 0 instead of inf - inf.
        const float mu = mn == -CUDART_INF_F ? 0.0f : mn;
        const float alpha = exp2f(m - mu);
        m = mn;
        float sum = 0.0f;
#pragma unroll
        for (int c = 0; c < BN / 8; ++c) {
            float e4[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                e4[e] = exp2f(x[4 * c + e] - mu);
                sum += e4[e];
            }
            *reinterpret_cast<uint2 *>(p + r * LDP + 8 * c + 4 * h) =
                make_uint2(pack_half2(e4[0], e4[1]), pack_half2(e4[2], e4[3]));
        }
        l = l * alpha + sum;
        if (h == 0) rowv[r] = alpha;
        __syncwarp();
        scale_rows();
    }

    // O += P V for one BN-key tile of V (key-major, LDK halves per key).
    __device__ __forceinline__ void accumulate(const __half *v_tile)
    {
#pragma unroll
        for (int n = 0; n < BN / 16; ++n) {
            FragA a;
            wmma::load_matrix_sync(a, p + n * 16, LDP);
#pragma unroll
            for (int f = 0; f < D / 16; ++f) {
                FragV b;
                wmma::load_matrix_sync(b, v_tile + n * 16 * LDK + f * 16, LDK);
                wmma::mma_sync(o[f], a, b, o[f]);
            }
        }
    }

    // Normalise by the row sums (rows with no key get 0) and write the warp's rows that
    // exist (row0 + i < n_rows) to out, a BHSD slice with D halves per row.
    __device__ __forceinline__ void finish(__half *out, int row0, int n_rows)
    {
        const int r = lane >> 1, h = lane & 1;
        const float lt = l + __shfl_xor_sync(0xffffffffu, l, 1);
        __syncwarp();
        if (h == 0) rowv[r] = lt > 0.0f ? 1.0f / lt : 0.0f;
        __syncwarp();
        scale_rows();
        // 64 columns at a time through s; a quarter-warp reads one row's 32 contiguous
        // floats per access and writes 64 contiguous bytes of it.
#pragma unroll
        for (int c0 = 0; c0 < D / 64; ++c0) {
#pragma unroll
            for (int f = 0; f < 4; ++f)
                wmma::store_matrix_sync(s + f * 16, o[c0 * 4 + f], LDS, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int it = 0; it < 4; ++it) {
                const int row = it * 4 + (lane >> 3), seg = lane & 7;
                const float4 a = *reinterpret_cast<const float4 *>(s + row * LDS + seg * 4);
                const float4 b = *reinterpret_cast<const float4 *>(s + row * LDS + 32 + seg * 4);
                if (row0 + row < n_rows) {
                    __half *dst = out + (size_t)(row0 + row) * D + c0 * 64 + seg * 4;
                    *reinterpret_cast<uint2 *>(dst) = make_uint2(pack_half2(a.x, a.y), pack_half2(a.z, a.w));
                    *reinterpret_cast<uint2 *>(dst + 32) = make_uint2(pack_half2(b.x, b.y), pack_half2(b.z, b.w));
                }
            }
            __syncwarp();
        }
    }

  private:
    __device__ __forceinline__ void scale_rows()
    {
#pragma unroll
        for (int i = 0; i < NE; ++i) {
            const float a = rowv[frow[i]];
#pragma unroll
            for (int f = 0; f < D / 16; ++f) o[f].x[i] *= a;
        }
    }
};

}  // namespace warp_tile
