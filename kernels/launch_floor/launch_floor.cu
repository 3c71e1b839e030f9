// launch_floor: an empty kernel behind the phase ABI's struct. Timed by the same code as
// every phase, it is the launch floor of the run: no phase can be faster than one launch.
// It writes no output, so it is no attention implementation: it exports the struct as
// attn_launch_floor_entry, not attn_phase_entry, and the harness loads it by that name
// (kind "floor") and skips its correctness check.
#include <cuda_runtime.h>
#include "attn_phase.h"

namespace {

__global__ void empty_kernel() {}

const char *unsupported(const attn_shape *) { return nullptr; }
size_t workspace_bytes(const attn_shape *) { return 0; }
int init(void **state, const attn_shape *) { *state = nullptr; return 0; }

cudaError_t g_last = cudaSuccess;

int run(void *, const attn_args *args)
{
    empty_kernel<<<1, 32, 0, args->stream>>>();
    g_last = cudaGetLastError();
    return g_last == cudaSuccess ? 0 : 1;
}

void fini(void *) {}

const char *error_string(int code)
{
    if (code == 0) return "empty kernel, one block of 32 threads";
    return cudaGetErrorString(g_last);
}

}  // namespace

extern "C" ATTN_PHASE_EXPORT const attn_phase attn_launch_floor_entry = {
    1, "launch_floor", "Empty kernel: the launch floor", unsupported, workspace_bytes,
    init, run, fini, error_string,
};
