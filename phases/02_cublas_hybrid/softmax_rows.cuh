// softmax_rows.cuh: the middle of the three launches. One warp per score row: a first
// pass keeps a per-lane running max and sum (online, so the row is read once for both),
// the lanes merge theirs, and a second pass writes P = exp(s - max) / sum as fp16, zeros
// where the causal mask or nothing at all admits a key.
#pragma once
#include <cuda_fp16.h>
#include <math_constants.h>

namespace softmax_rows {

constexpr int WARPS = 8;   // rows per block
constexpr int THREADS = WARPS * 32;

// Folds the sum at max m_b into one at max m_a >= m_b (either may be -inf).
__device__ __forceinline__ float rebase(float l, float m_from, float m_to)
{
    return m_from == -CUDART_INF_F ? 0.0f : l * exp2f(m_from - m_to);
}

// Four consecutive scores from column c of a row of n valid columns. A group that
// crosses the end of the row reads only the valid columns: the row's padding is never
// written by the GEMM, and reading it would be a read of uninitialised memory
// (compute-sanitizer's initcheck counted 165,560 of them before this guard).
__device__ __forceinline__ float4 load4(const float *__restrict__ row, int c, int n)
{
    if (c + 4 <= n) return *reinterpret_cast<const float4 *>(row + c);
    float4 t = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (c < n) t.x = row[c];
    if (c + 1 < n) t.y = row[c + 1];
    if (c + 2 < n) t.z = row[c + 2];
    return t;
}

// Rows of this chunk: `heads` heads of `rows` query rows each, the first query row
// being `row0` of its head. Scores are scale * q.k (already scaled by the GEMM), fp32,
// ld_s floats per row; P has ld_p halves per row. Both ld are multiples of 8, so every
// row starts 16-byte aligned and the float4 / 8-byte accesses below are aligned.
__global__ void __launch_bounds__(THREADS)
softmax_rows_kernel(const float *__restrict__ s, __half *__restrict__ p, int n_rows, int rows,
                    int row0, int ld_s, int ld_p, int seq_q, int seq_kv, int causal)
{
    constexpr float LOG2E = 1.4426950408889634f;
    const int row = blockIdx.x * WARPS + threadIdx.x / 32;
    if (row >= n_rows) return;
    const int lane = threadIdx.x % 32;
    const int i = row0 + row % rows;   // query row within its head

    int limit = seq_kv;   // bottom-right causal: keys j <= i + seq_kv - seq_q
    if (causal) limit = (int)min((long long)seq_kv, (long long)i + seq_kv - seq_q + 1);

    const float *sr = s + (size_t)row * ld_s;
    __half *pr = p + (size_t)row * ld_p;

    float m = -CUDART_INF_F, l = 0.0f;
    for (int c = lane * 4; c < limit; c += 128) {
        const float4 t = load4(sr, c, seq_kv);
        const float x[4] = {t.x * LOG2E, t.y * LOG2E, t.z * LOG2E, t.w * LOG2E};
        float mt = m;
#pragma unroll
        for (int e = 0; e < 4; ++e)
            if (c + e < limit) mt = fmaxf(mt, x[e]);
        l = rebase(l, m, mt);
        m = mt;
#pragma unroll
        for (int e = 0; e < 4; ++e)
            if (c + e < limit) l += exp2f(x[e] - m);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float mo = __shfl_xor_sync(0xffffffffu, m, o);
        const float lo = __shfl_xor_sync(0xffffffffu, l, o);
        const float mn = fmaxf(m, mo);
        l = rebase(l, m, mn) + rebase(lo, mo, mn);
        m = mn;
    }
    // A row with no admissible key has l = 0: its P row is all zeros, so is its output.
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    const float mu = m == -CUDART_INF_F ? 0.0f : m;

    // Every column below seq_kv is written (the second GEMM reads k = seq_kv of them);
    // the last group of 4 may write into the row's padding, which nothing reads.
    for (int c = lane * 4; c < seq_kv; c += 128) {
        const float4 t = load4(sr, c, seq_kv);
        const float x[4] = {t.x, t.y, t.z, t.w};
        float y[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) y[e] = c + e < limit ? exp2f(x[e] * LOG2E - mu) * inv : 0.0f;
        __half2 h[2] = {__floats2half2_rn(y[0], y[1]), __floats2half2_rn(y[2], y[3])};
        *reinterpret_cast<uint2 *>(pr + c) = *reinterpret_cast<uint2 *>(h);
    }
}

}  // namespace softmax_rows
