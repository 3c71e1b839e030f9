/* plant_hook.cuh: test-only, force-included into the planted copy of a phase
 * (ci/tools/plant_transform.py puts ATTN_PLANT_HOOK() first in the body of every kernel).
 *
 * The hook declares a guard object: its constructor loads the delay (SM cycles, set at
 * run time; 0 by default) into one register, its destructor spins that many cycles when
 * the thread leaves the kernel by any return. Measured on the H100 (the zero-cycle trials
 * of evidence/nvidia-h100-80gb-hbm3/ab_planted_*.json), what each placement costs at 0:
 *  - load and spin at entry: 1.2-2.6% of a 6 us rung (every block waits for the load
 *    before its first instruction), and under programmatic dependent launch (07) the
 *    spin hid behind the previous launch (5% planted measured -0.2%);
 *  - prefetch at entry, load and spin at exit: 4.7-51% (the load at exit missed and sat
 *    on every block's last step; 02's short softmax kernel doubled in part);
 *  - load at entry, spin at exit (this one): the load's latency hides under the kernel's
 *    work and the spin delays the grid's completion, which a dependent launch waits for.
 *    32 bits, one register, for the tight budgets of 07's producer warps; even so its
 *    two-consumer variants (used at 4x16x4096x128, not at the headline) spill 12-24 bytes
 *    in the planted build, which the zero-cycle trial prices.
 * Every thread spins the same number of cycles; cycles scale with the SM clock as the
 * kernel's own work does, so the plant is a fraction of the kernel's time at any clock. */
#ifndef ATTNLADDER_PLANT_HOOK_CUH
#define ATTNLADDER_PLANT_HOOK_CUH
#include <cuda_runtime.h>

static __device__ unsigned int attn_plant_cycles_;

struct attn_plant_guard {
    unsigned int cycles;
    __device__ __forceinline__ attn_plant_guard() : cycles(attn_plant_cycles_) {}
    __device__ __forceinline__ ~attn_plant_guard()
    {
        if (cycles == 0) return;
        long long t0 = clock64();
        while ((unsigned long long)(clock64() - t0) < (unsigned long long)cycles) {
        }
    }
};

#define ATTN_PLANT_HOOK() attn_plant_guard attn_plant_guard_
#endif
