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

namespace cluster {

// One box of a 3-d tensor map (x = column, y = row, z = batch * heads) into the shared
// memory of every block in `mask` (bit r: the block of rank r), at the same offset in each,
// each block's mbarrier at the same offset counting the bytes it receives. The blocks that
// share a K/V tile each fetch a slice of it for all of them: one read of L2 per tile.
__device__ __forceinline__ void tma_load_3d_multicast(void *dst, const void *tmap, int x, int y, int z, uint64_t *bar,
                                                      uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3, %4}], [%5], %6;\n"
                 :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(dst))),
                    "l"(reinterpret_cast<uint64_t>(tmap)), "r"(x), "r"(y), "r"(z),
                    "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar))), "h"(mask)
                 : "memory");
}

}  // namespace cluster
