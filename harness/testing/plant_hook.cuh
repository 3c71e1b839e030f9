/* plant_hook.cuh: test-only, force-included into the planted copy of a phase
 * (ci/tools/plant_transform.py puts ATTN_PLANT_HOOK() first in the body of every kernel).
 *
 * The hook declares a guard object: its constructor prefetches the delay (SM cycles, set
 * at run time; 0 by default) into L1, its destructor reads it and spins that many cycles
 * when the thread leaves the kernel by any return. Why at exit and not at entry (measured
 * on the H100, evidence/nvidia-h100-80gb-hbm3/ab_planted_20261123T093252Z.json):
 *  - a spin at entry must wait for its own load: even at 0 cycles that cost 1.2-2.6% of a
 *    6 us rung (a global load on every block's critical path), so 1-2% could not be
 *    planted; prefetched at entry and read at exit, the load hits L1. (Held in a register
 *    from entry to exit instead, it made 07's tight register budgets spill.)
 *  - a kernel launched with programmatic dependent launch (07) starts while the previous
 *    one finishes, so a spin at its entry hid under the previous launch (5% planted
 *    measured -0.2%) until it outgrew it; a spin at exit delays the grid's completion,
 *    which the next launch waits for.
 * Every thread spins the same number of cycles; cycles scale with the SM clock as the
 * kernel's own work does, so the plant is a fraction of the kernel's time at any clock. */
#ifndef ATTNLADDER_PLANT_HOOK_CUH
#define ATTNLADDER_PLANT_HOOK_CUH
#include <cuda_runtime.h>

static __device__ unsigned long long attn_plant_cycles_;

struct attn_plant_guard {
    __device__ __forceinline__ attn_plant_guard()
    {
        asm volatile("prefetch.global.L1 [%0];" ::"l"(&attn_plant_cycles_));
    }
    __device__ __forceinline__ ~attn_plant_guard()
    {
        unsigned long long cycles = *(volatile unsigned long long *)&attn_plant_cycles_;
        if (cycles == 0) return;
        long long t0 = clock64();
        while ((unsigned long long)(clock64() - t0) < cycles) {
        }
    }
};

#define ATTN_PLANT_HOOK() attn_plant_guard attn_plant_guard_
#endif
