// 01_scalar: the minimal correct attention kernel. One warp owns one query row; each
// lane holds D/32 consecutive elements of q and of the output accumulator. Keys are
// visited one at a time: the dot product is a warp-wide butterfly sum, and the softmax
// is computed online (running max m, running sum l, accumulator rescaled when m grows),
// all in fp32 on CUDA cores. No shared memory, no tensor cores: the reference point the
// other rungs are measured from.
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>
#include "attn_phase.h"

namespace {

constexpr int WARPS = 4;   // query rows per block
constexpr int THREADS = WARPS * 32;
constexpr float LOG2E = 1.4426950408889634f;

// An xor butterfly leaves the same bits in every lane (each step adds the same two
// values in either order), so the branch on the score below is warp-uniform.
__device__ __forceinline__ float warp_sum(float x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

// A lane's E = D/32 consecutive halves: one 4-byte (D=64) or 8-byte (D=128) access, so
// a warp reads a whole row in one coalesced transaction.
template <int E> struct Vec;
template <> struct Vec<2> { using T = __half2; };
template <> struct Vec<4> { using T = uint2; };

template <int E>
__device__ __forceinline__ void load_row(const __half *p, float (&x)[E])
{
    const typename Vec<E>::T raw = *reinterpret_cast<const typename Vec<E>::T *>(p);
    const __half2 *h = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
    for (int i = 0; i < E / 2; ++i) {
        const float2 f = __half22float2(h[i]);
        x[2 * i] = f.x;
        x[2 * i + 1] = f.y;
    }
}

template <int E>
__device__ __forceinline__ void store_row(__half *p, const float (&x)[E])
{
    typename Vec<E>::T raw;
    __half2 *h = reinterpret_cast<__half2 *>(&raw);
#pragma unroll
    for (int i = 0; i < E / 2; ++i) h[i] = __floats2half2_rn(x[2 * i], x[2 * i + 1]);
    *reinterpret_cast<typename Vec<E>::T *>(p) = raw;
}

// The minimum of 8 blocks per SM caps registers at 64. Without it ptxas 13 targets
// full occupancy on sm_90 (32 registers) and spills the D=128 instance.
template <int D>
__global__ void __launch_bounds__(THREADS, 8)
attention_scalar(const __half *__restrict__ q, const __half *__restrict__ k,
                 const __half *__restrict__ v, __half *__restrict__ o,
                 long long n_rows, int seq_q, int seq_kv, int causal, float scale_log2)
{
    constexpr int E = D / 32;
    const long long row = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
    if (row >= n_rows) return;
    const int lane = threadIdx.x % 32;
    const long long bh = row / seq_q;
    const int i = (int)(row % seq_q);

    // Bottom-right causal: row i sees keys j <= i + (seq_kv - seq_q).
    int limit = seq_kv;
    if (causal) limit = (int)min((long long)seq_kv, (long long)i + seq_kv - seq_q + 1);

    float qf[E], acc[E];
    load_row<E>(q + (size_t)row * D + lane * E, qf);
#pragma unroll
    for (int e = 0; e < E; ++e) {
        qf[e] *= scale_log2;   // scores in log2 units: exp2 instead of exp
        acc[e] = 0.0f;
    }
    const __half *kr = k + (size_t)bh * seq_kv * D + lane * E;
    const __half *vr = v + (size_t)bh * seq_kv * D + lane * E;

    float m = -CUDART_INF_F, l = 0.0f;
#pragma unroll 4
    for (int j = 0; j < limit; ++j) {
        float kf[E], vf[E];
        load_row<E>(kr + (size_t)j * D, kf);
        load_row<E>(vr + (size_t)j * D, vf);
        float part = 0.0f;
#pragma unroll
        for (int e = 0; e < E; ++e) part = fmaf(qf[e], kf[e], part);
        const float s = warp_sum(part);
        if (s > m) {   // the max grew: rescale what was accumulated against the old one
            const float alpha = exp2f(m - s);   // 0 on the first key (m = -inf)
            l *= alpha;
#pragma unroll
            for (int e = 0; e < E; ++e) acc[e] *= alpha;
            m = s;
        }
        const float p = exp2f(s - m);
        l += p;
#pragma unroll
        for (int e = 0; e < E; ++e) acc[e] = fmaf(p, vf[e], acc[e]);
    }

    // A row with no admissible key (limit <= 0) has l = 0 and writes zeros.
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
    for (int e = 0; e < E; ++e) acc[e] *= inv;
    store_row<E>(o + (size_t)row * D + lane * E, acc);
}

enum { ERR_LAUNCH = 1, ERR_SHAPE, ERR_ALLOC };

struct State {
    attn_shape shape;
};

// Launches happen on whatever thread calls run(); the last failure is kept for
// error_string, which the caller asks right after.
cudaError_t g_cuda = cudaSuccess;
char g_msg[160];

const char *unsupported(const attn_shape *s)
{
    if (s->head_dim != 64 && s->head_dim != 128)
        return "head_dim must be 64 or 128 (each lane holds head_dim/32 elements; the kernel is "
               "instantiated for those two)";
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1)
        return "batch, heads, seq_q and seq_kv must be >= 1";
    const long long rows = (long long)s->batch * s->heads * s->seq_q;
    if ((rows + WARPS - 1) / WARPS > INT_MAX) return "more than INT_MAX blocks of 4 query rows";
    return nullptr;
}

size_t workspace_bytes(const attn_shape *) { return 0; }

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    State *st = static_cast<State *>(malloc(sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    *state = st;
    return 0;
}

template <int D> void launch(const attn_shape &s, const attn_args *a)
{
    const long long rows = (long long)s.batch * s.heads * s.seq_q;
    const unsigned grid = (unsigned)((rows + WARPS - 1) / WARPS);
    attention_scalar<D><<<grid, THREADS, 0, a->stream>>>(
        static_cast<const __half *>(a->q), static_cast<const __half *>(a->k),
        static_cast<const __half *>(a->v), static_cast<__half *>(a->o), rows, s.seq_q,
        s.seq_kv, s.causal != 0, s.scale * LOG2E);
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_SHAPE;
    const attn_shape &s = static_cast<State *>(state)->shape;
    if (s.head_dim == 64) launch<64>(s, a);
    else launch<128>(s, a);
    g_cuda = cudaGetLastError();
    return g_cuda == cudaSuccess ? 0 : ERR_LAUNCH;
}

void fini(void *state) { free(state); }

const char *error_string(int code)
{
    switch (code) {
    case 0: return "one warp per query row, head_dim/32 elements per lane, online softmax in fp32";
    case ERR_LAUNCH:
        snprintf(g_msg, sizeof g_msg, "kernel launch failed: %s", cudaGetErrorString(g_cuda));
        return g_msg;
    case ERR_SHAPE: return "shape not supported (see unsupported()) or init not called";
    case ERR_ALLOC: return "out of host memory for the phase state";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "01_scalar", "scalar: one warp per query row, shuffle dot products, online softmax",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
