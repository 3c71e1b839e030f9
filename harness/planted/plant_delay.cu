// plant_delay: a spin kernel of a given length, for the regression gate's planted
// slowdown (test builds only; see harness/measure/planted_slowdown.h). %globaltimer is nanoseconds and does
// not depend on the SM clock, so the delay is the same at any clock.
#include <cuda_runtime.h>

__global__ void spin_ns(long long ns)
{
    if (threadIdx.x != 0) return;
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
}

extern "C" __attribute__((visibility("default"))) int plant_delay_enqueue(cudaStream_t s, long long ns)
{
    spin_ns<<<1, 32, 0, s>>>(ns);
    return cudaGetLastError() != cudaSuccess;
}
