/* plant_hook.cuh: test-only, force-included into the planted copy of a phase
 * (ci/tools/plant_transform.py puts ATTN_PLANT_HOOK() at the entry of every kernel).
 * Every thread of every block spins `attn_plant_cycles_` SM cycles before the kernel's
 * own first statement: all threads the same time, so no role of a warp-specialised kernel
 * starts before another it would wait for. The delay is in cycles, not nanoseconds, so it
 * scales with the SM clock as the kernel's own work does, and the slowdown it plants is a
 * fraction of the kernel's time at any clock. Zero (the default) costs a load and a branch. */
#ifndef ATTNLADDER_PLANT_HOOK_CUH
#define ATTNLADDER_PLANT_HOOK_CUH
#include <cuda_runtime.h>

static __device__ unsigned long long attn_plant_cycles_;

static __device__ __forceinline__ void attn_plant_spin_(void)
{
    unsigned long long c = attn_plant_cycles_;
    if (c == 0) return;
    long long t0 = clock64();
    while ((unsigned long long)(clock64() - t0) < c) {
    }
}

#define ATTN_PLANT_HOOK() attn_plant_spin_()
#endif
