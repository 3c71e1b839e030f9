// oracle_gpu: the fp64 oracle on the device, for shapes whose every row the CPU
// oracle would take too long on (kernels/oracle/attn_oracle_gpu.h).
//
// Written to be read, not to be fast: the definition of kernels/oracle/attn_oracle.c
// step by step. A block takes 32 query rows of one (batch, head), 8 per warp; the keys go
// by in tiles of 32, one per lane. Two passes over the keys, as the CPU does: the first
// finds each row's largest scaled score, the second takes exp(score - max), sums it and
// accumulates P·V key by key in key order. Q, K and V are held in shared memory as
// doubles (fp16 -> double is exact); every product and sum is a double.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include "attn_oracle_gpu.h"

namespace {

constexpr int WARPS = 4;
constexpr int ROWS = 8;             // query rows per warp
constexpr int BM = WARPS * ROWS;    // query rows per block
constexpr int BN = 32;              // keys per tile: one per lane
constexpr int MAX_DIM = 192;   // 6 output columns per lane; more would spill

__device__ double to_double(uint16_t bits) { return (double)__half2float(__ushort_as_half(bits)); }

// Keys query row i sees: j < visible(i). Causal is bottom-right aligned.
__device__ int visible(int i, int sq, int skv, int causal)
{
    if (!causal) return skv;
    long long last = (long long)i + ((long long)skv - sq);
    if (last < 0) return 0;
    return last + 1 >= skv ? skv : (int)(last + 1);
}

size_t smem_bytes(int dim) { return sizeof(double) * ((size_t)BM * dim + 2 * (size_t)BN * dim + WARPS * ROWS * BN); }

// s[r] = q_r . k_j for the lane's key j of the tile (kt: the tile transposed, [dim][BN]).
__device__ void scores(const double *qs, const double *kt, int dim, int warp, int lane, double s[ROWS])
{
    for (int r = 0; r < ROWS; r++) s[r] = 0.0;
    for (int c = 0; c < dim; c += 2) {
        double k0 = kt[c * BN + lane], k1 = kt[(c + 1) * BN + lane];
        for (int r = 0; r < ROWS; r++) {
            double2 qq = *reinterpret_cast<const double2 *>(&qs[(warp * ROWS + r) * dim + c]);
            s[r] = fma(qq.x, k0, s[r]);
            s[r] = fma(qq.y, k1, s[r]);
        }
    }
}

// NC: output columns per lane (dim <= 32 * NC).
template <int NC>
__global__ void __launch_bounds__(WARPS * 32)
attention_fp64(const uint16_t *q, const uint16_t *k, const uint16_t *v, double *out, int sq, int skv,
               int dim, int causal, double scale, int q_tiles)
{
    extern __shared__ __align__(16) double sm[];   // 16: Q is read as double2
    double *qs = sm;                  // [BM][dim]
    double *kt = qs + BM * dim;       // [dim][BN]
    double *vs = kt + dim * BN;       // [BN][dim]
    double *ps = vs + BN * dim;       // [WARPS][ROWS][BN]: the warp's probabilities of the tile
    const long long bh = blockIdx.x / q_tiles;
    const int row0 = (int)(blockIdx.x % q_tiles) * BM;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint16_t *qh = q + bh * sq * dim, *kh = k + bh * skv * dim, *vh = v + bh * skv * dim;

    for (int i = threadIdx.x; i < BM * dim; i += blockDim.x) {
        int r = i / dim, c = i % dim;
        qs[i] = row0 + r < sq ? to_double(qh[(long long)(row0 + r) * dim + c]) : 0.0;
    }
    int nvis[ROWS];   // keys each of the warp's rows sees (0 past the last row)
    for (int r = 0; r < ROWS; r++) {
        int row = row0 + warp * ROWS + r;
        nvis[r] = row < sq ? visible(row, sq, skv, causal) : 0;
    }
    int last_row = row0 + BM - 1 < sq ? row0 + BM - 1 : sq - 1;
    int keys = visible(last_row, sq, skv, causal);   // the most any row of the block sees

    // pass 1: each row's largest scaled score
    double mx[ROWS];
    for (int r = 0; r < ROWS; r++) mx[r] = -INFINITY;
    for (int j0 = 0; j0 < keys; j0 += BN) {
        __syncthreads();
        for (int i = threadIdx.x; i < BN * dim; i += blockDim.x) {
            int jj = i % BN, c = i / BN;
            kt[c * BN + jj] = j0 + jj < skv ? to_double(kh[(long long)(j0 + jj) * dim + c]) : 0.0;
        }
        __syncthreads();
        double s[ROWS];
        scores(qs, kt, dim, warp, lane, s);
        for (int r = 0; r < ROWS; r++)
            if (j0 + lane < nvis[r]) mx[r] = fmax(mx[r], s[r] * scale);
    }
    for (int r = 0; r < ROWS; r++)
        for (int off = 16; off > 0; off /= 2) mx[r] = fmax(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], off));

    // pass 2: p = exp(score - max), its sum, and P·V in key order
    double sum[ROWS], o[ROWS][NC];
    for (int r = 0; r < ROWS; r++) {
        sum[r] = 0.0;
        for (int c = 0; c < NC; c++) o[r][c] = 0.0;
    }
    double *pw = ps + warp * ROWS * BN;
    for (int j0 = 0; j0 < keys; j0 += BN) {
        __syncthreads();
        for (int i = threadIdx.x; i < BN * dim; i += blockDim.x) {
            int jj = i % BN, c = i / BN;
            bool in = j0 + jj < skv;
            kt[c * BN + jj] = in ? to_double(kh[(long long)(j0 + jj) * dim + c]) : 0.0;
            int jv = i / dim, cv = i % dim;
            vs[i] = j0 + jv < skv ? to_double(vh[(long long)(j0 + jv) * dim + cv]) : 0.0;
        }
        __syncthreads();
        double s[ROWS];
        scores(qs, kt, dim, warp, lane, s);
        for (int r = 0; r < ROWS; r++) {
            double p = j0 + lane < nvis[r] ? exp(s[r] * scale - mx[r]) : 0.0;
            sum[r] += p;
            pw[r * BN + lane] = p;
        }
        __syncwarp();
        int tile_keys = keys - j0 < BN ? keys - j0 : BN;
        for (int jj = 0; jj < tile_keys; jj++) {
            double p[ROWS];
            for (int r = 0; r < ROWS; r++) p[r] = pw[r * BN + jj];
            for (int c = 0; c < NC; c++) {
                int col = lane + 32 * c;
                double vv = col < dim ? vs[jj * dim + col] : 0.0;
                for (int r = 0; r < ROWS; r++) o[r][c] = fma(p[r], vv, o[r][c]);
            }
        }
        __syncwarp();
    }
    for (int r = 0; r < ROWS; r++)
        for (int off = 16; off > 0; off /= 2) sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], off);
    for (int r = 0; r < ROWS; r++) {
        int row = row0 + warp * ROWS + r;
        if (row >= sq) continue;
        double *orow = out + (bh * sq + row) * dim;
        for (int c = 0; c < NC; c++) {
            int col = lane + 32 * c;
            if (col < dim) orow[col] = nvis[r] > 0 ? o[r][c] / sum[r] : 0.0;
        }
    }
}

