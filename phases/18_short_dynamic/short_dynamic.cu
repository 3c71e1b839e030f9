// short_dynamic.cu: this rung's path for the shapes dyn_choice.cuh takes: rung 09's
// two-warpgroup ping-pong on 128-key tiles with the dynamic tile scheduler (the kernel the
// causal shapes run, with rung 16's step descriptors), through a table
// (shortdyn_link::path) that attention.cu calls.
//
// The kernel, the choice and the launch are rung 09's, reached as rung 14 reaches them:
// this unit holds rung 13 whole (not changed), in namespace rung13, with this rung's
// include path (overlay/: rung 16's build of rung 09's kernels), so rung 09 is
// rung13::rung09 here. Rung 13's entry is made weak, as rung 14's rung13.cu makes it, so
// the linker keeps this rung's entry (attention.cu); the rung 13 objects the rungs below
// link (rung 16's rung13.cu) stay theirs.
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
#include "short_dynamic.h"
// Rung 13's table of rung 12, at global scope, as rung 13 declares it (its include inside
// namespace rung13 is then empty): it names the definition in rung 13's rung12.cu object.
#include "13_row_blocks/rung12.h"

// Rung 13's init_rows checks its workspace against its own workspace_bytes, named from
// global scope (::workspace_bytes); inside namespace rung13 that name is this one, which
// answers with rung 13's. (This rung does not call init_rows; rung 13 is compiled whole.)
namespace {
size_t workspace_bytes(const attn_shape *s);
}

// Rung 09's renamed entry inside rung 13 is not weak: renamed once more, as rung 15's
// q_ahead.cu renames it, so it is not defined twice beside rung 16's rung13.cu object.
#define visibility(v) visibility(v), weak
#define attn_phase_entry_09_13 attn_phase_entry_09_18
namespace rung13 {
#include "13_row_blocks/attention.cu"
}  // namespace rung13
#undef attn_phase_entry_09_13
#undef visibility

namespace {
size_t workspace_bytes(const attn_shape *s) { return rung13::workspace_bytes(s); }
}  // namespace

#include "dyn_choice.cuh"

namespace shortdyn_link {
const attn_phase path = {
    1, "09_tile_scheduling", "rung 09's 128-key ping-pong on the dynamic tile scheduler, for 128 keys",
    rung13::rung09::unsupported, short_dynamic::workspace_bytes, short_dynamic::init, rung13::rung09::run,
    rung13::rung09::fini, rung13::rung09::error_string,
};
bool takes(const attn_shape *s) { return short_dynamic::takes(s); }
}  // namespace shortdyn_link
