// pieces.cu: the Hopper pieces this rung builds on, each checked alone on the GPU before the kernel uses
// them (test-only; `make hopper-pieces`, never part of `make build` or `make run`):
//   1. a copy-engine tile load into 128-byte-swizzled shared memory completing on an
//      mbarrier, rows past the tensor's end zero-filled, against the layout rule;
//   2. wgmma m64n128k16, both operands K-major from shared memory (S = Q K^T, K = 128:
//      eight k slices over two 64-column chunks), against a CPU fp64 product;
//   3. wgmma m64nNk16 with A from registers and B MN-major from shared memory (O = P V),
//      N = 128 and 64, against a CPU fp64 product.
// Exit status 0 when every piece passes.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "hopper_ptx.cuh"

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)

static PFN_cuTensorMapEncodeTiled_v12000 g_encode;

// [planes][rows][cols] fp16, box of box_rows x 64 columns, 128-byte swizzle (the kernel's maps).
static CUtensorMap make_map(const void *base, int planes, int rows, int cols, int box_rows)
{
    CUtensorMap m;
    cuuint64_t dims[3] = {(cuuint64_t)cols, (cuuint64_t)rows, (cuuint64_t)planes};
    cuuint64_t strides[2] = {(cuuint64_t)cols * 2, (cuuint64_t)rows * cols * 2};
    cuuint32_t box[3] = {64, (cuuint32_t)box_rows, 1};
    cuuint32_t step[3] = {1, 1, 1};
    CUresult r = g_encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, const_cast<void *>(base), dims, strides, box,
                          step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", (int)r);
        exit(2);
    }
    return m;
}

// Loads `chunks` boxes (columns x + 64c.., rows y.., plane z) one after the other into
// smem (each box_rows * 128 bytes) on one mbarrier; thread 0 issues, everyone waits.
__device__ void load_tiles(unsigned char *dst, const CUtensorMap *m, int chunks, int box_rows, int x, int y, int z,
                           uint64_t *bar)
{
    if (threadIdx.x == 0) {
        hopper::mbar_init(bar, 1);
        hopper::fence_barrier_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        hopper::mbar_arrive_expect_tx(bar, chunks * box_rows * 128);
        for (int c = 0; c < chunks; ++c) hopper::tma_load_3d(dst + c * box_rows * 128, m, x + 64 * c, y, z, bar);
    }
    hopper::mbar_wait(bar, 0);
}

// ---- 1. TMA: dump the raw shared-memory bytes of one box ----
__global__ void k_tma(const __grid_constant__ CUtensorMap m, int x, int y, int z, __half *out)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(1024) unsigned char tile[64 * 128];
    __shared__ uint64_t bar;
    load_tiles(tile, &m, 1, 64, x, y, z, &bar);
    const __half *t = reinterpret_cast<const __half *>(tile);
    #pragma unroll
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) out[i] = t[i];
#endif
}

// ---- 2. SS: S[64][128] = A[64][128] B[128][128]^T ----
__global__ void k_ss(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb, float *out)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char raw[];
    unsigned char *sm = reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
    unsigned char *a = sm, *b = sm + 2 * 64 * 128;
    __shared__ uint64_t bars[2];
    load_tiles(a, &ma, 2, 64, 0, 0, 0, &bars[0]);
    load_tiles(b, &mb, 2, 128, 0, 0, 0, &bars[1]);
    float d[64];
    #pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.f;
    hopper::wgmma_fence();
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
        const uint32_t off = (kk % 4) * 32;
        const uint64_t da = hopper::make_desc(hopper::smem_u32(a) + (kk / 4) * 64 * 128 + off, 16, 1024);
        const uint64_t db = hopper::make_desc(hopper::smem_u32(b) + (kk / 4) * 128 * 128 + off, 16, 1024);
        hopper::mma_ss_n128(d, da, db, kk > 0);
    }
    hopper::wgmma_commit();
    hopper::wgmma_wait<0>();
    hopper::reg_fence(d);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    #pragma unroll
    for (int g = 0; g < 16; ++g)
        #pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int row = 16 * warp + lane / 4 + 8 * (r / 2), col = 8 * g + 2 * (lane % 4) + r % 2;
            out[row * 128 + col] = d[4 * g + r];
        }