template <int NC>
cudaError_t launch(const attn_shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                   double *out, cudaStream_t stream)
{
    size_t smem = smem_bytes(s->head_dim);
    cudaError_t e = cudaFuncSetAttribute(attention_fp64<NC>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    int q_tiles = (s->seq_q + BM - 1) / BM;
    long long blocks = (long long)s->batch * s->heads * q_tiles;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    attention_fp64<NC><<<(unsigned)blocks, WARPS * 32, smem, stream>>>(
        q, k, v, out, s->seq_q, s->seq_kv, s->head_dim, s->causal, (double)s->scale, q_tiles);
    return cudaGetLastError();
}

const char *unsupported(const attn_shape *s)
{
    if (s->head_dim < 2 || s->head_dim > MAX_DIM || s->head_dim % 2)
        return "the GPU reference computes even head_dim up to 192";
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
        (size_t)optin < smem_bytes(s->head_dim))
        return "the GPU reference's shared memory does not fit this GPU at this head_dim";
    return nullptr;
}

int attention(const attn_shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v, double *out,
              cudaStream_t stream)
{
    switch ((s->head_dim + 31) / 32) {
    case 1: return launch<1>(s, q, k, v, out, stream);
    case 2: return launch<2>(s, q, k, v, out, stream);
    case 3: return launch<3>(s, q, k, v, out, stream);
    case 4: return launch<4>(s, q, k, v, out, stream);
    case 5: return launch<5>(s, q, k, v, out, stream);
    case 6: return launch<6>(s, q, k, v, out, stream);
    }
    return cudaErrorInvalidValue;
}

