// Throughput of ex2.approx.f32 against ex2.approx.f16x2 (per SM and clock), and their SASS
// (run 16's probe; round.sh ran it from a copy built with `nvcc -O3 -arch=sm_90a`).
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
__device__ __forceinline__ float ex2f(float x) { float y; asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ unsigned ex2h2(unsigned x) { unsigned y; asm volatile("ex2.approx.f16x2 %0, %1;" : "=r"(y) : "r"(x)); return y; }
__global__ void k_f32(float *out, int iters) {
    float x[8];
    for (int i = 0; i < 8; ++i) x[i] = -0.001f * (threadIdx.x + i);
    for (int it = 0; it < iters; ++it)
#pragma unroll
        for (int i = 0; i < 8; ++i) x[i] = ex2f(x[i]) - 1.0f;
    float s = 0; for (int i = 0; i < 8; ++i) s += x[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void k_f16x2(float *out, int iters) {
    unsigned x[8];
    for (int i = 0; i < 8; ++i) { __half2 h = __floats2half2_rn(-0.001f * threadIdx.x, -0.002f * i); x[i] = *(unsigned *)&h; }
    const __half2 one = __floats2half2_rn(1.f, 1.f);
    for (int it = 0; it < iters; ++it)
#pragma unroll
        for (int i = 0; i < 8; ++i) { unsigned y = ex2h2(x[i]); __half2 h = __hsub2(*(__half2 *)&y, one); x[i] = *(unsigned *)&h; }
    float s = 0; for (int i = 0; i < 8; ++i) s += __low2float(*(__half2 *)&x[i]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main() {
    int sms, clk; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    float *out; cudaMalloc(&out, sizeof(float) * sms * 8 * 1024);
    const int iters = 4096, blocks = sms * 8, threads = 256;
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int k = 0; k < 2; ++k) for (int rep = 0; rep < 3; ++rep) {
        cudaEventRecord(a);
        if (k == 0) k_f32<<<blocks, threads>>>(out, iters); else k_f16x2<<<blocks, threads>>>(out, iters);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        double instr = (double)blocks * threads * iters * 8;   // ex2 instructions (f16x2: two values each)
        printf("%s rep %d: %.3f ms, %.2f ex2 instructions per SM per clock at %d MHz (values: x%d)\n",
               k ? "f16x2" : "f32  ", rep, ms, instr / (ms * 1e-3) / sms / (clk * 1e3), clk / 1000, k ? 2 : 1);
    }
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