#endif
}

// ---- 3. RS: O[64][N] = P[64][128] V[128][N], P from registers ----
template <int N>
__global__ void k_rs(const __half *p, const __grid_constant__ CUtensorMap mv, float *out)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char raw[];
    unsigned char *v = reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
    __shared__ uint64_t bar;
    load_tiles(v, &mv, N / 64, 128, 0, 0, 0, &bar);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // The A fragment: a[0] (row g, k 2t..2t+1), a[1] (row g+8), a[2] (row g, k 8+2t), a[3] (row g+8, k 8+2t).
    uint32_t a[32];
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk)
        #pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int row = 16 * warp + lane / 4 + 8 * (r % 2), k = 16 * kk + 8 * (r / 2) + 2 * (lane % 4);
            __half2 h = *reinterpret_cast<const __half2 *>(p + row * 128 + k);
            a[4 * kk + r] = *reinterpret_cast<uint32_t *>(&h);
        }
    float d[N / 2];
    #pragma unroll
    for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
    hopper::wgmma_fence();
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
        const uint64_t db = hopper::make_desc(hopper::smem_u32(v) + kk * 16 * 128, 128 * 128, 1024);
        const uint32_t ak[4] = {a[4 * kk], a[4 * kk + 1], a[4 * kk + 2], a[4 * kk + 3]};
        if constexpr (N == 128) hopper::mma_rs_n128(d, ak, db, 1);
        else hopper::mma_rs_n64(d, ak, db, 1);
    }
    hopper::wgmma_commit();
    hopper::wgmma_wait<0>();
    hopper::reg_fence(d);
    #pragma unroll
    for (int g = 0; g < N / 8; ++g)
        #pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int row = 16 * warp + lane / 4 + 8 * (r / 2), col = 8 * g + 2 * (lane % 4) + r % 2;
            out[row * N + col] = d[4 * g + r];
        }
#endif
}

static float frand(unsigned &s)
{
    s = s * 1664525u + 1013904223u;
    return ((s >> 8) & 0xFFFF) / 32768.f - 1.f;
}