// ---- the comparison: compare_output's arithmetic, one partial per block --------------

constexpr int CMP_THREADS = 256;

__device__ void merge(attn_reference_gpu_partial *a, const attn_reference_gpu_partial *b)
{
    a->sum_d2 += b->sum_d2;
    a->sum_r2 += b->sum_r2;
    a->nonfinite += b->nonfinite;
    a->checked += b->checked;
    if (b->max_abs > a->max_abs || (b->max_abs == a->max_abs && b->worst < a->worst)) {
        a->max_abs = b->max_abs;
        a->worst = b->worst;
    }
}

// A fixed grid and a fixed tree: the same inputs give the same bits every time.
__global__ void __launch_bounds__(CMP_THREADS)
compare_kernel(const uint16_t *out, const double *ref, size_t n, attn_reference_gpu_partial *parts)
{
    __shared__ attn_reference_gpu_partial acc[CMP_THREADS];
    attn_reference_gpu_partial a = { 0.0, 0.0, 0.0, 0ull, 0ull, ~0ull };
    for (size_t i = (size_t)blockIdx.x * CMP_THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * CMP_THREADS) {
        double o = (double)__half2float(__ushort_as_half(out[i])), r = ref[i];
        a.checked++;
        if (!isfinite(o) || !isfinite(r)) {
            a.nonfinite++;
            continue;
        }
        double d = o - r;
        a.sum_d2 += d * d;
        a.sum_r2 += r * r;
        if (fabs(d) > a.max_abs || (fabs(d) == a.max_abs && i < a.worst)) {
            a.max_abs = fabs(d);
            a.worst = i;
        }
    }
    acc[threadIdx.x] = a;
    __syncthreads();
    for (int w = CMP_THREADS / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) merge(&acc[threadIdx.x], &acc[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0) parts[blockIdx.x] = acc[0];
}

int compare(const uint16_t *out, const double *ref, size_t n, attn_reference_gpu_partial *parts,
            cudaStream_t stream)
{
    compare_kernel<<<ATTN_REFERENCE_GPU_PARTIALS, CMP_THREADS, 0, stream>>>(out, ref, n, parts);
    return cudaGetLastError();
}

__global__ void gather_kernel(const double *ref, const size_t *rows, size_t nrows, int dim, double *out)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nrows * dim; i += (size_t)gridDim.x * blockDim.x)
        out[i] = ref[rows[i / dim] * dim + i % dim];
}

int gather_rows(const double *ref, const size_t *rows, size_t nrows, int head_dim, double *out,
                cudaStream_t stream)
{
    if (nrows == 0) return cudaSuccess;
    gather_kernel<<<256, 256, 0, stream>>>(ref, rows, nrows, head_dim, out);
    return cudaGetLastError();
}

const char *error_string(int code) { return cudaGetErrorString((cudaError_t)code); }

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_reference_gpu attn_reference_gpu_entry = {
    ATTN_REFERENCE_GPU_VERSION, unsupported, attention, compare, gather_rows, error_string,
};
