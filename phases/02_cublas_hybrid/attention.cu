// 02_cublas_hybrid: attention as three library-grade steps through device memory.
//   1. S = scale * Q K^T   cuBLAS strided-batched GEMM, fp16 in, fp32 compute, fp32 out
//   2. P = softmax(S)      one warp per row (softmax_rows.cuh), fp32 math, fp16 out
//   3. O = P V             cuBLAS strided-batched GEMM, fp16 in, fp32 compute, fp16 out
// The score matrix lives in the workspace. Scores stay fp32: rounding them to fp16 would
// put an absolute error of |s| * 2^-11 on every logit, which the exponential turns into
// the same relative error on every probability (0.5% at |s| = 10), and the problem
// promises fp32 accumulation up to the softmax. The price is 4 bytes written and read
// per score instead of 2.
// When B*H*Sq*Skv scores do not fit the cap below, the heads (and, for a single head too
// large, its query rows) are processed in chunks, three launches each, reusing one
// chunk-sized workspace; any shape runs.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "softmax_rows.cuh"

namespace {

// Scores + P per chunk. Far above the L2, so the cap trades nothing but launch count.
constexpr size_t CHUNK_CAP = size_t(1) << 30;
// cuBLAS's own scratch, given explicitly so that a captured graph never allocates;
// 32 MiB is what cuBLAS documents as enough for Hopper (4 MiB for earlier parts).
constexpr size_t CUBLAS_WS = size_t(32) << 20;
constexpr size_t ALIGN = 256;

size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

struct Plan {
    int ld_s, ld_p;          // row pitch of scores (floats) and of P (halves): Skv rounded to 8
    int heads_per_chunk;     // heads of one chunk (all of seq_q each), or 1 when rows split
    int rows_per_chunk;      // query rows of one head in one chunk
    size_t s_off, p_off, bytes;
};

// Returns false when even one score row is over the cap.
bool make_plan(const attn_shape *s, Plan *pl)
{
    const long long ld = ((long long)s->seq_kv + 7) / 8 * 8;
    if (ld > INT_MAX) return false;
    const size_t row_bytes = (size_t)ld * (sizeof(float) + sizeof(__half));
    const size_t rows_fit = CHUNK_CAP / row_bytes;
    if (rows_fit < 1) return false;
    const long long bh = (long long)s->batch * s->heads;
    long long rows = s->seq_q, heads = 1;
    if ((size_t)s->seq_q <= rows_fit) {
        heads = (long long)(rows_fit / (size_t)s->seq_q);
        if (heads > bh) heads = bh;
        heads = (bh + (bh + heads - 1) / heads - 1) / ((bh + heads - 1) / heads);   // even chunks
    } else {
        const long long n = (s->seq_q + (long long)rows_fit - 1) / (long long)rows_fit;
        rows = (s->seq_q + n - 1) / n;
    }
    pl->ld_s = pl->ld_p = (int)ld;
    pl->heads_per_chunk = (int)heads;
    pl->rows_per_chunk = (int)rows;
    const size_t chunk_rows = (size_t)heads * (size_t)rows;
    pl->s_off = CUBLAS_WS;
    pl->p_off = align_up(pl->s_off + chunk_rows * ld * sizeof(float), ALIGN);
    pl->bytes = align_up(pl->p_off + chunk_rows * ld * sizeof(__half), ALIGN);
    return true;
}

enum { ERR_LAUNCH = 1, ERR_CUBLAS, ERR_SHAPE, ERR_ALLOC, ERR_WORKSPACE };

struct State {
    attn_shape shape;
    Plan plan;
    cublasHandle_t blas;
};

// The last failure, for error_string (asked right after the failing call).
cudaError_t g_cuda = cudaSuccess;
cublasStatus_t g_blas = CUBLAS_STATUS_SUCCESS;
char g_blas_msg[160];
char g_launch_msg[160];
char g_ready_msg[200] = "cuBLAS strided-batched GEMMs around a fp32 row softmax";

const char *unsupported(const attn_shape *s)
{
    static char why[160];
    if (s->head_dim != 64 && s->head_dim != 128)
        return "head_dim must be 64 or 128 (the phase is validated and gated for those two)";
    if (s->batch < 1 || s->heads < 1 || s->seq_q < 1 || s->seq_kv < 1)
        return "batch, heads, seq_q and seq_kv must be >= 1";
    if ((long long)s->batch * s->heads > INT_MAX) return "batch * heads over INT_MAX (GEMM batch count)";
    Plan pl;
    if (!make_plan(s, &pl)) {
        snprintf(why, sizeof why, "one score row plus its P row (%zu bytes) exceeds the %zu-byte chunk cap",
                 (size_t)(((long long)s->seq_kv + 7) / 8 * 8) * 6, CHUNK_CAP);
        return why;
    }
    return nullptr;
}

size_t workspace_bytes(const attn_shape *s)
{
    Plan pl;
    return make_plan(s, &pl) ? pl.bytes : 0;
}

int blas_fail(cublasStatus_t st, const char *what)
{
    g_blas = st;
    snprintf(g_blas_msg, sizeof g_blas_msg, "%s: %s", what, cublasGetStatusString(st));
    return ERR_CUBLAS;
}

int init(void **state, const attn_shape *s)
{
    *state = nullptr;
    if (unsupported(s)) return ERR_SHAPE;
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) return ERR_ALLOC;
    st->shape = *s;
    make_plan(s, &st->plan);
    cublasStatus_t bs = cublasCreate(&st->blas);
    if (bs != CUBLAS_STATUS_SUCCESS) {
        free(st);
        return blas_fail(bs, "cublasCreate");
    }
    // Default math lets fp16 inputs use the tensor cores; the compute type (32F) keeps
    // accumulation in fp32.
    if ((bs = cublasSetMathMode(st->blas, CUBLAS_DEFAULT_MATH)) != CUBLAS_STATUS_SUCCESS ||
        (bs = cublasSetPointerMode(st->blas, CUBLAS_POINTER_MODE_HOST)) != CUBLAS_STATUS_SUCCESS) {
        cublasDestroy(st->blas);
        free(st);
        return blas_fail(bs, "cublasSetMathMode/PointerMode");
    }
    int ver = 0;
    cublasGetVersion(st->blas, &ver);
    const long long chunks = ((long long)s->batch * s->heads + st->plan.heads_per_chunk - 1) /
                             st->plan.heads_per_chunk *
                             ((s->seq_q + st->plan.rows_per_chunk - 1) / st->plan.rows_per_chunk);
    snprintf(g_ready_msg, sizeof g_ready_msg,
             "cuBLAS %d: GEMM (fp32 scores) + warp-per-row softmax + GEMM; %lld chunk(s) of %d head(s) x "
             "%d rows, workspace %zu bytes",
             ver, chunks, st->plan.heads_per_chunk, st->plan.rows_per_chunk, st->plan.bytes);
    *state = st;
    return 0;
}

