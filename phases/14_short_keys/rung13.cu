// rung13.cu: rung 13 whole (not changed), in namespace rung13, and the table through which
// attention.cu calls it for every shape this rung passes on (rung13_link::phase, hidden);
// and this rung's own path (key_choice.cuh), rung 09's two-buffer 128-key ping-pong,
// through a second table (rung13_link::short_keys): it needs rung 09's choice and rung
// 13's init_rows, which only a unit holding rung 13 can call.
//
// Rung 13 is compiled in a translation unit of its own, as rung 13 compiles rung 12
// (../13_row_blocks/rung12.cu): its entry point has C linkage under the ABI's name, which
// in one unit with this rung's entry would be defined twice. Here its definition is made
// weak, so the linker keeps this rung's entry (attention.cu) and drops rung 13's. Rung 13's
// own second unit, its rung12.cu, and rung 12's, rung 11's rung10.cu, are linked as those
// rungs built them (the Makefile's PHASE_LINKS_14_short_keys).
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
#include "rung13.h"
// Rung 13's table of rung 12, at global scope, as rung 13 declares it (its include inside
// namespace rung13 is then empty): it names the definition in rung 13's rung12.cu object.
#include "13_row_blocks/rung12.h"

// Rung 13's init_rows checks its workspace against its own workspace_bytes, named from
// global scope (::workspace_bytes, rung 13's when it is its own unit); inside namespace
// rung13 that name is this one, which answers with rung 13's.
namespace {
size_t workspace_bytes(const attn_shape *s);
}

#define visibility(v) visibility(v), weak
namespace rung13 {
#include "13_row_blocks/attention.cu"
}  // namespace rung13
#undef visibility

namespace {
size_t workspace_bytes(const attn_shape *s) { return rung13::workspace_bytes(s); }
}  // namespace

#include "key_choice.cuh"

namespace rung13_link {
const attn_phase phase = {
    1, "13_row_blocks", "rung 13, as this rung passes shapes on to it",
    rung13::unsupported, rung13::workspace_bytes, rung13::init, rung13::run, rung13::fini, rung13::error_string,
};
const attn_phase short_keys = {
    1, "09_tile_scheduling", "rung 09's two-buffer 128-key ping-pong, for at most 128 keys",
    rung13::rung09::unsupported, short_keys::workspace_bytes, short_keys::init, rung13::rung09::run,
    rung13::rung09::fini, rung13::rung09::error_string,
};
bool short_keys_takes(const attn_shape *s) { return short_keys::takes(s); }
}  // namespace rung13_link
