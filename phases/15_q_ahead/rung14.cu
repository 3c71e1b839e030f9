// rung14.cu: rung 14's attention.cu whole (not changed), in namespace rung14, and the table
// through which attention.cu calls it for every shape this rung passes on
// (rung14_link::phase, hidden). Rung 14's attention.cu holds only its rule's dispatch: its
// rung 13 and its short-keys path are its second unit, rung13.cu, linked as rung 14 built
// it, with rung 13's rung12.cu and rung 11's rung10.cu (the Makefile's
// PHASE_LINKS_15_q_ahead).
//
// A unit of its own, as rung 14 holds rung 13: its entry point has C linkage under the
// ABI's name, which in one unit with this rung's entry would be defined twice. Here its
// definition is made weak, so the linker keeps this rung's entry (attention.cu).
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung14.h"
// Rung 14's tables of rung 13 and of its short-keys path, at global scope, as rung 14
// declares them (its include inside namespace rung14 is then empty): they name the
// definitions in rung 14's rung13.cu object.
#include "14_short_keys/rung13.h"

#define visibility(v) visibility(v), weak
namespace rung14 {
#include "14_short_keys/attention.cu"
}  // namespace rung14
#undef visibility

namespace rung14_link {
const attn_phase phase = {
    1, "14_short_keys", "rung 14, as this rung passes shapes on to it",
    rung14::unsupported, rung14::workspace_bytes, rung14::init, rung14::run, rung14::fini, rung14::error_string,
};
}  // namespace rung14_link