int run(void *state, const attn_args *a)
{
    if (!state) return ERR_SHAPE;
    State *st = static_cast<State *>(state);
    const attn_shape &s = st->shape;
    const Plan &pl = st->plan;
    if (!a->workspace) return ERR_WORKSPACE;
    unsigned char *ws = static_cast<unsigned char *>(a->workspace);

    // cublasSetStream resets the workspace to cuBLAS's own pool, so the workspace comes
    // second. Neither call synchronises or allocates.
    cublasStatus_t bs = cublasSetStream(st->blas, a->stream);
    if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(bs, "cublasSetStream");
    if ((bs = cublasSetWorkspace(st->blas, ws, CUBLAS_WS)) != CUBLAS_STATUS_SUCCESS)
        return blas_fail(bs, "cublasSetWorkspace");

    float *sc = reinterpret_cast<float *>(ws + pl.s_off);
    __half *p = reinterpret_cast<__half *>(ws + pl.p_off);
    const __half *q = static_cast<const __half *>(a->q);
    const __half *k = static_cast<const __half *>(a->k);
    const __half *v = static_cast<const __half *>(a->v);
    __half *o = static_cast<__half *>(a->o);
    const int d = s.head_dim;
    const long long bh = (long long)s.batch * s.heads;
    const long long q_head = (long long)s.seq_q * d, kv_head = (long long)s.seq_kv * d;
    const float alpha = s.scale, one = 1.0f, zero = 0.0f;

    for (long long h0 = 0; h0 < bh; h0 += pl.heads_per_chunk) {
        const int nh = (int)(bh - h0 < pl.heads_per_chunk ? bh - h0 : pl.heads_per_chunk);
        for (int r0 = 0; r0 < s.seq_q; r0 += pl.rows_per_chunk) {
            const int nr = s.seq_q - r0 < pl.rows_per_chunk ? s.seq_q - r0 : pl.rows_per_chunk;
            // Column-major view: S^T (Skv x nr) = K (Skv x D, stored as D x Skv) . Q^T.
            bs = cublasGemmStridedBatchedEx(
                st->blas, CUBLAS_OP_T, CUBLAS_OP_N, s.seq_kv, nr, d, &alpha,
                k + h0 * kv_head, CUDA_R_16F, d, kv_head,
                q + h0 * q_head + (long long)r0 * d, CUDA_R_16F, d, q_head, &zero,
                sc, CUDA_R_32F, pl.ld_s, (long long)nr * pl.ld_s, nh,
                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(bs, "GEMM Q K^T");

            const int n_rows = nh * nr;
            const unsigned grid = (unsigned)((n_rows + softmax_rows::WARPS - 1) / softmax_rows::WARPS);
            softmax_rows::softmax_rows_kernel<<<grid, softmax_rows::THREADS, 0, a->stream>>>(
                sc, p, n_rows, nr, r0, pl.ld_s, pl.ld_p, s.seq_q, s.seq_kv, s.causal != 0);
            if ((g_cuda = cudaGetLastError()) != cudaSuccess) return ERR_LAUNCH;

            // O^T (D x nr) = V^T (D x Skv, V as stored) . P^T (Skv x nr, P as stored).
            bs = cublasGemmStridedBatchedEx(
                st->blas, CUBLAS_OP_N, CUBLAS_OP_N, d, nr, s.seq_kv, &one,
                v + h0 * kv_head, CUDA_R_16F, d, kv_head,
                p, CUDA_R_16F, pl.ld_p, (long long)nr * pl.ld_p, &zero,
                o + h0 * q_head + (long long)r0 * d, CUDA_R_16F, d, q_head, nh,
                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(bs, "GEMM P V");
        }
    }
    return 0;
}

void fini(void *state)
{
    if (!state) return;
    State *st = static_cast<State *>(state);
    cublasDestroy(st->blas);
    free(st);
}

const char *error_string(int code)
{
    switch (code) {
    case 0: return g_ready_msg;
    case ERR_LAUNCH:
        snprintf(g_launch_msg, sizeof g_launch_msg, "softmax kernel launch failed: %s", cudaGetErrorString(g_cuda));
        return g_launch_msg;
    case ERR_CUBLAS: return g_blas_msg;
    case ERR_SHAPE: return "shape not supported (see unsupported()) or init not called";
    case ERR_ALLOC: return "out of host memory for the phase state";
    case ERR_WORKSPACE: return "run() got no workspace; it needs workspace_bytes(shape) of device memory";
    default: return "unknown error code";
    }
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_phase_entry = {
    1, "02_cublas_hybrid", "cuBLAS GEMM -> fp32 row softmax -> cuBLAS GEMM, scores in device memory",
    unsupported, workspace_bytes, init, run, fini, error_string,
};
