// cp_async.cuh: the sm_80+ asynchronous global -> shared copy (LDGSTS). A copy is issued
// and forgotten; the issuing thread later waits on its own commit groups, and a block
// barrier after the wait makes every thread's copies visible to every other thread.
#pragma once
#include <cstdint>

namespace cp_async {

// 16 bytes, cached in L2 only (.cg): K/V tiles are shared across blocks through L2 and
// read once per block from shared memory, so L1 would only be polluted. src_bytes is 16
// or 0; with 0 nothing is read and the 16 bytes are zero-filled (ragged tails).
__device__ __forceinline__ void copy16(void *dst_smem, const void *src_gmem, int src_bytes)
{
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(dst_smem));
    const size_t src = __cvta_generic_to_global(src_gmem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Wait until at most N of this thread's committed groups are still in flight.
template <int N> __device__ __forceinline__ void wait()
{
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

}  // namespace cp_async
