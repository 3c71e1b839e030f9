// rung10.cu: rung 10 whole (frozen), in namespace rung10, for the shapes this rung passes
// on, and the table through which attention.cu calls it (rung10_link::phase, hidden); and
// the path of wgmma_split.cuh, rung 09's kernel (inside rung 10) with its keys split over
// every SM, through a second table (rung10_link::split09).
//
// Rung 10 is included the way it includes the rungs below, but in a translation unit of its
// own: its entry point has C linkage under the ABI's name, attn_phase_entry (it undefines
// the macro that renamed the rungs below it), which in one translation unit with this
// rung's entry would be the same object defined twice. Here its definition is made weak
// (the visibility attribute its ATTN_PHASE_EXPORT spells gains `weak`), so the linker keeps
// this rung's entry, defined in attention.cu, and drops rung 10's; rung 10's functions are
// reached through the table below, not through its entry.
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung10.h"

#define visibility(v) visibility(v), weak
namespace rung10 {
#include "10_latency/attention.cu"
}  // namespace rung10
#undef visibility

#include "wgmma_split.cuh"

namespace rung10_link {
const attn_phase phase = {
    1, "10_latency", "rung 10, as this rung passes shapes on to it",
    rung10::unsupported, rung10::workspace_bytes, rung10::init, rung10::run, rung10::fini, rung10::error_string,
};
const attn_phase split09 = {
    1, "09_tile_scheduling", "rung 09's two-warpgroup kernel, its keys split over every SM",
    rung10::rung09::unsupported, wgmma_split::workspace_bytes, wgmma_split::init, rung10::rung09::run,
    rung10::rung09::fini, rung10::rung09::error_string,
};
bool split09_takes(const attn_shape *s) { return wgmma_split::takes(s); }
}  // namespace rung10_link
