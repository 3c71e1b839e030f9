// softmax_mask.cuh: the online softmax of one K/V tile on the S accumulator in registers,
// with the mask (the causal diagonal, the end of the keys) and the rescale of the running
// output. Register layout (hopper_ptx.cuh, the wgmma accumulator): a thread holds rows r0
// and r0 + 8 of its warpgroup's 64 (r0 = 16 warp + lane / 4), S column 8g + 2(lane % 4) + c
// of row r0 + 8i in s[4g + 2i + c]; the four lanes of a quad share a row.
#pragma once

namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// The running max moves only when a row's max grows by more than 2^RESCALE_LOG2 (in exp2
// units): below that the probabilities stay under 256 (fp16 and the fp32 sums hold them
// exactly as well) and the running output needs no rescale.
constexpr float RESCALE_LOG2 = 8.f;

__device__ __forceinline__ float ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// Online softmax of key tile j on s (raw scores in, unnormalised probabilities out) for
// work tile t of a block with NCONS consumer warpgroups, this thread's warpgroup wg;
// alpha: the factor the running output must be rescaled by; returns whether any row of the
// warp needs it (warp-uniform), so that in most tiles the D / 2 multiplies of the rescale
// are skipped. NW: the tile's S width (KN, or a narrow first tile's: its other columns are
// past every key and are not read). kv_lim: the end of the keys for non-causal masking
// (seq_kv; the narrow first tile's keys for its own columns). CHAINS: the row max and sum
// in that many independent chains (the dependent FMNMX / FADD chain is the softmax's
// latency).
template <int NCONS, int KN, int CHAINS, bool MASK, int NW, int SN>
__device__ __forceinline__ bool online_softmax(float (&s)[SN], float (&m)[2], float (&l)[2], int wg, int j, int t,
                                               const Params &prm, float (&alpha)[2], int kv_lim)
{
    const int diag = prm.seq_kv - prm.seq_q;   // bottom-right causal: row i sees keys <= i + diag
    const int lane = threadIdx.x % 32;
    if constexpr (MASK) {
        // This thread's first row, derived here from the work tile (opaque, so the
        // compiler does not keep it live through the unmasked iterations).
        asm volatile("" : "+r"(t));
        const int row0 = qblock_of<(NCONS >= 2)>(prm, t) * (64 * NCONS) + wg * 64 + (threadIdx.x / 32) % 4 * 16 + lane / 4;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int row = row0 + 8 * i;
            const int lim = prm.causal ? min(prm.seq_kv, row + diag + 1) : kv_lim;
#pragma unroll
            for (int g = 0; g < NW / 8; ++g)
#pragma unroll
                for (int c = 0; c < 2; ++c)
                    if (j * KN + 8 * g + 2 * (lane % 4) + c >= lim) s[4 * g + 2 * i + c] = -INFINITY;
        }
    }
    bool grew = false;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        float mxc[CHAINS];
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) mxc[c] = c == 0 ? m[i] : -INFINITY;
#pragma unroll
        for (int g = 0; g < NW / 8; ++g)
            mxc[g % CHAINS] = fmaxf(mxc[g % CHAINS], fmaxf(s[4 * g + 2 * i], s[4 * g + 2 * i + 1]));
        float mx = mxc[0];
#pragma unroll
        for (int c = 1; c < CHAINS; ++c) mx = fmaxf(mx, mxc[c]);
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const bool up = (mx - m[i]) * prm.scale_log2 > RESCALE_LOG2;   // m = -inf: up
        alpha[i] = up ? ex2((m[i] - mx) * prm.scale_log2) : 1.f;   // -inf - finite: 0
        if (up) m[i] = mx;
        grew |= up;
        // A row that has seen no key keeps max -inf: its exponentials are 0, not NaN.
        const float ms = m[i] == -INFINITY ? 0.f : m[i] * prm.scale_log2;
        float sum[CHAINS];
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) sum[c] = 0.f;
#pragma unroll
        for (int g = 0; g < NW / 8; ++g)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                float &x = s[4 * g + 2 * i + c];
                x = ex2(fmaf(x, prm.scale_log2, -ms));   // the scale folded into one FMA
                sum[g % CHAINS] += x;
            }
#pragma unroll
        for (int c = 1; c < CHAINS; ++c) sum[0] += sum[c];
        l[i] = l[i] * alpha[i] + sum[0];
    }
    return __any_sync(0xffffffffu, grew);
}

// The running output O (D / 2 accumulators per thread) times the rows' alpha.
template <int ON>
__device__ __forceinline__ void rescale_o(float (&o)[ON], const float (&alpha)[2])
{
#pragma unroll
    for (int g = 0; g < ON / 4; ++g)
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            o[4 * g + 2 * i] *= alpha[i];
            o[4 * g + 2 * i + 1] *= alpha[i];
        }
}
#endif

}  // namespace
