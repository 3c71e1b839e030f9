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

// An asynchronous store into another block's shared memory (addr from map) that completes
// 16 bytes of the transaction count of that block's mbarrier (bar, from map too): the
// receiver waits on its own barrier, no cluster barrier and no memory fence.
__device__ __forceinline__ void store4_async(uint32_t addr, float a, float b, float c, float d, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];\n"
                 :: "r"(addr), "f"(a), "f"(b), "f"(c), "f"(d), "r"(bar) : "memory");
}

__device__ __forceinline__ void store4u_async(uint32_t addr, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];\n"
                 :: "r"(addr), "r"(a), "r"(b), "r"(c), "r"(d), "r"(bar) : "memory");
}

// 16 bytes of this block's shared memory (a shared-window address: ld.shared, not a generic load).
__device__ __forceinline__ float4 lds4(uint32_t addr)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr) : "memory");
    return v;
}
__device__ __forceinline__ uint4 lds4u(uint32_t addr)
{
    uint4 v;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr) : "memory");
    return v;
}

}  // namespace cluster

