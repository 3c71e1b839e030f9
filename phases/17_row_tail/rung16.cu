// rung16.cu: rung 16's attention.cu whole (not changed), and the table through which this
// rung's attention.cu calls it for every shape this rung passes on (rung16_link::phase,
// hidden). Rung 16's attention.cu holds rung 15's dispatch and its note mark; the kernels it
// reaches are in row_tail.cu (rung 15's q_ahead.cu, as rung 16 compiles it) and in rung 16's
// rung13.cu and rung10.cu objects, linked as rung 16 built them.
//
// A unit of its own, as rung 15 holds rung 14: rung 16's entry point has C linkage under the
// ABI's name, which in one unit with this rung's entry would be defined twice. Here its
// definition is made weak, so the linker keeps this rung's entry (attention.cu).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "attn_phase.h"
#include "rung16.h"

#define visibility(v) visibility(v), weak
#include "16_step_descriptors/attention.cu"
#undef visibility

namespace rung16_link {
const attn_phase phase = {
    1, "16_step_descriptors", "rung 16, as this rung passes shapes on to it",
    rung15::unsupported, rung15::workspace_bytes, rung15::init, rung15::run, rung15::fini, rung16::error_string,
};
}  // namespace rung16_link
