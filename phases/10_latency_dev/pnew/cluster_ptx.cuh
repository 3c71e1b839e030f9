// cluster_ptx.cuh: the thread-block cluster instructions this rung adds to rung 09's
// (hopper_ptx.cuh): the block's rank in its cluster, the cluster barrier in its two halves,
// and a store into another block's shared memory (distributed shared memory).
#pragma once
#include <cstdint>

namespace cluster {

__device__ __forceinline__ uint32_t rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

// The cluster barrier split in two: arrive early, wait late, so that the wait costs nothing
// when every block arrived long before. relaxed: no memory is published by this arrival
// (it only says "this block has started, its shared memory exists").
__device__ __forceinline__ void arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory"); }
// release: this block's earlier stores into other blocks' shared memory are visible to
// them after their wait (acquire).
__device__ __forceinline__ void arrive_release() { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wait_acquire() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }

// The address in block `cta`'s shared memory of what is at `local` in this block's.
__device__ __forceinline__ uint32_t map(uint32_t local, uint32_t cta)
{
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(local), "r"(cta));
    return r;
}

__device__ __forceinline__ void store4(uint32_t addr, float a, float b, float c, float d)
{
    asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};\n" :: "r"(addr), "f"(a), "f"(b), "f"(c), "f"(d)
                 : "memory");
}

}  // namespace cluster

