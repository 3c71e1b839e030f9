// async_copy.cuh: the copy and barrier primitives the producer warp and the consumer
// warps talk through. An mbarrier completes a phase when its expected arrivals (and, on
// sm_90, its expected transaction bytes) are in; a waiter names the phase by its parity.
//
// sm_80/89: 16-byte cp.async per lane, and cp.async.mbarrier.arrive.noinc, which counts
// as that lane's arrival once all of its earlier copies have landed.
// sm_90: cp.async.bulk.tensor, one instruction per half-tile from one lane, whose bytes
// complete_tx on the mbarrier; the copy engine does the address work and the zero fill.
#pragma once
#include <cstdint>

namespace async_copy {

__device__ __forceinline__ uint32_t smem(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" :: "r"(smem(bar)), "r"(count) : "memory");
}

// Plain arrival; release semantics order this thread's earlier shared-memory accesses.
__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared.b64 state, [%0];\n}\n"
                 :: "r"(smem(bar)) : "memory");
}

// Block until the phase of the given parity has completed (acquire).
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    uint32_t done;
    do {
#if __CUDA_ARCH__ >= 900
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(smem(bar)), "r"(parity) : "memory");
#else
        asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(smem(bar)), "r"(parity) : "memory");
#endif
    } while (!done);
}

// 16 bytes global -> shared through L2 only; src_bytes 0 zero-fills the destination.
__device__ __forceinline__ void copy16(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(smem(dst)), "l"(__cvta_generic_to_global(src)), "r"(src_bytes) : "memory");
}

// This lane's arrival on bar, triggered when its earlier cp.async copies complete.
__device__ __forceinline__ void copies_arrive(uint64_t *bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" :: "r"(smem(bar)) : "memory");
}

__device__ __forceinline__ void copies_drain() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

#if __CUDA_ARCH__ >= 900
// Lane's arrival that also raises the phase's expected transaction bytes.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n"
                 :: "r"(smem(bar)), "r"(bytes) : "memory");
}

// One box of a 3-d tensor map (x = element in the row, y = row, z = batch*head) by the
// copy engine; its bytes, out-of-bounds zeros included, complete_tx on bar.
__device__ __forceinline__ void tensor_copy(void *dst, const void *tensor_map, int x, int y, int z,
                                            uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n"
                 :: "r"(smem(dst)), "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(x), "r"(y), "r"(z),
                    "r"(smem(bar))
                 : "memory");
}
#endif

}  // namespace async_copy
