// launch_floor: an empty kernel behind the phase ABI's struct. Timed by the same code as
// every phase, it is the launch floor of the run: no phase can be faster than one launch.
// It writes no output, so it is no attention implementation: it exports the struct as
// attn_launch_floor_entry, not attn_phase_entry, and the harness loads it by that name
// (kind "floor") and skips its correctness check.
//
// Beside it, the read floor: attn_read_stream streams a buffer through every SM and writes
// nothing but a sink no one reads, so its rate is the device's read-only ceiling. A copy
// (the copy ceiling) writes as many bytes as it reads; a decode step only reads K and V, and
// cold reads pass the copy's rate. The harness times this over a buffer far beyond the L2
// (measure/ceilings.c) so that every GB/s figure has a ceiling of its own kind.
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
#include "attn_phase.h"

namespace {

__global__ void empty_kernel() {}

const char *unsupported(const attn_shape *) { return nullptr; }
size_t workspace_bytes(const attn_shape *) { return 0; }
int init(void **state, const attn_shape *) { *state = nullptr; return 0; }

cudaError_t g_last = cudaSuccess;

int run(void *, const attn_args *args)
{
    empty_kernel<<<1, 32, 0, args->stream>>>();
    g_last = cudaGetLastError();
    return g_last == cudaSuccess ? 0 : 1;
}

void fini(void *) {}

const char *error_string(int code)
{
    if (code == 0) return "empty kernel, one block of 32 threads";
    return cudaGetErrorString(g_last);
}

// Each thread keeps READ_UNROLL 16-byte loads in flight (the loads of one step do not wait
// for one another), over a grid of a few blocks per SM: the memory system, not the issue
// rate, bounds it. The XOR of everything read goes to sink only when `keep` is set, which the
// compiler cannot know, so no load is dropped; the harness passes keep = 0.
constexpr int READ_THREADS = 512;
constexpr int READ_UNROLL = 4;
constexpr int READ_BLOCKS_PER_SM = 4;

__global__ void __launch_bounds__(READ_THREADS) read_kernel(const uint4 *__restrict__ src, size_t n,
                                                            unsigned long long *sink, int keep)
{
    const size_t stride = (size_t)gridDim.x * READ_THREADS;
    size_t i = (size_t)blockIdx.x * READ_THREADS + threadIdx.x;
    unsigned acc = 0;
    for (; i + (READ_UNROLL - 1) * stride < n; i += READ_UNROLL * stride) {
        uint4 v[READ_UNROLL];
#pragma unroll
        for (int u = 0; u < READ_UNROLL; u++) v[u] = __ldcs(src + i + u * stride);
#pragma unroll
        for (int u = 0; u < READ_UNROLL; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n; i += stride) {
        uint4 v = __ldcs(src + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (keep) atomicXor(sink, (unsigned long long)acc);
}

}  // namespace

// 0, or the CUDA error of the launch. bytes: a multiple of 16 (the buffer is read in 16-byte
// words; the tail below 16 bytes is not read); src 16-byte aligned (cudaMalloc's is).
extern "C" ATTN_PHASE_EXPORT int attn_read_stream(const void *src, size_t bytes, unsigned long long *sink,
                                                  cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return (int)e;
    read_kernel<<<sms * READ_BLOCKS_PER_SM, READ_THREADS, 0, stream>>>(
        static_cast<const uint4 *>(src), bytes / sizeof(uint4), sink, 0);
    return (int)cudaGetLastError();
}

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_launch_floor_entry = {
    1, "launch_floor", "Empty kernel: the launch floor", unsupported, workspace_bytes,
    init, run, fini, error_string,
};