static int report(const char *what, const std::vector<double> &ref, const std::vector<float> &got)
{
    double num = 0, den = 0, mx = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double e = (double)got[i] - ref[i];
        num += e * e;
        den += ref[i] * ref[i];
        mx = fmax(mx, fabs(e));
        if (!std::isfinite(got[i])) mx = INFINITY;
    }
    const double rel = sqrt(num / den);
    const bool ok = rel < 1e-5 && mx < 1e-3;
    printf("%-58s rel-L2 %.2e  max-abs %.2e  %s\n", what, rel, mx, ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

int main()
{
    cudaDriverEntryPointQueryResult found;
    void *fn = nullptr;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess) return 2;
    g_encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    int fails = 0;
    unsigned seed = 12345u;

    // 1. TMA: tensor [2][100][128]; box at columns 64.., rows 64.. (36 real rows, 28 past
    // the end), plane 1. Expected: element (r, c) of the box at half index
    // r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8; rows >= 36 zero.
    {
        const int P = 2, R = 100, Cc = 128;
        std::vector<__half> h(P * R * Cc);
        for (int i = 0; i < P * R * Cc; ++i) h[i] = __float2half((float)(i % 2039) - 1000.f);
        __half *dg, *dout;
        CK(cudaMalloc(&dg, h.size() * 2));
        CK(cudaMalloc(&dout, 64 * 64 * 2));
        CK(cudaMemcpy(dg, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
        CUtensorMap m = make_map(dg, P, R, Cc, 64);
        k_tma<<<1, 128>>>(m, 64, 64, 1, dout);
        CK(cudaGetLastError());
        std::vector<__half> got(64 * 64);
        CK(cudaMemcpy(got.data(), dout, got.size() * 2, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int r = 0; r < 64; ++r)
            for (int c = 0; c < 64; ++c) {
                const int y = 64 + r;
                const float want = y < R ? __half2float(h[(1 * R + y) * Cc + 64 + c]) : 0.f;
                const float g = __half2float(got[r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8]);
                if (g != want) ++bad;
            }
        printf("%-58s %d of 4096 elements wrong  %s\n", "1. TMA box -> 128B-swizzled smem, tail rows zero", bad,
               bad ? "FAIL" : "PASS");
        fails += bad != 0;
        CK(cudaFree(dg));
        CK(cudaFree(dout));
    }

    // 2. SS: A [64][128], B [128][128] (rows = N), S = A B^T.
    {
        std::vector<__half> A(64 * 128), B(128 * 128);
        for (auto &x : A) x = __float2half(frand(seed));
        for (auto &x : B) x = __float2half(frand(seed));
        std::vector<double> ref(64 * 128);
        for (int i = 0; i < 64; ++i)
            for (int j = 0; j < 128; ++j) {
                double s = 0;
                for (int k = 0; k < 128; ++k) s += (double)__half2float(A[i * 128 + k]) * __half2float(B[j * 128 + k]);
                ref[i * 128 + j] = s;
            }
        __half *da, *db;
        float *dout;
        CK(cudaMalloc(&da, A.size() * 2));
        CK(cudaMalloc(&db, B.size() * 2));
        CK(cudaMalloc(&dout, ref.size() * 4));
        CK(cudaMemcpy(da, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
        CUtensorMap ma = make_map(da, 1, 64, 128, 64), mb = make_map(db, 1, 128, 128, 128);
        const int smem = 1024 + 2 * 64 * 128 + 2 * 128 * 128;
        CK(cudaFuncSetAttribute(k_ss, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        k_ss<<<1, 128, smem>>>(ma, mb, dout);
        CK(cudaGetLastError());
        std::vector<float> got(ref.size());
        CK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
        fails += report("2. wgmma m64n128k16 SS (K-major A, B; K = 128) vs fp64", ref, got);
        CK(cudaFree(da));
        CK(cudaFree(db));
        CK(cudaFree(dout));
    }

    // 3. RS: P [64][128] in registers, V [128][N] MN-major, O = P V.
    for (int N : {128, 64}) {
        std::vector<__half> Pm(64 * 128), V(128 * N);
        for (auto &x : Pm) x = __float2half(frand(seed));
        for (auto &x : V) x = __float2half(frand(seed));
        std::vector<double> ref(64 * N);
        for (int i = 0; i < 64; ++i)
            for (int j = 0; j < N; ++j) {
                double s = 0;
                for (int k = 0; k < 128; ++k) s += (double)__half2float(Pm[i * 128 + k]) * __half2float(V[k * N + j]);
                ref[i * N + j] = s;
            }
        __half *dp, *dv;
        float *dout;
        CK(cudaMalloc(&dp, Pm.size() * 2));
        CK(cudaMalloc(&dv, V.size() * 2));
        CK(cudaMalloc(&dout, ref.size() * 4));
        CK(cudaMemcpy(dp, Pm.data(), Pm.size() * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dv, V.data(), V.size() * 2, cudaMemcpyHostToDevice));
        CUtensorMap mv = make_map(dv, 1, 128, N, 128);
        const int smem = 1024 + 128 * N * 2;
        std::vector<float> got(ref.size());
        if (N == 128) {
            CK(cudaFuncSetAttribute(k_rs<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
            k_rs<128><<<1, 128, smem>>>(dp, mv, dout);
        } else {
            CK(cudaFuncSetAttribute(k_rs<64>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
            k_rs<64><<<1, 128, smem>>>(dp, mv, dout);
        }
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
        char what[80];
        snprintf(what, sizeof what, "3. wgmma m64n%dk16 RS (A in registers, B MN-major) vs fp64", N);
        fails += report(what, ref, got);
        CK(cudaFree(dp));
        CK(cudaFree(dv));
        CK(cudaFree(dout));
    }
    printf("pieces: %s\n", fails ? "FAIL" : "all pass");
    return fails ? 1 : 0;
}
