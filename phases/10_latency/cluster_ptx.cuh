// cluster_ptx.cuh: the thread-block cluster instructions this rung adds to rung 09's
// (hopper_ptx.cuh): the block's rank in its cluster, the cluster barrier in its two halves,
// an asynchronous store into another block's shared memory (distributed shared memory) that
// completes bytes of that block's mbarrier, and a load from this block's shared memory.
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
// acquire: what the other blocks did before their arrival is visible after the wait.
__device__ __forceinline__ void wait_acquire() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }

// The address in block `cta`'s shared memory of what is at `local` in this block's.
__device__ __forceinline__ uint32_t map(uint32_t local, uint32_t cta)
{
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(local), "r"(cta));
    return r;
}

// 16 bytes into another block's shared memory (addr from map) that complete 16 bytes of the
// transaction count of that block's mbarrier (bar, from map too). The receiver waits on its
// own barrier: no cluster barrier, whose release half is a GPU-scope memory barrier
// (MEMBAR.ALL.GPU in the machine code) and whose acquire half invalidates the L1.
__device__ __forceinline__ void store4_async(uint32_t addr, float a, float b, float c, float d, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];\n"
                 :: "r"(addr), "f"(a), "f"(b), "f"(c), "f"(d), "r"(bar) : "memory");
}

// 16 bytes of this block's shared memory by its shared-window address (ld.shared: the
// generic pointer the merge area is reached by compiles to generic loads).
__device__ __forceinline__ float4 lds4(uint32_t addr)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr) : "memory");
    return v;
}

}  // namespace cluster

