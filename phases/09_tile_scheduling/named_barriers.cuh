// named_barriers.cuh: the consumer warpgroups' turns at the tensor cores (ping-pong for
// two, a round robin for three). Warpgroup w issues its MMAs after bar.sync on named
// barrier 1 + w, which warpgroup w - 1 arrives at once it has issued its own, so one
// warpgroup's softmax runs under the others' MMAs. The last warpgroup opens the first turn
// for warpgroup 0 (open); warpgroup 0 takes one more sync at the end for the last
// warpgroup's last arrival (close), so every barrier phase completes exactly (each barrier:
// 128 syncing + 128 arriving). The turns run on across work tiles: every warpgroup of a
// block has the same tiles, and a warpgroup that skips a tile's MMAs still takes its turns.
// One consumer warpgroup takes no turns. Barrier 0 is __syncthreads().
#pragma once

namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
template <int NCONS> struct Turns {
    static constexpr bool ON = NCONS >= 2;
    __device__ __forceinline__ static void open(int wg)
    {
        if constexpr (ON)
            if (wg == NCONS - 1) hopper::named_arrive(1, 256);
    }
    __device__ __forceinline__ static void begin(int wg)
    {
        if constexpr (ON) hopper::named_sync(1 + wg, 256);
    }
    __device__ __forceinline__ static void end(int wg)
    {
        if constexpr (ON) hopper::named_arrive(1 + (wg + 1) % NCONS, 256);
    }
    __device__ __forceinline__ static void close(int wg)
    {
        if constexpr (ON)
            if (wg == 0) hopper::named_sync(1, 256);
    }
};
#endif

}  // namespace
